// The Statistics view as a figure: one layer x head grid per head detector (scores 0..1, grey where
// a detector is not defined), then the per-head statistics as layer x head grids (entropy, max
// weight, mean distance, first-token and punctuation shares). Panel ids "det.NAME", "stat.NAME".
#include <cmath>
#include <limits>
#include <string>

#include "analysis/detector_report.h"
#include "analysis/stats.h"
#include "state/explain_figure.h"
#include "state/figure_page.h"
#include "state/view_figure.h"

namespace attnviz {

namespace {

constexpr Str kDetectorStr[] = {Str::dt_name_previous, Str::dt_name_first, Str::dt_name_duplicate, Str::dt_name_induction,
                                Str::dt_name_coref};  // kAllDetectors order
constexpr Str kGapStr[] = {Str::dt_not_defined, Str::dt_why_cross,           Str::dt_why_short, Str::dt_why_no_repeat,
                           Str::dt_why_no_spaced_repeat, Str::dt_why_coref, Str::dt_why_masked};  // DetectorGap order

// A column header on one line: "Punctu-\nation" -> "Punctuation", "Max\nweight" -> "Max weight".
std::string one_line(const char* text) {
  std::string s;
  for (const char* c = text; *c; ++c) {
    if (*c == '-' && c[1] == '\n') ++c;
    else s += *c == '\n' ? ' ' : *c;
  }
  return s;
}

}  // namespace

Result<Figure> stats_figure(const AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  const Trace& t = app_shown_trace(app);
  const int NL = static_cast<int>(t.layers.size()), NH = t.config.n_heads;
  FigurePage page = page_make(font);
  page_line(page, std::string(tr(L, Str::view_stats)) + " — " + tr_format(L, Str::st_summary, NL, NH, t.n_queries(), t.n_keys()), 17,
            kPageInk);
  page_gap(page, 6);

  // Head detectors: scores in [0, 1]; an undefined score is NaN, drawn grey.
  page_line(page, tr(L, Str::dt_section), 15, kPageInk, true);
  // The view's scan when it is of this trace, else one now: each head's map formed once for both.
  const bool cached = app.stats.cache.shown_version == app.shown_version && !app.stats.cache.rows.empty();
  const StatsScan scan = cached ? StatsScan{app.stats.cache.rows, app.stats.cache.detectors, 0} : stats_scan(t);
  const DetectorReports& reports = scan.detectors;
  std::vector<Mat> det(reports.reports.size());
  HeatmapGridSpec dspec = page_layer_head_spec(app, NL, NH);
  for (size_t d = 0; d < reports.reports.size(); ++d) {
    det[d] = Mat::Constant(NL, NH, std::numeric_limits<float>::quiet_NaN());
    const auto& grid = reports.reports[d].grid.by_layer_head;
    for (int l = 0; l < NL && l < static_cast<int>(grid.size()); ++l)
      for (int h = 0; h < NH && h < static_cast<int>(grid[static_cast<size_t>(l)].size()); ++h)
        if (grid[static_cast<size_t>(l)][static_cast<size_t>(h)].defined) det[d](l, h) = grid[static_cast<size_t>(l)][static_cast<size_t>(h)].score;
    dspec.panels.push_back(HeatmapPanel{tr(L, kDetectorStr[d]), &det[d], std::string(name_of(kAllDetectors[d]))});
  }
  dspec.columns = static_cast<int>(std::min<size_t>(det.size(), 5));
  if (Status s = page_grid(page, dspec, "det."); !s) return make_error("stats: " + s.error());
  for (size_t d = 0; d < reports.reports.size(); ++d)  // why a grid is grey
    if (reports.reports[d].gap != DetectorGap::none)
      page_paragraph(page, std::string(tr(L, kDetectorStr[d])) + ": " + tr(L, kGapStr[static_cast<int>(reports.reports[d].gap)]), 13);
  page_gap(page, 8);

  // Per-head statistics, each on its own range.
  page_line(page, tr(L, Str::dt_table_section), 15, kPageInk, true);
  Mat entropy(NL, NH), max_weight(NL, NH), distance(NL, NH), first(NL, NH), punct_share(NL, NH);
  for (int l = 0; l < NL; ++l)
    for (int h = 0; h < NH; ++h) {
      const HeadStats& st = scan.rows[static_cast<size_t>(l * NH + h)].stats;
      entropy(l, h) = st.entropy;
      max_weight(l, h) = st.max_weight;
      distance(l, h) = st.mean_distance;
      first(l, h) = st.first_token_share;
      punct_share(l, h) = st.punct_share;
    }
  struct Stat {
    Str title;
    const char* id;
    const Mat* m;
    float vmax;
  };
  const Stat stats[] = {{Str::st_entropy, "entropy", &entropy, std::log(static_cast<float>(std::max(2, t.n_keys())))},
                        {Str::st_max_weight, "max_weight", &max_weight, 1.0f},
                        {Str::st_distance, "mean_distance", &distance, static_cast<float>(std::max(1, t.n_keys() - 1))},
                        {Str::st_first, "first_token", &first, 1.0f},
                        {Str::st_punct, "punct", &punct_share, 1.0f}};
  // Grids with one range each, side by side: one figure per statistic, placed along a row.
  const float top = page.y;
  float x = 0, bottom = top;
  for (const Stat& st : stats) {
    HeatmapGridSpec spec = page_layer_head_spec(app, NL, NH);
    spec.panels.push_back(HeatmapPanel{one_line(tr(L, st.title)), st.m, st.id});
    spec.vmax = st.vmax;
    auto fig = heatmap_grid_figure(spec, font);
    if (!fig) return make_error("stats: " + fig.error());
    if (x > 0 && x + fig->width > 1400) {  // next row of grids
      x = 0;
      page.y = bottom;
    }
    const float row_top = page.y;
    page_block(page, *fig, "stat.", x);
    bottom = std::max(bottom, page.y);
    x += fig->width - page.margin;
    page.y = row_top;
  }
  page.y = bottom;
  if (Status s = lens_page_part(page, app); !s) return make_error("stats: " + s.error());
  if (Status s = flow_page_part(page, app); !s) return make_error("stats: " + s.error());
  return page_finish(std::move(page));
}

}  // namespace attnviz
