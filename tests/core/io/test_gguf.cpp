// GGUF files (io/gguf.h) and ggml's tensor types (io/ggml_types.h): a file this test writes byte by
// byte is read back field by field; blocks of each simple type decode to values worked out by hand
// here; every type, the K-quants included, decodes as the fixture script's own numpy dequantizer
// says (tests/fixtures/make_gguf_fixtures.py); truncations and hostile files are refused, naming
// what is wrong.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/gguf.h"
#include "io/gguf_tokenizer.h"
#include "support/check_util.h"
#include "support/fixture_util.h"

using namespace attnviz;

namespace {

// A little-endian GGUF writer for the tests: enough to make any header byte by byte.
struct Writer {
  std::vector<uint8_t> out;
  void u(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void str(const std::string& s) {
    u(s.size(), 8);
    out.insert(out.end(), s.begin(), s.end());
  }
  void kv_u32(const std::string& key, uint32_t v) {
    str(key);
    u(4, 4);
    u(v, 4);
  }
  void kv_str(const std::string& key, const std::string& v) {
    str(key);
    u(8, 4);
    str(v);
  }
  void pad(uint64_t alignment) {
    while (out.size() % alignment != 0) out.push_back(0);
  }
};

uint16_t half_bits(float f) {  // exact for the values used here (small powers of two and their sums)
  const uint32_t b = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (b >> 16) & 0x8000, exp = (b >> 23) & 0xFF, mant = b & 0x7FFFFF;
  if (f == 0.0f) return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | ((exp - 127 + 15) << 10) | (mant >> 13));
}

struct TensorSpec {
  std::string name;
  std::vector<uint64_t> ne;
  uint32_t type;
  std::vector<uint8_t> data;
};

// A version-3 file: the metadata given (already encoded, with its count) and the tensors, each at
// the next aligned offset.
std::vector<uint8_t> gguf_file(const std::vector<TensorSpec>& tensors, uint64_t kv_count = 0, const std::vector<uint8_t>& kvs = {},
                               uint64_t alignment = 32, uint32_t version = 3) {
  Writer w;
  w.out = {'G', 'G', 'U', 'F'};
  w.u(version, 4);
  w.u(tensors.size(), 8);
  w.u(kv_count, 8);
  w.out.insert(w.out.end(), kvs.begin(), kvs.end());
  uint64_t offset = 0;
  std::vector<uint64_t> offsets;
  for (const TensorSpec& t : tensors) {
    w.str(t.name);
    w.u(t.ne.size(), 4);
    for (uint64_t d : t.ne) w.u(d, 8);
    w.u(t.type, 4);
    w.u(offset, 8);
    offsets.push_back(offset);
    offset += (t.data.size() + alignment - 1) / alignment * alignment;
  }
  w.pad(alignment);
  for (const TensorSpec& t : tensors) {
    w.out.insert(w.out.end(), t.data.begin(), t.data.end());
    w.pad(alignment);
  }
  return w.out;
}

std::vector<float> decoded(const GgufFile& f, const std::vector<uint8_t>& bytes, const std::string& name) {
  const GgufTensorInfo* t = f.tensor(name);
  REQUIRE(t);
  std::vector<float> v(static_cast<size_t>(t->numel()));
  ggml_dequantize(t->type, bytes.data() + f.data_offset + t->offset, v.data(), t->numel());
  return v;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("gguf: a file written here reads back: version, metadata of each kind, tensor infos, offsets") {
  Writer kv;
  kv.kv_str("general.architecture", "llama");
  kv.kv_u32("llama.block_count", 2);
  kv.str("test.i8");
  kv.u(1, 4);
  kv.u(0xFE, 1);  // -2
  kv.str("test.f32");
  kv.u(6, 4);
  kv.u(std::bit_cast<uint32_t>(0.25f), 4);
  kv.str("test.bool");
  kv.u(7, 4);
  kv.u(1, 1);
  kv.str("test.tokens");
  kv.u(9, 4);
  kv.u(8, 4);
  kv.u(2, 8);
  kv.str("<s>");
  kv.str("▁the");
  kv.str("test.i64");
  kv.u(11, 4);
  kv.u(static_cast<uint64_t>(-5), 8);
  std::vector<uint8_t> q8(34);
  const uint16_t d = half_bits(0.5f);
  q8[0] = static_cast<uint8_t>(d);
  q8[1] = static_cast<uint8_t>(d >> 8);
  for (int j = 0; j < 32; ++j) q8[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(j - 16));
  std::vector<uint8_t> f32(4 * 3);
  for (int i = 0; i < 3; ++i) {
    const uint32_t b = std::bit_cast<uint32_t>(1.5f * static_cast<float>(i));
    std::memcpy(f32.data() + 4 * i, &b, 4);
  }
  const auto bytes = gguf_file({{"blk.0.attn_q.weight", {32, 1}, 8, q8}, {"output_norm.weight", {3}, 0, f32}}, 7, kv.out);
  auto f = gguf_parse(bytes);
  REQUIRE_MESSAGE(f.ok(), f.error());
  CHECK(f->version == 3);
  CHECK(f->alignment == 32);
  CHECK(f->data_offset % 32 == 0);
  REQUIRE(f->metadata.size() == 7);
  CHECK(f->metadata[0].first == "general.architecture");
  CHECK(*f->string_value("general.architecture") == "llama");
  CHECK(*f->int_value("llama.block_count") == 2);
  CHECK(*f->int_value("test.i8") == -2);
  CHECK(*f->int_value("test.i64") == -5);
  CHECK(*f->float_value("test.f32") == 0.25);
  CHECK(std::get<bool>(f->find("test.bool")->value));
  auto tokens = f->array_value("test.tokens");
  REQUIRE(tokens.ok());
  CHECK((*tokens)->element == GgufValueType::string);
  CHECK((*tokens)->strings == std::vector<std::string>{"<s>", "▁the"});
  CHECK(f->int_value("general.architecture").error() == "GGUF metadata 'general.architecture' is a string, not an integer");
  CHECK(f->string_value("llama.rope.dimension_count").error() == "GGUF metadata has no 'llama.rope.dimension_count'");
  REQUIRE(f->tensors.size() == 2);
  const GgufTensorInfo& q = f->tensors[0];
  CHECK(q.name == "blk.0.attn_q.weight");
  CHECK(q.ne == std::vector<int64_t>{32, 1});
  CHECK(q.type == GgmlType::Q8_0);
  CHECK(q.bytes == 34);
  CHECK(f->tensors[1].offset == 64);
  // Q8_0: d times each signed byte.
  const std::vector<float> v = decoded(*f, bytes, "blk.0.attn_q.weight");
  for (int j = 0; j < 32; ++j) CHECK(v[static_cast<size_t>(j)] == 0.5f * static_cast<float>(j - 16));
  CHECK(decoded(*f, bytes, "output_norm.weight") == std::vector<float>{0.0f, 1.5f, 3.0f});
  CHECK(gguf_magic(bytes));
}

TEST_CASE("ggml types: Q4_0, Q4_1, Q5_0, Q5_1, F16 and BF16 blocks decode to the values worked out by hand") {
  const auto put_half = [](std::vector<uint8_t>& b, size_t at, float x) {
    const uint16_t h = half_bits(x);
    b[at] = static_cast<uint8_t>(h);
    b[at + 1] = static_cast<uint8_t>(h >> 8);
  };
  std::vector<float> y(32);
  // Q4_0: byte j holds value j (low nibble) and value j + 16 (high nibble), both minus 8, times d.
  std::vector<uint8_t> q4(18, 0);
  put_half(q4, 0, 0.25f);
  for (int j = 0; j < 16; ++j) q4[2 + j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  ggml_dequantize(GgmlType::Q4_0, q4.data(), y.data(), 32);
  CHECK(y[0] == -2.0f);    // (0 - 8) * 0.25
  CHECK(y[15] == 1.75f);   // (15 - 8) * 0.25
  CHECK(y[16] == 1.75f);   // high nibble of byte 0: 15
  CHECK(y[31] == -2.0f);
  // Q4_1: q * d + m.
  std::vector<uint8_t> q41(20, 0);
  put_half(q41, 0, 0.5f);
  put_half(q41, 2, -1.0f);
  q41[4] = 0x3A;  // value 0: 10, value 16: 3
  ggml_dequantize(GgmlType::Q4_1, q41.data(), y.data(), 32);
  CHECK(y[0] == 4.0f);
  CHECK(y[16] == 0.5f);
  CHECK(y[1] == -1.0f);
  // Q5_0: the fifth bit of value j is bit j of qh, of value j + 16 bit j + 16; centred at 16.
  std::vector<uint8_t> q5(22, 0);
  put_half(q5, 0, 1.0f);
  q5[2] = 0x01;        // qh bit 0: value 0's high bit
  q5[2 + 2] = 0x01;    // qh bit 16: value 16's high bit
  q5[6] = 0x23;        // value 0: low 3, value 16: low 2
  q5[7] = 0x0F;        // value 1: low 15, no high bit
  ggml_dequantize(GgmlType::Q5_0, q5.data(), y.data(), 32);
  CHECK(y[0] == 3.0f);    // (16 | 3) - 16
  CHECK(y[16] == 2.0f);   // (16 | 2) - 16
  CHECK(y[1] == -1.0f);   // 15 - 16
  CHECK(y[2] == -16.0f);
  // Q5_1: the same bits, q * d + m.
  std::vector<uint8_t> q51(24, 0);
  put_half(q51, 0, 0.5f);
  put_half(q51, 2, 1.0f);
  q51[4 + 3] = 0x80;   // qh bit 31: value 31's high bit
  q51[8 + 15] = 0xF0;  // value 31: low 15
  ggml_dequantize(GgmlType::Q5_1, q51.data(), y.data(), 32);
  CHECK(y[31] == 16.5f);  // 31 * 0.5 + 1
  CHECK(y[0] == 1.0f);
  // F16 and BF16: one value a block.
  const uint8_t f16[4] = {0x00, 0x3C, 0x00, 0xC0};  // 1.0, -2.0
  float two[2];
  ggml_dequantize(GgmlType::F16, f16, two, 2);
  CHECK(two[0] == 1.0f);
  CHECK(two[1] == -2.0f);
  const uint8_t bf16[2] = {0x80, 0x3F};  // 1.0
  ggml_dequantize(GgmlType::BF16, bf16, two, 1);
  CHECK(two[0] == 1.0f);
  CHECK(ggml_type_name(16) == "IQ2_XXS");
  CHECK(ggml_type_name(999) == "type 999");
  CHECK(ggml_type_info(15) == nullptr);  // Q8_K: not a weight type
}

TEST_CASE("gguf: every prefix of a file is refused with a message, never read past its end") {
  std::vector<uint8_t> q8(34, 0x11);
  Writer kv;
  kv.kv_str("general.architecture", "llama");
  const auto bytes = gguf_file({{"t", {32}, 8, q8}}, 1, kv.out);
  REQUIRE(gguf_parse(bytes).ok());
  for (size_t n = 0; n + 1 < bytes.size(); ++n) {
    // The last tensor's data ends 34 bytes into its 64-byte padded slot: any prefix shorter than that fails.
    if (n >= bytes.size() - 30) continue;
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));  // a copy: ASan sees a read past it
    auto f = gguf_parse(prefix);
    CAPTURE(n);
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().rfind("GGUF: ", 0) == 0);
  }
}

