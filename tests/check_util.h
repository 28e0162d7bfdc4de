// Small helpers shared by test files: substring checks on error messages and per-process
// temporary paths (ctest runs test cases in parallel processes).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include <doctest/doctest.h>
#include <unistd.h>

namespace attnviz::test {

inline bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A path in the temp folder, unique to this process.
inline std::string temp_path(const std::string& stem) {
  return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()))).string();
}

}  // namespace attnviz::test

// Checks that error_of(bytes) — defined by the including test file — contains `part`.
#define CHECK_ERROR(bytes, part)                  \
  do {                                            \
    const std::string err_ = error_of(bytes);     \
    INFO("error: ", err_);                        \
    CHECK(attnviz::test::has(err_, part));        \
  } while (0)
