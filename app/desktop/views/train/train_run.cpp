// The Train view's "This run" tab: the loss and held-out accuracy curves, and the probe sentence's
// heads (one layer, the last by default) refreshing at every report; for the coreference demo also
// the answer and, per head, the pronoun's weight on the two candidates and the property word, so
// one can watch a head learn to choose. It reads the probe trace; it computes no attention.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "analysis/coref_readout.h"
#include "views/train/train_parts.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"
#include "widgets/plot.h"

namespace attnviz {

namespace {

void curves(const AppState& app, const TrainSnapshot& s, ImVec2 size) {
  const Lang L = app.lang;
  const TrainState& tv = app.train;
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  const float x_min_range = static_cast<float>(std::min(tv.run_settings.max_steps, 100));
  PlotSpec loss;
  loss.id = "loss";
  loss.title = tr(L, Str::tr_loss_curve);
  loss.x_label = tr(L, Str::tr_step_axis);
  loss.series.push_back(PlotSeries{tr(L, Str::tr_loss), kTrainColorMain, train_loss_points(s.reports)});
  loss.x_max = x_min_range;
  loss.y_max = 0;  // from the data
  loss.thickness = train_line_width();
  loss.size = ImVec2(size.x, (size.y - gap) * 0.5f);
  train_plot(loss);
  const bool coref = tv.run_demo == DemoKind::coreference;
  PlotSpec acc;
  acc.id = "accuracy";
  acc.title = tr(L, Str::tr_accuracy_curve);
  acc.x_label = loss.x_label;
  acc.series.push_back(PlotSeries{tr(L, Str::tr_heldout), IM_COL32(120, 220, 120, 255), train_accuracy_points(s.reports)});
  acc.x_max = x_min_range;
  acc.percent = true;
  acc.target = coref ? kCorefTarget : kInductionTarget;
  acc.target_label = tr_format(L, Str::tr_target, static_cast<double>(acc.target) * 100.0);
  acc.thickness = loss.thickness;
  acc.size = loss.size;
  train_plot(acc);
}

void head_tooltip(const AppState& app, const Trace& t, int layer, int h, int q, int k) {
  const Lang L = app.lang;
  ImGui::BeginTooltip();
  ImGui::Text("%s %d · %s %d", tr(L, Str::layer), layer + 1, tr(L, Str::head), h + 1);
  ImGui::Text("%s: %s (#%d)", tr(L, Str::query), t.queries[static_cast<size_t>(q)].text.c_str(), q);
  ImGui::Text("%s: %s (#%d)", tr(L, Str::key), t.keys[static_cast<size_t>(k)].text.c_str(), k);
  ImGui::Separator();
  ImGui::Text("%s: %.4f", tr(L, Str::weight), t.head(layer, h).weights_kept(q, k));
  ImGui::EndTooltip();
}

// Per head of the shown layer: the pronoun's weight on each candidate and on the property word.
// `rows_h`: the height the table's rows may take; past it they scroll under a frozen header.
void candidate_table(const AppState& app, const Trace& t, int layer, const CorefReadout& r, float rows_h) {
  const Lang L = app.lang;
  const CorefExample& e = r.example;
  const auto word = [&](int i) { return t.keys[static_cast<size_t>(i)].text.c_str(); };
  const std::string line = tr_format(L, Str::tr_answer, word(e.pronoun), r.prediction.referent_text.c_str(),
                                     static_cast<double>(r.prediction.probability));
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(line.c_str());
  ImGui::PopTextWrapPos();
  if (e.referent >= 0) {
    const bool right = e.referent == r.prediction.referent;
    const std::string verdict = tr_format(L, right ? Str::tr_right : Str::tr_wrong, word(e.referent));
    train_flow(ImGui::CalcTextSize(verdict.c_str()).x);
    ImGui::TextColored(right ? ImVec4(0.45f, 0.9f, 0.45f, 1) : ImVec4(1, 0.5f, 0.4f, 1), "%s", verdict.c_str());
  }
  std::vector<int> cols = {e.candidate_a, e.candidate_b};
  if (e.property >= 0) cols.push_back(e.property);
  const int n_cols = static_cast<int>(cols.size()) + 1;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("candidates", n_cols, flags, ImVec2(0, rows_h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(tr(L, Str::head), ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize(tr(L, Str::head)).x + ImGui::GetFontSize() * 1.5f);
  for (int c : cols) ImGui::TableSetupColumn(word(c));
  ImGui::TableHeadersRow();
  const int NH = t.config.n_heads;
  for (int h = 0; h < NH; ++h) {
    const Mat& w = t.head(layer, h).weights_kept;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", h + 1);
    for (size_t i = 0; i < cols.size(); ++i) {
      ImGui::TableNextColumn();
      const float v = w(e.pronoun, cols[i]);
      char val[16];
      std::snprintf(val, sizeof val, "%.2f", static_cast<double>(v));
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImGui::ColorConvertU32ToFloat4(i < 2 ? kTrainColorCandidate : kTrainColorProperty));
      ImGui::ProgressBar(v, ImVec2(-FLT_MIN, 0), val);
      ImGui::PopStyleColor();
    }
  }
  ImGui::EndTable();
}

struct ProbeGrid {
  int columns = 1;
  float cell = 8, row_label_w = 0, col_label_h = 0, title_h = 0;
};

ProbeGrid probe_grid(const Trace& t, int n, ImVec2 avail) {
  ProbeGrid g;
  const float gap = ImGui::GetFontSize() * 0.8f;
  g.row_label_w = heatmap_label_extent(t.queries);
  g.col_label_h = heatmap_label_extent(t.keys);
  g.title_h = ImGui::GetTextLineHeightWithSpacing();
  const float Tq = static_cast<float>(t.n_queries()), Tk = static_cast<float>(t.n_keys());
  g.cell = 0;
  for (int c = 1; c <= n; ++c) {
    const int rows = (n + c - 1) / c;
    const float by_w = ((avail.x - g.row_label_w) / c - gap) / Tk;
    const float by_h = ((avail.y - g.col_label_h) / rows - gap - g.title_h) / Tq;
    const float cell = std::floor(std::min(by_w, by_h));
    if (cell > g.cell) {
      g.cell = cell;
      g.columns = c;
    }
  }
  // A short sentence keeps every label readable (the pane scrolls if it must); a long one is an
  // overview, as small as it needs to be.
  const float legible = std::ceil(ImGui::GetTextLineHeight() * 0.85f);
  if (t.n_keys() <= 16 && g.cell < legible) {
    g.cell = legible;
    const float per_head = g.cell * Tk + gap;
    g.columns = std::clamp(static_cast<int>((avail.x - g.row_label_w) / per_head), 1, n);
  }
  g.cell = std::clamp(g.cell, 3.0f, ImGui::GetFontSize() * 2.6f);
  return g;
}

// The readout of the run's probe (coreference only): the answer and the candidates' positions.
Result<CorefReadout> run_readout(const TrainState& tv) {
  const TrainProbe& p = tv.probe;
  if (tv.run_demo != DemoKind::coreference || !p.trace || !p.model) return make_error("");
  return coref_readout(*p.model, *p.trace, p.text);
}

int shown_layer(const TrainState& tv, const Trace& t) {
  const int n = static_cast<int>(t.layers.size());
  return tv.probe_layer >= 0 && tv.probe_layer < n ? tv.probe_layer : n - 1;
}

void probe_section(AppState& app, GuiResources& gui, const TrainSnapshot& s, const Result<CorefReadout>& readout) {
  TrainState& tv = app.train;
  const Lang L = app.lang;
  const TrainProbe& p = tv.probe;
  if (!p.trace) {
    if (!p.error.empty())
      text_wrapped(tr_format(L, Str::tr_probe_error, p.error.c_str()));
    else ImGui::TextDisabled("%s", tr(L, s.running || s.model ? Str::tr_probe_wait : Str::tr_probe_none));
    return;
  }
  const Trace& t = *p.trace;
  const int n_layers = static_cast<int>(t.layers.size());
  const int layer = shown_layer(tv, t);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::tr_probe_title));
  for (int l = 0; l < n_layers; ++l) {
    char label[48];
    std::snprintf(label, sizeof label, "%s %d", tr(L, Str::layer), l + 1);
    train_flow(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    if (ImGui::RadioButton(label, l == layer)) tv.probe_layer = l == n_layers - 1 ? -1 : l;
  }

  const bool coref = tv.run_demo == DemoKind::coreference;
  const float reserve = coref ? (readout ? 0.0f : ImGui::GetTextLineHeightWithSpacing() * 2)
                              : ImGui::GetTextLineHeightWithSpacing() * 4;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.y = std::max(avail.y - reserve, ImGui::GetFontSize() * 8);
  const int NH = t.config.n_heads;
  const ProbeGrid g = probe_grid(t, NH, avail);
  const float gap = ImGui::GetFontSize() * 0.8f;
  const ImVec2 panel(g.cell * t.n_keys() + gap, g.title_h + g.cell * t.n_queries() + gap);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 grid0(start.x + g.row_label_w, start.y + g.col_label_h);
  std::vector<const Mat*> maps;
  for (int h = 0; h < NH; ++h) maps.push_back(&t.head(layer, h).weights_kept);
  gui.train_run.update(p.version * 64 + static_cast<uint64_t>(layer), maps, app.cmap);
  const int highlight = readout ? readout->example.pronoun : -1;
  for (int h = 0; h < NH; ++h) {
    const int col = h % g.columns, row = h / g.columns;
    const ImVec2 origin(grid0.x + col * panel.x, grid0.y + row * panel.y);
    ImGui::GetWindowDrawList()->AddText(origin, ImGui::GetColorU32(ImGuiCol_Text),
                                        (std::string(tr(L, Str::head)) + " " + std::to_string(h + 1)).c_str());
    ImGui::PushID(h);
    HeatmapWidget w;
    w.texture = gui.train_run.texture(h);
    w.values = &t.head(layer, h).weights_kept;
    w.rows = &t.queries;
    w.cols = &t.keys;
    w.mask = &t.mask;
    w.origin = ImVec2(origin.x, origin.y + g.title_h);
    w.cell = g.cell;
    w.row_labels = col == 0;
    w.col_labels = row == 0;
    w.row_label_w = g.row_label_w;
    w.col_label_h = g.col_label_h;
    w.col_label_gap = g.title_h;
    w.annotate = app.annotate;
    w.cmap = app.cmap;
    w.highlight_row = highlight;
    const HeatmapHit hit = heatmap_widget(w);
    if (hit.hovered) head_tooltip(app, t, layer, h, hit.row, hit.col);
    ImGui::PopID();
  }
  const int rows = (NH + g.columns - 1) / g.columns;
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(g.row_label_w + g.columns * panel.x, g.col_label_h + rows * panel.y));
  if (!coref)
    text_wrapped(tr(L, Str::tr_induction_hint));
  else if (!readout)
    text_wrapped(tr(L, Str::tr_no_candidates));
}

}  // namespace

