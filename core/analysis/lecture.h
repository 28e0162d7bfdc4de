// Bookkeeping for the step-by-step lecture: the ten steps of multi-head attention in order, which
// layer/head/query a lecture is about (the pronoun "it" by default), which columns a head owns, what
// a head's scores were divided by, and which mask rules hide a key. It reads a Trace and a MaskSpec;
// it draws nothing and computes no attention.
#pragma once
#include <vector>

#include "model/config.h"
#include "model/trace.h"

namespace attnviz {

enum class LectureStep { input, head_split, qkv, scores, scale, mask, softmax, weighted_sum, concat, out_proj };
inline constexpr int kLectureStepCount = 10;

// Any integer maps into [0, kLectureStepCount): the keyboard may step past either end.
int lecture_step_clamp(int step);
LectureStep lecture_step_at(int step);  // clamped first

// The first token whose text is "it" (any case), else 0; 0 for an empty sentence.
int lecture_default_query(const std::vector<TraceToken>& queries);

struct LectureFocus {
  int layer = 0, head = 0, query = 0;
};
// Clamps layer and head into the trace; query < 0 picks lecture_default_query, others are clamped.
LectureFocus lecture_focus(const Trace& t, int layer, int head, int query);

// Head h owns columns [first, last] of Q, K, V and of the concat (last = first + HS - 1).
struct HeadColumns {
  int first = 0, last = 0;
};
HeadColumns lecture_head_columns(const ModelConfig& config, int head);

// scores_scaled = scores_raw / total, total = root · τ; root is √HS for scaled_dot and 1 otherwise.
struct ScoreDivisor {
  bool uses_root = false;  // only scaled_dot divides by √d_k
  float root = 1;
  float temperature = 1;
  float total = 1;
};
ScoreDivisor lecture_score_divisor(const ModelConfig& config, ScoreKind kind);

// Every rule of the spec that hides key j from query i; none set means the spec leaves it visible.
struct MaskWhy {
  bool causal = false, padding = false, window = false, strided = false, custom = false;
  bool any() const { return causal || padding || window || strided || custom; }
};
MaskWhy lecture_mask_why(const MaskSpec& spec, int query, int key, int real_keys);

}  // namespace attnviz
