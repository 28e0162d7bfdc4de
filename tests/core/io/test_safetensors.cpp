// safetensors: every rejection message one by one (files assembled in memory), 16-bit float
// conversions by exact bit pattern, unaligned data, exact round trips, and a file written by
// Python (tests/fixtures/make_npy_fixtures.py) rather than by this reader's own writer.
#include <doctest/doctest.h>

#include "support/byte_util.h"
#include "support/check_util.h"

#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/file_io.h"
#include "io/safetensors.h"

using namespace attnviz;

namespace {

using namespace attnviz::test;

// 8-byte little-endian length (the header's own unless `claimed` is given), header text, buffer.
Bytes assemble(std::string_view header, const Bytes& buffer = {}, std::optional<uint64_t> claimed = std::nullopt) {
  const uint64_t n = claimed.value_or(header.size());
  Bytes out;
  append_le(out, n, 8);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), buffer.begin(), buffer.end());
  return out;
}


Bytes u16_bytes(std::initializer_list<uint16_t> values) {
  Bytes out;
  for (const uint16_t v : values) {
    out.push_back(static_cast<uint8_t>(v & 0xFF));
    out.push_back(static_cast<uint8_t>(v >> 8));
  }
  return out;
}

std::string error_of(const Bytes& bytes) {
  auto r = safetensors_parse(bytes);
  if (r.ok()) return "<parsed without error>";
  return r.error();
}

// One tensor entry of the header, as JSON text.
std::string entry(const std::string& dtype, const std::string& shape, uint64_t begin, uint64_t end) {
  return R"({"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":[)" + std::to_string(begin) + "," +
         std::to_string(end) + "]}";
}

}  // namespace

// The whole message after the "safetensors: " prefix, not a fragment: each malformation's wording is
// pinned. (CHECK_ERROR, a substring check, stays for messages that quote nlohmann's own wording.)
#define CHECK_EXACT(bytes, message)                                        \
  do {                                                                     \
    CHECK(error_of(bytes) == std::string("safetensors: ") + (message));    \
  } while (0)

TEST_CASE("safetensors: the 8-byte length prefix is checked before anything is allocated") {
  CHECK_EXACT((Bytes{1, 2, 3, 4, 5}), "file is 5 bytes, shorter than the 8-byte header length");
  CHECK_EXACT(Bytes{}, "file is 0 bytes, shorter than the 8-byte header length");
  CHECK_EXACT(assemble("", {}, 0), "header length is 0");
  CHECK_EXACT(assemble("{}", {}, 100'000'001), "header length 100000001 is over the 100000000-byte limit");
  // 2^64 - 1 would be an 18 EB allocation if trusted.
  CHECK_EXACT(assemble("{}", {}, std::numeric_limits<uint64_t>::max()),
              "header length 18446744073709551615 is over the 100000000-byte limit");
  CHECK_EXACT(assemble("{}", {}, 50), "header length 50 runs beyond the end of the 10-byte file");
}

TEST_CASE("safetensors: the header must be UTF-8 JSON holding an object") {
  CHECK_EXACT(assemble("{\"a\xff\":1}"), "header is not valid UTF-8 (bad byte at header offset 3)");
  CHECK_EXACT(assemble("{\"\xc0\xaf\":1}"),
              "header is not valid UTF-8 (bad byte at header offset 2)");   // overlong '/'
  CHECK_EXACT(assemble("{\"\xed\xa0\x80\":1}"),
              "header is not valid UTF-8 (bad byte at header offset 2)");  // a lone surrogate
  CHECK_EXACT(assemble("{\"\xe2\x82\":1}"),
              "header is not valid UTF-8 (bad byte at header offset 2)");     // cut-off sequence
  CHECK_ERROR(assemble("{oops"), "header is not JSON (");
  CHECK_ERROR(assemble("{\"a\":1} x"), "header is not JSON (");
  CHECK_EXACT(assemble("[1, 2]"), "header is not a JSON object (it is array)");
  CHECK_EXACT(assemble("\"text\""), "header is not a JSON object (it is string)");
  CHECK_EXACT(assemble(std::string(40, '[') + std::string(40, ']')),
              "header is not a valid header (JSON nested deeper than 16 levels)");
  // Valid UTF-8 beyond ASCII is fine in names.
  auto ok = safetensors_parse(assemble(R"({"가중치":)" + entry("F32", "[1]", 0, 4) + "}", le_f32({7.0f})));
  REQUIRE_MESSAGE(ok.ok(), ok.error());
  CHECK(ok->tensors[0].name == "가중치");
}

TEST_CASE("safetensors: __metadata__ must be an object of strings") {
  CHECK_EXACT(assemble(R"({"__metadata__":[1]})"), "'__metadata__' is not an object of strings (it is array)");
  CHECK_EXACT(assemble(R"({"__metadata__":{"epoch":3}})"),
              "'__metadata__' is not an object of strings (key 'epoch' holds number)");
  CHECK_EXACT(assemble(R"({"__metadata__":{"a":"x","a":"y"}})"), "'__metadata__' has duplicate key 'a'");
  CHECK_EXACT(assemble(R"({"__metadata__":{},"__metadata__":{}})"), "header has two '__metadata__' entries");
  auto ok = safetensors_parse(assemble(R"({"__metadata__":{"format":"pt","note":"héllo"}})"));
  REQUIRE_MESSAGE(ok.ok(), ok.error());
  CHECK(ok->metadata.size() == 2);
  CHECK(ok->metadata.at("format") == "pt");
  CHECK(ok->metadata.at("note") == "héllo");
  CHECK(ok->tensors.empty());
}

TEST_CASE("safetensors: each malformed entry field has its own message") {
  CHECK_EXACT(assemble(R"({"w":3})"), "tensor 'w' entry is not an object (it is number)");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","data_offsets":[0,0]}})"), "tensor 'w' is missing field 'shape'");
  CHECK_EXACT(assemble(R"({"w":{"shape":[],"data_offsets":[0,4]}})"), "tensor 'w' is missing field 'dtype'");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[]}})"), "tensor 'w' is missing field 'data_offsets'");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[],"data_offsets":[0,4],"grad":1}})"),
              "tensor 'w' has unexpected field 'grad' (known: dtype, shape, data_offsets)");
  CHECK_EXACT(assemble(R"({"w":{"dtype":32,"shape":[],"data_offsets":[0,4]}})"),
              "tensor 'w' field 'dtype' is not a string");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":{},"data_offsets":[0,4]}})"),
              "tensor 'w' field 'shape' is not an array");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","dtype":"F16","shape":[],"data_offsets":[0,4]}})"),
              "tensor 'w' has duplicate field 'dtype'");
}

