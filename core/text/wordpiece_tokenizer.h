// BERT's WordPiece tokenizer as Hugging Face's fast tokenizer runs it: BertNormalizer (cleaning,
// spaces around CJK ideographs, accent stripping, per-character lowercasing), BertPreTokenizer,
// greedy longest-match WordPiece and [CLS] A [SEP] (B [SEP]) framing, with byte offsets into the
// original text. Loads vocab.txt (+ tokenizer_config.json) or tokenizer.json from memory; no files.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

struct WordPieceOptions {
  bool lowercase = true;
  std::optional<bool> strip_accents;  // unset: strip exactly when lowercasing (BertNormalizer's rule)
  bool handle_cjk = true;             // spaces around CJK ideographs, so each is its own word
  bool clean_text = true;             // drop NUL, U+FFFD and control characters; whitespace -> ' '
  std::string unk = "[UNK]", cls = "[CLS]", sep = "[SEP]", pad = "[PAD]", mask = "[MASK]", prefix = "##";
  int max_chars_per_word = 100;       // a longer word becomes one [UNK]
};

// One element of the framing template: a special token, or the tokens of sentence A / B.
struct WordPieceFramePart {
  enum class Kind { special, sentence_a, sentence_b };
  Kind kind = Kind::special;
  int id = 0;       // for special
  int segment = 0;  // the token_type_id every token of this part gets
};

struct WordPieceParts;  // what the loaders assemble (wordpiece_tokenizer.cpp)

class WordPieceTokenizer final : public SubwordTokenizer {
 public:
  Result<SubwordEncoding> encode(std::string_view text, std::optional<std::string_view> pair = std::nullopt,
                                 const SubwordLimits& limits = {}) const override;
  // "##" pieces glue to the previous piece, other pieces are separated by one space; special
  // tokens are kept as words ("[CLS] hello [SEP]"); ids outside the vocabulary are skipped.
  std::string decode(std::span<const int> ids) const override;

  std::optional<int> pad_id() const override { return pad_id_; }
  std::string_view kind_name() const override { return "wordpiece"; }
  bool frames_pairs() const override { return true; }

  const WordPieceOptions& options() const { return options_; }
  // The texts matched literally before normalisation, each kept as one special token.
  std::vector<std::string> special_tokens() const;

 private:
  friend WordPieceTokenizer wordpiece_build(WordPieceParts parts);  // the loaders' last step
  struct Special {
    std::string text;
    int id = 0;
  };

  void encode_sentence(std::string_view text, int segment, size_t reserve, const SubwordLimits& limits,
                       std::vector<SubwordToken>& out, bool& too_many) const;
  void encode_plain(std::string_view text, size_t base, int segment, size_t reserve, const SubwordLimits& limits,
                    std::vector<SubwordToken>& out, bool& too_many) const;
  bool push_token(SubwordToken token, size_t reserve, const SubwordLimits& limits,
                  std::vector<SubwordToken>& out) const;

  WordPieceOptions options_;
  std::vector<Special> specials_;                    // matched in the raw text, longest first
  std::vector<WordPieceFramePart> frame_single_, frame_pair_;
  int unk_id_ = 0;
  std::optional<int> pad_id_;
  size_t longest_piece_chars_ = 1;  // in code points, "##" included: bounds the longest-match search
};

// Reads Hugging Face's tokenizer_config.json: do_lower_case, strip_accents, tokenize_chinese_chars
// and the special tokens (plain strings or {"content": ...} objects). Missing keys keep the defaults.
Result<WordPieceOptions> wordpiece_options_from_config(std::string_view tokenizer_config_json);

// vocab.txt: one piece per line, the line number is the id (a trailing '\r' is dropped). Framing is
// BERT's; [UNK], [CLS] and [SEP] must be in the vocabulary.
Result<WordPieceTokenizer> wordpiece_from_vocab_txt(std::string_view vocab_txt, const WordPieceOptions& options);

// tokenizer.json with a WordPiece model, a BertNormalizer (or none), a BertPreTokenizer and a
// TemplateProcessing or BertProcessing post-processor (BERT's framing when there is none).
Result<WordPieceTokenizer> wordpiece_from_tokenizer_json(std::string_view tokenizer_json);

}  // namespace attnviz
