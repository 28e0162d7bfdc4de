// What pipeline_tokenizer.cpp and pipeline_build.cpp share, and nothing else includes: text being
// rewritten by the normalizer with the input bytes behind each of its bytes, and added-token matching.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/pipeline_tokenizer.h"

namespace attnviz::pipeline_detail {

struct Span {
  uint32_t begin = 0, end = 0;  // bytes of the input
};

// UTF-8 and, for each of its bytes, the input bytes it stands for.
struct Aligned {
  std::string text;
  std::vector<Span> at;  // at.size() == text.size()
};

// Appends `bytes`, all from `src`: when the lengths agree each byte gets its own input byte; when the
// source is longer, consecutive shares of it; when shorter, one input byte each, the last repeated.
void push_bytes(Aligned& a, std::string_view bytes, Span src);

// The input bytes behind a.text[begin, end) (begin < end).
Span span_of(const Aligned& a, size_t begin, size_t end);

Aligned aligned_input(std::string_view text, size_t base);  // each byte stands for itself, from `base`
Aligned aligned_slice(const Aligned& a, size_t begin, size_t end);

// The normalizer's steps in order.
Aligned normalize(const std::vector<PipelineNormalize>& steps, Aligned text);

struct AddedMatch {
  size_t begin = 0, end = 0;  // bytes of the searched text, whitespace taken by lstrip / rstrip included
  const PipelineAddedToken* token = nullptr;
};

// The added tokens of `tokens` (longest first) found in valid UTF-8 `s`, left to right.
std::vector<AddedMatch> added_matches(std::string_view s, const std::vector<PipelineAddedToken>& tokens);

}  // namespace attnviz::pipeline_detail