TEST_CASE("safetensors: unknown dtypes and unsupported ones are named") {
  CHECK_EXACT(assemble(R"({"w":)" + entry("F17", "[1]", 0, 4) + "}"), "tensor 'w' has unknown dtype 'F17'");
  CHECK_EXACT(assemble(R"({"w":)" + entry("f32", "[1]", 0, 4) + "}"), "tensor 'w' has unknown dtype 'f32'");
  CHECK_EXACT(assemble(R"({"z":)" + entry("C64", "[1]", 0, 8) + "}"),
              "tensor 'z' has unsupported dtype C64 (attnviz reads float, integer and boolean tensors)");
  CHECK_EXACT(assemble(R"({"q":)" + entry("F8_E4M3", "[1]", 0, 1) + "}"),
              "tensor 'q' has unsupported dtype F8_E4M3 (attnviz reads float, integer and boolean tensors)");
}

TEST_CASE("safetensors: integer and boolean tensors read as float, sign-extended") {
  // BERT checkpoints carry an I64 position_ids buffer; old GPT-2 ones a U8 mask.
  const Bytes i64 = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x2A, 0, 0, 0, 0, 0, 0, 0};
  auto f = safetensors_parse(assemble(R"({"ids":)" + entry("I64", "[2]", 0, 16) + "}", i64));
  REQUIRE(f);
  CHECK(f->tensors[0].data == std::vector<float>{-2.0f, 42.0f});
  CHECK(dtype_name(f->tensors[0].stored) == "I64");
  auto m = safetensors_parse(assemble(R"({"m":)" + entry("BOOL", "[3]", 0, 3) + "}", Bytes{1, 0, 1}));
  REQUIRE(m);
  CHECK(m->tensors[0].data == std::vector<float>{1.0f, 0.0f, 1.0f});
  auto s = safetensors_parse(assemble(R"({"a":)" + entry("I16", "[1]", 0, 2) + R"(,"b":)" + entry("U16", "[1]", 2, 4) + "}",
                                      Bytes{0x00, 0x80, 0x00, 0x80}));
  REQUIRE(s);
  CHECK(s->tensors[0].data[0] == -32768.0f);
  CHECK(s->tensors[1].data[0] == 32768.0f);
}

TEST_CASE("safetensors: shapes must be non-negative integers whose byte count fits in 64 bits") {
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[3,-2]", 0, 24) + "}"),
              "tensor 'w' shape entry 1 is -2, not a non-negative integer");
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[2.5]", 0, 10) + "}"),
              "tensor 'w' shape entry 0 is 2.5, not a non-negative integer");
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[2.0]", 0, 8) + "}"),
              "tensor 'w' shape entry 0 is 2.0, not a non-negative integer");
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", R"(["3"])", 0, 12) + "}"),
              "tensor 'w' shape entry 0 is \"3\", not a non-negative integer");
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[9223372036854775808,0]", 0, 0) + "}"),
              "tensor 'w' shape entry 0 (9223372036854775808) is too large");
  // 2^32 * 2^32 values: the count itself wraps to 0 without a checked multiply.
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[4294967296,4294967296]", 0, 0) + "}"),
              "tensor 'w' shape [4294967296, 4294967296] has more values than 64 bits can count");
  // 2^62 values fit, but 2^62 * 4 bytes wraps to 0.
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[4611686018427387904]", 0, 0) + "}"),
              "tensor 'w' shape [4611686018427387904] overflows 64 bits in bytes of dtype F32");
}

TEST_CASE("safetensors: data_offsets must be two ordered non-negative integers matching the byte count") {
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0]}})"),
              "tensor 'w' field 'data_offsets' is not two non-negative integers (it is [0])");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})"),
              "tensor 'w' field 'data_offsets' is not two non-negative integers (it is [0,4,8])");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})"),
              "tensor 'w' field 'data_offsets' is not two non-negative integers (it is [-4,0])");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}})"),
              "tensor 'w' field 'data_offsets' is not two non-negative integers (it is [0,4.0])");
  CHECK_EXACT(assemble(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":"0-4"}})"),
              "tensor 'w' field 'data_offsets' is not two non-negative integers (it is \"0-4\")");
  CHECK_EXACT(assemble(R"({"w":)" + entry("F32", "[1]", 8, 4) + "}"),
              "tensor 'w' data_offsets [8, 4] end before they begin");
  // The exact wording the model loader's users will see.
  CHECK(error_of(assemble(R"({"layers.0.norm1.weight":)" + entry("F32", "[2,4]", 0, 28) + "}", Bytes(28))) ==
        "safetensors: tensor 'layers.0.norm1.weight' has 8 values but its 28 bytes do not match dtype F32");
  CHECK_EXACT(assemble(R"({"h":)" + entry("F16", "[3]", 0, 12) + "}", Bytes(12)),
              "tensor 'h' has 3 values but its 12 bytes do not match dtype F16");
}

TEST_CASE("safetensors: tensors must tile the buffer from byte 0 with no gap, overlap or excess") {
  const std::string a = R"("a":)" + entry("F32", "[1]", 0, 4);
  CHECK_EXACT(assemble("{" + a + R"(,"b":)" + entry("F32", "[1]", 8, 12) + "}", Bytes(12)),
              "tensor 'b' starts at byte 8 but the data before it ends at byte 4 (a gap)");
  CHECK_EXACT(assemble(R"({"first":)" + entry("F32", "[1]", 4, 8) + "}", Bytes(8)),
              "tensor 'first' starts at byte 4 but the data before it ends at byte 0 (a gap)");
  CHECK_EXACT(assemble(R"({"a":)" + entry("F32", "[2]", 0, 8) + R"(,"b":)" + entry("F32", "[1]", 4, 8) + "}", Bytes(8)),
              "tensor 'b' starts at byte 4 but the data before it ends at byte 8 (an overlap)");
  CHECK_EXACT(assemble("{" + a + "}", Bytes(6)), "2 trailing bytes after the last tensor (data ends at byte 4 of 6)");
  CHECK_EXACT(assemble("{" + a + "}", Bytes(3)),
              "file is truncated: the tensors need 4 data bytes but only 3 follow the header");
  CHECK_EXACT(assemble("{}", Bytes(1)), "1 trailing bytes after the last tensor (data ends at byte 0 of 1)");
  CHECK_EXACT(assemble("{" + a + R"(,"a":)" + entry("F32", "[1]", 4, 8) + "}", Bytes(8)), "duplicate tensor name 'a'");
}

TEST_CASE("safetensors: names in messages are kept on one line") {
  CHECK_EXACT(assemble("{\"bad\\nname\":3}"), "tensor 'bad\\x0aname' entry is not an object (it is number)");
}

