// libFuzzer target: npy_parse on arbitrary bytes. An accepted array must respect the documented
// bounds and survive npy_serialize + npy_parse bit for bit (the writer stores '<f4', which holds
// every value the reader produced). Reads memory only.
#include <cstring>

#include "fuzz/fuzz_check.h"
#include "io/npy.h"

namespace attnviz::fuzz {

std::string fuzz_npy(Bytes bytes) {
  auto m = npy_parse(bytes);
  if (!m.ok()) return error_needs_message(m.error(), "npy_parse");
  if (static_cast<uint64_t>(m->rows()) > kMaxNpyDim || static_cast<uint64_t>(m->cols()) > kMaxNpyDim ||
      static_cast<uint64_t>(m->size()) > kMaxNpyElements)
    return "npy_parse accepted a " + std::to_string(m->rows()) + " x " + std::to_string(m->cols()) + " array";
  auto again = npy_parse(npy_serialize(*m));
  if (!again.ok()) return "a written array was refused on reading: " + again.error();
  if (again->rows() != m->rows() || again->cols() != m->cols()) return "the shape changed in a write and read";
  if (m->size() > 0 && std::memcmp(again->data(), m->data(), static_cast<size_t>(m->size()) * sizeof(float)) != 0)
    return "the values changed in a write and read";
  return {};
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_npy)
