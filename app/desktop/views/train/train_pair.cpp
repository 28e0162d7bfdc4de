// The Train view's "1 head vs N heads" tab: two models of one demo with the same d_model and seed,
// one head against N, trained at once — the gather demo by default ("its" needs four words at once:
// there N heads learn faster in 10 of 10 seeds), or coreference. Their curves overlaid, and for the
// probe sentence each model's answer and the query's row in every last-layer head, with the words it
// needs outlined: one head must share its attention among them; many heads can each take one.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <imgui.h>

#include "analysis/coref_readout.h"
#include "demos/gather_data.h"
#include "demos/gather_demo.h"
#include "views/train/train_actions.h"
#include "views/train/train_parts.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"
#include "widgets/plot.h"

namespace attnviz {

namespace {

// What a pair's model answers at its query word, read the demo's way.
struct PairReadout {
  int query = -1;             // the token whose row is shown: "it", "its"
  std::string answer;         // the referent, or the four words joined by '/'
  float probability = 0;
  std::string expected;       // what the sentence means; "" when it does not say
  bool right = false;
  std::vector<std::pair<int, ImU32>> outlined;  // the tokens the query needs, and their colours
};

Result<PairReadout> coref_pair_readout(const Model& model, const Trace& trace, const std::string& text) {
  auto r = coref_readout(model, trace, text);
  if (!r) return make_error(r.error());
  PairReadout out;
  out.query = r->example.pronoun;
  out.answer = r->prediction.referent_text;
  out.probability = r->prediction.probability;
  if (r->example.referent >= 0) {
    out.expected = trace.keys[static_cast<size_t>(r->example.referent)].text;
    out.right = r->example.referent == r->prediction.referent;
  }
  out.outlined = {{r->example.candidate_a, kTrainColorCandidate},
                  {r->example.candidate_b, kTrainColorCandidate},
                  {r->example.property, kTrainColorProperty}};
  return out;
}

Result<PairReadout> gather_pair_readout(const Model& model, const std::string& text) {
  const GatherExample e = gather_make(text);
  if (e.answer < 0) return make_error("no four words");
  auto p = gather_predict(model, text);
  if (!p) return make_error(p.error());
  PairReadout out;
  out.query = p->query;
  out.answer = p->answer_text;
  out.probability = p->probability;
  out.expected = gather_answer_text(e.answer);
  out.right = p->answer == e.answer;
  for (const int token : e.slot_token) out.outlined.push_back({token, kTrainColorCandidate});
  return out;
}

// What one model of the pair shows: its probe's readout and the query's row per last-layer head.
struct PairSide {
  const char* title = "";
  ImU32 color = 0;
  const TrainProbe* probe = nullptr;
  TrainSnapshot snap;
  Result<PairReadout> readout = make_error("");
  Mat rows;  // (NH, T): the query's attention in each head of the last layer
  std::vector<TraceToken> row_labels;
};

void side_prepare(const AppState& app, PairSide& side) {
  const TrainProbe& p = *side.probe;
  if (!p.trace || !p.model) return;
  side.readout = app.train.pair_run_demo == DemoKind::gather ? gather_pair_readout(*p.model, p.text)
                                                            : coref_pair_readout(*p.model, *p.trace, p.text);
  if (!side.readout) return;
  const Trace& t = *p.trace;
  const int last = static_cast<int>(t.layers.size()) - 1, q = side.readout->query;
  side.rows.resize(t.config.n_heads, t.n_keys());
  for (int h = 0; h < t.config.n_heads; ++h) {
    side.rows.row(h) = t.head(last, h).weights_kept.row(q);
    TraceToken tok;
    tok.text = tr_format(app.lang, Str::tr_head_short, h + 1);
    side.row_labels.push_back(tok);
  }
}

float pair_target(const AppState& app) {
  return app.train.pair_run_demo == DemoKind::gather ? kGatherTarget : kCorefTarget;
}

// Title, status, held-out accuracy and answer of one model of the pair, wrapped to its column.
void side_text(const AppState& app, const PairSide& side, float width) {
  const Lang L = app.lang;
  const ImGuiStyle& style = ImGui::GetStyle();
  const auto same_line_if_fits = [&](const char* before, const char* after) {
    if (ImGui::CalcTextSize(before).x + style.ItemSpacing.x + ImGui::CalcTextSize(after).x <= width) ImGui::SameLine();
  };
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(side.color), "%s", side.title);
  const TrainSnapshot& s = side.snap;
  const TrainStatusText st = train_status_text(app, s, app.train.pair_settings, pair_target(app));
  same_line_if_fits(side.title, st.text.c_str());
  ImGui::TextColored(st.color, "%s", st.text.c_str());
  if (!s.reports.empty()) {
    const TrainProgress& last = s.reports.back();
    ImGui::Text(tr(L, Str::tr_pair_progress), 100.0 * static_cast<double>(last.heldout_accuracy), last.step,
                static_cast<double>(last.loss));
  } else {
    ImGui::TextDisabled("%s", tr(L, Str::tr_probe_wait));
  }
  const TrainProbe& p = *side.probe;
  if (!p.trace) {
    if (!p.error.empty()) text_wrapped(tr_format(L, Str::tr_probe_error, p.error.c_str()));
    return;
  }
  if (!side.readout) {
    text_wrapped(tr(L, app.train.pair_run_demo == DemoKind::gather ? Str::tr_no_gather_words : Str::tr_no_candidates));
    return;
  }
  const Trace& t = *p.trace;
  const PairReadout& r = *side.readout;
  const auto word = [&](int i) { return t.keys[static_cast<size_t>(i)].text.c_str(); };
  const std::string answer = tr_format(L, Str::tr_answer, word(r.query), r.answer.c_str(), static_cast<double>(r.probability));
  ImGui::TextUnformatted(answer.c_str());
  if (!r.expected.empty()) {
    const std::string verdict = tr_format(L, r.right ? Str::tr_right : Str::tr_wrong, r.expected.c_str());
    same_line_if_fits(answer.c_str(), verdict.c_str());
    ImGui::TextColored(r.right ? ImVec4(0.45f, 0.9f, 0.45f, 1) : ImVec4(1, 0.5f, 0.4f, 1), "%s", verdict.c_str());
  }
  ImGui::TextDisabled(tr(L, Str::tr_pair_rows), word(r.query), static_cast<int>(t.layers.size()));
}

void side_draw(const AppState& app, const PairSide& side, unsigned texture, float width) {
  const Lang L = app.lang;
  const float fs = ImGui::GetFontSize();
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + width);
  side_text(app, side, width);
  ImGui::PopTextWrapPos();
  const TrainProbe& p = *side.probe;
  if (!p.trace || !side.readout) return;
  const Trace& t = *p.trace;
  const PairReadout& r = *side.readout;
  const auto word = [&](int i) { return t.keys[static_cast<size_t>(i)].text.c_str(); };
  const float row_label_w = heatmap_label_extent(side.row_labels);
  const float col_label_h = heatmap_label_extent(t.keys);
  const float cell = std::clamp(std::floor((width - row_label_w - fs) / static_cast<float>(t.n_keys())), 3.0f, fs * 2.4f);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  HeatmapWidget w;
  w.texture = texture;
  w.values = &side.rows;
  w.rows = &side.row_labels;
  w.cols = &t.keys;
  w.origin = ImVec2(start.x + row_label_w, start.y + col_label_h);
  w.cell = cell;
  w.row_labels = w.col_labels = true;
  w.row_label_w = row_label_w;
  w.col_label_h = col_label_h;
  w.annotate = app.annotate;
  w.cmap = app.cmap;
  w.id = side.title;
  const HeatmapHit hit = heatmap_widget(w);
  // Outline what the pronoun should weigh: the candidates (orange) and the property word (cyan).
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float thick = train_line_width();
  const float h = cell * static_cast<float>(side.rows.rows());
  auto outline = [&](int k, ImU32 col) {
    if (k < 0) return;
    const float x = w.origin.x + cell * static_cast<float>(k);
    dl->AddRect(ImVec2(x, w.origin.y - thick), ImVec2(x + cell, w.origin.y + h + thick), col, 0, 0, thick);
  };
  for (const auto& [token, colour] : r.outlined) outline(token, colour);
  if (hit.hovered) {
    ImGui::BeginTooltip();
    ImGui::Text("%s %d · %s %d", tr(L, Str::layer), static_cast<int>(t.layers.size()), tr(L, Str::head), hit.row + 1);
    ImGui::Text("%s → %s: %.4f", word(r.query), word(hit.col), static_cast<double>(side.rows(hit.row, hit.col)));
    ImGui::EndTooltip();
  }
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(row_label_w + cell * static_cast<float>(t.n_keys()), col_label_h + h + thick * 2));
}