TEST_CASE("safetensors: F16 and BF16 widen by exact bit patterns") {
  CHECK(f16_to_float(0x3C00) == 1.0f);
  CHECK(f16_to_float(0xC000) == -2.0f);
  CHECK(f16_to_float(0x3800) == 0.5f);
  CHECK(f16_to_float(0x3555) == 0.333251953125f);
  CHECK(f16_to_float(0x7BFF) == 65504.0f);              // largest finite half
  CHECK(f16_to_float(0x0400) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(f16_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(f16_to_float(0x03FF) == std::ldexp(1023.0f, -24));  // largest subnormal
  CHECK(f16_to_float(0x8001) == -std::ldexp(1.0f, -24));
  CHECK(f16_to_float(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(f16_to_float(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(f16_to_float(0x7E00)));
  CHECK(std::isnan(f16_to_float(0x7C01)));  // a signalling NaN stays a NaN, not an infinity
  CHECK(std::bit_cast<uint32_t>(f16_to_float(0x0000)) == 0x00000000u);
  CHECK(std::bit_cast<uint32_t>(f16_to_float(0x8000)) == 0x80000000u);  // -0 keeps its sign

  CHECK(bf16_to_float(0x3F80) == 1.0f);
  CHECK(bf16_to_float(0xC040) == -3.0f);
  CHECK(bf16_to_float(0x4049) == 3.140625f);
  CHECK(bf16_to_float(0x7F80) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(bf16_to_float(0x7FC0)));
  CHECK(std::bit_cast<uint32_t>(bf16_to_float(0x0001)) == 0x00010000u);  // subnormal
}

TEST_CASE("safetensors: F16, BF16 and F64 tensors are converted to float and remember their dtype") {
  Bytes buffer = u16_bytes({0x3C00, 0xC000, 0x0001});  // F16: 1, -2, 2^-24
  const Bytes bf = u16_bytes({0x3F80, 0xC040});        // BF16: 1, -3
  buffer.insert(buffer.end(), bf.begin(), bf.end());
  for (const double d : {0.1, -1e300}) {                // F64, one value out of float range
    const auto u = std::bit_cast<uint64_t>(d);
    for (int i = 0; i < 8; ++i) buffer.push_back(static_cast<uint8_t>(u >> (8 * i)));
  }
  const std::string header = R"({"h":)" + entry("F16", "[3]", 0, 6) + R"(,"b":)" + entry("BF16", "[2]", 6, 10) +
                             R"(,"d":)" + entry("F64", "[2]", 10, 26) + "}";
  auto r = safetensors_parse(assemble(header, buffer));
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->tensors.size() == 3);
  const Tensor* h = r->find("h");
  const Tensor* b = r->find("b");
  const Tensor* d = r->find("d");
  REQUIRE(h);
  REQUIRE(b);
  REQUIRE(d);
  CHECK(h->stored == DType::F16);
  CHECK(h->data == std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24)});
  CHECK(b->stored == DType::BF16);
  CHECK(b->data == std::vector<float>{1.0f, -3.0f});
  CHECK(d->stored == DType::F64);
  CHECK(d->data[0] == 0.1f);
  CHECK(d->data[1] == -std::numeric_limits<float>::infinity());
  CHECK(r->find("missing") == nullptr);
  CHECK(dtype_name(DType::BF16) == "BF16");
}

TEST_CASE("safetensors: tensors come back in the order of their offsets, empty tensors and scalars are fine") {
  const std::string header = R"({"z":)" + entry("F32", "[]", 0, 4) + R"(,"a":)" + entry("F32", "[2]", 4, 12) +
                             R"(,"e":)" + entry("F32", "[0,3]", 4, 4) + "}";
  auto r = safetensors_parse(assemble(header, le_f32({9.0f, 1.0f, 2.0f})));
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->tensors.size() == 3);
  CHECK(r->tensors[0].name == "z");
  CHECK(r->tensors[0].shape.empty());
  CHECK(r->tensors[0].numel() == 1);
  CHECK(r->tensors[0].data == std::vector<float>{9.0f});
  CHECK(r->tensors[1].name == "e");
  CHECK(r->tensors[1].numel() == 0);
  CHECK(r->tensors[2].name == "a");
  CHECK(r->tensors[2].data == std::vector<float>{1.0f, 2.0f});
  auto empty = safetensors_parse(assemble("{}"));
  REQUIRE(empty.ok());
  CHECK(empty->tensors.empty());
}

TEST_CASE("safetensors: space-padded headers and unaligned data are read") {
  // Header of 8k+5 bytes puts the F32 data at an odd address inside the vector.
  std::string header = R"({"w":)" + entry("F32", "[2,2]", 0, 16) + R"(,"d":)" + entry("F64", "[1]", 16, 24) + "}";
  while (header.size() % 8 != 5) header += ' ';
  Bytes buffer = le_f32({1.5f, -2.25f, 3.0e-40f, 1.0e30f});
  const auto u = std::bit_cast<uint64_t>(0.5);
  for (int i = 0; i < 8; ++i) buffer.push_back(static_cast<uint8_t>(u >> (8 * i)));
  const Bytes bytes = assemble(header, buffer);
  REQUIRE(reinterpret_cast<uintptr_t>(bytes.data() + 8 + header.size()) % 4 != 0);
  auto r = safetensors_parse(bytes);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->find("w")->data == std::vector<float>{1.5f, -2.25f, 3.0e-40f, 1.0e30f});
  CHECK(r->find("d")->data == std::vector<float>{0.5f});
}

