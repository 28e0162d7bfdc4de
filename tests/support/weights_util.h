// The shipped demo models and bit-for-bit comparison of two models' weights, tensor by tensor in the
// model file's order: what the demo tests use to show a retrain equals the shipped file. Training's
// arithmetic has the same bits on every CPU and for every -march (model/products.h,
// model/portable_math.h), so the comparison holds in every build of the suite.
#pragma once
#include <optional>
#include <string>

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

// A retrain from the shipped model's seed and options equals the shipped file bit for bit.
inline void check_shipped_retrain(const Model& retrained, const Model& shipped) { check_same_weights(retrained, shipped); }

}  // namespace attnviz::test
