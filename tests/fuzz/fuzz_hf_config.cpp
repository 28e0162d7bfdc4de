// libFuzzer target: hf_config_parse on arbitrary text (a checkpoint's config.json). Whatever it
// accepts must be a config the engine takes (config_validate) with a usable vocabulary size.
// Reads memory only.
#include "fuzz/fuzz_check.h"
#include "io/hf_checkpoint.h"

namespace attnviz::fuzz {

std::string fuzz_hf_config(Bytes bytes) {
  auto config = hf_config_parse(bytes_text(bytes));
  if (!config.ok()) return error_needs_message(config.error(), "hf_config_parse");
  if (Status s = config_validate(config->config); !s.ok()) return "hf_config_parse accepted an invalid config: " + s.error();
  if (config->vocab_size < 1) return "hf_config_parse accepted vocab_size " + std::to_string(config->vocab_size);
  return {};
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_hf_config)
