// Bit-for-bit comparison of two models' weights, tensor by tensor in the model file's order: what
// the demo tests use to show a retrain equals the shipped file. Only meaningful where the build
// rounds like the one that trained the assets (ATTNVIZ_SHIPPED_NUMERICS).
#pragma once

// The assets were trained by a -march=native build on a CPU with AVX-512, so Eigen summed in
// 16-float packets; a build for a narrower vector unit sums in another order. Any optimisation
// level and the sanitizers round alike (no build contracts multiply-adds: tests/CMakeLists.txt).
#if defined(ATTNVIZ_NATIVE_BUILD) && defined(__AVX512F__)
#define ATTNVIZ_SHIPPED_NUMERICS 1
#else
#define ATTNVIZ_SHIPPED_NUMERICS 0
#endif
#include <doctest/doctest.h>

#include "io/model_file.h"
#include "model/model.h"

namespace attnviz::test {

inline void check_same_weights(const Model& a, const Model& b) {
  const TensorFile fa = model_to_tensors(a), fb = model_to_tensors(b);
  REQUIRE(fa.tensors.size() == fb.tensors.size());
  for (size_t i = 0; i < fa.tensors.size(); ++i) {
    CAPTURE(fa.tensors[i].name);
    CHECK(fa.tensors[i].name == fb.tensors[i].name);
    CHECK(fa.tensors[i].shape == fb.tensors[i].shape);
    CHECK(fa.tensors[i].data == fb.tensors[i].data);  // bit for bit
  }
}

}  // namespace attnviz::test
