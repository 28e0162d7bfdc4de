// Small helpers shared by test files: substring checks on error messages, per-process temporary
// paths (ctest runs test cases in parallel processes) and seeded random matrices.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include <doctest/doctest.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/tensor.h"

namespace attnviz::test {

inline bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A path in the temp folder, unique to this process.
inline std::string temp_path(const std::string& stem) {
  return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()))).string();
}

// A (rows, cols) matrix of N(0, scale²) entries from our deterministic Rng.
inline Mat random_mat(Eigen::Index rows, Eigen::Index cols, uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal() * scale);
  return m;
}

}  // namespace attnviz::test

// Checks that error_of(bytes) — defined by the including test file — contains `part`.
#define CHECK_ERROR(bytes, part)                  \
  do {                                            \
    const std::string err_ = error_of(bytes);     \
    INFO("error: ", err_);                        \
    CHECK(attnviz::test::has(err_, part));        \
  } while (0)
