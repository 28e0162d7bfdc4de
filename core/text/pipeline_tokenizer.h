// A Hugging Face tokenizer.json pipeline for the BPE families, run as the Rust `tokenizers` library
// runs it: added tokens split out of the text, then normalizer, pre-tokenizer, BPE model (byte-level,
// or SentencePiece-style over characters with byte fallback) and post-processor, each token with the
// bytes of the input it covers; and the decoder. It runs a PipelineSpec, which tokenizer_json.h reads
// out of the file and which this file checks; no JSON and no files here. WordPiece is wordpiece_tokenizer.h.
#pragma once
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "text/bpe_merge.h"
#include "text/pretokenize_split.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

namespace pipeline_detail {
struct Aligned;  // text being rewritten, with the input bytes behind each of its bytes
}

// An entry of tokenizer.json's "added_tokens": matched in the text before the model (leftmost, then
// longest), in the raw text or, when `normalized`, in the normalizer's output.
struct PipelineAddedToken {
  std::string content;
  int id = 0;
  bool special = false;      // framing or control (<s>, <|im_start|>); a non-special one is an ordinary word
  bool single_word = false;  // not matched inside a word
  bool lstrip = false, rstrip = false;  // takes the whitespace on its left / right with it
  bool normalized = false;
};

// Normalizer steps, in order (a tokenizer.json "Sequence" is flattened into this list).
struct PipelineNormalize {
  enum class Kind { nfc, prepend, replace };
  Kind kind = Kind::nfc;
  std::string text;  // prepend: what is put in front of non-empty text; replace: what is replaced
  std::string with;  // replace: the replacement
};

// Pre-tokenizer steps, in order.
struct PipelinePreTokenize {
  enum class Kind { split, byte_level, metaspace };
  enum class Prepend { always, first, never };  // Metaspace's prepend_scheme
  Kind kind = Kind::split;
  SplitPattern pattern = SplitPattern::gpt2;  // split; byte_level when use_regex
  bool use_regex = true;                      // byte_level
  bool add_prefix_space = false;              // byte_level
  std::string replacement = "\xE2\x96\x81";   // metaspace: U+2581 "▁"
  Prepend prepend = Prepend::always;          // metaspace
  bool split = false;                         // metaspace: a new piece at every replacement character
};

// One item of the post-processor's template: the tokens of sentence A or B, or special tokens.
struct PipelineFramePart {
  int sequence = -1;     // 0: sentence A, 1: sentence B, -1: the special tokens in `ids`
  std::vector<int> ids;  // special
  int type_id = 0;
  int segment = 0;       // special: the sentence it is shown with
};

// Decoder steps, in order.
struct PipelineDecode {
  enum class Kind { byte_level, replace, byte_fallback, fuse, strip, metaspace };
  Kind kind = Kind::fuse;
  std::string text, with;      // replace: text -> with; strip: text is the character; metaspace: text
  int start = 0, stop = 0;     // strip: how many of `text` at most to take off each end of each token
  bool strip_first = true;     // metaspace: a leading space of the first token is dropped
};

struct PipelineSpec {
  std::vector<std::string> pieces;  // the model's vocabulary by id (added tokens past it are appended)
  std::vector<std::pair<std::string, std::string>> merges;  // best rank first
  std::optional<std::string> unk;   // the model's unk_token
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
  std::vector<PipelineAddedToken> added;
  std::vector<PipelineNormalize> normalizer;
  std::vector<PipelinePreTokenize> pre_tokenizer;
  // The post-processor's framing; unset: A's tokens (type 0), then B's (type 1).
  std::optional<std::vector<PipelineFramePart>> single, pair;
  bool frames_pairs = false;       // the model was trained on framed pairs (BERT, RoBERTa)
  // A piece the vocabulary spells twice: an error, or (a GGUF file's vocabulary, as llama.cpp reads
  // it) the text takes the later id and both ids decode to it.
  bool repeated_pieces_take_last = false;
  std::optional<std::vector<PipelineDecode>> decoder;  // unset: pieces joined by spaces
  std::optional<std::string> pad;  // the padding token's text, when the files name one
  std::string kind_name = "bpe";
};

class PipelineTokenizer final : public SubwordTokenizer {
 public:
  // Checks every invariant encode relies on: dense unique ids, merges over known pieces, every byte
  // symbol for a byte-level model, <0x00>..<0xFF> for byte fallback, template ids in the vocabulary.
  // After a successful build, encode fails only on its limits.
  static Result<PipelineTokenizer> build(PipelineSpec spec);

  Result<SubwordEncoding> encode(std::string_view text, std::optional<std::string_view> pair = std::nullopt,
                                 const SubwordLimits& limits = {}) const override;
  // The decoder's text; byte pieces come back as raw bytes, so a slice of ids that ends inside a
  // character is not valid UTF-8. Ids outside the vocabulary are skipped.
  std::string decode(std::span<const int> ids) const override;

  std::optional<int> pad_id() const override { return pad_id_; }
  std::string_view kind_name() const override { return kind_name_; }
  bool frames_pairs() const override { return frames_pairs_; }

  bool byte_level() const { return byte_level_; }
  bool is_added(int id) const;  // one of added_tokens

 private:
  Status encode_segment(const std::string& text, int segment, size_t max_tokens,
                        std::vector<SubwordToken>& out) const;
  Status encode_plain(pipeline_detail::Aligned text, int segment, size_t max_tokens,
                      std::vector<SubwordToken>& out) const;
  Status encode_piece(const pipeline_detail::Aligned& piece, bool section_start, int segment, size_t max_tokens,
                      std::vector<SubwordToken>& out) const;

  std::vector<PipelineAddedToken> raw_added_, normalized_added_;  // longest first; the second normalized
  std::vector<PipelineNormalize> normalizer_;
  std::vector<PipelinePreTokenize> pre_tokenizer_;
  std::optional<std::vector<PipelineFramePart>> single_, pair_;
  std::optional<std::vector<PipelineDecode>> decoder_;
  BpeMerges merges_;
  std::vector<bool> added_;          // by id: an added token (decodes to its content)
  std::vector<bool> special_;        // by id: a special added token
  std::array<int, 256> byte_ids_{};  // byte-level: each byte's symbol; byte fallback: <0xNN>
  int model_size_ = 0;               // ids below this are the model's vocabulary
  size_t longest_piece_bytes_ = 0;   // of the model's pieces, as the vocabulary spells them
  std::optional<int> unk_id_, pad_id_;
  std::string metaspace_;            // the replacement character when words start with one (SentencePiece)
  std::string kind_name_;
  bool byte_level_ = false, byte_fallback_ = false, fuse_unk_ = false, ignore_merges_ = false;
  bool frames_pairs_ = false;
};

}  // namespace attnviz