TEST_CASE("safetensors: serialize then parse is bit-exact and keeps metadata and order") {
  TensorFile f;
  f.metadata = {{"format", "pt"}, {"attnviz.config", R"({"d_model":4})"}};
  Mat m(2, 3);
  m << 1.0f, -0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::infinity(),
      std::bit_cast<float>(0x7FC01234u), 1e-7f;
  Vec v(4);
  v << 0.1f, 0.2f, 0.3f, -4.0f;
  f.tensors.push_back(tensor_from_mat("zeta.weight", m));
  f.tensors.push_back(tensor_from_vec("alpha.bias", v));
  Tensor scalar;
  scalar.name = "scale";
  scalar.data = {2.5f};
  f.tensors.push_back(scalar);
  Tensor empty;
  empty.name = "nothing";
  empty.shape = {0, 5};
  f.tensors.push_back(empty);
  REQUIRE(tensor_file_check(f).ok());

  const Bytes bytes = safetensors_serialize(f);
  const uint64_t n = bytes[0] | (uint64_t{bytes[1]} << 8);
  CHECK(n % 8 == 0);
  const std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  CHECK(header.rfind(R"({"__metadata__":)", 0) == 0);
  CHECK(header.find("zeta.weight") < header.find("alpha.bias"));
  CHECK(bytes.size() == 8 + n + 4 * (6 + 4 + 1));

  auto back = safetensors_parse(bytes);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->metadata == f.metadata);
  REQUIRE(back->tensors.size() == f.tensors.size());
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    const Tensor& a = f.tensors[i];
    const Tensor& b = back->tensors[i];
    CHECK(a.name == b.name);
    CHECK(a.shape == b.shape);
    CHECK(b.stored == DType::F32);
    REQUIRE(a.data.size() == b.data.size());
    for (size_t k = 0; k < a.data.size(); ++k)
      CHECK(std::bit_cast<uint32_t>(a.data[k]) == std::bit_cast<uint32_t>(b.data[k]));  // NaN payloads too
  }
  auto m2 = tensor_to_mat(*back->find("zeta.weight"), 2, 3);
  REQUIRE(m2.ok());
  CHECK(std::memcmp(m2->data(), m.data(), sizeof(float) * 6) == 0);

  TensorFile bare;
  bare.tensors.push_back(tensor_from_vec("only", v));
  const Bytes bare_bytes = safetensors_serialize(bare);
  CHECK(std::string(bare_bytes.begin() + 8, bare_bytes.begin() + 16) == R"({"only":)");
}

TEST_CASE("safetensors: write and read through files, the writer refuses what it cannot store") {
  TensorFile f;
  f.metadata["epoch"] = "7";
  Mat m(2, 2);
  m << 1, 2, 3, 4;
  f.tensors.push_back(tensor_from_mat("w", m));
  const TempFile file("attnviz-test-st.safetensors");
  const std::string& path = file;
  REQUIRE(safetensors_write(path, f).ok());
  auto back = safetensors_read(path);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->metadata.at("epoch") == "7");
  CHECK(back->find("w")->data == std::vector<float>{1, 2, 3, 4});
  std::filesystem::remove(path);

  auto missing = safetensors_read(path);
  REQUIRE_FALSE(missing.ok());
  CHECK(has(missing.error(), path));

  TensorFile dup = f;
  dup.tensors.push_back(f.tensors[0]);
  CHECK(has(safetensors_write(path, dup).error(), "duplicate tensor name 'w'"));
  TensorFile wrong = f;
  wrong.tensors[0].shape = {3, 2};
  CHECK(has(safetensors_write(path, wrong).error(), "tensor 'w' has shape [3, 2] but 4 values"));
  TensorFile reserved = f;
  reserved.tensors[0].name = "__metadata__";
  CHECK_FALSE(safetensors_write(path, reserved).ok());
  CHECK_FALSE(std::filesystem::exists(path));

  // A parse error from a file names the file.
  REQUIRE(file_write_atomic(path, assemble("[]")).ok());
  auto bad = safetensors_read(path);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "'" + path + "': safetensors: header is not a JSON object (it is array)");
}

TEST_CASE("safetensors: tensor_to_mat and tensor_to_vec check rank and expected shape") {
  Tensor t;
  t.name = "layers.0.linear1.weight";
  t.shape = {2, 3};
  t.data = {1, 2, 3, 4, 5, 6};
  auto m = tensor_to_mat(t, 2, 3);
  REQUIRE(m.ok());
  CHECK((*m)(1, 0) == 4.0f);
  CHECK((*m)(0, 2) == 3.0f);
  CHECK(tensor_to_mat(t).ok());
  CHECK(tensor_to_mat(t, -1, 3).ok());
  CHECK(tensor_to_mat(t, 3, 2).error() == "tensor 'layers.0.linear1.weight' has shape [2, 3] but [3, 2] was expected");
  CHECK(tensor_to_mat(t, -1, 4).error() == "tensor 'layers.0.linear1.weight' has shape [2, 3] but [*, 4] was expected");
  CHECK(tensor_to_vec(t).error() == "tensor 'layers.0.linear1.weight' has shape [2, 3] but a vector [*] was expected");

  Tensor v;
  v.name = "b";
  v.shape = {3};
  v.data = {7, 8, 9};
  auto row = tensor_to_mat(v);
  REQUIRE(row.ok());
  CHECK(row->rows() == 1);
  CHECK(row->cols() == 3);
  CHECK((*row)(0, 2) == 9.0f);
  auto vec = tensor_to_vec(v, 3);
  REQUIRE(vec.ok());
  CHECK((*vec)(1) == 8.0f);
  CHECK(tensor_to_vec(v, 4).error() == "tensor 'b' has shape [3] but [4] was expected");

  Tensor cube;
  cube.name = "c";
  cube.shape = {2, 1, 1};
  cube.data = {1, 2};
  CHECK(tensor_to_mat(cube, 2, 1).error() == "tensor 'c' has shape [2, 1, 1] but a matrix [2, 1] was expected");
  Tensor scalar;
  scalar.name = "s";
  scalar.data = {1};
  CHECK(has(tensor_to_mat(scalar).error(), "has shape [] but a matrix [*, *] was expected"));
  Tensor lying = v;
  lying.data.pop_back();
  CHECK(tensor_to_vec(lying).error() == "tensor 'b' has shape [3] but holds 2 values");
}