TEST_CASE("gguf: headers that lie are refused, naming what is wrong") {
  std::vector<uint8_t> q8(34, 0);
  const auto refused = [](const std::vector<uint8_t>& b) {
    auto f = gguf_parse(b);
    REQUIRE_FALSE(f.ok());
    return f.error();
  };
  Writer big;
  big.kv_str("general.architecture", "llama");
  auto bytes = gguf_file({{"t", {32}, 8, q8}}, 1, big.out);
  auto wrong = bytes;
  wrong[8] = 0xFF;  // tensor count's low byte: 255 tensors
  CHECK(test::has(refused(wrong), "255 tensors, more than the"));
  wrong = bytes;
  wrong[16 + 7] = 0x40;  // metadata count 2^62 + 1
  CHECK(test::has(refused(wrong), "metadata entries, more than the"));
  wrong = bytes;
  wrong[24 + 7] = 0x10;  // the key's length: 2^60 + 20
  CHECK(test::has(refused(wrong), "past the end of the file"));
  CHECK(refused(gguf_file({{"t", {32}, 8, q8}}, 0, {}, 32, 1)) == "GGUF: version 1 (from before August 2023), which attnviz does not read: convert the model again");
  CHECK(refused(gguf_file({{"t", {32}, 8, q8}}, 0, {}, 32, 4)) == "GGUF: version 4 (attnviz reads 2 and 3)");
  CHECK(refused(gguf_file({{"t", {32}, 8, q8}}, 0, {}, 32, 0x03000000)) == "GGUF: a big-endian file, which attnviz does not read");
  CHECK(refused(gguf_file({{"t", {32}, 16, q8}})) ==
        "GGUF: tensor 't' has type IQ2_XXS, which attnviz does not read (it reads F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, BF16)");
  CHECK(refused(gguf_file({{"t", {100}, 12, std::vector<uint8_t>(144)}})) ==
        "GGUF: tensor 't': its rows of 100 values are not whole Q4_K blocks of 256");
  CHECK(refused(gguf_file({{"t", {32}, 8, q8}, {"t", {32}, 8, q8}})) == "GGUF: the tensor 't' appears twice");
  Writer twice;
  twice.kv_u32("a", 1);
  twice.kv_u32("a", 2);
  CHECK(refused(gguf_file({}, 2, twice.out)) == "GGUF: the metadata key 'a' appears twice");
  Writer align;
  align.kv_u32("general.alignment", 48);
  CHECK(refused(gguf_file({}, 1, align.out)) == "GGUF: general.alignment is 48, not a power of two");
  Writer nested;
  nested.str("a");
  nested.u(9, 4);
  nested.u(9, 4);
  nested.u(1, 8);
  CHECK(refused(gguf_file({}, 1, nested.out)) == "GGUF: metadata 'a': an array of arrays, which no model's metadata needs and attnviz does not read");
  Writer unknown;
  unknown.str("a");
  unknown.u(99, 4);
  CHECK(refused(gguf_file({}, 1, unknown.out)) == "GGUF: metadata 'a': unknown value type 99 (GGUF has 0 to 12)");
  // A tensor whose offset points past the data.
  auto past = gguf_file({{"t", {32}, 8, q8}});
  const size_t offset_at = 4 + 4 + 8 + 8 + (8 + 1) + 4 + 8 + 4;  // after the name, dims and type
  past[offset_at + 1] = 0x10;  // offset 4096
  CHECK(test::has(refused(past), "tensor 't': its 34 bytes at offset 4096 run past the end of the data"));
  auto misaligned = gguf_file({{"t", {32}, 8, q8}});
  misaligned[offset_at] = 8;
  CHECK(refused(misaligned) == "GGUF: tensor 't': its offset 8 is not a multiple of the alignment 32");
  CHECK(refused({'G', 'G', 'U', 'X'}) == "GGUF: the file does not start with \"GGUF\"");
}

