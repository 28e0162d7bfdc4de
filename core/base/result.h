// Errors are values: core never prints, throws across its API or exits. A Result holds either a
// value or a one-line message that the UI shows and the CLI prints before exiting non-zero.
#pragma once
#include <optional>
#include <string>
#include <utility>

namespace attnviz {

struct Error {
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit on purpose
  Result(Error error) : error_(std::move(error.message)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  std::string error_;
};

// For operations that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace attnviz