void pair_curves(const AppState& app, const PairSide& one, const PairSide& many, float height) {
  const Lang L = app.lang;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float w = (ImGui::GetContentRegionAvail().x - gap) * 0.5f;
  const float x_min = static_cast<float>(std::min(app.train.pair_settings.max_steps, 100));
  PlotSpec loss;
  loss.id = "pair_loss";
  loss.title = tr(L, Str::tr_loss_curve);
  loss.x_label = tr(L, Str::tr_step_axis);
  loss.series = {PlotSeries{one.title, one.color, train_loss_points(one.snap.reports)},
                 PlotSeries{many.title, many.color, train_loss_points(many.snap.reports)}};
  loss.x_max = x_min;
  loss.y_max = 0;
  loss.thickness = train_line_width();
  loss.size = ImVec2(w, height);
  train_plot(loss);
  ImGui::SameLine();
  PlotSpec acc = loss;
  acc.id = "pair_accuracy";
  acc.title = tr(L, Str::tr_accuracy_curve);
  acc.series = {PlotSeries{one.title, one.color, train_accuracy_points(one.snap.reports)},
                PlotSeries{many.title, many.color, train_accuracy_points(many.snap.reports)}};
  acc.y_max = 1;
  acc.series_legend = false;  // the loss chart beside it names the colours
  acc.percent = true;
  acc.target = pair_target(app);
  acc.target_label = tr_format(L, Str::tr_target, 100.0 * static_cast<double>(acc.target));
  train_plot(acc);
}

