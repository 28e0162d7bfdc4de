// Bit-for-bit comparison of two models' weights, tensor by tensor in the model file's order: what
// the demo tests use to show a retrain equals the shipped file. Only meaningful in the Release
// build the assets were trained with (ATTNVIZ_SHIPPED_NUMERICS).
#pragma once
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