TEST_CASE("gguf fixtures: every type decodes as the fixture script's numpy dequantizer says, in v3, v2 and 64-byte alignment") {
  const std::string dir = test::fixture_path("gguf");
  const auto want = nlohmann::json::parse(file_bytes(dir + "/types.json"));
  for (const auto& file : want["files"]) {
    const std::string name = file["file"].get<std::string>();
    CAPTURE(name);
    auto m = gguf_map(dir + "/" + name);
    REQUIRE_MESSAGE(m.ok(), m.error());
    const GgufFile& f = m->file;
    CHECK(f.version == file["version"].get<uint32_t>());
    CHECK(f.alignment == file["alignment"].get<uint64_t>());
    CHECK(f.data_offset == file["data_offset"].get<uint64_t>());
    // The metadata: every value type GGUF has, as the script wrote it.
    for (const auto& kv : want["metadata"]) {
      const std::string key = kv["key"].get<std::string>();
      if (key == "general.alignment") continue;  // the file's own (f.alignment, above)
      CAPTURE(key);
      const GgufValue* v = f.find(key);
      REQUIRE(v);
      CHECK(static_cast<int>(v->type) == kv["type_id"].get<int>());
      const auto& value = kv["value"];
      if (v->type == GgufValueType::string) CHECK(std::get<std::string>(v->value) == value.get<std::string>());
      else if (v->type == GgufValueType::uint64) CHECK(std::get<uint64_t>(v->value) == value.get<uint64_t>());
      else if (v->type == GgufValueType::boolean) CHECK(std::get<bool>(v->value) == value.get<bool>());
      else if (v->type == GgufValueType::float32 || v->type == GgufValueType::float64) CHECK(std::get<double>(v->value) == value.get<double>());
      else if (v->type == GgufValueType::array) {
        const auto& a = std::get<GgufArray>(v->value);
        REQUIRE(a.size() == value.size());
        for (size_t i = 0; i < value.size(); ++i) {
          if (!a.strings.empty()) CHECK(a.strings[i] == value[i].get<std::string>());
          else if (!a.floats.empty()) CHECK(a.floats[i] == value[i].get<double>());
          else CHECK(a.ints[i] == value[i].get<int64_t>());
        }
      } else {
        CHECK(std::get<int64_t>(v->value) == value.get<int64_t>());
      }
    }
    CHECK(f.int_value("test.uint64").error() == "GGUF metadata 'test.uint64' is 9223372036854775813, larger than any count or size attnviz reads");
    // Every tensor's values. The script rounds each step in float32 as ggml's C does; the compiler may
    // fuse a multiply and an add (x86-64-v3 has FMA), a difference of an ulp or so.
    REQUIRE(f.tensors.size() == want["tensors"].size());
    for (const auto& t : want["tensors"]) {
      const std::string tname = t["name"].get<std::string>();
      CAPTURE(tname);
      const GgufTensorInfo* info = f.tensor(tname);
      REQUIRE(info);
      CHECK(std::string(ggml_type_info(static_cast<uint32_t>(info->type))->name) == t["type"].get<std::string>());
      CHECK(info->offset == file["tensor_offsets"][tname].get<uint64_t>());
      CHECK(info->bytes == t["nbytes"].get<uint64_t>());
      const std::span<const uint8_t> stored = m->tensor_bytes(*info);
      std::vector<float> got(static_cast<size_t>(info->numel()));
      ggml_dequantize(info->type, stored.data(), got.data(), info->numel());
      const auto& values = t["values"];
      REQUIRE(values.size() == got.size());
      int off = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const float w = values[i].get<float>();
        if (std::abs(got[i] - w) > 1e-6f * std::max(1.0f, std::abs(w))) ++off;
      }
      CHECK(off == 0);
    }
  }
}

