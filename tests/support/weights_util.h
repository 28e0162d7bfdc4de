// The shipped demo models and bit-for-bit comparison of two models' weights, tensor by tensor in the
// model file's order: what the demo tests use to show a retrain equals the shipped file. Only
// meaningful where the build rounds like the one that trained the assets (ATTNVIZ_SHIPPED_NUMERICS).
#pragma once
#include <optional>
#include <string>

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

// assets/NAME/model.safetensors, e.g. "demo_coref".
inline Model load_asset(const std::string& name) {
  auto m = model_load(std::string(ATTNVIZ_ASSETS) + "/" + name + "/model.safetensors", std::nullopt);
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

// A retrain from the shipped model's seed and options equals the shipped file bit for bit where the
// build rounds like the one that trained it; elsewhere (another vector width) only what it learned
// is checked, by the caller.
inline void check_shipped_retrain(const Model& retrained, const Model& shipped) {
#if ATTNVIZ_SHIPPED_NUMERICS
  check_same_weights(retrained, shipped);
#else
  MESSAGE("not a -march=native build on an AVX-512 CPU: no bit-for-bit comparison with the shipped model");
  CHECK(retrained.config.d_model == shipped.config.d_model);
#endif
}

}  // namespace attnviz::test
