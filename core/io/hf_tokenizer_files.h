// Finds and loads a checkpoint folder's tokenizer the way Hugging Face's AutoTokenizer does:
// tokenizer.json when the folder has one, whatever the family (the file says which tokenizer it is:
// core/text/tokenizer_json.h; tokenizer_config.json beside it may name the padding token), else the
// family's own files (GPT-2: vocab.json + merges.txt; BERT: vocab.txt with tokenizer_config.json's
// options). Reading only; the parsing is in core/text/.
#pragma once
#include <memory>
#include <string>

#include "base/result.h"
#include "io/hf_checkpoint.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

// Tokenizer files are small; anything larger than this is refused before reading.
inline constexpr uint64_t kMaxTokenizerFileBytes = uint64_t{256} << 20;

// Errors name the folder and the file that is missing or malformed.
Result<std::shared_ptr<const SubwordTokenizer>> hf_tokenizer_load(const std::string& folder, CheckpointFamily family);

}  // namespace attnviz
