// Rotary position embedding (RoFormer), as transformers applies it to Llama, Mistral, Qwen2 and
// GPT-NeoX: each query and key head is rotated by its position, pairs (d, d + dims/2) of its first
// `dims` dimensions by the angle position · inv_freq[d]. Frequencies are computed in float32 the
// way transformers computes them (its rope_utils), scaling included, so the angles agree bit for
// bit. Nothing else about attention is here.
#pragma once
#include <vector>

#include "base/tensor.h"
#include "model/config.h"

namespace attnviz {

// inv_freq (dims / 2 values) for the config's rotary dimensions, theta and scaling.
std::vector<float> rope_inv_freq(const ModelConfig& config);

// cos and sin of every angle, for rows at positions first_position .. first_position + rows - 1:
// made once per layer pass and shared by every head. The angle is position · inv_freq in float32
// (as transformers forms it); its cos and sin are evaluated in double and rounded once.
struct RopeTable {
  Mat cos, sin;  // (rows, dims / 2)
};
RopeTable rope_table(const std::vector<float>& inv_freq, int first_position, int rows);

// x (rows, heads · HS) holds heads side by side; in each head the first 2 · (dims / 2) columns are
// rotated in place, pairs (d, d + dims/2). The other columns (GPT-NeoX's partial rotary) are left
// as they are.
void rope_apply(Mat& x, int heads, int head_size, const RopeTable& table);
// Plain loops, the angles' sines and cosines in double: the reference.
void rope_apply_naive(Mat& x, int heads, int head_size, const std::vector<float>& inv_freq, int first_position);

}  // namespace attnviz
