// The Compare view as a figure: the mode, A's heads, B's heads and their difference (A − B on the
// diverging map from −1 to 1, white = no change), from the maps app_update keeps for the chosen
// layer. Panel ids: "a.N", "b.N", "diff.N" in the maps' order. Headless.
#include <string>

#include "state/figure_page.h"
#include "state/view_figure.h"

namespace attnviz {

namespace {

// Indexed by CompareMode, in kAllCompareModes order.
constexpr Str kModeStr[] = {Str::cmp_mode_sentence, Str::cmp_mode_heads, Str::cmp_mode_mask, Str::cmp_mode_scale};

Status compare_grid(FigurePage& page, const AppState& app, const Trace& t, const std::vector<Mat>& maps,
                    const std::vector<std::string>& titles, const std::string& prefix, bool diff) {
  if (maps.empty()) return Ok{};
  HeatmapGridSpec spec = page_grid_spec(app, t);
  for (size_t i = 0; i < maps.size(); ++i)
    spec.panels.push_back(HeatmapPanel{i < titles.size() ? titles[i] : std::string(), &maps[i], std::to_string(i)});
  if (diff) {
    spec.cmap = Colormap::diverging;
    spec.vmin = -1.0f;
    spec.vmax = 1.0f;
  }
  spec.columns = static_cast<int>(std::min<size_t>(maps.size(), 4));
  return page_grid(page, spec, prefix);
}

}  // namespace

Result<Figure> compare_figure(const AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  const CompareMaps& cm = app.compare.maps;
  if (!app.trace_b || cm.a.empty() || cm.b.empty())
    return make_error("compare: nothing to export yet (trace B is not computed: open the Compare view and wait for it)");
  FigurePage page = page_make(font);
  page_line(page, std::string(tr(L, Str::view_compare)) + " — " + tr(L, kModeStr[static_cast<int>(app.compare.mode)]) + " — " +
                      tr(L, Str::layer) + " " + std::to_string(app.layer + 1),
            17, kPageInk);
  if (app.compare.mode == CompareMode::sentence_b) {
    page_paragraph(page, "A: " + app.sentence, 14, kPageInk);
    page_paragraph(page, "B: " + app.compare.sentence, 14, kPageInk);
  }
  if (!cm.note.empty()) page_paragraph(page, cm.note, 13);
  page_gap(page, 8);
  if (Status s = compare_grid(page, app, *app.trace, cm.a, cm.a_titles, "a.", false); !s) return make_error(s.error());
  if (Status s = compare_grid(page, app, *app.trace_b, cm.b, cm.b_titles, "b.", false); !s) return make_error(s.error());
  if (Status s = compare_grid(page, app, *app.trace, cm.diff, cm.diff_titles, "diff.", true); !s) return make_error(s.error());
  if (Status s = patching_page_part(page, app); !s) return make_error("compare: " + s.error());
  return page_finish(std::move(page));
}

}  // namespace attnviz