// The pair's demo, and for the gather demo its seed and N (coreference takes the Run tab's settings).
void pair_settings_row(AppState& app, bool running) {
  TrainState& tv = app.train;
  const Lang L = app.lang;
  const float fs = ImGui::GetFontSize();
  const float inner = ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::BeginDisabled(running);
  const std::pair<DemoKind, const char*> demos[] = {{DemoKind::gather, tr(L, Str::tr_demo_gather)},
                                                    {DemoKind::coreference, tr(L, Str::tr_demo_coref)}};
  float combo_w = 0;
  for (const auto& d : demos) combo_w = std::max(combo_w, ImGui::CalcTextSize(d.second).x);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::tr_demo));
  ImGui::SameLine(0, inner);
  ImGui::SetNextItemWidth(combo_w + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetFrameHeight());
  const char* shown = tv.pair_demo == DemoKind::gather ? demos[0].second : demos[1].second;
  if (ImGui::BeginCombo("##pair_demo", shown)) {
    for (const auto& [kind, name] : demos)
      if (ImGui::Selectable(name, kind == tv.pair_demo)) tv.pair_demo = kind;
    ImGui::EndCombo();
  }
  if (tv.pair_demo == DemoKind::gather) {
    TrainSettings& g = tv.pair_gather_settings;
    const auto field = [&](const char* label, const char* id, int& v, int lo, int hi) {
      ImGui::SameLine(0, fs);
      ImGui::TextUnformatted(label);
      ImGui::SameLine(0, inner);
      ImGui::SetNextItemWidth(fs * 3);
      ImGui::InputInt(id, &v, 0, 0);
      v = std::clamp(v, lo, hi);
    };
    field(tr(L, Str::tr_seed), "##pair_seed", g.seed, 0, 1 << 30);
    field("N", "##pair_heads", g.n_heads, 2, 32);
  }
  ImGui::EndDisabled();
}

}  // namespace

