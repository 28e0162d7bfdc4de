// A WeightMat reads its values in place or owns them; copies own theirs, moves keep the memory, and
// it never turns into a Mat without being asked.
#include <doctest/doctest.h>

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/weight_matrix.h"

using namespace attnviz;

namespace {

// Six values, 1..6, in memory a shared_ptr keeps alive, as a file mapping would be.
std::shared_ptr<std::vector<float>> six_values() {
  return std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
}

}  // namespace

// Passing a weight where `const Mat&` is taken would copy it on every call: that does not compile.
static_assert(!std::is_convertible_v<const WeightMat&, Mat>);
static_assert(std::is_constructible_v<Mat, const WeightMat&>);   // Mat(w): a copy on purpose
static_assert(std::is_convertible_v<const WeightMat&, MatRef>);  // a view: no copy
static_assert(std::is_nothrow_move_constructible_v<WeightMat>);
// A Map's noalias() would write an expression of another shape past the end of the memory.
template <class M>
concept HasNoalias = requires(M& m) {
  m.noalias();
};
static_assert(HasNoalias<Mat>);
static_assert(!HasNoalias<WeightMat>);

TEST_CASE("weight matrix: values in place are read and written where they are, and keep their memory alive") {
  auto memory = six_values();
  {
    WeightMat w = WeightMat::in_place(memory->data(), 2, 3, memory);
    CHECK(w.is_in_place());
    CHECK(w.data() == memory->data());
    CHECK(w.rows() == 2);
    CHECK(w.cols() == 3);
    CHECK(w(1, 0) == 4.0f);  // row-major: the second row starts at the fourth value
    CHECK(memory.use_count() == 2);
    w(0, 1) = 20.0f;
    CHECK((*memory)[1] == 20.0f);
    const MatRef view = w;  // no copy
    CHECK(view.data() == memory->data());

    WeightMat moved = std::move(w);
    CHECK(moved.is_in_place());
    CHECK(moved.data() == memory->data());
    CHECK(w.size() == 0);  // NOLINT(bugprone-use-after-move): a moved-from weight is empty
    CHECK_FALSE(w.is_in_place());
    CHECK(memory.use_count() == 2);
  }
  CHECK(memory.use_count() == 1);  // the last holder is gone
}

TEST_CASE("weight matrix: a copy owns its values, whichever way the original holds them") {
  auto memory = six_values();
  const WeightMat in_place = WeightMat::in_place(memory->data(), 3, 2, memory);
  WeightMat copy = in_place;
  CHECK_FALSE(copy.is_in_place());
  CHECK(copy.data() != memory->data());
  CHECK(copy == in_place);
  copy(2, 1) = -1.0f;
  CHECK((*memory)[5] == 6.0f);
  CHECK(memory.use_count() == 2);  // the copy holds nothing of the original's

  WeightMat assigned;
  assigned = in_place;
  CHECK_FALSE(assigned.is_in_place());
  CHECK(assigned(2, 1) == 6.0f);

  const WeightMat owned = Mat::Constant(2, 2, 7.0f);
  WeightMat owned_copy = owned;
  owned_copy(0, 0) = 0.0f;
  CHECK(owned(0, 0) == 7.0f);
}

