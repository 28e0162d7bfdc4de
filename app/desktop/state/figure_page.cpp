// The page the views' figure builders stack their parts on, and the grid spec they start from.
// Text is measured with the figure's font so the SVG and the PNG wrap the same way.
#include "state/figure_page.h"

#include <algorithm>
#include <cmath>

#include "state/formula_layout.h"

namespace attnviz {

FigurePage page_make(const FontRaster* font, float text_width) {
  FigurePage page;
  page.font = font;
  page.width = text_width;
  page.fig.width = text_width + 2 * page.margin;
  return page;
}

void page_line(FigurePage& page, const std::string& text, float px, Rgba color, bool bold) {
  FigureText t = figure_text(page.margin, page.y, text_fit(page.font, text, px, static_cast<int>(page.width)), px, color);
  t.bold = bold;
  page.fig.items.push_back(std::move(t));
  page.y += px * 1.3f;
}

void page_formula(FigurePage& page, const FormulaNode& formula, float px, Rgba color) {
  FormulaPainter painter;
  // The markup's characters are measured one by one, and a width in whole pixels rounds each up:
  // measured 16 times larger, the rounding stays within a sixteenth of a pixel a character.
  const auto width = [&](std::string_view text, float size) {
    return static_cast<float>(text_width(page.font, text, size * 16)) / 16.0f;
  };
  painter.width = width;
  // The markup's text comes a character at a time: a run on one line at one size becomes one text
  // item (one <text> in the SVG, where "softmax(" stays a word).
  size_t run = std::string::npos;  // the index of the item a run is growing in
  float run_end = 0;
  painter.text = [&](float x, float top, std::string_view text, float size) {
    if (run != std::string::npos) {
      auto* last = std::get_if<FigureText>(&page.fig.items[run]);
      if (last && last->y == top && last->px == size && std::abs(x - run_end) < 0.5f) {
        last->text += text;
        run_end += width(text, size);
        return;
      }
    }
    run = page.fig.items.size();
    run_end = x + width(text, size);
    page.fig.items.push_back(figure_text(x, top, std::string(text), size, color));
  };
  painter.line = [&](float x0, float y0, float x1, float y1, float thickness) {
    FigureLine l;
    l.points = {{x0, y0}, {x1, y1}};
    l.color = color;
    l.width = thickness;
    page.fig.items.push_back(std::move(l));
  };
  const FormulaBox box = formula_layout(formula, 0, 0, px, painter, false);
  formula_layout(formula, page.margin, page.y + box.asc, px, painter, true);
  page.y += box.asc + box.desc + px * 0.4f;
  page.width = std::max(page.width, box.w);
}

std::vector<std::string> text_wrap(const FontRaster* font, const std::string& text, float px, float max_width) {
  TextPainter p(font, px);
  std::vector<std::string> lines;
  std::string line;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(' ', pos), text.size());
    const std::string word = text.substr(pos, end - pos);
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && static_cast<float>(p.width(joined)) > max_width) {
      lines.push_back(line);
      line = p.fit(word, static_cast<int>(max_width));
    } else {
      line = static_cast<float>(p.width(joined)) > max_width ? p.fit(joined, static_cast<int>(max_width)) : joined;
    }
    pos = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

void page_paragraph(FigurePage& page, const std::string& text, float px, Rgba color) {
  for (const std::string& line : text_wrap(page.font, text, px, page.width)) page_line(page, line, px, color);
}

void page_gap(FigurePage& page, float px) { page.y += px; }

void page_block(FigurePage& page, const Figure& block, const std::string& prefix, float x) {
  // Grids keep a margin of their own: let it overlap the page's.
  const float top = page.y - page.margin;
  figure_append(page.fig, block, x, top, prefix);
  page.y = top + block.height;
  page.fig.width = std::max(page.fig.width, x + block.width);
}

Status page_grid(FigurePage& page, const HeatmapGridSpec& spec, const std::string& prefix) {
  auto fig = heatmap_grid_figure(spec, page.font);
  if (!fig) return make_error(fig.error());
  page_block(page, *fig, prefix);
  return Ok{};
}

Figure page_finish(FigurePage&& page) {
  page.fig.height = page.y + page.margin;
  page.fig.width = std::max(page.fig.width, page.width + 2 * page.margin);
  return std::move(page.fig);
}

HeatmapGridSpec page_grid_spec(const AppState& app, const Trace& t) {
  HeatmapGridSpec spec;
  for (const TraceToken& tok : t.queries) spec.row_labels.push_back(tok.text);
  for (const TraceToken& tok : t.keys) spec.col_labels.push_back(tok.text);
  spec.cmap = app.cmap;
  spec.annotate = app.annotate;
  return spec;
}

HeatmapGridSpec page_layer_head_spec(const AppState& app, int layers, int heads) {
  HeatmapGridSpec spec;
  for (int l = 0; l < layers; ++l) spec.row_labels.push_back("L" + std::to_string(l + 1));
  for (int h = 0; h < heads; ++h) spec.col_labels.push_back("H" + std::to_string(h + 1));
  spec.cmap = app.cmap;
  spec.annotate = app.annotate;
  spec.cell_px = 32;
  return spec;
}

std::string map_display_caption(const AppState& app) {
  std::string out;
  if (app.color_scale.kind == ColorScale::log) out += " — " + std::string(tr(app.lang, Str::scale_caption_log));
  if (app.color_scale.kind == ColorScale::power) out += " — " + std::string(tr(app.lang, Str::scale_caption_sqrt));
  if (app_first_aside(app)) out += " — " + std::string(tr(app.lang, Str::first_aside_caption));
  return out;
}

float maps_top(const std::vector<const Mat*>& maps) {
  float top = 0;
  for (const Mat* m : maps)
    if (m && m->size() > 0) top = std::max(top, m->maxCoeff());
  return top > 0 ? top : 1.0f;
}

}  // namespace attnviz
