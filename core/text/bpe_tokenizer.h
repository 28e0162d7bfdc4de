// GPT-2's byte-level BPE tokenizer (Hugging Face tokenizer.json "model": {"type": "BPE"} with a
// ByteLevel pre-tokenizer, or the original vocab.json + merges.txt pair): text -> ids with exact
// byte offsets, and ids -> the exact bytes back. Loaders take the files' text, never paths; no
// normalizer, no prefix space, no dropout, no template post-processing (the loader refuses those).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "text/bpe_merge.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

class BpeTokenizer final : public SubwordTokenizer {
 public:
  Result<SubwordEncoding> encode(std::string_view text, std::optional<std::string_view> pair = std::nullopt,
                                 const SubwordLimits& limits = {}) const override;
  // Ids outside the vocabulary are skipped. The bytes are returned raw: a slice of ids may end
  // inside a multi-byte character, and then the result is not valid UTF-8.
  std::string decode(std::span<const int> ids) const override;

  std::optional<int> pad_id() const override { return std::nullopt; }
  std::string_view kind_name() const override { return "gpt2-bpe"; }
  bool frames_pairs() const override { return false; }

  int merge_count() const { return static_cast<int>(merges_.size()); }
  bool is_special(int id) const;  // an added token: split out of the text before pre-tokenization

  // What the loaders parse out of the files. build() checks every invariant encode relies on
  // (dense unique ids, all 256 byte symbols, merges over known pieces), so after a successful
  // build encode can only fail on its limits.
  struct Special {
    std::string content;
    int id = 0;
  };
  struct Parts {
    std::vector<std::string> pieces;                           // id -> vocabulary entry
    std::vector<std::pair<std::string, std::string>> merges;   // best rank first
    std::vector<Special> specials;                             // added tokens, by vocabulary id
  };
  static Result<BpeTokenizer> build(Parts parts);

 private:
  Status encode_segment(const std::string& clean, int segment, size_t max_tokens,
                        std::vector<SubwordToken>& out) const;
  Status encode_word(std::string_view clean, size_t word_begin, size_t word_end, int segment,
                     size_t max_tokens, std::vector<SubwordToken>& out) const;
  std::optional<size_t> special_at(std::string_view text, size_t pos) const;  // index into specials_

  std::vector<std::string> bytes_;  // id -> the raw bytes it stands for (decode)
  BpeMerges merges_;
  std::vector<Special> specials_;        // longest first, so the first match is the longest
  std::array<bool, 256> special_first_{};  // first bytes of the specials: a cheap pre-check
  std::array<int, 256> byte_ids_{};      // id of each byte's one-character symbol
  size_t longest_piece_bytes_ = 1;       // lower-bounds a word's token count for the early stop
};

// vocab.json ({"piece": id, ...}) and merges.txt (optional "#version" line, then "left right" per
// line, best rank first). "<|endoftext|>" becomes a special token when the vocabulary has it.
Result<BpeTokenizer> bpe_from_vocab_merges(std::string_view vocab_json, std::string_view merges_txt);

// A Hugging Face tokenizer.json with a BPE model and a ByteLevel pre-tokenizer; merges as
// "left right" strings or ["left", "right"] pairs; "added_tokens" become special tokens.
Result<BpeTokenizer> bpe_from_tokenizer_json(std::string_view tokenizer_json);

// GPT-2's byte <-> character table: printable bytes stand for themselves, the other 68 map to
// U+0100 + n in byte order (space -> "Ġ", newline -> "Ċ").
char32_t bpe_byte_char(uint8_t byte);

// The raw bytes a vocabulary piece stands for: "Ġcat" -> " cat". Characters outside the byte
// alphabet (an added token's text) stand for their own UTF-8.
std::string bpe_piece_bytes(std::string_view piece);

}  // namespace attnviz
