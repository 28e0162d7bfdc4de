// libFuzzer target: gguf_parse on arbitrary bytes. An accepted file must keep the reader's promises:
// the alignment a power of two, the data section inside the file, every tensor's bytes inside the
// data section and a whole number of its type's blocks; and decoding a small tensor reads only
// those bytes (the sanitizers would catch more). Reads memory only.
#include <vector>

#include "fuzz/fuzz_check.h"
#include "io/gguf.h"

namespace attnviz::fuzz {

std::string fuzz_gguf(Bytes bytes) {
  auto f = gguf_parse(bytes);
  if (!f.ok()) return error_needs_message(f.error(), "gguf_parse");
  if (f->alignment == 0 || (f->alignment & (f->alignment - 1)) != 0) return "an alignment that is not a power of two was accepted";
  if (!f->tensors.empty() && f->data_offset > bytes.size()) return "the data section starts past the end of the file";
  for (const GgufTensorInfo& t : f->tensors) {
    const GgmlTypeInfo* info = ggml_type_info(static_cast<uint32_t>(t.type));
    if (!info) return "tensor '" + t.name + "' has a type the reader does not decode";
    if (t.ne.empty() || t.ne.size() > 4 || t.ne[0] % info->block_values != 0) return "tensor '" + t.name + "' has a shape the reader refuses";
    if (t.offset % f->alignment != 0) return "tensor '" + t.name + "' is misaligned";
    if (f->data_offset + t.offset + t.bytes > bytes.size()) return "tensor '" + t.name + "' runs past the end of the file";
    if (t.bytes != static_cast<uint64_t>(t.numel() / info->block_values) * static_cast<uint64_t>(info->block_bytes))
      return "tensor '" + t.name + "' has a byte count that is not its blocks'";
    if (t.numel() <= (1 << 16)) {
      std::vector<float> values(static_cast<size_t>(t.numel()));
      ggml_dequantize(t.type, bytes.data() + f->data_offset + t.offset, values.data(), t.numel());
    }
  }
  return {};
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_gguf)
