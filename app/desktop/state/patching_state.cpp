#include "state/patching_state.h"

#include <algorithm>
#include <cmath>

#include "state/answer_text.h"
#include "state/app_state.h"
#include "state/figure_page.h"

namespace attnviz {

namespace {

PatchingRun patching_measure(const PatchingRequest& r, const std::atomic<bool>* cancel) {
  PatchingRun run;
  run.request = r;
  Trace traces[2];
  const std::string* texts[2] = {&r.clean, &r.corrupt};
  std::vector<std::string>* tokens[2] = {&run.clean_tokens, &run.corrupt_tokens};
  for (int i = 0; i < 2; ++i) {
    TraceInput in;
    in.text = *texts[i];
    in.mask = r.mask;
    in.max_memory = r.max_memory;
    auto t = trace_run(*r.model, in);
    if (!t) {
      run.trace_error = (i == 0 ? "A: " : "B: ") + t.error();
      return run;
    }
    traces[i] = std::move(*t);
    for (const TraceToken& tok : traces[i].queries) tokens[i]->push_back(tok.text);
  }
  auto out = patch_run(*r.model, traces[0], r.clean, traces[1], r.corrupt, r.by, {}, cancel);
  if (out) run.result = std::move(*out);
  else run.failure = out.failure();
  return run;
}

}  // namespace

std::optional<PatchingRequest> patching_wanted(const AppState& app) {
  if (!app.trace || !app.trace_model || app.trace->weights_only || !app.trace_b) return std::nullopt;
  if (app.compare.mode != CompareMode::sentence_b) return std::nullopt;
  PatchingRequest r;
  r.model = app.trace_model;
  r.clean = app.sentence;
  r.corrupt = app.compare.sentence;
  r.mask = app.mask;
  r.by = app.patching.by;
  r.max_memory = app.trace_max_memory;
  return r;
}

void patching_take(AppState& app) {
  PatchingState& s = app.patching;
  auto done = s.job.poll();
  if (!done) return;
  s.running.reset();
  if (done->failure && done->failure->kind == PatchFailureKind::cancelled) return;
  const bool same_cells = s.shown && s.shown->result && done->result && s.shown->request.by == done->request.by;
  if (!same_cells) s.cell_row = s.cell_column = -1;
  s.shown = std::move(*done);
}

void patching_update(AppState& app) {
  PatchingState& s = app.patching;
  patching_take(app);
  const std::optional<PatchingRequest> want = patching_wanted(app);
  if (!want || (s.shown && s.shown->request == *want)) return;
  if (s.job.busy()) {
    if (s.running && !(*s.running == *want)) s.cancel = true;  // ends between runs; the next frame starts the wanted one
    return;
  }
  s.cancel = false;
  s.running = *want;
  s.job.start([r = *want, cancel = &s.cancel] { return patching_measure(r, cancel); });
}

const PatchingRun* patching_current(const AppState& app) {
  const std::optional<PatchingRequest> want = patching_wanted(app);
  if (!want || !app.patching.shown || !(app.patching.shown->request == *want)) return nullptr;
  return &*app.patching.shown;
}

Status patching_page_part(FigurePage& page, const AppState& app) {
  const PatchingRun* run = patching_current(app);
  if (!run || !run->result) return Ok{};
  const Lang L = app.lang;
  const PatchResult& r = *run->result;
  page_gap(page, 6);
  page_line(page, tr(L, Str::patch_title), 15, kPageInk, true);
  page_paragraph(page, "A: " + run->request.clean + "   B: " + run->request.corrupt, 13);
  page_paragraph(page,
                 r.metric == PatchMetric::log_prob_diff
                     ? tr_format(L, Str::patch_metric_coref, r.clean_referent_text.c_str(), r.corrupt_referent_text.c_str(),
                                 static_cast<double>(r.clean), static_cast<double>(r.corrupt))
                     : tr_format(L, Str::patch_metric_lm, r.answer_text.c_str(), r.wrong_text.c_str(), static_cast<double>(r.clean),
                                 static_cast<double>(r.corrupt)),
                 13, kPageInk);
  const int NL = static_cast<int>(r.effect.size()), NC = NL > 0 ? static_cast<int>(r.effect[0].size()) : 0;
  Mat effect(NL, NC);
  float top = 1;
  for (int l = 0; l < NL; ++l)
    for (int c = 0; c < NC; ++c) {
      effect(l, c) = r.effect[static_cast<size_t>(l)][static_cast<size_t>(c)];
      top = std::max(top, std::abs(effect(l, c)));
    }
  HeatmapGridSpec spec = page_layer_head_spec(app, NL, r.by == PatchBy::head ? NC : 0);
  if (r.by == PatchBy::position) spec.col_labels = run->corrupt_tokens;
  spec.cmap = Colormap::diverging;
  spec.vmin = -top;
  spec.vmax = top;
  spec.panels.push_back(HeatmapPanel{tr(L, r.by == PatchBy::head ? Str::patch_by_head : Str::patch_by_position), &effect, "patching"});
  return page_grid(page, spec, "patching.");
}

std::string patching_failure_text(const PatchingRun& run, Lang L) {
  if (!run.trace_error.empty()) return run.trace_error;
  if (!run.failure) return {};
  const PatchFailure& f = *run.failure;
  switch (f.kind) {
    case PatchFailureKind::no_answer: return no_answer_text(f.no_answer, L);
    case PatchFailureKind::unsupported: return tr(L, Str::patch_fail_unsupported);
    case PatchFailureKind::different_lengths: return tr_format(L, Str::patch_fail_lengths, f.clean_tokens, f.corrupt_tokens);
    case PatchFailureKind::same_answer:
      return f.answer.empty() ? std::string(tr(L, Str::patch_fail_same_metric)) : tr_format(L, Str::patch_fail_same, f.answer.c_str());
    case PatchFailureKind::bad_token: return tr_format(L, Str::patch_fail_bad_token, f.token);
    case PatchFailureKind::ablated: return tr(L, Str::patch_fail_ablated);
    case PatchFailureKind::cancelled: break;
  }
  return {};
}

}  // namespace attnviz
