// Subnormal floats flushed while training arithmetic runs on a thread. Each operation on a subnormal
// (below 1.2e-38 in magnitude) costs the CPU a microcode assist of 100 cycles or more, and some
// architectures make them as they train: one head of "general" scores at d_model 128 with 4 layers
// took 12.4 s for 300 steps, 3.5 s with them flushed (bench/README.md). The shipped demos and all 12
// grid cells retrain to the same bytes either way. Only training uses it: a forward pass in the app or
// the CLI keeps IEEE subnormals, as PyTorch does by default.
#pragma once

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace attnviz {

// While alive, this thread flushes subnormal results to zero and reads subnormal inputs as zero
// (MXCSR's FTZ and DAZ bits, which Eigen's SSE/AVX code and libm follow); those two bits are put back
// as they were when it ends, and nothing else in MXCSR is touched. x86-64 only: elsewhere it does
// nothing, and subnormals cost what the CPU makes them cost.
class SubnormalsFlushed {
 public:
#if defined(__x86_64__)
  SubnormalsFlushed() : saved_(_mm_getcsr() & kBits) { _mm_setcsr(_mm_getcsr() | kBits); }
  ~SubnormalsFlushed() { _mm_setcsr((_mm_getcsr() & ~kBits) | saved_); }
#else
  SubnormalsFlushed() {}  // user-provided, so that a `const SubnormalsFlushed flushed;` is not "unused"
#endif
  SubnormalsFlushed(const SubnormalsFlushed&) = delete;
  SubnormalsFlushed& operator=(const SubnormalsFlushed&) = delete;

#if defined(__x86_64__)
 private:
  static constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;
  static constexpr unsigned kBits = kFlushToZero | kDenormalsAreZero;
  unsigned saved_;
#endif
};

}  // namespace attnviz