namespace {

// Row-major values whose bit patterns are all distinct, with a negative zero and a subnormal among
// them: a copy that goes through arithmetic, or drops a sign, shows.
Mat distinct_values(Eigen::Index rows, Eigen::Index cols) {
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(i) * 0.375f - 11.0f;
  if (m.size() > 0) m.data()[0] = -0.0f;
  if (m.size() > 1) m.data()[m.size() - 1] = 1e-40f;
  return m;
}

bool same_bits(const float* a, const float* b, Eigen::Index n) {
  return n == 0 || std::memcmp(a, b, static_cast<size_t>(n) * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("safetensors: tensor_values_into copies or transposes bit for bit, whatever the tile edges") {
  // Shapes around the 8x8 blocks and the 32-row tiles: exact, one over, one short, thin, empty.
  const std::pair<int, int> shapes[] = {{1, 1}, {3, 5}, {8, 8}, {9, 7}, {32, 128}, {33, 129}, {37, 301}, {70, 9},
                                        {1, 700}, {700, 1}, {0, 5}, {5, 0}};
  const TempFile path("attnviz-test-values-into.safetensors");
  TensorFile f;
  for (const auto& [rows, cols] : shapes)
    f.tensors.push_back(tensor_from_mat(std::to_string(rows) + "x" + std::to_string(cols), distinct_values(rows, cols)));
  REQUIRE(safetensors_write(path, f).ok());
  auto mapped = safetensors_map(path);
  REQUIRE(mapped.ok());
  for (const auto& shape : shapes) {
    const auto rows = shape.first, cols = shape.second;
    CAPTURE(rows);
    CAPTURE(cols);
    const Mat m = distinct_values(rows, cols);
    const Mat mt = m.transpose();
    const std::string name = std::to_string(rows) + "x" + std::to_string(cols);
    for (const Tensor* t : {f.find(name), mapped->find(name)}) {  // in memory, then mapped
      REQUIRE(t != nullptr);
      CAPTURE(t->raw != nullptr);
      Mat out = Mat::Constant(rows, cols, 5.0f);
      CHECK(tensor_values_into(*t, out.data()));
      CHECK(same_bits(out.data(), m.data(), m.size()));
      Mat out_t = Mat::Constant(cols, rows, 5.0f);
      CHECK(tensor_values_into(*t, out_t.data(), true));
      CHECK(same_bits(out_t.data(), mt.data(), mt.size()));
    }
  }
}

TEST_CASE("safetensors: tensor_values_into widens 16-bit tensors while transposing") {
  // A mapped F16 / BF16 tensor is converted from its raw bytes; (19, 11) ends mid-block both ways.
  const int rows = 19, cols = 11;
  for (const DType dtype : {DType::F16, DType::BF16}) {
    CAPTURE(std::string(dtype_name(dtype)));
    std::vector<uint16_t> bits(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(0x3C00 + 37 * i);  // all finite in both
    Bytes raw;
    for (const uint16_t b : bits) append_le(raw, b, 2);
    Tensor t;
    t.name = "w16";
    t.shape = {rows, cols};
    t.stored = dtype;
    t.raw = raw.data();
    Mat out(cols, rows);
    CHECK(tensor_values_into(t, out.data(), true));
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const uint16_t b = bits[static_cast<size_t>(i * cols + j)];
        const float want = dtype == DType::F16 ? f16_to_float(b) : bf16_to_float(b);
        CHECK(std::bit_cast<uint32_t>(out(j, i)) == std::bit_cast<uint32_t>(want));
      }
  }
}

TEST_CASE("safetensors: tensor_values_into reports a NaN or infinity wherever it sits") {
  const float inf = std::numeric_limits<float>::infinity();
  const float bad_values[] = {std::nanf(""), -std::nanf(""), inf, -inf};
  for (const bool transpose : {false, true})
    for (const Eigen::Index at : {Eigen::Index{0}, Eigen::Index{4099}, Eigen::Index{37 * 301 - 1}})  // first, second piece, last
      for (const float bad : bad_values) {
        CAPTURE(transpose);
        CAPTURE(at);
        CAPTURE(bad);
        Mat m = distinct_values(37, 301);
        m.data()[at] = bad;
        const Tensor t = tensor_from_mat("w", m);
        Mat out(transpose ? 301 : 37, transpose ? 37 : 301);
        CHECK_FALSE(tensor_values_into(t, out.data(), transpose));
      }
  // The largest finite values and the smallest subnormals are finite.
  Mat edge(2, 3);
  edge << std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
      -0.0f, 0.0f, -std::numeric_limits<float>::denorm_min();
  Mat out(3, 2);
  CHECK(tensor_values_into(tensor_from_mat("edge", edge), out.data(), true));
  CHECK(out == edge.transpose());
}

TEST_CASE("safetensors: a file written by Python (make_npy_fixtures.py) reads back exactly") {
  auto r = safetensors_read(ATTNVIZ_FIXTURES "/tiny.safetensors");
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->metadata.at("format") == "pt");
  CHECK(r->metadata.at("source") == "make_npy_fixtures.py");
  REQUIRE(r->tensors.size() == 3);
  CHECK(r->tensors[0].name == "emb.weight");
  CHECK(r->tensors[1].name == "norm.scale");
  CHECK(r->tensors[2].name == "head.bias");
  const Tensor& emb = r->tensors[0];
  CHECK(emb.stored == DType::F16);
  CHECK(emb.shape == std::vector<int64_t>{2, 3});
  CHECK(emb.data == std::vector<float>{1.0f, -2.0f, 0.5f, 65504.0f, std::ldexp(1.0f, -24), -0.0f});
  CHECK(std::signbit(emb.data[5]));
  CHECK(r->tensors[1].stored == DType::BF16);
  CHECK(r->tensors[1].data == std::vector<float>{1.0f, -3.5f, 0.15625f});
  CHECK(r->tensors[2].stored == DType::F32);  // at buffer offset 18: not 4-byte aligned
  CHECK(r->tensors[2].data == std::vector<float>{0.25f, -1.5f, 3.0f});
  auto m = tensor_to_mat(emb, 2, 3);
  REQUIRE(m.ok());
  CHECK((*m)(1, 0) == 65504.0f);
}

TEST_CASE("safetensors: every truncation and single-byte corruption is handled without crashing") {
  TensorFile f;
  f.metadata["k"] = "v";
  Mat m(3, 2);
  m << 1, 2, 3, 4, 5, 6;
  f.tensors.push_back(tensor_from_mat("a", m));
  f.tensors.push_back(tensor_from_vec("b", Vec::Constant(3, 0.5f)));
  const Bytes good = safetensors_serialize(f);
  REQUIRE(safetensors_parse(good).ok());
  for (size_t len = 0; len < good.size(); ++len) {
    const Bytes cut(good.begin(), good.begin() + static_cast<long>(len));
    CHECK_FALSE(safetensors_parse(cut).ok());
  }
  size_t parsed = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (const uint8_t x : {uint8_t{0x00}, uint8_t{0xFF}, uint8_t{'"'}, uint8_t{'9'}}) {
      Bytes bad = good;
      bad[i] = x;
      auto r = safetensors_parse(bad);
      if (r.ok()) ++parsed;
      else CHECK_FALSE(r.error().empty());
    }
  }
  CHECK(parsed > 0);  // corrupting data bytes only changes values
}

namespace {

std::string index_error_of(std::string_view text) {
  auto r = safetensors_index_parse(text);
  if (r.ok()) return "<parsed without error>";
  return r.error();
}

// A fresh folder for one sharded checkpoint; removed with everything in it when the test ends.
struct ShardFolder {
  TempFile dir{"attnviz-test-shards"};
  ShardFolder() { std::filesystem::create_directories(dir.path()); }
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  void write_text(const std::string& name, const std::string& text) const {
    REQUIRE(file_write_atomic(path(name), text).ok());
  }
  // model.safetensors.index.json with this weight_map, its entries in the order given.
  void write_index(const std::vector<std::pair<std::string, std::string>>& weight_map) const {
    std::string json = R"({"weight_map":{)";
    for (const auto& [tensor, shard] : weight_map)
      json += (json.back() == '{' ? "\"" : ",\"") + tensor + "\":\"" + shard + "\"";
    write_text("model.safetensors.index.json", json + "}}");
  }
  // One shard holding a 1-D F32 tensor per (name, value) pair.
  void write_shard(const std::string& name, std::initializer_list<std::pair<std::string, float>> tensors,
                   const std::string& note = "") const {
    TensorFile f;
    f.metadata["format"] = "pt";
    if (!note.empty()) f.metadata["note"] = note;
    for (const auto& [tname, value] : tensors) f.tensors.push_back(tensor_from_vec(tname, Vec::Constant(2, value)));
    REQUIRE(safetensors_write(path(name), f).ok());
  }
};

constexpr const char* kShard1 = "model-00001-of-00002.safetensors";
constexpr const char* kShard2 = "model-00002-of-00002.safetensors";

}  // namespace

TEST_CASE("safetensors index: a well-formed index lists its shards once, sorted") {
  auto r = safetensors_index_parse(R"({"metadata":{"total_size":48},"weight_map":{
      "h.1.w":"model-00002-of-00002.safetensors","h.0.w":"model-00001-of-00002.safetensors",
      "h.0.b":"model-00001-of-00002.safetensors"}})");
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->shards == std::vector<std::string>{kShard1, kShard2});
  CHECK(r->weight_map.size() == 3);
  CHECK(r->weight_map.at("h.1.w") == kShard2);
  CHECK(r->weight_map.at("h.0.b") == kShard1);
  // "metadata" is optional and unknown top-level fields are ignored.
  auto bare = safetensors_index_parse(R"({"weight_map":{"w":"a.safetensors"},"extra":[1]})");
  REQUIRE_MESSAGE(bare.ok(), bare.error());
  CHECK(bare->shards == std::vector<std::string>{"a.safetensors"});
}