TEST_CASE("gguf fixtures: the hostile files are refused, each for what it breaks; the file they vary is read") {
  const std::string dir = test::fixture_path("gguf");
  REQUIRE(gguf_map(dir + "/small.gguf").ok());
  const std::pair<const char*, const char*> cases[] = {
      {"truncated", "2 tensors, more than the 41 bytes left could hold"},  // caught before the infos are read
      {"offset_past_end", "tensor 'b': its "},
      {"huge_string", "past the end of the file"},
      {"unknown_value_type", "unknown value type 99"},
      {"unknown_tensor_type", "has type IQ2_XXS, which attnviz does not read"},
      {"bad_magic", "does not start with \"GGUF\""},
      {"version1", "version 1 (from before August 2023)"},
      {"huge_count", "metadata entries, more than the"},
      {"misaligned_offset", "is not a multiple of the alignment 32"},
      {"bad_row", "its rows of 100 values are not whole Q4_K blocks of 256"},
      {"nested_array", "an array of arrays"},
      {"duplicate_key", "the metadata key 'general.name' appears twice"},
      {"bad_alignment", "general.alignment is 48, not a power of two"},
  };
  for (const auto& [file, why] : cases) {
    const std::string name = file;
    CAPTURE(name);
    const std::string path = dir + "/bad/" + file + ".gguf";
    auto m = gguf_map(path);
    REQUIRE_FALSE(m.ok());
    CAPTURE(m.error());
    CHECK(test::has(m.error(), why));
    CHECK(m.error().rfind("'" + path + "': GGUF: ", 0) == 0);  // the file named, then what is wrong
  }
  CHECK(test::has(gguf_map(dir + "/none.gguf").error(), "cannot open"));
}