void train_run_tab(AppState& app, GuiResources& gui, const TrainSnapshot& s) {
  const TrainState& tv = app.train;
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool wide = avail.x > fs * 26;
  const Result<CorefReadout> readout = run_readout(tv);
  // Beside the curves (or under them when narrow): the answer and the pronoun's weight on the
  // candidates per head, so the heatmaps keep the height their labels need.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float row_h = ImGui::GetFrameHeight() + st.CellPadding.y * 2;
  const float answer_h = ImGui::GetTextLineHeightWithSpacing() * 2.5f;
  const ImVec2 left_size(wide ? std::max(fs * 11, avail.x * 0.34f) : avail.x, wide ? avail.y : avail.y * 0.45f);
  ImGui::BeginChild("curves", left_size);
  const ImVec2 inner = ImGui::GetContentRegionAvail();
  // The table takes what its rows need, but at most ~45% of the column: the curves come first.
  const float rows_h = readout ? std::min(row_h * static_cast<float>(tv.probe.trace->config.n_heads + 1) + st.CellPadding.y,
                                          std::max(inner.y * 0.45f - answer_h, row_h * 3))
                               : 0.0f;
  const float table_h = readout ? rows_h + answer_h : 0.0f;
  const float curves_h = std::max(inner.y - table_h - st.ItemSpacing.y, fs * 10);
  curves(app, s, ImVec2(inner.x, curves_h));
  if (readout) candidate_table(app, *tv.probe.trace, shown_layer(tv, *tv.probe.trace), *readout, rows_h);
  ImGui::EndChild();
  if (wide) ImGui::SameLine();
  ImGui::BeginChild("probe", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  probe_section(app, gui, s, readout);
  ImGui::EndChild();
}

}  // namespace attnviz
