// The regex pre-tokenization patterns of the byte-level BPE families, matched by hand over the Unicode
// tables of core/text/unicode.h: GPT-2's (the ByteLevel pre-tokenizer's use_regex), Llama 3's and
// Qwen2's (their Split pre-tokenizers). A pattern is recognised by its exact text only; any other
// regex is the caller's error to report, never approximated. No regex engine, no bytes mapping here.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace attnviz {

enum class SplitPattern {
  gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  llama3,  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  qwen2,   // Llama 3's with \p{N} (one digit at a time) for \p{N}{1,3}
};

// The pattern whose regex text (as tokenizer.json's "Regex" string decodes) is exactly `regex`.
std::optional<SplitPattern> split_pattern_from_regex(std::string_view regex);

// The regex text of a pattern, for messages and tests.
std::string_view split_pattern_regex(SplitPattern pattern);

// End of the pattern's match that starts at `pos` (< s.size()) of valid UTF-8, trying the
// alternatives in the pattern's order as a backtracking engine does. Every character starts some
// alternative, so the matches tile the text: from 0, each end is the next start. Always > pos.
// \s is White_Space, \p{L} and \p{N} the general categories; (?i:...) folds ASCII letters only, as
// transformers.js does (Oniguruma's full folding would also take U+017F for 's').
size_t split_pattern_end(SplitPattern pattern, std::string_view s, size_t pos);

}  // namespace attnviz
