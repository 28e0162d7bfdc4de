// Reads a Hugging Face tokenizer.json and returns the tokenizer it describes, picked from the file
// itself: WordPiece (BERT, DistilBERT) goes to wordpiece_tokenizer.h, GPT-2's exact pipeline to
// bpe_tokenizer.h, every other BPE pipeline (Llama 3, Qwen2, Llama 2, TinyLlama, Mistral, RoBERTa) to
// pipeline_tokenizer.h. Every "type" and every key that could change the ids is read; an unknown one
// is an error naming it and where it is ("pre_tokenizer.pretokenizers[1]"). From memory; no files.
#pragma once
#include <memory>
#include <string_view>

#include "base/result.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

// `tokenizer_config_json` (may be empty) is read for its "pad_token" only, when tokenizer.json's
// "padding" names none: that is where transformers finds the padding token of Llama-style folders.
// tokenizer.json's "truncation" and "padding" are otherwise not applied, as transformers overrides
// both on every call unless asked.
Result<std::unique_ptr<SubwordTokenizer>> tokenizer_from_json(std::string_view tokenizer_json,
                                                               std::string_view tokenizer_config_json = {});

}  // namespace attnviz
