// libFuzzer target: tokenize_words on arbitrary bytes. Every token must be the slice of the
// sanitized text its offsets name, tokens must come in order without overlapping, and the count
// must respect the limit. Reads memory only.
#include "fuzz/fuzz_check.h"
#include "base/utf8.h"
#include "text/word_tokenizer.h"

namespace attnviz::fuzz {

std::string fuzz_word_tokenizer(Bytes bytes) {
  const std::string_view text = bytes_text(bytes);
  auto tokens = tokenize_words(text);
  if (!tokens.ok()) return error_needs_message(tokens.error(), "tokenize_words");
  if (tokens->size() > static_cast<size_t>(kMaxTokens)) return "more tokens than the limit";
  const std::string clean = utf8_sanitize(text);
  size_t previous_end = 0;
  for (const Token& t : *tokens) {
    if (t.begin < previous_end || t.begin >= t.end || t.end > clean.size())
      return "token offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + ") out of order";
    if (clean.compare(t.begin, t.end - t.begin, t.text) != 0) return "token text differs from its slice";
    previous_end = t.end;
  }
  return {};
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_word_tokenizer)
