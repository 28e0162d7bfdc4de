// .npy reader and writer. The header is a Python dict literal; a tiny strict parser reads exactly the
// subset numpy writes ('strings', True/False, tuples of ints) so nothing is ever evaluated. Shapes are
// bounded and sizes checked before any allocation. Structured, big-endian and non-float arrays are refused.
#include "io/npy.h"

#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>

#include "base/bytes.h"
#include "base/file_io.h"

namespace attnviz {

namespace {

Error npy_error(const std::string& message) { return make_error("npy: " + message); }

constexpr std::string_view kMagic = "\x93NUMPY";

struct PyValue {
  enum class Kind { string, boolean, tuple } kind = Kind::string;
  std::string text;              // string
  bool flag = false;             // boolean
  std::vector<uint64_t> items;   // tuple
};

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;
};

std::string tuple_text(const std::vector<uint64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// Whitespace is free between tokens (ast.literal_eval allows it); everything else is exact.
class DictParser {
 public:
  explicit DictParser(std::string_view s) : s_(s) {}

  Result<NpyHeader> parse() {
    skip_ws();
    if (!eat('{')) return error("the header is not a dict literal (expected '{')");
    std::map<std::string, PyValue> items;
    skip_ws();
    if (!eat('}')) {
      while (true) {
        auto key = string_literal("a quoted key");
        if (!key) return Error{key.error()};
        if (*key != "descr" && *key != "fortran_order" && *key != "shape")
          return npy_error("header has unexpected key '" + *key + "'");
        skip_ws();
        if (!eat(':')) return error("expected ':' after key '" + *key + "'");
        skip_ws();
        auto v = value();
        if (!v) return Error{v.error()};
        if (!items.emplace(*key, std::move(*v)).second) return npy_error("header has duplicate key '" + *key + "'");
        skip_ws();
        if (eat(',')) {
          skip_ws();
          if (eat('}')) break;
        } else if (eat('}')) {
          break;
        } else {
          return error("expected ',' or '}'");
        }
      }
    }
    skip_ws();
    if (i_ != s_.size()) return error("unexpected text after the header dict");

    for (const char* k : {"descr", "fortran_order", "shape"})
      if (!items.count(k)) return npy_error("header is missing key '" + std::string(k) + "'");
    NpyHeader h;
    const PyValue& descr = items["descr"];
    if (descr.kind != PyValue::Kind::string) return npy_error("header 'descr' is not a string");
    h.descr = descr.text;
    const PyValue& fortran = items["fortran_order"];
    if (fortran.kind != PyValue::Kind::boolean) return npy_error("header 'fortran_order' is not True or False");
    h.fortran = fortran.flag;
    const PyValue& shape = items["shape"];
    if (shape.kind != PyValue::Kind::tuple) return npy_error("header 'shape' is not a tuple");
    h.shape = shape.items;
    return h;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;

  Error error(const std::string& what) const {
    return npy_error("bad header: " + what + " at header offset " + std::to_string(i_));
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void skip_ws() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    if (peek() != c || at_end()) return false;
    ++i_;
    return true;
  }
  bool eat_word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    const size_t after = i_ + w.size();
    if (after < s_.size()) {
      const char c = s_[after];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') return false;
    }
    i_ = after;
    return true;
  }

  Result<std::string> string_literal(const char* what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return error(std::string("expected ") + what);
    ++i_;
    std::string out;
    while (!at_end() && s_[i_] != quote) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '\\') return error("escape sequences are not supported");
      if (c < 0x20 || c > 0x7e) return error("unexpected character in a string");
      out += static_cast<char>(c);
      ++i_;
    }
    if (!eat(quote)) return error("unterminated string");
    return out;
  }

  Result<uint64_t> integer() {
    if (peek() < '0' || peek() > '9') return error("expected a non-negative integer in the shape");
    if (peek() == '0' && i_ + 1 < s_.size() && s_[i_ + 1] >= '0' && s_[i_ + 1] <= '9')
      return error("integer with a leading zero");
    uint64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<uint64_t>(peek() - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return npy_error("shape entry is too large");
      v = v * 10 + digit;
      ++i_;
    }
    return v;
  }

  // '(' ')' | '(' int ',' ')' | '(' int (',' int)+ [','] ')'  -- "(3)" is an int in Python, not a tuple.
  Result<PyValue> tuple() {
    PyValue v;
    v.kind = PyValue::Kind::tuple;
    ++i_;  // '('
    skip_ws();
    if (eat(')')) return v;
    while (true) {
      auto n = integer();
      if (!n) return Error{n.error()};
      v.items.push_back(*n);
      skip_ws();
      if (eat(')')) {
        if (v.items.size() == 1) return error("(n) is not a tuple; a 1-D shape is written (n,)");
        return v;
      }
      if (!eat(',')) return error("expected ',' or ')' in the shape");
      skip_ws();
      if (eat(')')) return v;
    }
  }

