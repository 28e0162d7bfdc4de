// glibc's expf (sysdeps/ieee754/flt-32/e_expf.c; its x86-64 FMA build, __expf_fma), eight values
// at a time in AVX-512 double lanes. With N = 32: x·N/ln 2 = k + r, |r| ≤ ½, and
// e^x = 2^(k/N) · 2^(r/N) ≈ s · (C0·r³ + C1·r² + C2·r + 1), s = 2^(k/N) from the table, all in
// double. The fused operations are where that build fuses them (its disassembly), so each value is
// rounded as libm rounds it; tests compare against std::exp over a dense sweep of floats.
#include "model/exp_lanes.h"

#include <cmath>
#include <cstdint>
#include <cstring>

// The algorithm below is glibc's expf since 2.27; another C library, or an older glibc, rounds its
// own way, and then every value goes through std::exp.
#define ATTNVIZ_EXP_LANES 0
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 27)
#undef ATTNVIZ_EXP_LANES
#define ATTNVIZ_EXP_LANES 1
#include <immintrin.h>
#endif
#endif

namespace attnviz {

#if ATTNVIZ_EXP_LANES
namespace {

constexpr int kTableBits = 5, kN = 1 << kTableBits;
constexpr double kInvLn2N = 0x1.71547652b82fep+0 * kN;
constexpr double kShift = 0x1.8p+52;  // adding it rounds to an integer, kept in the low bits
constexpr double kC0 = 0x1.c6af84b912394p-20, kC1 = 0x1.ebfce50fac4f3p-13, kC2 = 0x1.62e42ff0c52d6p-6;
// |x| ≥ 88 (and inf, NaN: the bits of |x| from 0x42b00000 up) is where libm leaves this path: below
// kUnderflow it returns +0 (so do the lanes: every hidden key of a masked softmax row is -inf), the
// rest (overflow, NaN, the last values before underflow) goes through std::exp itself.
constexpr uint32_t kLargeAbsBits = 0x42b00000;
constexpr float kUnderflow = -0x1.9fe368p6f;  // log(2^-150): e^x rounds to +0 below it

// table[i] = bits(2^(i/N)) − (i << (52 − 5)): adding k << 47 to table[k mod N] gives 2^(k/N).
struct Table {
  alignas(64) uint64_t bits[kN];
  Table() {
    for (int i = 0; i < kN; ++i) {
      const auto v = static_cast<double>(std::exp2(static_cast<long double>(i) / kN));
      std::memcpy(&bits[i], &v, sizeof v);
      bits[i] -= static_cast<uint64_t>(i) << (52 - kTableBits);
    }
  }
};
// Built on first use (thread-safe), so a caller's own static initialiser cannot meet it unfilled.
const uint64_t* table() {
  static const Table t;
  return t.bits;
}

}  // namespace

void exp_lanes(const float* x, float* out, size_t n) {
  const __m512d inv_ln2_n = _mm512_set1_pd(kInvLn2N), shift = _mm512_set1_pd(kShift);
  const __m512d c0 = _mm512_set1_pd(kC0), c1 = _mm512_set1_pd(kC1), c2 = _mm512_set1_pd(kC2);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512i index_mask = _mm512_set1_epi64(kN - 1);
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), large = _mm256_set1_epi32(kLargeAbsBits);
  const __m256 underflow = _mm256_set1_ps(kUnderflow);
  const uint64_t* bits = table();
  for (size_t i = 0; i < n; i += 8) {
    const auto lanes = static_cast<__mmask8>(n - i >= 8 ? 0xff : (1u << (n - i)) - 1);
    const __m256 xf = _mm256_maskz_loadu_ps(lanes, x + i);
    const __m512d xd = _mm512_cvtps_pd(xf);
    const __m512d shifted = _mm512_fmadd_pd(xd, inv_ln2_n, shift);
    const __m512i ki = _mm512_castpd_si512(shifted);
    const __m512d kd = _mm512_sub_pd(shifted, shift);
    const __m512d r = _mm512_fmsub_pd(xd, inv_ln2_n, kd);
    const __m512d z = _mm512_fmadd_pd(r, c0, c1);
    const __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(r, c2, one);
    y = _mm512_fmadd_pd(z, r2, y);
    const __m512i t = _mm512_i64gather_epi64(_mm512_and_si512(ki, index_mask), bits, 8);
    const __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64(ki, 52 - kTableBits)));
    __m256 e = _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
    const __mmask8 zero = _mm256_mask_cmp_ps_mask(lanes, xf, underflow, _CMP_LT_OQ);  // -inf too
    e = _mm256_mask_blend_ps(zero, e, _mm256_setzero_ps());
    // Rare in a softmax (a score 88 to 104 below its row's maximum, or NaN): through libm, from the
    // inputs as loaded (out may be x).
    const __mmask8 large_lanes =
        _mm256_mask_cmpge_epu32_mask(lanes, _mm256_and_si256(_mm256_castps_si256(xf), abs_mask), large);
    if (const __mmask8 big = large_lanes & static_cast<__mmask8>(~zero)) {
      alignas(32) float in[8], res[8];
      _mm256_store_ps(in, xf);
      _mm256_store_ps(res, e);
      for (unsigned j = 0; j < 8; ++j)
        if ((big >> j) & 1u) res[j] = std::exp(in[j]);
      e = _mm256_load_ps(res);
    }
    _mm256_mask_storeu_ps(out + i, lanes, e);
  }
}

bool exp_lanes_vectorised() { return true; }

#else

void exp_lanes(const float* x, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = std::exp(x[i]);
}

bool exp_lanes_vectorised() { return false; }

#endif

}  // namespace attnviz
