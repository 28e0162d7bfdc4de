// Names for enum values, for every file format and command line that spells an enum as a word
// ("post", "magma", "sentence_b"): one table of (value, name) pairs per enum, looked up both ways.
// An unknown name is nullopt, never a default: callers turn it into an error naming the word.
#pragma once
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace attnviz {

template <class E, size_t N>
using EnumNames = std::array<std::pair<E, std::string_view>, N>;

template <class E, size_t N>
constexpr std::optional<E> enum_from_name(const EnumNames<E, N>& table, std::string_view name) {
  for (const auto& [value, n] : table)
    if (n == name) return value;
  return std::nullopt;
}

// The name of `value`; "?" for a value missing from the table (a table kept short by mistake).
template <class E, size_t N>
constexpr std::string_view enum_name(const EnumNames<E, N>& table, E value) {
  for (const auto& [v, n] : table)
    if (v == value) return n;
  return "?";
}

}  // namespace attnviz
