// libFuzzer target: BERT's WordPiece. The first input byte picks the mode: encode the rest as one
// sentence, or as a pair split at its first NUL, with the fixture tokenizer; or feed the rest to
// wordpiece_from_tokenizer_json / wordpiece_options_from_config + wordpiece_from_vocab_txt
// (tokenizer_config.json NUL vocab.txt) and, when a tokenizer comes out, encode a fixed sentence.
// Every encoding must have ids, pieces and ordered offsets that agree with the sanitized text, and
// the fixture's must be framed [CLS] A [SEP] (B [SEP]). Reads memory only once loaded.
#include <algorithm>

#include "base/file_io.h"
#include "fuzz/fuzz_check.h"
#include "base/utf8.h"
#include "text/wordpiece_tokenizer.h"

namespace attnviz::fuzz {

namespace wordpiece_target {

// Case, accents, CJK, Hangul, a typed special token, control characters and a very long word.
constexpr std::string_view kSample =
    "Héllo WORLD [MASK] 你好 고양이 don't\x01\t x86 "
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

// `bert_framing`: the tokenizer frames as BERT does, [CLS] A [SEP] (B [SEP]) in segments 0 and 1. A
// loaded tokenizer.json may frame otherwise (a template without [CLS], "cls": ["[CLS]", 2] naming
// another id, any "type_id" per part), and HF tokenizers accept that too, so only the fixture is held
// to it; a loaded one's offsets need only stay inside the longer sentence.
std::string check_encode(const WordPieceTokenizer& tok, std::string_view a, std::optional<std::string_view> b,
                         bool bert_framing) {
  auto enc = tok.encode(a, b);
  if (!enc.ok()) return error_needs_message(enc.error(), "WordPieceTokenizer::encode");
  if (enc->text != utf8_sanitize(a) || enc->text_b != (b ? utf8_sanitize(*b) : std::string()))
    return "the encoding's text is not the sanitized input";
  const auto& tokens = enc->tokens;
  if (bert_framing &&
      (tokens.empty() || tokens.front().piece != tok.options().cls || tokens.back().piece != tok.options().sep))
    return "the encoding is not framed by [CLS] ... [SEP]";
  std::vector<int> ids;
  int last_segment = 0;
  size_t last_begin = 0, last_end = 0;
  for (const SubwordToken& t : tokens) {
    if (t.id < 0 || t.id >= tok.vocab_size() || tok.piece(t.id) != t.piece) return "token id/piece mismatch";
    ids.push_back(t.id);
    if (!bert_framing) {
      if (t.begin > t.end || t.end > std::max(enc->text.size(), enc->text_b.size()))
        return "token \"" + t.piece + "\" has offsets outside both sentences";
      continue;
    }
    if (t.segment < last_segment || t.segment > (b ? 1 : 0)) return "token segments out of order";
    if (t.segment != last_segment) last_begin = last_end = 0;
    last_segment = t.segment;
    const size_t size = t.segment == 0 ? enc->text.size() : enc->text_b.size();
    const bool framing = t.special && t.begin == t.end;
    if (!framing && (t.begin >= t.end || t.end > size || t.begin < last_begin || t.end < last_end))
      return "token \"" + t.piece + "\" has offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
             ") out of order or outside its text";
    if (!framing) last_begin = t.begin, last_end = t.end;
  }
  // decode's text is normalised (lowercased, accents stripped), so only its framing is checked.
  const std::string decoded = tok.decode(ids);
  if (bert_framing && decoded.rfind(tok.options().cls, 0) != 0) return "decode(ids) does not start with [CLS]";
  return {};
}

template <class Loaded>
std::string check_loaded(const Loaded& tok, std::string_view what) {
  if (!tok.ok()) return error_needs_message(tok.error(), what);
  return check_encode(*tok, kSample, std::string_view("B\xff\xfe [SEP] b"), false);
}

}  // namespace wordpiece_target

// The fixture tokenizer the encode modes use: the lowercasing, accent-stripping one.
Result<WordPieceTokenizer> wordpiece_fuzz_tokenizer(const std::string& fixtures) {
  return fuzz_fixture_parse(fixtures + "/tokenizers/wordpiece/uncased/tokenizer.json",
                            [](std::string_view json) { return wordpiece_from_tokenizer_json(json); });
}

std::string fuzz_wordpiece(const WordPieceTokenizer& fixture, Bytes bytes) {
  using namespace wordpiece_target;
  if (bytes.empty()) return check_encode(fixture, "", std::nullopt, true);
  const std::string_view rest = bytes_text(bytes.subspan(1));
  switch (bytes[0] % 4) {
    case 0: return check_encode(fixture, rest, std::nullopt, true);
    case 1: {
      const TextPair p = split_at_first_nul(rest);
      return check_encode(fixture, p.first, p.second_given ? std::optional(p.second) : std::nullopt, true);
    }
    case 2: return check_loaded(wordpiece_from_tokenizer_json(rest), "wordpiece_from_tokenizer_json");
    default: {
      const TextPair p = split_at_first_nul(rest);
      auto options = wordpiece_options_from_config(p.first);
      if (!options.ok()) return error_needs_message(options.error(), "wordpiece_options_from_config");
      return check_loaded(wordpiece_from_vocab_txt(p.second, *options), "wordpiece_from_vocab_txt");
    }
  }
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET_WITH_FIXTURE(attnviz::WordPieceTokenizer, wordpiece_fuzz_tokenizer, fuzz_wordpiece, "WordPiece")
