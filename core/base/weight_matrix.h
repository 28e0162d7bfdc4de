// A model's weight matrix: row-major floats, like Mat, whose values are either its own (drawn,
// trained, converted) or read in place from memory something else keeps alive (a mapped file's F32
// tensor). Opening a model file then costs no copy of those weights and no fresh memory for them:
// on a 12 x 768 encoder that copy and the kernel's work to hand out 340 MB of fresh pages were half
// of a short forward's whole process (bench/README.md).
//
// It is an Eigen::Map, so it is read, sliced, multiplied and updated in place (`w.array() -= ...`,
// `w.row(i) = ...`) like a Mat. Assigning a matrix or an expression, or resizing, gives it values
// of its own, in the memory it already owns when the shape is the same (as a Mat keeps its
// buffer); copies always own theirs. What a Map would do wrongly is not offered: `swap` exchanges
// whole matrices, and `noalias()` (which would write an expression of another shape past the end)
// does not compile. It never becomes a Mat silently: passing one where `const Mat&` is wanted would
// copy the weights on every call, so that conversion does not compile. Take `Eigen::Ref<const
// Mat>` (MatRef, no copy) or write `Mat(w)` where a copy is meant.
#pragma once
#include <memory>
#include <utility>

#include "base/tensor.h"

namespace attnviz {

class WeightMat : public Eigen::Map<Mat> {
 public:
  using Base = Eigen::Map<Mat>;

  WeightMat() : Base(nullptr, 0, 0) {}
  WeightMat(Mat values) : Base(nullptr, 0, 0) { own(std::move(values)); }  // NOLINT: a Mat is a weight
  template <class Derived>
  WeightMat(const Eigen::DenseBase<Derived>& values) : WeightMat(Mat(values)) {}  // NOLINT
  WeightMat(const WeightMat& other) : WeightMat(Mat(other)) {}
  WeightMat(WeightMat&& other) noexcept : Base(nullptr, 0, 0) { take(std::move(other)); }

  WeightMat& operator=(const WeightMat& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  WeightMat& operator=(WeightMat&& other) noexcept {
    if (this != &other) take(std::move(other));
    return *this;
  }
  WeightMat& operator=(const Mat& values) {
    copy_from(values);
    return *this;
  }
  WeightMat& operator=(Mat&& values) {  // taken over, as a Mat's move assignment takes the buffer
    own(std::move(values));
    return *this;
  }
  template <class Derived>
  WeightMat& operator=(const Eigen::DenseBase<Derived>& values) {
    Mat evaluated(values);  // first: the expression may read this matrix
    if (owns_shape(evaluated))
      static_cast<Base&>(*this) = evaluated;
    else
      own(std::move(evaluated));
    return *this;
  }

  // Values of its own, (rows, cols), uninitialised unless the shape and ownership are unchanged.
  void resize(Index rows, Index cols) {
    if (rows == this->rows() && cols == this->cols() && !in_place_) return;
    own(Mat(rows, cols));
  }
  void setZero(Index rows, Index cols) {
    resize(rows, cols);
    Base::setZero();
  }
  using Base::setZero;

  void swap(WeightMat& other) noexcept {
    WeightMat held(std::move(other));
    other = std::move(*this);
    *this = std::move(held);
  }
  void noalias() = delete;  // see the top of this file

  // Reads (rows, cols) row-major floats at `values` in place, for as long as this matrix (or one
  // it is moved into) lives; `keep` owns that memory. Writes go to `values`.
  static WeightMat in_place(float* values, Index rows, Index cols, std::shared_ptr<const void> keep) {
    WeightMat w;
    w.keep_ = std::move(keep);
    w.in_place_ = true;
    w.seat(values, rows, cols);
    return w;
  }
  // Whether the values are read in place rather than owned.
  bool is_in_place() const { return in_place_; }

  operator Mat() const = delete;  // see the top of this file: no silent copies

 private:
  // A Map is re-seated by constructing it again where it is, as Eigen's documentation does.
  void seat(float* values, Index rows, Index cols) { new (static_cast<Base*>(this)) Base(values, rows, cols); }
  // Another matrix's values: into the memory this one owns when the shape is the same (as Mat's
  // assignment does; a gradient step assigns many), else into new memory of its own.
  template <class Other>
  void copy_from(const Other& values) {
    if (owns_shape(values))
      static_cast<Base&>(*this) = values;
    else
      own(Mat(values));
  }
  template <class Other>
  bool owns_shape(const Other& values) const {
    return !in_place_ && rows() == values.rows() && cols() == values.cols();
  }
  void own(Mat values) {
    own_ = std::move(values);
    keep_.reset();
    in_place_ = false;
    seat(own_.data(), own_.rows(), own_.cols());
  }
  void take(WeightMat&& other) {
    // Moving a Mat keeps its buffer, so an owned matrix's address is the same afterwards.
    float* values = other.data();
    const Index rows = other.rows(), cols = other.cols();
    own_ = std::move(other.own_);
    keep_ = std::move(other.keep_);
    in_place_ = other.in_place_;
    seat(values, rows, cols);
    other.own_.resize(0, 0);
    other.keep_.reset();
    other.in_place_ = false;
    other.seat(nullptr, 0, 0);
  }

  Mat own_;
  std::shared_ptr<const void> keep_;
  bool in_place_ = false;
};

}  // namespace attnviz
