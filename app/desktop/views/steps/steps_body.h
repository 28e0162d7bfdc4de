// The ten step bodies of the step-by-step view (what sits under the title: the numbers, maps and
// bars) and each step's shape line. They read the Trace through a StepsView and may only move the
// focus (app.head, app.query) when a block, row or cell is clicked.
#pragma once
#include <string>

#include "analysis/lecture.h"
#include "state/app_state.h"
#include "widgets/gui_resources.h"

namespace attnviz {

struct StepsView {
  AppState& app;
  const GuiResources& gui;
  const Trace& t;
  LectureFocus f;
  const LayerTrace& layer;
  const HeadTrace& head;
  const HeadScores& scores;  // the head's raw and scaled scores (recomputed for long inputs, cached)
  const Mat& weights;        // the head's weights (formed when the trace forms its maps on demand, cached)
  int decimals = 4;  // 3 in presentation mode, where numbers are wider
};

// "(n, d_model) = (12, 512)"-style shape line of a step, in the seeds' symbols.
std::string steps_shape_text(const StepsView& v, LectureStep step);
// The notation table: the seeds' symbols, what each is, the older letters (T, C, NH, HS) and this
// model's sizes, each weight matrix with its shape.
void steps_notation(StepsView& v);

// The largest finite |value| of m, 0 when it has none; steps_scale: the same, or 1 in place of 0 (the
// end of a colour scale or of bars).
float steps_max_abs(const Mat& m);
float steps_scale(const Mat& m);

void steps_body_input(StepsView& v);         // 1. X
void steps_body_split(StepsView& v);         // 2. X W_Q, X W_K, X W_V cut into heads
void steps_body_qkv(StepsView& v);           // 3. Q, K, V of the head
void steps_body_scores(StepsView& v);        // 4. QKᵀ
void steps_body_scale(StepsView& v);         // 5. ÷ √d_k (and τ)
void steps_body_mask(StepsView& v);          // 6. + mask
void steps_body_softmax(StepsView& v);       // 7. softmax
void steps_body_weighted_sum(StepsView& v);  // 8. × V
void steps_body_concat(StepsView& v);        // 9. concat
void steps_body_out(StepsView& v);           // 10. W_O

// Shared by the bodies: a "name = [a, b, c, …]" line of a matrix row's first `dims` values.
void steps_vector_line(const char* name, const Mat& m, int row, int dims, int decimals);

}  // namespace attnviz
