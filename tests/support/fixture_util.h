// Helpers shared by the tests that read the PyTorch fixtures in tests/fixtures/torch/.
#pragma once
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "base/tensor.h"
#include "io/safetensors.h"

namespace attnviz::test {

inline std::string fixture_path(const std::string& rel) { return std::string(ATTNVIZ_FIXTURES) + "/" + rel; }

// Files in tests/fixtures/torch whose names start with prefix, sorted.
inline std::vector<std::string> fixture_files(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(fixture_path("torch")))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The .safetensors files of tests/fixtures/<folder>, sorted.
inline std::vector<std::string> fixture_safetensors(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(fixture_path(folder)))
    if (e.path().extension() == ".safetensors") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline TensorFile load_fixture(const std::string& path) {
  auto f = safetensors_read(path);
  REQUIRE_MESSAGE(f.ok(), f.error());
  return std::move(*f);
}

inline Mat fixture_mat(const TensorFile& f, const std::string& name) {
  const Tensor* t = f.find(name);
  REQUIRE_MESSAGE(t != nullptr, "missing fixture tensor " << name);
  auto m = tensor_to_mat(*t);
  REQUIRE_MESSAGE(m.ok(), m.error());
  return *m;
}

// Slice `index` of a 3-D tensor (N, R, C) as a matrix (R, C).
inline Mat fixture_slice(const TensorFile& f, const std::string& name, int index) {
  const Tensor* t = f.find(name);
  REQUIRE_MESSAGE(t != nullptr, "missing fixture tensor " << name);
  REQUIRE(t->shape.size() == 3);
  const auto rows = t->shape[1], cols = t->shape[2];
  return Eigen::Map<const Mat>(t->data.data() + index * rows * cols, rows, cols);
}

inline float max_abs_diff(const Mat& a, const Mat& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  if (a.size() == 0) return 0.0f;
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace attnviz::test
