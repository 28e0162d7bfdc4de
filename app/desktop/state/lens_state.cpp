#include "state/lens_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "state/app_state.h"
#include "state/figure_page.h"

namespace attnviz {

namespace {

LensKey key_now(const AppState& app) { return LensKey{app.trace_version, lens_position(app)}; }

// What the job computes: everything it reads is owned by the closure.
std::function<LensResult()> lens_compute(const AppState& app) {
  return [model = app.trace_model, trace = app.trace, position = lens_position(app)] {
    LensResult r;
    r.position = position;
    if (!model || !trace || position < 0) return r;
    auto rows = logit_lens_at(*model, *trace, position, 5);
    if (rows) r.rows = std::move(*rows);
    else r.rows_error = rows.error();
    // Attribution reads a language model's last position only.
    auto a = logit_attribution(*model, *trace);
    if (a) r.attribution = std::move(*a);
    else r.attribution_error = a.error();
    return r;
  };
}

}  // namespace

int lens_position(const AppState& app) {
  if (!app.trace) return -1;
  if (app.query >= 0 && app.query < app.trace->n_queries()) return app.query;
  return trace_last_real_query(*app.trace);
}

void lens_refresh(AppState& app) {
  if (!app.trace) return;
  app.lens.job.refresh(key_now(app), lens_compute(app));
}

const LensResult* lens_current(const AppState& app) { return app.trace ? app.lens.job.current(key_now(app)) : nullptr; }

const LensResult* lens_wait(AppState& app) {
  if (!app.trace) return nullptr;
  return &app.lens.job.wait(key_now(app), lens_compute(app));
}

Status lens_page_part(FigurePage& page, const AppState& app) {
  const LensResult* current = lens_current(app);
  if (!current) return Ok{};
  const LensResult& s = *current;
  const Lang L = app.lang;
  page_gap(page, 8);
  page_line(page, tr(L, Str::lens_title), 15, kPageInk, true);
  if (!s.rows.empty()) {
    page_line(page, tr_format(L, Str::lens_at, s.position, app.trace->queries[static_cast<size_t>(s.position)].text.c_str()), 13, kPageInk);
    for (const LensRow& row : s.rows) {
      std::string line = row.after_layer < 0 ? std::string(tr(L, Str::lens_embeddings)) : tr_format(L, Str::lens_after, row.after_layer + 1);
      char p[16];
      for (const TokenScore& t : row.top) {
        std::snprintf(p, sizeof p, " %.2f", static_cast<double>(t.p));
        line += "   " + t.text + p;
      }
      page_line(page, line, 13, kPageDim);
    }
  }
  if (!s.attribution) return Ok{};
  const LogitAttribution& a = *s.attribution;
  const std::string answer = answer_token_text(*app.trace_model, a.answer_id), wrong = answer_token_text(*app.trace_model, a.wrong_id);
  page_paragraph(page, tr_format(L, Str::lens_attr_title, answer.c_str(), wrong.c_str(), static_cast<double>(a.total),
                                 static_cast<double>(a.logit_diff)),
                 13, kPageInk);
  const int NL = static_cast<int>(a.heads.size()), NH = NL > 0 ? static_cast<int>(a.heads[0].size()) : 0;
  Mat grid(NL, NH);
  float top = 1e-6f;
  for (int l = 0; l < NL; ++l)
    for (int h = 0; h < NH; ++h) {
      grid(l, h) = a.heads[static_cast<size_t>(l)][static_cast<size_t>(h)];
      top = std::max(top, std::abs(grid(l, h)));
    }
  HeatmapGridSpec spec = page_layer_head_spec(app, NL, NH);
  spec.cmap = Colormap::diverging;
  spec.vmin = -top;
  spec.vmax = top;
  spec.panels.push_back(HeatmapPanel{"logit(" + answer + ") - logit(" + wrong + ")", &grid, "attribution"});
  return page_grid(page, spec, "attribution.");
}

void lens_choose_head(AppState& app, int layer, int head) {
  LensState& s = app.lens;
  s.cell_layer = layer;
  s.cell_head = head;
  s.write.reset();
  s.write_error.clear();
  s.write_key = key_now(app);
  if (layer < 0 || !app.trace || !app.trace_model) return;
  auto w = head_write_tokens(*app.trace_model, *app.trace, layer, head, s.write_key.position, 5);
  if (w) s.write = std::move(*w);
  else s.write_error = w.error();
}

const HeadWrite* lens_head_write(const AppState& app) {
  const LensState& s = app.lens;
  return s.write && s.write_key == key_now(app) ? &*s.write : nullptr;
}

}  // namespace attnviz
