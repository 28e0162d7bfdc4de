// Helpers for the tokenizer tests.
#pragma once
#include <string>
#include <vector>

#include "text/subword_tokenizer.h"

namespace attnviz::test {

// U+FFFD REPLACEMENT CHARACTER in UTF-8: what invalid bytes become.
inline const std::string kFffd = "\xEF\xBF\xBD";

// The ids of an encoding's tokens, in order.
inline std::vector<int> ids_of(const SubwordEncoding& e) {
  std::vector<int> ids;
  for (const SubwordToken& t : e.tokens) ids.push_back(t.id);
  return ids;
}

}  // namespace attnviz::test
