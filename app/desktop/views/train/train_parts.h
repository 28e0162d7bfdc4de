// Pieces of the Train view shared by panel_train.cpp (settings, buttons, status), train_run.cpp
// (the run's curves and heatmaps) and train_pair.cpp (1 head vs N heads). Drawing only; the
// actions are in train_actions.h.
#pragma once
#include <vector>

#include <imgui.h>

#include "state/app_state.h"
#include "train/train.h"
#include "views/train/train_actions.h"
#include "widgets/gui_resources.h"

namespace attnviz {


// Curve colours: the run (and the N-head model) and the 1-head model.
inline constexpr ImU32 kTrainColorMain = IM_COL32(90, 170, 255, 255);
inline constexpr ImU32 kTrainColorSingle = IM_COL32(255, 130, 90, 255);
inline constexpr ImU32 kTrainColorCandidate = IM_COL32(255, 170, 40, 255);
inline constexpr ImU32 kTrainColorProperty = IM_COL32(80, 220, 230, 255);

// (step, loss) of every report, and (step, held-out accuracy) of the evaluated ones.
std::vector<ImVec2> train_loss_points(const std::vector<TrainProgress>& reports);
std::vector<ImVec2> train_accuracy_points(const std::vector<TrainProgress>& reports);

// Line width for curves and marks: thicker in presentation mode.
float train_line_width();

// "Training", "Paused at step N", "Reached the target at step N", ... and its colour.
struct TrainStatusText {
  std::string text;
  ImVec4 color;
};
TrainStatusText train_status_text(const AppState& app, const TrainSnapshot& s, const TrainSettings& settings, float target);

// Places the next item of width w on the current line when it fits, else on a new line.
void train_flow(float w);

// The tabs: this run's curves and heatmaps, and 1 head vs N heads.
void train_run_tab(AppState& app, GuiResources& gui, const TrainSnapshot& snapshot);
void train_pair_tab(AppState& app, GuiResources& gui);

}  // namespace attnviz
