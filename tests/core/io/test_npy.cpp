// .npy: files written by numpy.save (tests/fixtures/make_npy_fixtures.py) load with exact values,
// our writer's bytes equal numpy's, and every malformed header or size is refused with its own message.
#include <doctest/doctest.h>

#include "support/byte_util.h"
#include "support/check_util.h"

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <unistd.h>

#include "io/npy.h"

using namespace attnviz;

// Its own namespace: the unity build compiles it beside test_safetensors.cpp, whose error_of (the
// name CHECK_ERROR calls) takes the same argument.
namespace npy_tests {
namespace {

using namespace attnviz::test;

// Magic, version, header length (u16 for 1.0, u32 otherwise), the dict text as given, then data.
Bytes make_npy(const std::string& dict, const Bytes& data, int major = 1) {
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  const size_t n = dict.size();
  const int len_bytes = major == 1 ? 2 : 4;
  append_le(out, n, len_bytes);
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}


std::string dict(const std::string& descr, const std::string& fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
}

std::string error_of(const Bytes& bytes) {
  auto r = npy_parse(bytes);
  return r.ok() ? std::string("<parsed without error>") : r.error();
}

Bytes read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::string kDir = ATTNVIZ_FIXTURES "/npy/";

// A numpy-written fixture that must load as a (rows, cols) matrix.
Mat npy_fixture(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  auto m = npy_read(kDir + name);
  REQUIRE_MESSAGE(m.ok(), m.error());
  REQUIRE(m->rows() == rows);
  REQUIRE(m->cols() == cols);
  return *m;
}

}  // namespace

TEST_CASE("npy: numpy's float32 C-order (3, 4) file loads exactly") {
  const Mat m = npy_fixture("c_3x4_f4.npy", 3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(m(i, j) == 0.5f * static_cast<float>(4 * i + j) - 1.0f);
  CHECK(m(2, 3) == 4.5f);
}

TEST_CASE("npy: numpy's float64 Fortran-order (3, 4) file loads with rows and columns in place") {
  const Mat m = npy_fixture("fortran_3x4_f8.npy", 3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(m(i, j) == static_cast<float>(10 * i + j) + 0.25f);
  CHECK(m(0, 1) == 1.25f);
  CHECK(m(1, 0) == 10.25f);
}

TEST_CASE("npy: a 1-D numpy array loads as one row") {
  const Mat m = npy_fixture("vec_5_f4.npy", 1, 5);
  const float want[5] = {1.5f, -2.0f, 3.25f, 0.0f, 1024.0f};
  for (int j = 0; j < 5; ++j) {
    CAPTURE(j);
    CHECK(m(0, j) == want[j]);
  }
}

TEST_CASE("npy: numpy's int64 and big-endian files are refused, naming the dtype") {
  auto i = npy_read(kDir + "int64_2x3.npy");
  REQUIRE_FALSE(i.ok());
  CHECK(has(i.error(), "npy: dtype '<i8' is not supported"));
  CHECK(has(i.error(), "int64_2x3.npy"));
  auto b = npy_read(kDir + "bigendian_2x2_f4.npy");
  REQUIRE_FALSE(b.ok());
  CHECK(has(b.error(), "npy: big-endian dtype '>f4' is not supported"));
  CHECK_FALSE(npy_read(kDir + "no_such_file.npy").ok());
}

TEST_CASE("npy: our writer produces numpy's exact bytes, and round trips bit-exactly") {
  Mat m(3, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = 0.5f * static_cast<float>(4 * i + j) - 1.0f;
  const Bytes ours = npy_serialize(m);
  CHECK(ours == read_all(kDir + "c_3x4_f4.npy"));
  CHECK((ours.size() - 4 * 12) % 64 == 0);  // data starts on a 64-byte boundary, as numpy's does

  Mat odd(2, 3);
  odd << -0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::infinity(),
      std::bit_cast<float>(0x7FC0BEEFu), 1e-30f, 123456.789f;
  auto back = npy_parse(npy_serialize(odd));
  REQUIRE_MESSAGE(back.ok(), back.error());
  REQUIRE(back->rows() == 2);
  REQUIRE(back->cols() == 3);
  CHECK(std::memcmp(back->data(), odd.data(), sizeof(float) * 6) == 0);

  auto empty = npy_parse(npy_serialize(Mat(0, 7)));
  REQUIRE(empty.ok());
  CHECK(empty->rows() == 0);
  CHECK(empty->cols() == 7);

  const TempFile path("attnviz-test-npy.npy");
  REQUIRE(npy_write(path, odd).ok());
  auto file = npy_read(path);
  REQUIRE(file.ok());
  CHECK(std::memcmp(file->data(), odd.data(), sizeof(float) * 6) == 0);
}

TEST_CASE("npy: versions 2.0 and 3.0 (u32 header length) and free whitespace are read") {
  const Bytes data = le_f32({1, 2, 3, 4});
  for (const int v : {2, 3}) {
    auto m = npy_parse(make_npy(dict("<f4", "False", "(2, 2)"), data, v));
    REQUIRE_MESSAGE(m.ok(), m.error());
    CHECK((*m)(1, 0) == 3.0f);
  }
  auto spaced = npy_parse(make_npy("  {\"descr\":'<f4' ,\n 'shape':(2,2),'fortran_order':True}  \n", data));
  REQUIRE_MESSAGE(spaced.ok(), spaced.error());
  CHECK((*spaced)(0, 1) == 3.0f);  // Fortran order: the second stored value is (1, 0)
  CHECK((*spaced)(1, 0) == 2.0f);
  auto one = npy_parse(make_npy(dict("<f4", "False", "(4,)"), data));
  REQUIRE(one.ok());
  CHECK(one->rows() == 1);
  CHECK(one->cols() == 4);
}

TEST_CASE("npy: the preamble is checked: magic, version, header length") {
  const Bytes good = make_npy(dict("<f4", "False", "(1, 1)"), le_f32({1}));
  REQUIRE(npy_parse(good).ok());
  CHECK_ERROR(Bytes{}, "not a .npy file");
  Bytes bad_magic = good;
  bad_magic[1] = 'n';
  CHECK_ERROR(bad_magic, "not a .npy file");
  CHECK_ERROR(Bytes(good.begin(), good.begin() + 7), "truncated inside its version bytes");
  CHECK_ERROR(Bytes(good.begin(), good.begin() + 9), "truncated inside its header length");
  Bytes v4 = good;
  v4[6] = 4;
  CHECK_ERROR(v4, "unsupported format version 4.0");
  Bytes v11 = good;
  v11[7] = 1;
  CHECK_ERROR(v11, "unsupported format version 1.1");
  CHECK_ERROR(Bytes(good.begin(), good.begin() + 20), "runs past the end of the 20-byte file (truncated)");
  // Version 2.0 with a u32 length of 4 GB must not allocate it.
  Bytes huge = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xFF, 0xFF, 0xFF, 0xFF, '{', '}'};
  CHECK_ERROR(huge, "header length 4294967295 runs past the end");
}

TEST_CASE("npy: the header dict is parsed strictly") {
  const Bytes d = le_f32({1, 2});
  CHECK_ERROR(make_npy("descr: <f4", d), "bad header: the header is not a dict literal (expected '{')");
  CHECK_ERROR(make_npy("{'descr': '<f4', 'fortran_order': False}", d), "header is missing key 'shape'");
  CHECK_ERROR(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", d),
              "header has unexpected key 'extra'");
  CHECK_ERROR(make_npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", d),
              "header has duplicate key 'descr'");
  CHECK_ERROR(make_npy("{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", d), "expected ',' or '}'");
  CHECK_ERROR(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", d),
              "unexpected text after the header dict");
  CHECK_ERROR(make_npy("{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", d), "expected ':' after key 'descr'");
  CHECK_ERROR(make_npy("{'descr': '<f4", d), "unterminated string");
  CHECK_ERROR(make_npy("{'descr': '<\\x66\\x34', 'fortran_order': False, 'shape': (2,)}", d),
              "escape sequences are not supported");
  CHECK_ERROR(make_npy("{'descr': 4, 'fortran_order': False, 'shape': (2,)}", d), "expected a string");
  CHECK_ERROR(make_npy("{'descr': (4,), 'fortran_order': False, 'shape': (2,)}", d), "header 'descr' is not a string");
  CHECK_ERROR(make_npy("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,)}", d),
              "structured dtypes (a list in 'descr') are not supported");
  // A bad 'fortran_order' or 'shape' value and what the refusal says.
  struct BadValue {
    std::string fortran_order, shape, part;
  };
  const BadValue bad_values[] = {
      {"false", "(2,)", "expected a string, True, False or a tuple"},
      {"Truely", "(2,)", "expected a string, True, False or a tuple"},
      {"'yes'", "(2,)", "header 'fortran_order' is not True or False"},
      {"False", "'2'", "header 'shape' is not a tuple"},
      {"False", "(2)", "(n) is not a tuple; a 1-D shape is written (n,)"},
      {"False", "(2,,)", "expected a non-negative integer"},
      {"False", "(-2,)", "expected a non-negative integer"},
      {"False", "(02,)", "integer with a leading zero"},
      {"False", "(2; 1)", "expected ',' or ')' in the shape"},
      {"False", "(99999999999999999999999,)", "shape entry is too large"},
  };
  for (const BadValue& bad : bad_values) {
    CAPTURE(bad.fortran_order);
    CAPTURE(bad.shape);
    CHECK_ERROR(make_npy(dict("<f4", bad.fortran_order, bad.shape), d), bad.part);
  }
}

TEST_CASE("npy: non-float, big-endian and half dtypes are named in the refusal") {
  const Bytes d = le_f32({1, 2});
  CHECK(error_of(make_npy(dict(">f8", "False", "(1,)"), d)) ==
        "npy: big-endian dtype '>f8' is not supported (save as little-endian '<f4' or '<f8')");
  CHECK_ERROR(make_npy(dict("<f2", "False", "(4,)"), d), "dtype '<f2' is not supported");
  CHECK_ERROR(make_npy(dict("|u1", "False", "(8,)"), d), "dtype '|u1' is not supported");
  CHECK_ERROR(make_npy(dict("f4", "False", "(2,)"), d), "dtype 'f4' is not supported");
}

TEST_CASE("npy: rank, dimension bounds and data size are checked before allocating") {
  const Bytes d = le_f32({1, 2, 3, 4});
  CHECK_ERROR(make_npy(dict("<f4", "False", "()"), le_f32({1})), "shape () has 0 dimensions; only 1-D and 2-D");
  CHECK_ERROR(make_npy(dict("<f4", "False", "(1, 2, 2)"), d), "shape (1, 2, 2) has 3 dimensions");
  CHECK_ERROR(make_npy(dict("<f4", "False", "(16777217, 0)"), {}), "has a dimension over the limit of 16777216");
  CHECK_ERROR(make_npy(dict("<f4", "False", "(32768, 16384)"), d),
              "has 536870912 elements, over the limit of 268435456");
  CHECK_ERROR(make_npy(dict("<f4", "False", "(2, 3)"), d),
              "data is truncated: shape (2, 3) of '<f4' needs 24 bytes but the file has 16");
  CHECK_ERROR(make_npy(dict("<f8", "False", "(2, 2)"), d), "needs 32 bytes but the file has 16");
  CHECK_ERROR(make_npy(dict("<f4", "False", "(3,)"), d), "4 trailing bytes after the data of shape (3,)");
  auto zero = npy_parse(make_npy(dict("<f4", "False", "(16777216, 0)"), {}));
  REQUIRE_MESSAGE(zero.ok(), zero.error());
  CHECK(zero->rows() == 16777216);
  CHECK(zero->cols() == 0);
}

TEST_CASE("npy: every truncation of a valid file is refused") {
  Mat m(2, 2);
  m << 1, 2, 3, 4;
  const Bytes good = npy_serialize(m);
  REQUIRE(npy_parse(good).ok());
  for (size_t len = 0; len < good.size(); ++len)
    CHECK_FALSE(npy_parse(Bytes(good.begin(), good.begin() + static_cast<long>(len))).ok());
}

}  // namespace npy_tests
