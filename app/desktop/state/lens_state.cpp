#include "state/lens_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "state/app_state.h"
#include "state/figure_page.h"

namespace attnviz {

namespace {

void write_refresh(AppState& app) {
  LensState& s = app.lens;
  s.write.reset();
  s.write_error.clear();
  if (s.cell_layer < 0 || !app.trace || !app.trace_model) return;
  auto w = head_write_tokens(*app.trace_model, *app.trace, s.cell_layer, s.cell_head, s.position, 5);
  if (w) s.write = std::move(*w);
  else s.write_error = w.error();
}

}  // namespace

int lens_position(const AppState& app) {
  if (!app.trace) return -1;
  if (app.query >= 0 && app.query < app.trace->n_queries()) return app.query;
  return trace_last_real_query(*app.trace);
}

void lens_refresh(AppState& app) {
  LensState& s = app.lens;
  const int position = lens_position(app);
  if (s.cached && s.version == app.trace_version && s.position == position) return;
  s = LensState{};
  s.cached = true;
  s.version = app.trace_version;
  s.position = position;
  if (!app.trace || !app.trace_model || position < 0) return;
  const Model& m = *app.trace_model;
  const Trace& t = *app.trace;
  auto rows = logit_lens_at(m, t, position, 5);
  if (rows) s.rows = std::move(*rows);
  else s.rows_error = rows.error();
  // Attribution reads a language model's last position only.
  auto a = logit_attribution(m, t);
  if (a) s.attribution = std::move(*a);
  else s.attribution_error = a.error();
}

Status lens_page_part(FigurePage& page, const AppState& app) {
  const LensState& s = app.lens;
  if (!s.cached || s.version != app.trace_version || s.position != lens_position(app) || !app.trace) return Ok{};
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
  app.lens.cell_layer = layer;
  app.lens.cell_head = head;
  write_refresh(app);
}

}  // namespace attnviz