TEST_CASE("weight matrix: assigning or resizing gives values of its own; a same-shape resize keeps them") {
  auto memory = six_values();
  WeightMat w = WeightMat::in_place(memory->data(), 2, 3, memory);
  w = w.transpose();  // reads itself: evaluated before it is replaced
  CHECK_FALSE(w.is_in_place());
  REQUIRE(w.rows() == 3);
  CHECK(w(2, 0) == 3.0f);
  CHECK(w(0, 1) == 4.0f);
  CHECK(memory.use_count() == 1);
  CHECK((*memory)[2] == 3.0f);

  const float* before = w.data();
  w.resize(3, 2);
  CHECK(w.data() == before);  // owned, same shape: nothing changes
  CHECK(w(2, 0) == 3.0f);
  w.resize(4, 4);
  CHECK(w.rows() == 4);
  CHECK(w.cols() == 4);

  WeightMat from_memory = WeightMat::in_place(memory->data(), 2, 3, memory);
  from_memory.resize(2, 3);  // same shape, but in place: it now owns room of that shape
  CHECK_FALSE(from_memory.is_in_place());
  CHECK(from_memory.data() != memory->data());
  from_memory.setZero(1, 5);
  CHECK(from_memory.size() == 5);
  CHECK(from_memory.sum() == 0.0f);

  // Assigning a Mat of the same shape to an owned weight reuses its memory; to one read in place,
  // gives it memory of its own and leaves the values it read alone.
  WeightMat same_shape = Mat::Zero(2, 3);
  const float* owned_buffer = same_shape.data();
  const Mat ones = Mat::Ones(2, 3);
  same_shape = ones;
  CHECK(same_shape.data() == owned_buffer);
  CHECK(same_shape.sum() == 6.0f);
  WeightMat viewing = WeightMat::in_place(memory->data(), 2, 3, memory);
  viewing = ones;
  CHECK_FALSE(viewing.is_in_place());
  CHECK(viewing.data() != memory->data());
  CHECK((*memory)[0] == 1.0f);
  viewing = Mat(Mat::Constant(2, 3, 5.0f));  // a temporary Mat is taken over, not copied
  CHECK(viewing.sum() == 30.0f);

  WeightMat moved_owned = Mat::Ones(2, 2);
  const float* buffer = moved_owned.data();
  WeightMat target;
  target = std::move(moved_owned);
  CHECK(target.data() == buffer);  // a move keeps the owned buffer and where the map points
  CHECK(target.sum() == 4.0f);
}

TEST_CASE("weight matrix: an expression of the same shape is written into its memory, safely if it reads it") {
  WeightMat w = (Mat(2, 2) << 1, 2, 3, 4).finished();
  const float* buffer = w.data();
  w = w * 2.0f;
  CHECK(w.data() == buffer);  // as a Mat keeps its buffer
  CHECK(w(1, 0) == 6.0f);
  w = w.transpose();  // square: the same memory, evaluated first
  CHECK(w.data() == buffer);
  CHECK(w(1, 0) == 4.0f);
  CHECK(w(0, 1) == 6.0f);
  w = w.topRows(1);  // another shape: memory of its own
  CHECK(w.rows() == 1);
  CHECK(w(0, 1) == 6.0f);
}

TEST_CASE("weight matrix: swap exchanges whole matrices, owned or in place") {
  auto memory = six_values();
  WeightMat a = WeightMat::in_place(memory->data(), 2, 3, memory);
  WeightMat b = Mat::Constant(4, 1, 9.0f);
  const float* b_buffer = b.data();
  a.swap(b);
  CHECK(a.rows() == 4);
  CHECK(a.data() == b_buffer);
  CHECK_FALSE(a.is_in_place());
  CHECK(b.is_in_place());
  CHECK(b.data() == memory->data());
  CHECK(b.cols() == 3);
  std::swap(a, b);
  CHECK(a.is_in_place());
  CHECK(b(3, 0) == 9.0f);

  // Read in place even with nothing to keep alive (memory the caller owns): never taken for its own.
  std::vector<float> caller(4, 1.0f);
  WeightMat borrowed = WeightMat::in_place(caller.data(), 2, 2, nullptr);
  CHECK(borrowed.is_in_place());
  borrowed = Mat::Zero(2, 2);
  CHECK(caller[0] == 1.0f);
}

TEST_CASE("weight matrix: Eigen expressions read it as they read a Mat") {
  const Mat values = (Mat(2, 3) << 1, 2, 3, 4, 5, 6).finished();
  const WeightMat w = values;
  const Mat x = (Mat(1, 3) << 1, 0, -1).finished();
  CHECK(Mat(x * w.transpose()) == Mat(x * values.transpose()));
  CHECK(Mat(w.middleCols(1, 2)) == Mat(values.middleCols(1, 2)));
  CHECK(w.row(1).sum() == 15.0f);
  const MatRef rows = w.bottomRows(1);  // a block of rows is a view too
  CHECK(rows.data() == w.data() + 3);
}
