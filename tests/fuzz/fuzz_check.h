// What every fuzz target shares: viewing the input as text, splitting it at NUL bytes, and turning
// a broken invariant into a finding. A target returns "" when all is well, else what went wrong, so
// the same function serves libFuzzer (which must crash to record the input) and the doctest suite.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/result.h"

namespace attnviz::fuzz {

using Bytes = std::span<const uint8_t>;

inline std::string_view bytes_text(Bytes bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Splits at every NUL: "a\0b\0" gives {"a", "b", ""}; no NUL gives the whole text.
inline std::vector<std::string_view> split_at_nuls(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\0') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// Splits at the first NUL only; `second_given` says whether there was one.
struct TextPair {
  std::string_view first, second;
  bool second_given = false;
};
inline TextPair split_at_first_nul(std::string_view text) {
  const size_t nul = text.find('\0');
  if (nul == std::string_view::npos) return {text, {}, false};
  return {text.substr(0, nul), text.substr(nul + 1), true};
}

// A failed call must say why: an empty message would leave the user with nothing to read.
inline std::string error_needs_message(const std::string& message, std::string_view what) {
  return message.empty() ? std::string(what) + " failed with an empty message" : std::string();
}

// A fixture file's text through `parse` (a tokenizer loader), for the targets that encode with one.
template <class Parse>
auto fuzz_fixture_parse(const std::string& path, Parse parse) -> decltype(parse(std::string_view())) {
  auto bytes = file_read_bytes(path);
  if (!bytes.ok()) return make_error(bytes.error());
  return parse(bytes_text(*bytes));
}

#ifdef ATTNVIZ_FUZZ_ENTRY
// libFuzzer records an input only when the process dies, so a broken invariant aborts here.
inline void fuzz_report(const std::string& finding) {
  if (finding.empty()) return;
  std::fprintf(stderr, "fuzz finding: %s\n", finding.c_str());
  std::abort();
}

// A fixture the target loads once, before the first input; one that does not load stops the run.
template <class Fixture>
Fixture fuzz_fixture_or_abort(Result<Fixture> loaded, const char* what) {
  if (!loaded.ok()) {
    std::fprintf(stderr, "cannot load the %s fixture: %s\n", what, loaded.error().c_str());
    std::abort();
  }
  return std::move(loaded).value();
}
#endif

}  // namespace attnviz::fuzz

// The libFuzzer entry points of a target, written once here; without ATTNVIZ_FUZZ_ENTRY (the
// replay suite) they are nothing. ATTNVIZ_FUZZ_TARGET(check): check(Bytes) gives the finding.
// ATTNVIZ_FUZZ_TARGET_WITH_FIXTURE(Fixture, load, check, what): load(fixtures folder) gives a
// Result<Fixture> once, then check(fixture, Bytes) the finding; libFuzzer's entry points take no
// context, so the fixture lives at file scope.
#ifdef ATTNVIZ_FUZZ_ENTRY
#define ATTNVIZ_FUZZ_TARGET(check)                                          \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    attnviz::fuzz::fuzz_report(attnviz::fuzz::check({data, size}));         \
    return 0;                                                               \
  }
#define ATTNVIZ_FUZZ_TARGET_WITH_FIXTURE(Fixture, load, check, what)                                       \
  namespace {                                                                                              \
  std::optional<Fixture> g_fixture;                                                                        \
  }                                                                                                        \
  extern "C" int LLVMFuzzerInitialize(int*, char***) {                                                     \
    g_fixture = attnviz::fuzz::fuzz_fixture_or_abort(attnviz::fuzz::load(ATTNVIZ_FIXTURES), what);         \
    return 0;                                                                                              \
  }                                                                                                        \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {                                \
    attnviz::fuzz::fuzz_report(attnviz::fuzz::check(*g_fixture, {data, size}));                            \
    return 0;                                                                                              \
  }
#else
#define ATTNVIZ_FUZZ_TARGET(check)
#define ATTNVIZ_FUZZ_TARGET_WITH_FIXTURE(Fixture, load, check, what)
#endif
