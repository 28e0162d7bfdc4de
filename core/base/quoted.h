// A piece of text in double quotes, for messages that name a token, a merge or a key.
#pragma once
#include <string>
#include <string_view>

namespace attnviz {

inline std::string in_quotes(std::string_view s) {
  std::string out(1, '"');
  out.append(s);
  out.push_back('"');
  return out;
}

}  // namespace attnviz
