// Every view exported as a figure, headless, with real numbers: each SVG is read back with the
// tests' strict XML reader and its cells (and the Lines view's lines) are checked against the
// trace they show (within 1e-6) and their fill against the colour map; PNGs are drawn at a scale.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <thread>

#include "analysis/lecture.h"
#include "analysis/stats.h"
#include "base/file_io.h"
#include "render/figure.h"
#include "state/file_actions.h"
#include "state/model_source.h"
#include "state/view_figure.h"
#include "support/app_settle.h"
#include "support/check_util.h"
#include "support/xml_reader.h"
#include "views/lines/lines_palette.h"
#include "views/train/train_actions.h"

namespace attnviz {
namespace {

using test::has;

struct SvgCell {
  std::string panel;
  int row = 0, col = 0;
  float value = 0;
  std::string fill, stroke;
};

struct SvgRead {
  XmlElement root;
  std::vector<SvgCell> cells, links;
  std::string text;  // every <text>'s characters, one per line
};

std::string hex(Rgba c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

SvgCell cell_of(const XmlElement& e) {
  SvgCell c;
  c.panel = *e.attribute("data-panel");
  c.row = std::stoi(*e.attribute("data-row"));
  c.col = std::stoi(*e.attribute("data-col"));
  c.value = std::stof(*e.attribute("data-value"));
  if (const std::string* f = e.attribute("fill")) c.fill = *f;
  if (const std::string* f = e.attribute("stroke")) c.stroke = *f;
  return c;
}

// Builds the view's figure, writes its SVG, reads it back (strictly) and draws its PNG at 1.5.
SvgRead export_view(AppState& app, View v) {
  app.view = v;
  auto fig = view_figure(app, v, nullptr);
  REQUIRE_MESSAGE(fig.ok(), fig.error());
  const std::string svg = figure_svg(*fig, nullptr);
  auto root = xml_parse(svg);
  REQUIRE_MESSAGE(root.ok(), root.error());
  SvgRead out{std::move(*root), {}, {}, {}};
  REQUIRE(out.root.name == "svg");
  std::vector<const XmlElement*> found;
  xml_find_all(out.root, "rect", found);
  for (const XmlElement* e : found)
    if (e->attribute("class") && *e->attribute("class") == "cell") out.cells.push_back(cell_of(*e));
  found.clear();
  xml_find_all(out.root, "polyline", found);
  for (const XmlElement* e : found)
    if (e->attribute("class") && *e->attribute("class") == "link") out.links.push_back(cell_of(*e));
  found.clear();
  xml_find_all(out.root, "text", found);
  for (const XmlElement* e : found) out.text += xml_all_text(*e) + "\n";
  auto png = figure_raster(*fig, nullptr, 1.5f);
  REQUIRE_MESSAGE(png.ok(), png.error());
  CHECK(png->width == static_cast<int>(std::ceil(fig->width * 1.5f)));
  return out;
}

// The cells of one panel id, checked against a matrix (value within 1e-6, fill from the map).
int check_panel(const SvgRead& svg, const std::string& panel, const Mat& m, Colormap cmap, float vmin, float vmax) {
  int n = 0;
  for (const SvgCell& c : svg.cells) {
    if (c.panel != panel) continue;
    ++n;
    CAPTURE(panel);
    CAPTURE(c.row);
    CAPTURE(c.col);
    REQUIRE(c.row < m.rows());
    REQUIRE(c.col < m.cols());
    CHECK(std::abs(c.value - m(c.row, c.col)) <= 1e-6f);
    CHECK(c.fill == hex(colormap_sample(cmap, (m(c.row, c.col) - vmin) * (1.0f / (vmax - vmin)))));  // as the grid maps it
  }
  CHECK(n == m.size());
  return n;
}

TEST_CASE("view figures: Heads, Model view, Lines, Step by step and Statistics export the trace they show") {
  AppState app;  // the default sandbox sentence, the paper's base model with two layers
  app.config.n_layers = 2;
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  const Trace& t = *app.trace;
  const int NL = static_cast<int>(t.layers.size()), NH = t.config.n_heads;
  app.layer = 1;
  app.query = 7;  // "it"

  SUBCASE("heads: every head of the layer, in the colour map") {
    const SvgRead svg = export_view(app, View::heads);
    int cells = 0;
    for (int h = 0; h < NH; ++h) cells += check_panel(svg, "h" + std::to_string(h), t.head(1, h).weights_kept, app.cmap, 0, 1);
    CHECK(cells == static_cast<int>(svg.cells.size()));
    CHECK(has(svg.text, "Head 8"));
    CHECK(has(svg.text, "Layer 2 / 2"));
    // Korean: the same cells, titles in Hangul.
    app.lang = Lang::ko;
    app.cmap = Colormap::magma;
    const SvgRead ko = export_view(app, View::heads);
    check_panel(ko, "h3", t.head(1, 3).weights_kept, Colormap::magma, 0, 1);
    CHECK(has(ko.text, "헤드 4"));
  }
  SUBCASE("model view: every layer x head") {
    const SvgRead svg = export_view(app, View::model);
    for (int l = 0; l < NL; ++l)
      for (int h = 0; h < NH; ++h)
        check_panel(svg, "l" + std::to_string(l) + ".h" + std::to_string(h), t.head(l, h).weights_kept, app.cmap, 0, 1);
    CHECK(svg.cells.size() == static_cast<size_t>(NL * NH * t.n_queries() * t.n_keys()));
  }
  SUBCASE("lines: the chosen query's lines carry their weights, one per head and key above 1%") {
    const SvgRead svg = export_view(app, View::lines);
    int expected = 0;
    for (int h = 0; h < NH; ++h)
      for (int k = 0; k < t.n_keys(); ++k) expected += t.head(1, h).weights_kept(7, k) >= 0.01f ? 1 : 0;
    CHECK(static_cast<int>(svg.links.size()) == expected);
    for (const SvgCell& l : svg.links) {
      CHECK(l.row == 7);
      CHECK(std::abs(l.value - t.head(1, std::stoi(l.panel.substr(1))).weights_kept(7, l.col)) <= 1e-6f);
    }
    for (const TraceToken& tok : t.keys) CHECK(has(svg.text, tok.text));
  }
  SUBCASE("lines: the first token set aside — its lines grey, the rest of each row renormalised, said so") {
    app.first_aside = true;
    app_update(app);
    REQUIRE(app_first_aside(app));
    const SvgRead svg = export_view(app, View::lines);
    CHECK(has(svg.text, "first token apart (grey), rest renormalised"));
    int grey = 0;
    for (const SvgCell& l : svg.links) {
      const Mat aside = attention_first_key_aside(t.head(1, std::stoi(l.panel.substr(1))).weights_kept);
      CHECK(std::abs(l.value - aside(7, l.col)) <= 1e-6f);
      CHECK((l.stroke == hex(kFirstAsideGrey)) == (l.col == 0));
      grey += l.col == 0 ? 1 : 0;
    }
    CHECK(grey > 0);
    app.first_aside = false;
    app_update(app);
  }
  SUBCASE("rollout: one map per layer (every head mixed in) in Heads, Model view and Lines, titled so") {
    app.measure = AttentionMeasure::rollout;
    app_update(app);
    REQUIRE(app_map_per_layer(app));
    auto rollout = attention_rollout(t);
    REQUIRE(rollout.ok());
    const float top = std::max((*rollout)[0].maxCoeff(), (*rollout)[1].maxCoeff());
    const SvgRead heads = export_view(app, View::heads);  // the chosen layer's one map, no head panels
    CHECK(check_panel(heads, "rollout", (*rollout)[1], app.cmap, 0, (*rollout)[1].maxCoeff()) ==
          static_cast<int>(heads.cells.size()));
    CHECK(has(heads.text, "Rollout through layer 2 (all heads)"));
    CHECK_FALSE(has(heads.text, "Head 1"));
    const SvgRead model = export_view(app, View::model);  // a column of layers
    for (int l = 0; l < NL; ++l)
      check_panel(model, "l" + std::to_string(l), (*rollout)[static_cast<size_t>(l)], app.cmap, 0, top);
    CHECK(model.cells.size() == static_cast<size_t>(NL * t.n_queries() * t.n_keys()));
    const SvgRead lines = export_view(app, View::lines);  // one line per key above 1%, not one per head
    int expected = 0;
    for (int k = 0; k < t.n_keys(); ++k) expected += (*rollout)[1](7, k) >= 0.01f ? 1 : 0;
    CHECK(static_cast<int>(lines.links.size()) == expected);
    for (const SvgCell& l : lines.links) {
      CHECK(l.panel == "rollout");
      CHECK(std::abs(l.value - (*rollout)[1](7, l.col)) <= 1e-6f);
    }
    CHECK(has(lines.text, "Rollout (all heads)"));
    // The weights again: a panel per head.
    app.measure = AttentionMeasure::weights;
    app_update(app);
    CHECK_FALSE(app_map_per_layer(app));
    CHECK(export_view(app, View::heads).cells.size() == static_cast<size_t>(NH * t.n_queries() * t.n_keys()));
  }
  SUBCASE("step by step: the softmax step shows the chosen head's weights") {
    app.head = 2;
    app.steps.step = 6;  // softmax
    const SvgRead svg = export_view(app, View::steps);
    check_panel(svg, "weights", t.head(1, 2).weights_kept, app.cmap, 0, 1);
    // Its formula typeset as in the app, A_i = softmax(Q_iK_i^T / √d_k + M): the base text in runs,
    // each script its own text, no markup left.
    CHECK(svg.text.find("\nA\ni\n = softmax(\nQ\ni\nK\ni\nT\nd\nk\n + M)\n") != std::string::npos);
    CHECK(svg.text.find("Q_i") == std::string::npos);
    CHECK(svg.text.find("\\frac") == std::string::npos);
    app.steps.step = 3;  // raw scores, on the diverging map about 0
    const SvgRead scores = export_view(app, View::steps);
    const Mat raw = head_scores(t.head(1, 2), t.config).raw;
    const float top = raw.cwiseAbs().maxCoeff();
    check_panel(scores, "scores", raw, Colormap::diverging, -top, top);
  }
  SUBCASE("statistics: the per-head statistics grids, layer x head") {
    const SvgRead svg = export_view(app, View::stats);
    std::vector<bool> punct(t.keys.size());
    for (size_t j = 0; j < t.keys.size(); ++j) punct[j] = t.keys[j].kind == TokenKind::punct;
    Mat max_weight(NL, NH), first(NL, NH);
    for (int l = 0; l < NL; ++l)
      for (int h = 0; h < NH; ++h) {
        const HeadStats st = head_stats(t.head(l, h).weights_kept, punct);
        max_weight(l, h) = st.max_weight;
        first(l, h) = st.first_token_share;
      }
    check_panel(svg, "stat.max_weight", max_weight, app.cmap, 0, 1);
    check_panel(svg, "stat.first_token", first, app.cmap, 0, 1);
    int detectors = 0;
    for (const SvgCell& c : svg.cells) detectors += c.panel.rfind("det.", 0) == 0 ? 1 : 0;
    CHECK(detectors == 5 * NL * NH);
  }
}

TEST_CASE("view figures: Compare exports A, B and A - B on the diverging map") {
  AppState app;
  app.view = View::compare;
  settle(app);
  REQUIRE(app.trace_b);
  const CompareMaps& cm = app.compare.maps;
  REQUIRE(!cm.diff.empty());
  const SvgRead svg = export_view(app, View::compare);
  for (size_t i = 0; i < cm.a.size(); ++i) check_panel(svg, "a." + std::to_string(i), cm.a[i], app.cmap, 0, 1);
  for (size_t i = 0; i < cm.b.size(); ++i) {
    check_panel(svg, "b." + std::to_string(i), app.trace_b->head(app.layer, static_cast<int>(i)).weights_kept, app.cmap, 0, 1);
    check_panel(svg, "diff." + std::to_string(i),
                app.trace->head(app.layer, static_cast<int>(i)).weights_kept - app.trace_b->head(app.layer, static_cast<int>(i)).weights_kept,
                Colormap::diverging, -1, 1);
  }
  CHECK(has(svg.text, "B: " + app.compare.sentence));
}

TEST_CASE("view figures: Coreference exports the demo's heads and the pair's answer") {
  AppState app;
  REQUIRE(app_use_demo(app, "demo:coref").ok());
  app.view = View::coref;
  settle(app);
  REQUIRE(app.trace);
  const SvgRead svg = export_view(app, View::coref);
  const CorefSide& a = app.coref.a;
  REQUIRE(a.fits);
  const Trace& t = *app.trace;
  const int NL = static_cast<int>(t.layers.size()), NH = t.config.n_heads;
  Mat to_a(NL, NH), to_b(NL, NH);
  for (int l = 0; l < NL; ++l)
    for (int h = 0; h < NH; ++h) {
      to_a(l, h) = t.head(l, h).weights_kept(a.example.pronoun, a.example.candidate_a);
      to_b(l, h) = t.head(l, h).weights_kept(a.example.pronoun, a.example.candidate_b);
    }
  check_panel(svg, "to_a", to_a, app.cmap, 0, 1);
  check_panel(svg, "to_b", to_b, app.cmap, 0, 1);
  REQUIRE(a.best >= 0);
  const CorefHeadScore& best = a.heads[static_cast<size_t>(a.best)];
  check_panel(svg, "pair.a.0", t.head(best.layer, best.head).weights_kept, app.cmap, 0, 1);
  REQUIRE(a.answer);
  CHECK(has(svg.text, "Model's answer: " + a.answer->referent_text));
  if (app.trace_b && app.coref.b.fits) check_panel(svg, "pair.b.0", app.trace_b->head(best.layer, best.head).weights_kept, app.cmap, 0, 1);
}

TEST_CASE("view figures: Train exports its curves once a run has reported, and says so before") {
  AppState app;
  auto none = view_figure(app, View::train, nullptr);
  REQUIRE_FALSE(none.ok());
  CHECK(has(none.error(), "train: nothing to export yet"));
  app.train.settings.d_model = 32;  // a small, short run: two reports make a curve
  app.train.settings.max_steps = 20;
  app.train.settings.report_every = 10;
  REQUIRE(train_start(app).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!app.train.runner.snapshot().finished && !app.train.runner.snapshot().stopped && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const TrainSnapshot s = app.train.runner.snapshot();
  REQUIRE(s.finished);
  const SvgRead svg = export_view(app, View::train);
  std::vector<const XmlElement*> lines;
  xml_find_all(svg.root, "polyline", lines);
  size_t longest = 0;
  for (const XmlElement* l : lines) {
    const std::string& pts = *l->attribute("points");
    longest = std::max<size_t>(longest, static_cast<size_t>(std::count(pts.begin(), pts.end(), ',')));
  }
  CHECK(longest == s.reports.size());  // the loss curve: one point per report
  CHECK(has(svg.text, "Training loss (cross-entropy)"));
  CHECK(has(svg.text, "Held-out accuracy"));
  CHECK(has(svg.text, "target 99%"));
  // The induction demo's dashed line is its trainer's target too (it said 95% after the target moved to 99%).
  train_choose_demo(app.train, DemoKind::induction);
  app.train.settings.max_steps = 20;
  app.train.settings.report_every = 10;
  REQUIRE(train_start(app).ok());
  while (!app.train.runner.snapshot().finished && !app.train.runner.snapshot().stopped &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(app.train.runner.snapshot().finished);
  CHECK(has(export_view(app, View::train).text, "target 99%"));
}

TEST_CASE("view figures: a hostile sentence stays well-formed, and the file action writes both formats") {
  AppState app;
  app.sentence = "a <b> & \"c\" 'd' 동물은 </text> ]]>";
  settle(app);
  REQUIRE(app.trace);
  const SvgRead svg = export_view(app, View::heads);
  for (const TraceToken& tok : app.trace->queries) CHECK(has(svg.text, tok.text));
  test::TempFile svg_path("attnviz-view.svg"), png_path("attnviz-view.png");
  app.view = View::lines;
  REQUIRE(app_export_view(app, svg_path, FigureFormat::svg).ok());
  REQUIRE(app_export_view(app, png_path, FigureFormat::png, 2.0f).ok());
  auto bytes = file_read_bytes(svg_path);
  REQUIRE(bytes.ok());
  CHECK(xml_parse(std::string(bytes->begin(), bytes->end())).ok());
}

}  // namespace
}  // namespace attnviz
