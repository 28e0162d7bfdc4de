// The lecture's bookkeeping. The mask reasons repeat mask_visible's rules one at a time because the
// lecture must name each rule that applies, not just the verdict; a test keeps the two in agreement.
#include "analysis/lecture.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attnviz {

int lecture_step_clamp(int step) { return std::clamp(step, 0, kLectureStepCount - 1); }

LectureStep lecture_step_at(int step) { return static_cast<LectureStep>(lecture_step_clamp(step)); }

int lecture_default_query(const std::vector<TraceToken>& queries) {
  for (size_t i = 0; i < queries.size(); ++i) {
    const std::string& s = queries[i].text;
    if (s.size() == 2 && (s[0] == 'i' || s[0] == 'I') && (s[1] == 't' || s[1] == 'T')) return static_cast<int>(i);
  }
  return 0;
}

LectureFocus lecture_focus(const Trace& t, int layer, int head, int query) {
  LectureFocus f;
  f.layer = std::clamp(layer, 0, std::max(static_cast<int>(t.layers.size()) - 1, 0));
  f.head = std::clamp(head, 0, std::max(t.config.n_heads - 1, 0));
  f.query = query < 0 ? lecture_default_query(t.queries) : std::clamp(query, 0, std::max(t.n_queries() - 1, 0));
  return f;
}

HeadColumns lecture_head_columns(const ModelConfig& config, int head) {
  const int hs = config.head_size();
  return {head * hs, head * hs + hs - 1};
}

ScoreDivisor lecture_score_divisor(const ModelConfig& c, ScoreKind kind) {
  ScoreDivisor d;
  d.uses_root = kind == ScoreKind::scaled_dot;
  // √d_k, or what the model divides by instead (Gemma 27B: √(d_model / h)).
  d.root = !d.uses_root ? 1.0f : c.scaled_dot_scale > 0 ? 1.0f / c.scaled_dot_scale : std::sqrt(static_cast<float>(c.head_size()));
  d.temperature = c.temperature;
  d.total = d.root * c.temperature;
  return d;
}

MaskWhy lecture_mask_why(const MaskSpec& spec, int i, int j, int real_keys) {
  MaskWhy why;
  const int d = i - j;
  why.causal = spec.causal && j > i;
  why.padding = spec.pad_to > 0 && j >= real_keys;
  why.window = spec.window >= 0 && std::abs(d) > spec.window;
  if (spec.stride > 0) {
    const int m = ((d % spec.stride) + spec.stride) % spec.stride;
    why.strided = !(std::abs(d) < spec.stride || m == 0);
  }
  why.custom = std::find(spec.hidden_cells.begin(), spec.hidden_cells.end(), std::pair<int, int>{i, j}) !=
               spec.hidden_cells.end();
  return why;
}

}  // namespace attnviz
