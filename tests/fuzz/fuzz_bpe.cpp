// libFuzzer target: GPT-2's byte-level BPE. The first input byte picks the mode: encode the rest
// as one sentence, or as a pair split at its first NUL, with the fixture tokenizer; or feed the rest
// to bpe_from_tokenizer_json / bpe_from_vocab_merges (vocab.json NUL merges.txt) and, when a
// tokenizer comes out, encode a fixed sentence with it. Every encoding must decode back to the
// sanitized text, and each sentence's offsets must tile it. Reads memory only once loaded.
#include "base/file_io.h"
#include "fuzz/fuzz_check.h"
#include "text/bpe_tokenizer.h"
#include "base/utf8.h"

namespace attnviz::fuzz {

namespace bpe_target {

// Mixed scripts, digits, specials (whole and cut short), spaces and newlines.
constexpr std::string_view kSample = "Hello  world<|endoftext|>고양이 x86 <|im_start|><|im\n\t3.14 don't";

// Tokens of one segment cover [0, size) of its text without gaps or overlaps, in order.
std::string check_tiling(const std::vector<SubwordToken>& tokens, int segment, size_t size) {
  size_t at = 0;
  for (const SubwordToken& t : tokens) {
    if (t.segment != segment) continue;
    if (t.begin != at || t.end <= t.begin || t.end > size)
      return "segment " + std::to_string(segment) + " token [" + std::to_string(t.begin) + ", " +
             std::to_string(t.end) + ") does not continue at " + std::to_string(at);
    at = t.end;
  }
  return at == size ? std::string() : "segment " + std::to_string(segment) + " tokens stop before its end";
}

std::string check_encode(const BpeTokenizer& tok, std::string_view a, std::optional<std::string_view> b) {
  auto enc = tok.encode(a, b);
  if (!enc.ok()) return error_needs_message(enc.error(), "BpeTokenizer::encode");
  if (enc->text != utf8_sanitize(a) || enc->text_b != (b ? utf8_sanitize(*b) : std::string()))
    return "the encoding's text is not the sanitized input";
  std::vector<int> ids, ids_a;
  int last_segment = 0;
  for (const SubwordToken& t : enc->tokens) {
    if (t.id < 0 || t.id >= tok.vocab_size() || tok.piece(t.id) != t.piece) return "token id/piece mismatch";
    if (t.segment < last_segment || t.segment > (b ? 1 : 0)) return "token segments out of order";
    last_segment = t.segment;
    ids.push_back(t.id);
    if (t.segment == 0) ids_a.push_back(t.id);
  }
  if (std::string e = check_tiling(enc->tokens, 0, enc->text.size()); !e.empty()) return e;
  if (std::string e = check_tiling(enc->tokens, 1, enc->text_b.size()); !e.empty()) return e;
  if (tok.decode(ids_a) != enc->text) return "decode(ids) of sentence A is not its sanitized text";
  if (tok.decode(ids) != enc->text + enc->text_b) return "decode(ids) of the pair is not its sanitized texts";
  return {};
}

template <class Loaded>
std::string check_loaded(const Loaded& tok, std::string_view what) {
  if (!tok.ok()) return error_needs_message(tok.error(), what);
  return check_encode(*tok, kSample, std::string_view("a\xff\xfe b"));
}

}  // namespace bpe_target

// The fixture tokenizer the encode modes use: tests/fixtures/tokenizers/bpe/tokenizer_added.json,
// the vocabulary with added tokens, so special-token matching is fuzzed too.
Result<BpeTokenizer> bpe_fuzz_tokenizer(const std::string& fixtures) {
  return fuzz_fixture_parse(fixtures + "/tokenizers/bpe/tokenizer_added.json",
                            [](std::string_view json) { return bpe_from_tokenizer_json(json); });
}

std::string fuzz_bpe(const BpeTokenizer& fixture, Bytes bytes) {
  using namespace bpe_target;
  if (bytes.empty()) return check_encode(fixture, "", std::nullopt);
  const std::string_view rest = bytes_text(bytes.subspan(1));
  switch (bytes[0] % 4) {
    case 0: return check_encode(fixture, rest, std::nullopt);
    case 1: {
      const TextPair p = split_at_first_nul(rest);
      return check_encode(fixture, p.first, p.second_given ? std::optional(p.second) : std::nullopt);
    }
    case 2: return check_loaded(bpe_from_tokenizer_json(rest), "bpe_from_tokenizer_json");
    default: {
      const TextPair p = split_at_first_nul(rest);
      return check_loaded(bpe_from_vocab_merges(p.first, p.second), "bpe_from_vocab_merges");
    }
  }
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET_WITH_FIXTURE(attnviz::BpeTokenizer, bpe_fuzz_tokenizer, fuzz_bpe, "BPE")
