// The most tokens one input may have: every tokenizer stops as it reaches it (a huge paste ends early),
// and the model's hard limits (model/config.h) take it from here.
#pragma once

namespace attnviz {

inline constexpr int kMaxTokens = 8192;

}  // namespace attnviz
