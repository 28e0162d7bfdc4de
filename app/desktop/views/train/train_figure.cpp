// The Train view as a figure: the run's training loss and held-out accuracy against the step, as
// polylines on axes with ticks and labels (accuracy with its target line), and the last report's
// numbers. Reads the runner's snapshot; nothing to export before the first report. Headless.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "state/figure_page.h"
#include "state/view_figure.h"
#include "views/train/train_actions.h"

namespace attnviz {

namespace {

constexpr Rgba kLossColor{70, 140, 255, 255};
constexpr Rgba kAccuracyColor{50, 170, 80, 255};
constexpr Rgba kTargetColor{235, 60, 75, 255};
constexpr Rgba kGrid{225, 225, 225, 255};

struct PlotPoint {
  float x, y;
};

struct Plot {
  std::string title, x_label, series, target_label;
  std::vector<PlotPoint> points;
  Rgba color;
  float x_max = 1, y_max = 1;
  bool percent = false;
  float target = -1;  // a horizontal line, < 0: none
};

std::string tick_label(float v, bool percent) {
  char buf[32];
  if (percent) std::snprintf(buf, sizeof buf, "%.0f%%", static_cast<double>(v) * 100.0);
  else if (v >= 100.0f) std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(v));
  else std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

// A round top for an axis from 0: four intervals of 1, 2, 2.5 or 5 times a power of ten.
float nice_top(float v) {
  if (!(v > 0) || !std::isfinite(v)) return 1.0f;
  const float raw = v * 1.05f / 4.0f, magnitude = std::pow(10.0f, std::floor(std::log10(raw)));
  for (float f : {1.0f, 2.0f, 2.5f, 5.0f, 10.0f})
    if (f * magnitude >= raw) return 4.0f * f * magnitude;
  return 40.0f * magnitude;
}

FigureLine segment(float x0, float y0, float x1, float y1, Rgba c, float w) {
  FigureLine l;
  l.points = {{x0, y0}, {x1, y1}};
  l.color = c;
  l.width = w;
  return l;
}

void plot_add(FigurePage& page, const Plot& p) {
  const float px = 13, left = page.margin + 56, w = 620, h = 220;
  page_line(page, p.title, 15, kPageInk, true);
  const float top = page.y + 6, bottom = top + h, right = left + w;
  auto X = [&](float v) { return left + w * std::clamp(v / p.x_max, 0.0f, 1.0f); };
  auto Y = [&](float v) { return bottom - h * std::clamp(v / p.y_max, 0.0f, 1.0f); };
  for (int i = 0; i <= 4; ++i) {  // y grid and ticks
    const float v = p.y_max * static_cast<float>(i) / 4.0f;
    page.fig.items.push_back(segment(left, Y(v), right, Y(v), kGrid, 1));
    page.fig.items.push_back(FigureText{left - 6, Y(v) - px * 0.5f, tick_label(v, p.percent), px, kPageDim, TextAnchor::end});
  }
  for (int i = 0; i <= 5; ++i) {  // x ticks
    const float v = std::round(p.x_max * static_cast<float>(i) / 5.0f);
    page.fig.items.push_back(segment(X(v), bottom, X(v), bottom + 4, kPageFrame, 1));
    page.fig.items.push_back(FigureText{X(v), bottom + 6, tick_label(v, false), px, kPageDim, TextAnchor::middle});
  }
  if (p.target >= 0) {
    page.fig.items.push_back(segment(left, Y(p.target), right, Y(p.target), kTargetColor, 1.5f));
    page.fig.items.push_back(FigureText{right - 4, Y(p.target) - px - 2, p.target_label, px, kTargetColor, TextAnchor::end});
  }
  FigureLine curve;
  for (const PlotPoint& q : p.points) curve.points.push_back({X(q.x), Y(q.y)});
  curve.color = p.color;
  curve.width = 2;
  if (curve.points.size() == 1) {  // one report: a dot
    page.fig.items.push_back(FigureCircle{curve.points[0].x, curve.points[0].y, 3, p.color});
  } else {
    page.fig.items.push_back(std::move(curve));
  }
  FigureRect frame;
  frame.x = left;
  frame.y = top;
  frame.w = w;
  frame.h = h;
  frame.stroke = kPageFrame;
  page.fig.items.push_back(frame);
  page.fig.items.push_back(FigureText{(left + right) * 0.5f, bottom + 8 + px, p.x_label, px, kPageInk, TextAnchor::middle});
  page.fig.items.push_back(FigureText{page.margin, (top + bottom) * 0.5f, p.series, px, p.color, TextAnchor::middle, TextOrient::rotated});
  page.y = bottom + 16 + 2 * px;
  page.fig.width = std::max(page.fig.width, right + page.margin + 8);
}

}  // namespace

Result<Figure> train_figure(const AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  const TrainSnapshot s = app.train.runner.snapshot();
  if (s.reports.empty()) return make_error("train: nothing to export yet (start a run in the Train view)");
  const bool coref = app.train.run_demo == DemoKind::coreference;
  const TrainProgress& last = s.reports.back();

  FigurePage page = page_make(font);
  page_line(page, std::string(tr(L, Str::view_train)) + " — " + tr(L, coref ? Str::tr_demo_coref : Str::tr_demo_induction), 18, kPageInk,
            true);
  std::string numbers = std::string(tr(L, Str::tr_step_axis)) + " " + std::to_string(last.step) + " · " +
                        tr_format(L, Str::tr_loss_value, static_cast<double>(last.loss));
  for (auto it = s.reports.rbegin(); it != s.reports.rend(); ++it)
    if (it->evaluated) {
      numbers += " · " + tr_format(L, it->heldout_partial ? Str::tr_heldout_sample : Str::tr_heldout_value,
                                   static_cast<double>(it->heldout_accuracy) * 100.0);
      break;
    }
  page_line(page, numbers, 14, kPageDim);
  page_gap(page, 8);

  const float x_max = static_cast<float>(std::max({last.step, std::min(app.train.run_settings.max_steps, 100), 1}));
  Plot loss;
  loss.title = tr(L, Str::tr_loss_curve);
  loss.x_label = tr(L, Str::tr_step_axis);
  loss.series = tr(L, Str::tr_loss);
  for (const TrainProgress& r : s.reports) {
    loss.points.push_back({static_cast<float>(r.step), r.loss});
    loss.y_max = std::max(loss.y_max, r.loss);
  }
  loss.y_max = nice_top(loss.y_max);
  loss.color = kLossColor;
  loss.x_max = x_max;
  plot_add(page, loss);

  const float target = coref ? kCorefTarget : kInductionTarget;
  Plot acc;
  acc.title = tr(L, Str::tr_accuracy_curve);
  acc.x_label = loss.x_label;
  acc.series = tr(L, Str::tr_heldout);
  acc.target_label = tr_format(L, Str::tr_target, static_cast<double>(target) * 100.0);
  for (const TrainProgress& r : s.reports)
    if (r.evaluated) acc.points.push_back({static_cast<float>(r.step), r.heldout_accuracy});
  acc.color = kAccuracyColor;
  acc.x_max = x_max;
  acc.percent = true;
  acc.target = target;
  plot_add(page, acc);
  return page_finish(std::move(page));
}

}  // namespace attnviz
