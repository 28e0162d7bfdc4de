// The Translation view as a figure: the English sentence, the model's Korean and whether it is the
// grammar's, and the alignment matrix of every cross-attention head of the decoder (target tokens
// as rows, particles written "-가", source tokens as columns), the shown head first, each with its
// share of the sentence's content tokens aligned. For the
// bottleneck model, which has no cross-attention, the translation and why there is no matrix.
// Headless.
#include <cmath>
#include <string>

#include "state/figure_page.h"
#include "state/view_figure.h"

namespace attnviz {

Result<Figure> translate_figure(AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  translate_refresh(app);  // as drawing the view would
  const TranslateState& t = app.translate;
  const TranslateModel* m = translate_shown_model(app);
  if (!m || !t.readout || t.readout_variant != t.variant)
    return make_error("translate: nothing to export yet (" + (t.error.empty() ? std::string("no translation") : t.error) + ")");
  const TranslateReadout& r = *t.readout;
  FigurePage page = page_make(font);
  page_line(page, std::string(tr(L, Str::view_translate)) + " — " + tr(L, Str::tl_title), 18, kPageInk, true);
  page_line(page, tr(L, translate_variants()[static_cast<size_t>(t.variant)].label), 14, kPageDim);
  page_paragraph(page, std::string(tr(L, Str::tl_english)) + ": " + r.pair.source_text(), 14, kPageInk);
  page_line(page, std::string(tr(L, Str::tl_korean)) + ": " + translate_written(r.output), 16, kPageInk, true);
  std::string verdict = r.exact ? tr(L, Str::tl_exact) : tr_format(L, Str::tl_not_exact, r.pair.korean_text().c_str());
  verdict += " · " + tr_format(L, Str::tl_gold_prob, std::exp(static_cast<double>(r.gold_logprob)) * 100.0);
  if (r.cross_off.any()) verdict += " · " + tr_format(L, Str::tl_heads_off, ablation_heads_label(r.cross_off.heads).c_str());
  page_paragraph(page, verdict, 13);
  page_gap(page, 6);
  if (r.forward.decoder.empty()) {
    page_paragraph(page, tr(L, Str::tl_bottleneck_no_matrix), 13);
    return page_finish(std::move(page));
  }
  HeatmapGridSpec spec;
  spec.cmap = app.cmap;
  spec.annotate = app.annotate;
  for (int i = 0; i < r.rows(); ++i) {
    const std::string tok = translate_row_token(*m, r, i);
    spec.row_labels.push_back(translate_particle_token(tok) ? "-" + tok : tok);
  }
  spec.col_labels = r.pair.source;
  const int NH = m->arch.n_heads, shown = translate_shown_head(app);
  std::vector<Mat> maps;
  std::vector<int> order;
  if (shown >= 0) order.push_back(shown);
  for (int k = 0; k < static_cast<int>(r.head_aligned.size()); ++k)
    if (k != shown) order.push_back(k);
  maps.reserve(order.size());
  for (const int k : order) {
    maps.push_back(r.forward.decoder[static_cast<size_t>(k / NH)].cross.attn.heads[static_cast<size_t>(k % NH)].weights_kept);
    const std::string name = "L" + std::to_string(k / NH + 1) + " H" + std::to_string(k % NH + 1) + " · " +
                             tr_format(L, Str::tl_aligned_pct, static_cast<double>(r.head_aligned[static_cast<size_t>(k)]) * 100.0) +
                             (r.cross_off.has(k / NH, k % NH) ? " · " + std::string(tr(L, Str::tl_head_is_off)) : "");
    spec.panels.push_back(HeatmapPanel{name, &maps.back(), "head" + std::to_string(k)});
  }
  spec.columns = 2;
  if (Status s = page_grid(page, spec); !s) return make_error("translate: " + s.error());
  return page_finish(std::move(page));
}

}  // namespace attnviz
