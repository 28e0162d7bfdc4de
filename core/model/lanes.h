// Eight floats computed side by side (GCC and Clang vector extensions), for the kernels whose bits
// must not depend on the CPU or the compiler's target: each operation is the IEEE operation on each
// lane, whether the compiler makes it two SSE instructions, one AVX one or half an AVX-512 one, and
// nothing fuses a multiply into an add (the build passes -ffp-contract=off). Code written with Lanes
// therefore gives the same bits under -march=x86-64-v2, x86-64-v3 or native, at -O1 or -O3.
// Every function taking or returning Lanes is always inlined (ATTNVIZ_LANES_INLINE): a call that
// passes eight floats by value follows the target's convention, and GCC built for plain x86-64
// (no AVX) stores such an argument to a misaligned stack slot.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#define ATTNVIZ_LANES_INLINE [[gnu::always_inline]] inline

namespace attnviz {

inline constexpr int kLanes = 8;
using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));
using LaneInts = int32_t __attribute__((vector_size(kLanes * sizeof(int32_t))));
using LaneDoubles = double __attribute__((vector_size(kLanes / 2 * sizeof(double))));

ATTNVIZ_LANES_INLINE Lanes lanes_zero() { return Lanes{}; }
ATTNVIZ_LANES_INLINE Lanes lanes_splat(float x) { return Lanes{} + x; }

// Eight floats from p (no alignment needed).
ATTNVIZ_LANES_INLINE Lanes lanes_load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// The first n (< 8) floats from p, the other lanes 0.
ATTNVIZ_LANES_INLINE Lanes lanes_load_partial(const float* p, size_t n) {
  Lanes v{};
  std::memcpy(&v, p, n * sizeof(float));
  return v;
}
ATTNVIZ_LANES_INLINE void lanes_store(float* p, Lanes v) { std::memcpy(p, &v, sizeof v); }
ATTNVIZ_LANES_INLINE void lanes_store_partial(float* p, Lanes v, size_t n) { std::memcpy(p, &v, n * sizeof(float)); }

ATTNVIZ_LANES_INLINE LaneInts lanes_bits(Lanes v) { return std::bit_cast<LaneInts>(v); }
ATTNVIZ_LANES_INLINE Lanes lanes_from_bits(LaneInts v) { return std::bit_cast<Lanes>(v); }
// mask ? a : b lane by lane, where mask lanes are all ones or all zeros (a comparison's result).
ATTNVIZ_LANES_INLINE Lanes lanes_select(LaneInts mask, Lanes a, Lanes b) {
  return lanes_from_bits((mask & lanes_bits(a)) | (~mask & lanes_bits(b)));
}

// The sum of the eight lanes in one fixed order: pairs 4 apart, then 2 apart, then the last two.
ATTNVIZ_LANES_INLINE float lanes_sum(Lanes v) {
  const float a = v[0] + v[4], b = v[1] + v[5], c = v[2] + v[6], d = v[3] + v[7];
  return (a + c) + (b + d);
}

}  // namespace attnviz
