// Block layouts (ggml-common.h) and their decoding (ggml-quants.c), one function per type. Every
// scale is a half-precision float widened to float first; products are in float, as ggml's are.
#include "io/ggml_types.h"

#include <array>
#include <cstring>

#include "io/safetensors.h"  // f16_to_float, bf16_to_float

namespace attnviz {

namespace {

constexpr int kSuperBlock = 256;  // QK_K

constexpr std::array<GgmlTypeInfo, 13> kTypes{{
    {GgmlType::F32, "F32", 1, 4},        {GgmlType::F16, "F16", 1, 2},        {GgmlType::Q4_0, "Q4_0", 32, 18},
    {GgmlType::Q4_1, "Q4_1", 32, 20},    {GgmlType::Q5_0, "Q5_0", 32, 22},    {GgmlType::Q5_1, "Q5_1", 32, 24},
    {GgmlType::Q8_0, "Q8_0", 32, 34},    {GgmlType::Q2_K, "Q2_K", 256, 84},   {GgmlType::Q3_K, "Q3_K", 256, 110},
    {GgmlType::Q4_K, "Q4_K", 256, 144},  {GgmlType::Q5_K, "Q5_K", 256, 176},  {GgmlType::Q6_K, "Q6_K", 256, 210},
    {GgmlType::BF16, "BF16", 1, 2},
}};

float half_at(const uint8_t* p) { return f16_to_float(static_cast<uint16_t>(p[0] | (p[1] << 8))); }

// Q4_0: d, then 16 bytes; value j is the low nibble of byte j, value j + 16 its high nibble, minus 8.
void q4_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  const uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

// Q4_1: d and the minimum m, then the nibbles, unsigned: value = q * d + m.
void q4_1(const uint8_t* b, float* y) {
  const float d = half_at(b), m = half_at(b + 2);
  const uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
    y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
  }
}

// Q5_0 / Q5_1: the nibbles plus a fifth bit from the 32-bit qh (bit j for value j, bit j + 16 for
// value j + 16); Q5_0 is centred at 16, Q5_1 offset by its minimum.
void q5(const uint8_t* b, float* y, bool with_min) {
  const float d = half_at(b), m = with_min ? half_at(b + 2) : 0.0f;
  const uint8_t* p = b + (with_min ? 4 : 2);
  uint32_t qh = 0;
  std::memcpy(&qh, p, 4);  // little-endian, as the file
  const uint8_t* qs = p + 4;
  for (int j = 0; j < 16; ++j) {
    const int high0 = static_cast<int>(((qh >> j) << 4) & 0x10);
    const int high1 = static_cast<int>((qh >> (j + 12)) & 0x10);
    const int x0 = (qs[j] & 0x0F) | high0, x1 = (qs[j] >> 4) | high1;
    if (with_min) {
      y[j] = static_cast<float>(x0) * d + m;
      y[j + 16] = static_cast<float>(x1) * d + m;
    } else {
      y[j] = static_cast<float>(x0 - 16) * d;
      y[j + 16] = static_cast<float>(x1 - 16) * d;
    }
  }
}

// Q8_0: d, then 32 signed bytes.
void q8_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// Q2_K: 16 sub-blocks of 16, each with a 4-bit scale and a 4-bit minimum (scales[i]: low / high
// nibble), values of 2 bits packed four to a byte; d scales the scales, dmin the minimums.
void q2_k(const uint8_t* b, float* y) {
  const uint8_t* scales = b;
  const uint8_t* q = b + 16;
  const float d = half_at(b + 80), dmin = half_at(b + 82);
  int is = 0;
  for (int n = 0; n < kSuperBlock; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      for (int half = 0; half < 2; ++half) {
        const uint8_t sc = scales[is++];
        const float dl = d * static_cast<float>(sc & 0x0F), ml = dmin * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
      }
      shift += 2;
    }
    q += 32;
  }
}

// Q3_K: 16 sub-blocks of 16 with 6-bit signed scales (packed in 12 bytes, centred at 32), values of
// 2 bits plus a high bit in hmask: a value whose high bit is clear is 4 lower.
void q3_k(const uint8_t* b, float* y) {
  const uint8_t* hm = b;
  const uint8_t* q = b + 32;
  const uint8_t* packed = b + 96;
  const float d_all = half_at(b + 108);
  // The 12 bytes unpacked to 16 six-bit scales: low 4 bits from bytes 0-7, high 2 bits from 8-11.
  int8_t scales[16];
  for (int i = 0; i < 16; ++i) {
    const int low = i < 8 ? packed[i] & 0x0F : packed[i - 8] >> 4;
    const int high = (packed[8 + (i % 4)] >> (2 * (i / 4))) & 3;
    scales[i] = static_cast<int8_t>((low | (high << 4)) - 32);
  }
  int is = 0;
  uint8_t m = 1;
  for (int n = 0; n < kSuperBlock; n += 128) {
    int shift = 0;
    for (int j = 0; j < 4; ++j) {
      for (int half = 0; half < 2; ++half) {
        const float dl = d_all * static_cast<float>(scales[is++]);
        for (int l = 0; l < 16; ++l) {
          const int k = l + 16 * half;
          const int v = ((q[k] >> shift) & 3) - ((hm[k] & m) ? 0 : 4);
          *y++ = dl * static_cast<float>(v);
        }
      }
      shift += 2;
      m = static_cast<uint8_t>(m << 1);
    }
    q += 32;
  }
}