void train_pair_tab(AppState& app, GuiResources& gui) {
  TrainState& tv = app.train;
  const Lang L = app.lang;
  const float fs = ImGui::GetFontSize();
  const bool running = tv.single.snapshot().running || tv.multi.snapshot().running;
  const bool gather = tv.pair_demo == DemoKind::gather;
  // The explanation until a pair is trained; then, to leave the room to the results, behind "(?)".
  const std::string explain = gather ? tr_format(L, Str::tr_pair_explain_gather) : std::string(tr(L, Str::tr_pair_explain));
  if (!tv.pair_started) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", explain.c_str());
    ImGui::PopTextWrapPos();
  }
  pair_settings_row(app, running);
  if (tv.pair_started) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(fs * 30);
      ImGui::TextUnformatted(explain.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }

  const TrainSettings base = train_pair_base(tv);
  const std::string label = tr_format(L, Str::tr_pair_start, base.n_heads);
  ImGui::BeginDisabled(running);
  if (ImGui::Button(label.c_str())) train_pair_start(app);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", tr_format(L, gather ? Str::tr_pair_start_tip_gather : Str::tr_pair_start_tip, base.d_model,
                                      base.seed, base.max_steps)
                                .c_str());
  ImGui::SameLine();
  ImGui::BeginDisabled(!running);
  if (ImGui::Button(tr(L, Str::tr_stop))) train_pair_stop(app);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!tv.pair_started);
  if (ImGui::Button(tr(L, Str::tr_reset))) train_pair_reset(app);
  ImGui::EndDisabled();
  if (tv.pair_started) {
    ImGui::SameLine();
    ImGui::TextDisabled(tr(L, Str::tr_pair_same), tv.pair_settings.d_model, tv.pair_settings.seed);
  }
  if (!tv.pair_started) {
    ImGui::TextDisabled("%s", tr(L, Str::tr_pair_none));
    return;
  }

  const std::string many_title = tr_format(L, Str::tr_pair_n_heads, tv.pair_settings.n_heads);
  PairSide one, many;
  one.title = tr(L, Str::tr_pair_one_head);
  one.color = kTrainColorSingle;
  one.probe = &tv.probe_single;
  one.snap = tv.single.snapshot();
  many.title = many_title.c_str();  // many_title outlives `many`
  many.color = kTrainColorMain;
  many.probe = &tv.probe_multi;
  many.snap = tv.multi.snapshot();
  side_prepare(app, one);
  side_prepare(app, many);

  const float avail_y = ImGui::GetContentRegionAvail().y;
  pair_curves(app, one, many, std::clamp(avail_y * 0.34f, fs * 7, fs * 13));

  const std::string text = train_pair_text(app);
  const bool gather_run = tv.pair_run_demo == DemoKind::gather;
  ImGui::TextDisabled("%s", tr(L, text == app.sentence   ? Str::tr_pair_sentence
                                  : gather_run           ? Str::tr_pair_sentence_default_gather
                                                         : Str::tr_pair_sentence_default));
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0);  // a long sentence wraps instead of running off the edge
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();

  const Mat empty = Mat::Zero(1, 1);
  gui.train_pair.update(tv.pair_maps_version, {one.readout ? &one.rows : &empty, many.readout ? &many.rows : &empty},
                             app.cmap);
  const float gap = fs;
  const float col_w = (ImGui::GetContentRegionAvail().x - gap) * 0.5f;
  ImGui::BeginGroup();
  side_draw(app, one, gui.train_pair.texture(0), col_w);
  ImGui::EndGroup();
  ImGui::SameLine(0, gap);
  ImGui::BeginGroup();
  side_draw(app, many, gui.train_pair.texture(1), col_w);
  ImGui::EndGroup();

  ImGui::Spacing();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sq = ImGui::GetTextLineHeight() * 0.7f;
  auto legend = [&](ImU32 col, const char* text) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float pad = (ImGui::GetTextLineHeight() - sq) * 0.5f;
    dl->AddRect(ImVec2(p.x, p.y + pad), ImVec2(p.x + sq, p.y + pad + sq), col, 0, 0, train_line_width());
    ImGui::Dummy(ImVec2(sq, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::TextDisabled("%s", text);
  };
  if (gather_run) {
    legend(kTrainColorCandidate, tr(L, Str::tr_legend_gather_words));
    return;
  }
  legend(kTrainColorCandidate, tr(L, Str::tr_legend_candidates));
  ImGui::SameLine(0, fs);
  legend(kTrainColorProperty, tr(L, Str::tr_legend_property));
}

}  // namespace attnviz