TEST_CASE("gguf: 3,000 random corruptions of a real file are each refused or read within its bytes") {
  // A deterministic stand-in for the fuzzer in the normal suite (which runs under the sanitizers):
  // one to four bytes of types.gguf changed at random, or the file cut short; whatever is accepted
  // is decoded in full, so a read outside the file would be caught.
  const std::vector<uint8_t> original = file_bytes(test::fixture_path("gguf/types.gguf"));
  uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = original;
    const size_t header = 1376;  // most changes land in the header, where the reader decides things
    if (trial % 10 == 9) bytes.resize(static_cast<size_t>(next() % bytes.size()));
    for (uint64_t k = 0, n = 1 + next() % 4; k < n && !bytes.empty(); ++k)
      bytes[static_cast<size_t>(next() % std::min(bytes.size(), header))] = static_cast<uint8_t>(next());
    auto f = gguf_parse(bytes);
    if (!f.ok()) {
      CHECK(f.error().rfind("GGUF: ", 0) == 0);
      continue;
    }
    ++accepted;
    for (const GgufTensorInfo& t : f->tensors) {
      REQUIRE(f->data_offset + t.offset + t.bytes <= bytes.size());
      std::vector<float> v(static_cast<size_t>(t.numel()));
      ggml_dequantize(t.type, bytes.data() + f->data_offset + t.offset, v.data(), t.numel());
    }
  }
  CHECK(accepted > 0);  // some changes leave a valid file (a metadata value, a string's byte)
  CHECK(accepted < 3000);
}

