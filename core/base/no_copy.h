// A base for objects that own a thread or a GPU handle and so must never be copied (a copy would
// join the same thread twice or free the same texture twice). Moving is not offered either.
#pragma once

namespace attnviz {

class NoCopy {
 public:
  NoCopy(const NoCopy&) = delete;
  NoCopy& operator=(const NoCopy&) = delete;

 protected:
  NoCopy() = default;
  ~NoCopy() = default;
};

}  // namespace attnviz
