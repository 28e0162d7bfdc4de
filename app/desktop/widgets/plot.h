// A line chart for training curves (loss, held-out accuracy): axes with round tick values, a
// title, an optional dashed target line, a legend when there are several series, the newest value
// printed at the end of each line, and a hover read-out. Drawn at the cursor as one item. It draws
// what it is given; it does not smooth, fit or decide what to plot.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace attnviz {

struct PlotSeries {
  std::string label;            // legend and hover text
  ImU32 color = 0;
  std::vector<ImVec2> points;   // (step, value), steps increasing
};

struct PlotSpec {
  const char* id = "plot";      // ImGui id, unique within the window
  std::string title;
  std::string x_label;          // under the x axis ("step")
  std::vector<PlotSeries> series;
  float x_max = 0;              // at least this much of the x axis is shown (0: up to the data)
  float y_min = 0, y_max = 1;   // y_max <= y_min: from the data
  bool percent = false;         // y values are shares: ticks and read-outs in %
  float target = -1;            // >= 0: a dashed line at this y value...
  std::string target_label;     // ...with this text
  bool series_legend = true;     // name the series (when there are several) on the title line
  float thickness = 1.5f;       // line width in pixels (the caller scales it for presentation mode)
  ImVec2 size;                  // the whole chart, labels included
};

void train_plot(const PlotSpec& spec);

}  // namespace attnviz
