// The tokenizer a GGUF file carries in its metadata (tokenizer.ggml.*), built as the pipeline tokenizer
// of text/pipeline_tokenizer.h so that ids equal llama.cpp's: "llama" (SentencePiece: pieces with
// scores, "▁" for spaces, byte fallback) and "gpt2" (byte-level BPE with merges, split by the
// pre-tokenizer that tokenizer.ggml.pre names). No file access; unknown models and pre-tokenizers are
// errors naming them.
#pragma once
#include <memory>

#include "base/result.h"
#include "io/gguf.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

// SentencePiece ("llama") merges the adjacent pair whose joined text is the vocabulary entry of the
// highest score, as llama.cpp's llm_tokenizer_spm does; that is byte-pair encoding with merges ranked
// by score, which is how it is run here (pairs of entries of the same score are ranked by id, where
// llama.cpp takes the leftmost pair: real vocabularies give each entry its own score). Control,
// unknown and user-defined entries are matched in the text as llama.cpp does with special tokens
// parsed; BOS/EOS are added as tokenizer.ggml.add_bos_token / add_eos_token say (llama.cpp's defaults
// when absent: BOS for SentencePiece, none for BPE).
Result<std::shared_ptr<const SubwordTokenizer>> gguf_tokenizer(const GgufFile& file);

}  // namespace attnviz
