// The interface of a checkpoint's own tokenizer (GPT-2's byte-level BPE, BERT's WordPiece): text in,
// vocabulary ids out, each id with the byte range of the text it covers so the UI can show tokens as
// readable text. The engine embeds by id. Implementations: core/text/bpe_tokenizer.h, core/text/wordpiece_tokenizer.h,
// core/text/pipeline_tokenizer.h (tokenizer.json's other BPE families); core/text/tokenizer_json.h picks one.
// Nothing here reads files; loaders take the files' text, so they can be fuzzed from memory.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "text/token_limit.h"

namespace attnviz {

// What every tokenizer says when a text has more than max_tokens tokens (it stops as it reaches them).
inline Error error_too_many_tokens(size_t max_tokens) {
  return make_error("the text has more than " + std::to_string(max_tokens) + " tokens");
}

struct SubwordToken {
  int id = 0;
  std::string piece;          // the vocabulary entry: "Ġcat", "##ing", "[CLS]"
  size_t begin = 0, end = 0;  // bytes of the segment's text (SubwordEncoding::text or text_b) it covers;
                              // begin == end for framing the tokenizer adds ([CLS], [SEP])
  int segment = 0;            // 0: sentence A, 1: sentence B: which text begin/end refer to, and which
                              // sentence a framing token belongs to
  int type_id = 0;            // the token type id the model embeds (Hugging Face's token_type_ids): the
                              // segment for BERT and GPT-2, the template's type_id, always 0 for RoBERTa
  bool special = false;       // a special token: added framing, or typed literally ("[MASK]", "<|endoftext|>")
  bool unknown = false;       // the unknown token, standing in for text the vocabulary cannot spell
  bool continues = false;     // continues the previous token's word (WordPiece "##" pieces; BPE pieces
                              // that do not start a pre-tokenized word)
};

struct SubwordEncoding {
  std::string text;     // sentence A after utf8_sanitize (invalid UTF-8 -> U+FFFD); offsets refer to it
  std::string text_b;   // sentence B, likewise (empty when there is no pair)
  std::vector<SubwordToken> tokens;
};

struct SubwordLimits {
  size_t max_bytes = size_t{1} << 20;  // per sentence, checked before any work
  int max_tokens = kMaxTokens;         // checked as tokens are produced, so a huge input stops early
};

// A tokenizer's vocabulary both ways: id -> piece, piece -> id. Loaders fill both.
struct SubwordVocab {
  std::vector<std::string> pieces;            // id -> piece
  std::unordered_map<std::string, int> ids;   // piece -> id
};

class SubwordTokenizer {
 public:
  virtual ~SubwordTokenizer() = default;

  // Tokenizes sentence A, or the pair A, B (BERT: [CLS] A [SEP] B [SEP] with segments 0 / 1;
  // GPT-2: A's tokens then B's, no separator, B's with segment 1). Any byte string is accepted;
  // errors only for the limits.
  virtual Result<SubwordEncoding> encode(std::string_view text, std::optional<std::string_view> pair = std::nullopt,
                                         const SubwordLimits& limits = {}) const = 0;
  // The text the ids spell: GPT-2 gives back the exact input bytes; WordPiece joins "##" pieces to
  // their word and separates words by one space (after its normalisation, e.g. lowercased).
  virtual std::string decode(std::span<const int> ids) const = 0;

  int vocab_size() const { return static_cast<int>(vocab_.pieces.size()); }  // ids are 0 .. vocab_size() - 1
  const std::string& piece(int id) const { return vocab_.pieces[static_cast<size_t>(id)]; }  // 0 <= id < vocab_size()
  std::optional<int> id_of(std::string_view piece) const {
    const auto it = vocab_.ids.find(std::string(piece));
    return it == vocab_.ids.end() ? std::nullopt : std::optional<int>(it->second);
  }
  virtual std::optional<int> pad_id() const = 0;          // [PAD] for BERT; none for GPT-2
  virtual std::string_view kind_name() const = 0;         // "gpt2-bpe", "wordpiece": for display only
  // True when the model reads a sentence pair as two segments with separators (BERT's
  // [CLS] A [SEP] B [SEP]): the app then offers sentence B. Ask this, never compare kind_name().
  virtual bool frames_pairs() const = 0;

 protected:
  // The virtual destructor would suppress the implicit moves, and every implementation's move would
  // then copy the vocabulary: declared here, protected so a tokenizer is never sliced.
  SubwordTokenizer() = default;
  SubwordTokenizer(const SubwordTokenizer&) = default;
  SubwordTokenizer(SubwordTokenizer&&) noexcept = default;
  SubwordTokenizer& operator=(const SubwordTokenizer&) = default;
  SubwordTokenizer& operator=(SubwordTokenizer&&) noexcept = default;

  SubwordVocab vocab_;
};

}  // namespace attnviz