TEST_CASE("safetensors index: each malformation has its own message") {
  CHECK(index_error_of("{\"weight_map\":{\"w\xff\":\"a\"}}") ==
        "safetensors: index is not valid UTF-8 (bad byte at index offset 17)");
  CHECK(index_error_of(std::string(40, '[') + std::string(40, ']')) ==
        "safetensors: index is not a valid index (JSON nested deeper than 16 levels)");
  CHECK(has(index_error_of(R"({"weight_map":)"), "safetensors: index is not JSON ("));
  CHECK(index_error_of("[]") == "safetensors: index is not a JSON object (it is array)");
  CHECK(index_error_of(R"({"metadata":{}})") == "safetensors: index has no 'weight_map'");
  CHECK(index_error_of(R"({"weight_map":["a"]})") == "safetensors: index 'weight_map' is not an object (it is array)");
  CHECK(index_error_of(R"({"weight_map":{}})") == "safetensors: index 'weight_map' is empty");
  CHECK(index_error_of(R"({"weight_map":{"w":3}})") ==
        "safetensors: index 'weight_map' entry for tensor 'w' is not a file name (it is number)");
  CHECK(index_error_of(R"({"weight_map":{"w":"../secret.safetensors"}})") ==
        "safetensors: index 'weight_map' puts tensor 'w' in '../secret.safetensors', which is not a plain file name");
  CHECK(index_error_of(R"({"weight_map":{"w":"/etc/passwd"}})") ==
        "safetensors: index 'weight_map' puts tensor 'w' in '/etc/passwd', which is not a plain file name");
  CHECK(index_error_of(R"({"weight_map":{"w":"sub\\a.safetensors"}})") ==
        "safetensors: index 'weight_map' puts tensor 'w' in 'sub\\a.safetensors', which is not a plain file name");
  CHECK(index_error_of(R"({"weight_map":{"w":".."}})") ==
        "safetensors: index 'weight_map' puts tensor 'w' in '..', which is not a plain file name");
  CHECK(index_error_of(R"({"weight_map":{"w":""}})") ==
        "safetensors: index 'weight_map' puts tensor 'w' in '', which is not a plain file name");
  CHECK(index_error_of(R"({"weight_map":{"w":"a\u0000b"}})") ==
        "safetensors: index 'weight_map' puts tensor 'w' in 'a\\x00b', which is not a plain file name");
  // nlohmann would keep only the second entry: one tensor would silently move shards.
  CHECK(index_error_of(R"({"weight_map":{"w":"a.safetensors","w":"b.safetensors"}})") ==
        "safetensors: index 'weight_map' lists tensor 'w' twice");
  CHECK(index_error_of(R"({"weight_map":{"w":"a"},"weight_map":{"v":"a"}})") ==
        "safetensors: index has duplicate key 'weight_map'");
  CHECK(index_error_of(R"({"metadata":"big","weight_map":{"w":"a"}})") ==
        "safetensors: index 'metadata' is not an object (it is string)");
  CHECK(index_error_of(R"({"metadata":{"total_size":-1},"weight_map":{"w":"a"}})") ==
        "safetensors: index 'metadata' field 'total_size' is -1, not a non-negative integer");
}

TEST_CASE("safetensors sharded: every shard is loaded into one TensorFile") {
  ShardFolder d;
  d.write_shard(kShard2, {{"h.1.w", 3.0f}, {"ln_f.w", 4.0f}}, "second");
  d.write_shard(kShard1, {{"wte", 1.0f}, {"h.0.w", 2.0f}}, "first");
  d.write_text("model.safetensors.index.json", R"({"metadata":{"total_size":32},"weight_map":{
      "ln_f.w":"model-00002-of-00002.safetensors","h.1.w":"model-00002-of-00002.safetensors",
      "wte":"model-00001-of-00002.safetensors","h.0.w":"model-00001-of-00002.safetensors"}})");
  auto r = safetensors_read_sharded(d.path("model.safetensors.index.json"));
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->tensors.size() == 4);
  // Shards in file-name order, each in offset order.
  CHECK(r->tensors[0].name == "wte");
  CHECK(r->tensors[1].name == "h.0.w");
  CHECK(r->tensors[2].name == "h.1.w");
  CHECK(r->tensors[3].name == "ln_f.w");
  CHECK(r->find("h.1.w")->data == std::vector<float>{3.0f, 3.0f});
  CHECK(r->find("ln_f.w")->shape == std::vector<int64_t>{2});
  CHECK(r->metadata.at("format") == "pt");
  CHECK(r->metadata.at("note") == "first");  // the first shard's value wins
}

