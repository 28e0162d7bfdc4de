// The Step by step view as a figure: the current step's title and explanation, then that step's
// matrices for the chosen layer, head and query (the query's row outlined), read from the trace.
// Weights use the colour map on 0..1; every other matrix the diverging map, symmetric about 0.
#include <cmath>
#include <optional>
#include <string>

#include "analysis/lecture.h"
#include "model/head_map.h"
#include "model/lean_layers.h"
#include "state/figure_page.h"
#include "state/formula_markup.h"
#include "state/view_figure.h"
#include "views/steps/steps_text.h"

namespace attnviz {

namespace {

struct StepMatrix {
  std::string name;  // title and panel id
  Mat m;             // (rows, cols): rows are the queries' or the keys' tokens
  bool key_rows = false;
  bool weights = false;  // the colour map on 0..1; else diverging about 0
};

Status add_matrix(FigurePage& page, const AppState& app, const Trace& t, const LectureFocus& f, const StepMatrix& sm) {
  HeatmapGridSpec spec = page_grid_spec(app, t);
  if (sm.key_rows) {
    spec.row_labels.clear();
    for (const TraceToken& tok : t.keys) spec.row_labels.push_back(tok.text);
  }
  const bool token_cols = sm.m.cols() == t.n_keys() && (sm.weights || sm.name.rfind("scores", 0) == 0);
  if (!token_cols) {
    spec.col_labels.clear();
    for (int c = 0; c < sm.m.cols(); ++c) spec.col_labels.push_back(std::to_string(c));
    spec.cell_px = std::clamp(720 / std::max<int>(1, static_cast<int>(sm.m.cols())), 2, 22);
    spec.annotate = spec.annotate && sm.m.cols() <= 16;
  }
  spec.panels.push_back(HeatmapPanel{sm.name, &sm.m, sm.name});
  if (!sm.key_rows) spec.highlight_row = f.query;
  if (!sm.weights) {
    float top = 0;
    for (Eigen::Index i = 0; i < sm.m.size(); ++i)
      if (std::isfinite(sm.m.data()[i])) top = std::max(top, std::abs(sm.m.data()[i]));
    spec.cmap = Colormap::diverging;
    spec.vmax = top > 0 ? top : 1.0f;
    spec.vmin = -spec.vmax;
  }
  return page_grid(page, spec);
}

// lt and h: the focused layer and head, the trace's own or recomputed for a lean trace.
std::vector<StepMatrix> step_matrices(const Trace& t, const LayerTrace& lt, const HeadTrace& h, const LectureFocus& f,
                                      LectureStep step) {
  switch (step) {
    case LectureStep::input: return {{"X", lt.attn_in}};
    case LectureStep::head_split:
    case LectureStep::qkv: return {{"Q", h.q}, {"K", h.k, true}, {"V", h.v, true}};
    case LectureStep::scores: return {{"scores", head_scores(h, t.config).raw}};
    case LectureStep::scale: return {{"scores ÷ √d_k", head_scores(h, t.config).scaled}};
    case LectureStep::mask: return {{"scores + mask", head_scores(h, t.config).scaled + trace_layer_mask(t, f.layer)}};
    case LectureStep::softmax: return {{"weights", *head_map(t, f.layer, f.head), false, true}};
    case LectureStep::weighted_sum: return {{"weights", *head_map(t, f.layer, f.head), false, true}, {"weights · V", h.out}};
    case LectureStep::concat: return {{"concat", lt.attn.concat}};
    case LectureStep::out_proj: return {{"Concat · W^O", lt.attn.out}};
  }
  return {};
}

}  // namespace

Result<Figure> steps_figure(const AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  const Trace& t = *app.trace;
  const int step = lecture_step_clamp(app.steps.step);
  const LectureFocus f = lecture_focus(t, app.layer, app.head, app.query);
  FigurePage page = page_make(font);
  page_line(page, std::string(tr(L, Str::view_steps)) + " — " + std::to_string(step + 1) + " / " + std::to_string(kLectureStepCount) +
                      " · " + tr(L, kStepsTitle[step]),
            18, kPageInk, true);
  page_line(page, std::string(tr(L, Str::layer)) + " " + std::to_string(f.layer + 1) + " · " + tr(L, Str::head) + " " +
                      std::to_string(f.head + 1) + " · " + tr(L, Str::query) + " " + t.queries[static_cast<size_t>(f.query)].text + " #" +
                      std::to_string(f.query),
            14, kPageDim);
  if (auto formula = formula_parse(steps_formula_markup(lecture_step_at(step), t.head(f.layer, f.head).score));
      formula && !formula->kids.empty())
    page_formula(page, *formula, 22, Rgba{200, 110, 10, 255});
  page_paragraph(page, tr(L, kStepsExplain[step]), 14, kPageInk);
  page_gap(page, 8);
  // A lean trace's layer (a long input): the one the view recomputed for this head, else recomputed here.
  const StepsScoresCache& cache = app.steps.scores;
  const bool cached = cache.layer_filled && cache.version == app.trace_version && cache.layer == f.layer &&
                      cache.head == f.head;
  std::optional<LayerTrace> filled;
  if (trace_layers_lean(t) && !cached) {
    if (!app.trace_model) return make_error("steps: " + std::string(tr(Lang::en, Str::steps_lean_no_model)));
    auto r = trace_layer_for_lecture(*app.trace_model, t, f.layer, f.head);
    if (!r) return make_error("steps: " + r.error());
    filled = std::move(*r);
  }
  const LayerTrace* recomputed = filled ? &*filled : cached ? &*cache.layer_filled : nullptr;
  const LayerTrace& lt = recomputed ? *recomputed : t.layers[static_cast<size_t>(f.layer)];
  const HeadTrace& h = recomputed ? lt.attn.heads[static_cast<size_t>(f.head)] : t.head(f.layer, f.head);
  for (const StepMatrix& sm : step_matrices(t, lt, h, f, lecture_step_at(step)))
    if (Status s = add_matrix(page, app, t, f, sm); !s) return make_error("steps: " + s.error());
  return page_finish(std::move(page));
}

}  // namespace attnviz
