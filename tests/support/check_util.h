// Small helpers shared by test files: substring checks on error messages, per-process temporary
// paths (ctest runs test cases in parallel processes), removed at the end of the test, and seeded
// random matrices.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <doctest/doctest.h>
#include <unistd.h>

#include "base/rng.h"
#include "base/tensor.h"

namespace attnviz::test {

inline bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A path in the temp folder, unique to this process; a stem's extension stays last ("a.csv" -> "a-PID.csv").
inline std::string temp_path(const std::string& stem) {
  const size_t dot = stem.rfind('.');
  const bool has_extension = dot != std::string::npos && dot > 0 && stem.find('/', dot) == std::string::npos;
  const std::string name = has_extension ? stem.substr(0, dot) + "-" + std::to_string(::getpid()) + stem.substr(dot)
                                         : stem + "-" + std::to_string(::getpid());
  return (std::filesystem::temp_directory_path() / name).string();
}

// A temp_path removed (with anything inside) when the test leaves its scope, passed or failed; it
// reads as the path wherever a string is wanted.
class TempFile {
 public:
  explicit TempFile(const std::string& stem) : path_(temp_path(stem)) {}
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  operator const std::string&() const { return path_; }

 private:
  std::string path_;
};

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