TEST_CASE("safetensors sharded: missing shards and tensors, and tensors in the wrong or two shards") {
  ShardFolder d;
  const std::string index = d.path("model.safetensors.index.json");
  const std::string where = "'" + index + "': safetensors index: ";
  d.write_shard(kShard1, {{"a", 1.0f}, {"b", 2.0f}});
  d.write_shard(kShard2, {{"c", 3.0f}});

  // An index naming each tensor's shard (in this order), and the error after `where` that it gives.
  struct BadMap {
    const char* subcase;
    std::vector<std::pair<std::string, std::string>> weight_map;
    std::string error;
  };
  const std::string shard3 = "model-00003-of-00002.safetensors";
  const BadMap bad_maps[] = {
      {"a shard that is not there",
       {{"a", kShard1}, {"b", kShard1}, {"c", shard3}},
       "shard 'model-00003-of-00002.safetensors' does not exist (looked for '" + d.path(shard3) + "')"},
      {"a listed tensor its shard does not hold",
       {{"a", kShard1}, {"b", kShard1}, {"c", kShard2}, {"d", kShard2}},
       "tensor 'd' is listed in shard 'model-00002-of-00002.safetensors' but that shard does not hold it"},
      {"a tensor listed in one shard but stored in the other",
       {{"a", kShard1}, {"b", kShard2}, {"c", kShard2}},
       "tensor 'b' is listed in shard 'model-00002-of-00002.safetensors' but is in shard "
       "'model-00001-of-00002.safetensors'"},
      {"a stored tensor the map does not list",
       {{"a", kShard1}, {"c", kShard2}},
       "shard 'model-00001-of-00002.safetensors' holds tensor 'b', which 'weight_map' does not list"},
  };
  for (const BadMap& bad : bad_maps) {
    SUBCASE(bad.subcase) {
      d.write_index(bad.weight_map);
      CHECK(safetensors_read_sharded(index).error() == where + bad.error);
    }
  }
  SUBCASE("a name in two shards") {
    d.write_shard(kShard2, {{"c", 3.0f}, {"a", 5.0f}});
    d.write_index({{"a", kShard1}, {"b", kShard1}, {"c", kShard2}});
    CHECK(safetensors_read_sharded(index).error() ==
          where + "tensor 'a' is in two shards, 'model-00001-of-00002.safetensors' and "
                  "'model-00002-of-00002.safetensors'");
  }
  SUBCASE("a corrupt shard is named by its path") {
    d.write_text(kShard2, "junk");
    d.write_index({{"a", kShard1}, {"b", kShard1}, {"c", kShard2}});
    CHECK(safetensors_read_sharded(index).error() ==
          "'" + d.path(kShard2) + "': safetensors: file is 4 bytes, shorter than the 8-byte header length");
  }
  SUBCASE("a malformed index is named by its path") {
    d.write_text("model.safetensors.index.json", R"({"weight_map":{}})");
    CHECK(safetensors_read_sharded(index).error() == "'" + index + "': safetensors: index 'weight_map' is empty");
  }
  SUBCASE("no index at all") {
    CHECK(has(safetensors_read_sharded(index).error(), "cannot open '" + index + "'"));
  }
}

TEST_CASE("safetensors_map: tensors convert straight from the mapping, the same values as a full read") {
  const TempFile path("attnviz-test-map.safetensors");
  TensorFile f;
  Mat w(3, 70000);  // larger than a page, so release really drops pages
  for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = static_cast<float>(i % 977) * 0.25f - 3.0f;
  f.tensors.push_back(tensor_from_mat("w", w));
  f.tensors.push_back(tensor_from_vec("b", Vec::LinSpaced(5, -1.0f, 1.0f)));
  f.metadata["k"] = "v";
  REQUIRE(safetensors_write(path, f).ok());
  auto mapped = safetensors_map(path);
  REQUIRE(mapped.ok());
  CHECK(mapped->metadata.at("k") == "v");
  Tensor& t = mapped->tensors[0];
  CHECK(t.raw != nullptr);
  CHECK(t.mapping != nullptr);
  CHECK(t.data.empty());
  auto m = tensor_to_mat(t, 3, 70000);
  REQUIRE(m.ok());
  CHECK((*m - w).cwiseAbs().maxCoeff() == 0.0f);
  tensor_release(t);  // the pages go; reading again faults them back in from the file
  auto again = tensor_to_mat(t);
  REQUIRE(again.ok());
  CHECK((*again - w).cwiseAbs().maxCoeff() == 0.0f);
  auto b = tensor_to_vec(*mapped->find("b"), 5);
  REQUIRE(b.ok());
  CHECK((*b)(4) == 1.0f);
}

namespace {

// For a line of /proc/self/maps or smaps that starts a mapping ("7f..-7f.. r--p ..."): whether that
// mapping holds `at`, its permissions into `perms`. nullopt for smaps' other lines ("Size:  4 kB",
// "VmFlags: rd mr"), which start with a name.
std::optional<bool> mapping_line_holds(const std::string& line, uintptr_t at, std::string& perms) {
  uintptr_t begin = 0, end = 0;
  char p[5] = {};
  if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s", &begin, &end, p) != 3) return std::nullopt;
  perms = p;
  return begin <= at && at < end;
}

// The permissions /proc/self/maps gives the mapping that holds `p` ("r--p", "rw-p", ...), or "".
std::string mapping_permissions(const void* p) {
  std::ifstream maps("/proc/self/maps");
  std::string line, perms;
  while (std::getline(maps, line))
    if (mapping_line_holds(line, reinterpret_cast<uintptr_t>(p), perms).value_or(false)) return perms;
  return "";
}

// The kernel's flags for the mapping that holds `p`, from /proc/self/smaps ("rd wr mr mw me ac hg"),
// padded with spaces so that " hg " finds a flag; "" when no mapping holds it or smaps has no flags.
std::string mapping_flags(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line, perms;
  bool inside = false;
  while (std::getline(smaps, line)) {
    if (const auto holds = mapping_line_holds(line, reinterpret_cast<uintptr_t>(p), perms))
      inside = *holds;
    else if (inside && line.rfind("VmFlags:", 0) == 0)
      return line.substr(std::string("VmFlags:").size()) + " ";
  }
  return "";
}

}  // namespace