  Result<PyValue> value() {
    const char c = peek();
    if (c == '\'' || c == '"') {
      auto s = string_literal("a string");
      if (!s) return Error{s.error()};
      PyValue v;
      v.text = std::move(*s);
      return v;
    }
    if (c == '(') return tuple();
    if (c == '[') return npy_error("structured dtypes (a list in 'descr') are not supported");
    PyValue v;
    v.kind = PyValue::Kind::boolean;
    if (eat_word("True")) {
      v.flag = true;
      return v;
    }
    if (eat_word("False")) return v;
    return error("expected a string, True, False or a tuple");
  }
};

}  // namespace

Result<Mat> npy_parse(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagic.size() || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
    return npy_error("not a .npy file (it does not start with \\x93NUMPY)");
  if (bytes.size() < 8) return npy_error("file is truncated inside its version bytes");
  const int major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    return npy_error("unsupported format version " + std::to_string(major) + "." + std::to_string(minor) +
                " (1.0, 2.0 and 3.0 are read)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t prelude = 8 + len_bytes;
  if (bytes.size() < prelude) return npy_error("file is truncated inside its header length");
  const uint64_t header_len = load_little_endian(bytes.data() + 8, static_cast<int>(len_bytes));
  if (header_len > bytes.size() - prelude)
    return npy_error("header length " + std::to_string(header_len) + " runs past the end of the " +
                std::to_string(bytes.size()) + "-byte file (truncated)");

  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + prelude), static_cast<size_t>(header_len));
  auto header = DictParser(text).parse();
  if (!header) return Error{header.error()};

  size_t itemsize = 0;
  if (header->descr == "<f4") itemsize = 4;
  else if (header->descr == "<f8") itemsize = 8;
  else if (header->descr == ">f4" || header->descr == ">f8")
    return npy_error("big-endian dtype '" + header->descr + "' is not supported (save as little-endian '<f4' or '<f8')");
  else
    return npy_error("dtype '" + header->descr + "' is not supported (only little-endian float '<f4' and '<f8')");

  const auto& shape = header->shape;
  if (shape.empty() || shape.size() > 2)
    return npy_error("array of shape " + tuple_text(shape) + " has " + std::to_string(shape.size()) +
                " dimensions; only 1-D and 2-D arrays are read");
  uint64_t total = 1;
  for (const uint64_t d : shape) {
    if (d > kMaxNpyDim)
      return npy_error("shape " + tuple_text(shape) + " has a dimension over the limit of " + std::to_string(kMaxNpyDim));
    total *= d;  // both factors <= 2^24 and at most two of them: cannot overflow
  }
  if (total > kMaxNpyElements)
    return npy_error("shape " + tuple_text(shape) + " has " + std::to_string(total) + " elements, over the limit of " +
                std::to_string(kMaxNpyElements));

  const uint64_t need = total * itemsize;
  const uint64_t have = bytes.size() - prelude - header_len;
  if (have < need)
    return npy_error("data is truncated: shape " + tuple_text(shape) + " of '" + header->descr + "' needs " +
                std::to_string(need) + " bytes but the file has " + std::to_string(have));
  if (have > need)
    return npy_error(std::to_string(have - need) + " trailing bytes after the data of shape " + tuple_text(shape));

  const Eigen::Index rows = shape.size() == 2 ? static_cast<Eigen::Index>(shape[0]) : 1;
  const Eigen::Index cols = static_cast<Eigen::Index>(shape.back());
  Mat m(rows, cols);
  const uint8_t* p = bytes.data() + prelude + header_len;
  for (uint64_t k = 0; k < total; ++k) {
    const float f = itemsize == 4 ? std::bit_cast<float>(static_cast<uint32_t>(load_little_endian(p + 4 * k, 4)))
                                  : static_cast<float>(std::bit_cast<double>(load_little_endian(p + 8 * k, 8)));
    // Fortran order walks down columns first; Mat is row-major.
    if (header->fortran) m(static_cast<Eigen::Index>(k % static_cast<uint64_t>(rows)),
                           static_cast<Eigen::Index>(k / static_cast<uint64_t>(rows))) = f;
    else m.data()[k] = f;
  }
  return m;
}

Result<Mat> npy_read(const std::string& path) { return file_parse(path, npy_parse); }

std::vector<uint8_t> npy_serialize(const Mat& m) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(m.rows()) + ", " +
                       std::to_string(m.cols()) + "), }";
  // numpy pads with spaces and ends with '\n' so that the data starts on a 64-byte boundary.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::vector<uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xFF));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.reserve(out.size() + 4 * static_cast<size_t>(m.size()));
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    const auto u = std::bit_cast<uint32_t>(m.data()[k]);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(u >> (8 * i)));
  }
  return out;
}

Status npy_write(const std::string& path, const Mat& m) {
  const auto bytes = npy_serialize(m);
  return file_write_atomic(path, std::span<const uint8_t>(bytes));
}

}  // namespace attnviz
