// The Coreference view as a figure: sentence A and the model's answer, the pronoun's weight on each
// candidate for every layer x head (panels "to_a", "to_b"), and the chosen head's (or the best
// head's) heatmaps for A and, when shown, its minimal pair B ("pair.a", "pair.b"). Headless.
#include <string>

#include "model/head_map.h"
#include "state/answer_text.h"
#include "state/figure_page.h"
#include "state/view_figure.h"

namespace attnviz {

namespace {

std::string token_of(const CorefExample& e, int i) {
  return i >= 0 && i < static_cast<int>(e.tokens.size()) ? e.tokens[static_cast<size_t>(i)].text : "?";
}

HeatmapGridSpec side_spec(const AppState& app, const Trace& t, int layer, int head, const std::string& name) {
  HeatmapGridSpec spec = page_grid_spec(app, t);
  spec.panels.push_back(HeatmapPanel{name + " · " + tr(app.lang, Str::layer) + " " + std::to_string(layer + 1) + " · " +
                                         tr(app.lang, Str::head) + " " + std::to_string(head + 1),
                                     nullptr, "0"});
  spec.held.push_back(head_map_shared(t, layer, head));
  spec.panels.back().weights = spec.held.back().get();
  return spec;
}

}  // namespace

Result<Figure> coref_figure(AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  coref_cache_refresh(app);  // as drawing the view would
  const CorefSide& a = app.coref.a;
  if (!a.fits) return make_error("coref: nothing to export for this sentence (" + (a.why ? no_answer_english(*a.why) : std::string("no \"it\" and two nouns")) + ")");
  const Trace& t = *app.trace;
  const CorefExample& e = a.example;
  const int NL = static_cast<int>(t.layers.size()), NH = t.config.n_heads;

  FigurePage page = page_make(font);
  page_line(page, std::string(tr(L, Str::view_coref)) + " — " + tr(L, Str::co_title), 18, kPageInk, true);
  page_paragraph(page, "A: " + a.text, 14, kPageInk);
  std::string facts = std::string(tr(L, Str::co_pronoun)) + ": " + token_of(e, e.pronoun) + " · " + tr(L, Str::co_candidates) + ": " +
                      token_of(e, e.candidate_a) + ", " + token_of(e, e.candidate_b);
  if (e.property >= 0) facts += std::string(" · ") + tr(L, Str::co_property) + ": " + token_of(e, e.property);
  page_paragraph(page, facts, 14);
  if (a.answer) {
    std::string answer = std::string(tr(L, Str::co_answer)) + ": " +
                         tr_format(L, Str::co_answer_prob, a.answer->referent_text.c_str(), static_cast<double>(a.answer->probability) * 100.0);
    if (e.referent >= 0) answer += std::string(" · ") + tr(L, a.answer->referent == e.referent ? Str::co_correct : Str::co_wrong);
    page_line(page, answer, 15, kPageInk, true);
  } else if (a.answer_error) {
    page_paragraph(page, tr_format(L, Str::co_no_answer, no_answer_text(*a.answer_error, L).c_str()), 14);
  }
  page_gap(page, 6);

  // Every head's weight from the pronoun on each candidate.
  Mat to_a = Mat::Zero(NL, NH), to_b = Mat::Zero(NL, NH);
  int resolving = 0;
  for (const CorefHeadScore& s : a.heads) {
    if (s.layer >= NL || s.head >= NH) continue;
    to_a(s.layer, s.head) = s.to_a;
    to_b(s.layer, s.head) = s.to_b;
    resolving += s.resolves ? 1 : 0;
  }
  page_line(page, tr_format(L, Str::co_heads_title, token_of(e, e.pronoun).c_str()), 15, kPageInk, true);
  if (e.referent >= 0) page_line(page, tr_format(L, Str::co_resolves_count, resolving, NL * NH), 13, kPageDim);
  HeatmapGridSpec heads = page_layer_head_spec(app, NL, NH);
  heads.panels.push_back(HeatmapPanel{token_of(e, e.pronoun) + " → " + token_of(e, e.candidate_a), &to_a, "to_a"});
  heads.panels.push_back(HeatmapPanel{token_of(e, e.pronoun) + " → " + token_of(e, e.candidate_b), &to_b, "to_b"});
  heads.columns = 2;
  if (Status s = page_grid(page, heads); !s) return make_error("coref: " + s.error());

  // The chosen head's weights, for A and its minimal pair.
  int layer = app.coref.pair_layer, head = app.coref.pair_head;
  if (layer < 0 || layer >= NL || head < 0 || head >= NH) {
    const bool best = a.best >= 0 && a.best < static_cast<int>(a.heads.size());
    layer = best ? a.heads[static_cast<size_t>(a.best)].layer : 0;
    head = best ? a.heads[static_cast<size_t>(a.best)].head : 0;
  }
  page_line(page, tr(L, Str::co_pair_title), 15, kPageInk, true);
  HeatmapGridSpec pa = side_spec(app, t, layer, head, "A");
  pa.highlight_row = e.pronoun;
  if (Status s = page_grid(page, pa, "pair.a."); !s) return make_error("coref: " + s.error());
  if (coref_b_shown(app) && app.trace_b && app.coref.b.fits && layer < static_cast<int>(app.trace_b->layers.size())) {
    page_paragraph(page, "B: " + app.coref.b.text, 14, kPageInk);
    HeatmapGridSpec pb = side_spec(app, *app.trace_b, layer, head, "B");
    pb.highlight_row = app.coref.b.example.pronoun;
    if (Status s = page_grid(page, pb, "pair.b."); !s) return make_error("coref: " + s.error());
  }
  if (Status s = patching_page_part(page, app); !s) return make_error("coref: " + s.error());
  return page_finish(std::move(page));
}

}  // namespace attnviz
