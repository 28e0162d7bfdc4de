// The Translation view's parts (app/desktop/views/translate/), drawn by translate_view.cpp: the
// alignment matrix and the heads beside it (translate_alignment.cpp), decoding step by step
// (translate_steps.cpp), the scoring functions side by side and the bottleneck's accuracy against
// sentence length (translate_compare.cpp). They read app.translate; none runs a model.
#pragma once
#include <string>

#include <imgui.h>

#include "state/app_state.h"

namespace attnviz {

// One alignment matrix: target tokens as rows (particles as "-가", bracketed to their noun's row),
// source tokens as columns, a cross-attention head's weights (or the mean of the layer's heads) as
// cells; the grammar's gold source token outlined when the translation is the grammar's.
struct AlignmentDraw {
  const TranslateModel* model = nullptr;
  const TranslateReadout* readout = nullptr;
  int head = 0;            // layer * NH + head; -1: the mean of the first layer's heads
  ImVec2 size;             // the room it may take, labels included
  float max_cell = 40;     // pixels
  float min_cell = 4;      // pixels: a matrix that needs more room than `size` overflows it (the tab scrolls)
  int highlight_row = -1;  // a readout row outlined (the Step by step tab's step)
  const char* id = "alignment";
};
struct AlignmentHit {
  int row = -1, col = -1;  // hovered cell
  bool clicked = false;
};
AlignmentHit alignment_matrix(const AppState& app, const AlignmentDraw& d);
// The matrix alignment_matrix draws (rows: readout rows, columns: source tokens).
Mat alignment_values(const TranslateReadout& r, int head);
// "L1 H3" for a head index (layer * NH + head), or the mean's name.
std::string translate_head_name(const AppState& app, int head);

void translate_alignment_tab(AppState& app);
void translate_steps_tab(AppState& app);
void translate_scores_tab(AppState& app);
void translate_bottleneck_tab(AppState& app);
void translate_train_tab(AppState& app);

// The view's colours for a translation that is the grammar's, one that is not, and an error.
inline ImVec4 tl_right_colour() { return ImVec4(0.45f, 0.9f, 0.45f, 1); }
inline ImVec4 tl_wrong_colour() { return ImVec4(1, 0.6f, 0.35f, 1); }
inline ImVec4 tl_error_colour() { return ImVec4(1, 0.45f, 0.4f, 1); }

// The size the view's text is drawn at, times k (presentation mode scales the font).
inline float tl_px(float k = 1.0f) { return ImGui::GetFontSize() * k; }

}  // namespace attnviz