TEST_CASE("safetensors_map: a file is mapped for 2 MB blocks of the page cache where the kernel has them") {
  // Pages the cache lacks are read back in 2 MB blocks (MADV_HUGEPAGE, the "hg" flag), mapped and
  // unmapped in one step each, instead of 4 KB pages that stay so (bench/README.md).
  const TempFile file("attnviz-test-map-blocks.safetensors");
  TensorFile f;
  f.tensors.push_back(tensor_from_vec("b", Vec::Ones(8)));
  REQUIRE(safetensors_write(file, f).ok());
  {  // Does this kernel show the flag at all? (None without transparent huge pages, or in a sandbox
     // that accepts the call and ignores it.) Asked of a mapping of the file made here.
    const int fd = ::open(file.path().c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    void* probe = ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    REQUIRE(probe != MAP_FAILED);
    const bool shown =
        ::madvise(probe, 4096, MADV_HUGEPAGE) == 0 && mapping_flags(probe).find(" hg ") != std::string::npos;
    ::munmap(probe, 4096);
    if (!shown) return;
  }
  for (const MappedValues use : {MappedValues::copied, MappedValues::in_place}) {
    auto mapped = safetensors_map(file, use);
    REQUIRE_MESSAGE(mapped.ok(), mapped.error());
    const std::string flags = mapping_flags(mapped->find("b")->raw);
    CAPTURE(flags);
    CHECK(flags.find(" hg ") != std::string::npos);
  }
}

TEST_CASE("safetensors_map: F32 values are read in place only when mapped for that, aligned for float, and F32") {
  // A: F32 (2), H: F16 (2), C: F32 (1); the header is padded with spaces so that the data starts
  // `shift` bytes past a multiple of 4 (mappings start on a page).
  const auto bytes_with_data_at = [](size_t shift) {
    std::string header =
        R"({"A":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"H":{"dtype":"F16","shape":[2],"data_offsets":[8,12]},)"
        R"("C":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})";
    while ((8 + header.size()) % 4 != shift) header += ' ';
    Bytes buffer = le_f32({1.5f, -2.0f});
    for (const uint8_t b : {0x00, 0x3c, 0x00, 0xc0}) buffer.push_back(b);  // F16 1.0, -2.0
    append_le(buffer, 0x7fc00000u, 4);                                     // F32 NaN
    return assemble(header, buffer);
  };
  const TempFile file("attnviz-test-in-place.safetensors");
  const std::string& path = file;

  REQUIRE(file_write_atomic(path, bytes_with_data_at(0)).ok());
  auto in_place = safetensors_map(path, MappedValues::in_place);
  REQUIRE_MESSAGE(in_place.ok(), in_place.error());
  float* a = tensor_in_place_values(*in_place->find("A"));
  REQUIRE(a != nullptr);
  CHECK(a[0] == 1.5f);
  CHECK(a[1] == -2.0f);
  CHECK(tensor_in_place_finite(*in_place->find("A")));
  CHECK(tensor_in_place_values(*in_place->find("H")) == nullptr);  // F16: converted, never in place
  REQUIRE(tensor_in_place_values(*in_place->find("C")) != nullptr);
  CHECK_FALSE(tensor_in_place_finite(*in_place->find("C")));  // the NaN is found in place too

  auto copied = safetensors_map(path);  // MappedValues::copied, the default
  REQUIRE(copied.ok());
  CHECK(tensor_in_place_values(*copied->find("A")) == nullptr);

  // Only a mapping read in place is writable (a write copies the page for this process); one whose
  // values are copied out is read-only, so the kernel does not count the file against memory.
  CHECK(mapping_permissions(in_place->find("A")->raw) == "rw-p");
  CHECK(mapping_permissions(copied->find("A")->raw) == "r--p");
  a[0] = 3.0f;  // private: the file keeps 1.5
  auto reread = safetensors_read(path);
  REQUIRE(reread.ok());
  CHECK(reread->find("A")->data[0] == 1.5f);

  for (const size_t shift : {1, 2, 3}) {
    CAPTURE(shift);
    REQUIRE(file_write_atomic(path, bytes_with_data_at(shift)).ok());
    auto misaligned = safetensors_map(path, MappedValues::in_place);
    REQUIRE_MESSAGE(misaligned.ok(), misaligned.error());
    CHECK(tensor_in_place_values(*misaligned->find("A")) == nullptr);  // converted instead
    auto values = tensor_to_vec(*misaligned->find("A"), 2);
    REQUIRE(values.ok());
    CHECK((*values)(1) == -2.0f);
  }
}

TEST_CASE("safetensors_map: a file larger than memory opens for reading in place, its small tensors readable") {
  // 64 GiB of a tensor no one reads, as a hole in a sparse file: a writable private mapping of it
  // would be counted against memory and refused, so it is mapped read-only and copied out instead.
  const TempFile file("attnviz-test-huge.safetensors");
  const std::string& path = file;
  const uint64_t huge = uint64_t{64} << 30;
  std::string header = R"({"small":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"huge":{"dtype":"F32","shape":[)" +
                       std::to_string(huge / 4) + R"(],"data_offsets":[8,)" + std::to_string(8 + huge) + "]}}";
  while (header.size() % 8 != 0) header += ' ';
  const Bytes bytes = assemble(header, le_f32({0.25f, -4.0f}));
  REQUIRE(file_write_atomic(path, bytes).ok());
  std::filesystem::resize_file(path, bytes.size() + huge);
  auto mapped = safetensors_map(path, MappedValues::in_place);
  REQUIRE_MESSAGE(mapped.ok(), mapped.error());
  auto small = tensor_to_vec(*mapped->find("small"), 2);
  REQUIRE(small.ok());
  CHECK((*small)(1) == -4.0f);
  // Where the kernel refused the writable mapping, nothing is offered in place.
  const std::string perms = mapping_permissions(mapped->find("small")->raw);
  CHECK((perms == "rw-p" || perms == "r--p"));
  CHECK((tensor_in_place_values(*mapped->find("small")) != nullptr) == (perms == "rw-p"));
}

TEST_CASE("safetensors_map: a damaged or missing file gives the reader's messages") {
  const TempFile file("attnviz-test-map-bad.safetensors");
  const std::string& path = file;
  TensorFile f;
  f.tensors.push_back(tensor_from_vec("b", Vec::Ones(8)));
  auto bytes = safetensors_serialize(f);
  bytes.resize(bytes.size() - 4);  // truncated mid-tensor
  REQUIRE(file_write_atomic(path, bytes).ok());
  auto mapped = safetensors_map(path);
  auto read = safetensors_read(path);
  REQUIRE_FALSE(mapped.ok());
  REQUIRE_FALSE(read.ok());
  CHECK(mapped.error() == read.error());
  CHECK(mapped.error().find("file is truncated") != std::string::npos);
  REQUIRE(file_write_atomic(path, std::string_view("")).ok());
  CHECK(safetensors_map(path).error() == "'" + path + "': safetensors: file is 0 bytes, shorter than the 8-byte header length");
  std::filesystem::remove(path);
  CHECK(safetensors_map(path).error().find("cannot open") != std::string::npos);
}