// The 6-bit scale and minimum of sub-block j (0..7) of a Q4_K / Q5_K super-block's 12 bytes.
void scale_min_k4(int j, const uint8_t* q, uint8_t& d, uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<uint8_t>((q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4));
    m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// Q4_K / Q5_K: 8 sub-blocks of 32, each with a 6-bit scale and minimum; values of 4 bits (Q5_K: a
// fifth from qh, two bits of each qh byte per 64 values).
void q45_k(const uint8_t* b, float* y, bool five) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qh = b + 16;
  const uint8_t* ql = five ? b + 48 : b + 16;
  int is = 0;
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0; j < kSuperBlock; j += 64) {
    uint8_t sc = 0, mn = 0;
    scale_min_k4(is, scales, sc, mn);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(mn);
    scale_min_k4(is + 1, scales, sc, mn);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(mn);
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>((ql[l] & 0x0F) + (five && (qh[l] & u1) ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>((ql[l] >> 4) + (five && (qh[l] & u2) ? 16 : 0)) - m2;
    ql += 32;
    is += 2;
    u1 = static_cast<uint8_t>(u1 << 2);
    u2 = static_cast<uint8_t>(u2 << 2);
  }
}

// Q6_K: 16 sub-blocks of 16 with signed 8-bit scales; values of 6 bits (4 in ql, 2 in qh), centred at 32.
void q6_k(const uint8_t* b, float* y) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = half_at(b + 208);
  for (int n = 0; n < kSuperBlock; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

}  // namespace

const GgmlTypeInfo* ggml_type_info(uint32_t id) {
  for (const GgmlTypeInfo& t : kTypes)
    if (static_cast<uint32_t>(t.type) == id) return &t;
  return nullptr;
}

std::string ggml_type_name(uint32_t id) {
  // ggml's type ids (ggml.h), including those attnviz does not read.
  static constexpr std::array<std::string_view, 40> kNames{
      "F32",     "F16",    "Q4_0",   "Q4_1",  "Q4_2",   "Q4_3",   "Q5_0",    "Q5_1",    "Q8_0",   "Q8_1",
      "Q2_K",    "Q3_K",   "Q4_K",   "Q5_K",  "Q6_K",   "Q8_K",   "IQ2_XXS", "IQ2_XS",  "IQ3_XXS", "IQ1_S",
      "IQ4_NL",  "IQ3_S",  "IQ2_S",  "IQ4_XS", "I8",    "I16",    "I32",     "I64",     "F64",    "IQ1_M",
      "BF16",    "Q4_0_4_4", "Q4_0_4_8", "Q4_0_8_8", "TQ1_0", "TQ2_0", "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4"};
  if (id < kNames.size()) return std::string(kNames[id]);
  return "type " + std::to_string(id);
}

void ggml_dequantize(GgmlType type, const uint8_t* src, float* dst, int64_t n) {
  // The plain floats a value at a time; the block types a block at a time. The switch is outside the
  // loops: a model's tensors hold billions of values.
  switch (type) {
    case GgmlType::F32: std::memcpy(dst, src, static_cast<size_t>(n) * 4); return;
    case GgmlType::F16:
      for (int64_t i = 0; i < n; ++i) dst[i] = half_at(src + 2 * i);
      return;
    case GgmlType::BF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8)));
      return;
    default: break;
  }
  const GgmlTypeInfo* info = ggml_type_info(static_cast<uint32_t>(type));
  const auto each_block = [&](auto decode) {
    for (int64_t i = 0; i < n / info->block_values; ++i) decode(src + i * info->block_bytes, dst + i * info->block_values);
  };
  switch (type) {
    case GgmlType::Q4_0: each_block(q4_0); break;
    case GgmlType::Q4_1: each_block(q4_1); break;
    case GgmlType::Q5_0: each_block([](const uint8_t* b, float* y) { q5(b, y, false); }); break;
    case GgmlType::Q5_1: each_block([](const uint8_t* b, float* y) { q5(b, y, true); }); break;
    case GgmlType::Q8_0: each_block(q8_0); break;
    case GgmlType::Q2_K: each_block(q2_k); break;
    case GgmlType::Q3_K: each_block(q3_k); break;
    case GgmlType::Q4_K: each_block([](const uint8_t* b, float* y) { q45_k(b, y, false); }); break;
    case GgmlType::Q5_K: each_block([](const uint8_t* b, float* y) { q45_k(b, y, true); }); break;
    case GgmlType::Q6_K: each_block(q6_k); break;
    case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: break;  // above
  }
}

}  // namespace attnviz