TEST_CASE("gguf tokenizer: a vocabulary that spells an entry twice is read as llama.cpp reads it, the later id") {
  // A SentencePiece vocabulary from metadata alone: <unk>, <s>, </s>, the 256 byte pieces, then
  // "▁a", "▁b" and "▁a" again (converted files have such repeats; llama.cpp's text-to-id map keeps
  // the later one).
  GgufFile file;
  GgufArray tokens{GgufValueType::string, {}, {}, {}, {"<unk>", "<s>", "</s>"}};
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    tokens.strings.push_back(hex);
  }
  for (const char* p : {"\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "\xE2\x96\x81" "b", "\xE2\x96\x81" "a"}) tokens.strings.push_back(p);
  const int64_t n = static_cast<int64_t>(tokens.strings.size());
  GgufArray scores{GgufValueType::float32, {}, {}, {}, {}};
  GgufArray types{GgufValueType::int32, {}, {}, {}, {}};
  for (int64_t i = 0; i < n; ++i) {
    scores.floats.push_back(-static_cast<double>(i));
    types.ints.push_back(i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1);
  }
  file.metadata.push_back({"tokenizer.ggml.model", GgufValue{GgufValueType::string, std::string("llama")}});
  file.metadata.push_back({"tokenizer.ggml.tokens", GgufValue{GgufValueType::array, tokens}});
  file.metadata.push_back({"tokenizer.ggml.scores", GgufValue{GgufValueType::array, scores}});
  file.metadata.push_back({"tokenizer.ggml.token_type", GgufValue{GgufValueType::array, types}});
  auto tok = gguf_tokenizer(file);
  REQUIRE_MESSAGE(tok.ok(), tok.error());
  auto enc = (*tok)->encode("a b");
  REQUIRE(enc.ok());
  std::vector<int> ids;
  for (const SubwordToken& t : enc->tokens) ids.push_back(t.id);
  CHECK(ids == std::vector<int>{1, static_cast<int>(n - 1), static_cast<int>(n - 2)});  // <s> ▁a (the later) ▁b
  CHECK((*tok)->decode(std::vector<int>{static_cast<int>(n - 3)}) == "a");  // the earlier ▁a still decodes
}
