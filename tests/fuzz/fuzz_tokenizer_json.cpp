// libFuzzer target: tokenizer.json pipelines (text/tokenizer_json.h). The first input byte picks the
// mode: encode the rest (a pair when it holds a NUL) with the Llama 3 or the Llama 2 fixture; or feed
// the rest to tokenizer_from_json (alone, or tokenizer.json NUL tokenizer_config.json) and, when a
// tokenizer comes out, encode a fixed pair with it. Every encoding must have ids and pieces that agree,
// framing that covers nothing and text tokens inside their sentence, in order; the byte-level fixture
// must tile each sentence and decode back to it, the SentencePiece one must cover every byte.
#include <algorithm>
#include <memory>

#include "base/file_io.h"
#include "fuzz/fuzz_check.h"
#include "text/tokenizer_json.h"
#include "base/utf8.h"

namespace attnviz::fuzz {

namespace tokenizer_json_target {

// Mixed scripts, digits, whitespace runs, contractions, specials whole and cut short, an emoji
// sequence the SentencePiece vocabulary lacks.
constexpr std::string_view kSample = "Hello  world<|eot_id|>고양이 x86 <s>ca\xCC\x81" "fe\n\t3.14159 DON'T <|im";

enum class Fixture { byte_level, sentencepiece, loaded };

std::string check_encode(const SubwordTokenizer& tok, std::string_view a, std::optional<std::string_view> b,
                         Fixture kind) {
  auto enc = tok.encode(a, b);
  if (!enc.ok()) return error_needs_message(enc.error(), "tokenizer encode");
  if (enc->text != utf8_sanitize(a) || enc->text_b != (b ? utf8_sanitize(*b) : std::string()))
    return "the encoding's text is not the sanitized input";
  std::vector<int> ids, text_ids[2];
  size_t at[2] = {0, 0}, last_begin[2] = {0, 0};
  std::vector<std::pair<size_t, size_t>> covered[2];
  for (const SubwordToken& t : enc->tokens) {
    if (t.id < 0 || t.id >= tok.vocab_size() || tok.piece(t.id) != t.piece) return "token id/piece mismatch";
    ids.push_back(t.id);
    if (t.special && t.begin == t.end) continue;  // framing
    if (kind == Fixture::loaded) {  // a loaded WordPiece template may give any segment number
      if (t.begin >= t.end || t.end > std::max(enc->text.size(), enc->text_b.size()))
        return "token \"" + t.piece + "\" covers nothing or lies outside both sentences";
      continue;
    }
    if (t.segment != 0 && t.segment != 1) return "a text token outside segments 0 and 1";
    const size_t s = size_t(t.segment), size = s == 0 ? enc->text.size() : enc->text_b.size();
    if (t.begin >= t.end || t.end > size || t.begin < last_begin[s])
      return "token \"" + t.piece + "\" has offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
             ") out of order or outside its sentence";
    last_begin[s] = t.begin;
    text_ids[s].push_back(t.id);
    covered[s].emplace_back(t.begin, t.end);
    if (kind == Fixture::byte_level) {
      if (t.begin != at[s]) return "the byte-level tokens do not tile their sentence";
      at[s] = t.end;
    }
  }
  const std::string decoded = tok.decode(ids);  // must not crash, whatever it gives
  if (kind == Fixture::byte_level) {
    if (at[0] != enc->text.size() || at[1] != enc->text_b.size()) return "the byte-level tokens stop before the end";
    if (tok.decode(text_ids[0]) != enc->text) return "decode of sentence A's ids is not its text";
    if (tok.decode(text_ids[1]) != enc->text_b) return "decode of sentence B's ids is not its text";
  }
  if (kind == Fixture::sentencepiece)
    for (size_t s = 0; s < 2; ++s) {  // byte fallback drops nothing: every byte is some token's
      size_t reach = 0;
      for (const auto& [begin, end] : covered[s]) {
        if (begin > reach) return "a byte of the sentence is in no token";
        reach = std::max(reach, end);
      }
      if (reach != (s == 0 ? enc->text.size() : enc->text_b.size())) return "the sentence's end is in no token";
    }
  return {};
}

std::string check_loaded(const Result<std::unique_ptr<SubwordTokenizer>>& tok) {
  if (!tok.ok()) return error_needs_message(tok.error(), "tokenizer_from_json");
  return check_encode(**tok, kSample, std::string_view("B\xff\xfe [SEP] <s>b"), Fixture::loaded);
}

}  // namespace tokenizer_json_target

struct TokenizerJsonFixtures {
  std::shared_ptr<const SubwordTokenizer> byte_level, sentencepiece;
};

// The fixtures the encode modes use: tests/fixtures/tokenizer_json/llama3_bpe and llama2_spm.
Result<TokenizerJsonFixtures> tokenizer_json_fuzz_fixtures(const std::string& fixtures) {
  TokenizerJsonFixtures out;
  for (auto [name, slot] : {std::pair{"llama3_bpe", &out.byte_level}, std::pair{"llama2_spm", &out.sentencepiece}}) {
    auto tok = fuzz_fixture_parse(fixtures + "/tokenizer_json/" + name + "/tokenizer.json",
                                  [](std::string_view json) { return tokenizer_from_json(json); });
    if (!tok.ok()) return make_error(tok.error());
    *slot = std::move(*tok);
  }
  return out;
}

std::string fuzz_tokenizer_json(const TokenizerJsonFixtures& fixtures, Bytes bytes) {
  using namespace tokenizer_json_target;
  if (bytes.empty()) return check_encode(*fixtures.byte_level, "", std::nullopt, Fixture::byte_level);
  const std::string_view rest = bytes_text(bytes.subspan(1));
  const TextPair p = split_at_first_nul(rest);
  const std::optional<std::string_view> b = p.second_given ? std::optional(p.second) : std::nullopt;
  switch (bytes[0] % 4) {
    case 0: return check_encode(*fixtures.byte_level, p.first, b, Fixture::byte_level);
    case 1: return check_encode(*fixtures.sentencepiece, p.first, b, Fixture::sentencepiece);
    case 2: return check_loaded(tokenizer_from_json(rest));
    default: return check_loaded(tokenizer_from_json(p.first, p.second));
  }
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET_WITH_FIXTURE(attnviz::fuzz::TokenizerJsonFixtures, tokenizer_json_fuzz_fixtures,
                                 fuzz_tokenizer_json, "tokenizer.json")
