// Word-level tokenizer for the text a person types into the app or the CLI: words, numbers,
// punctuation, symbol/emoji clusters and the literal special tokens ([PAD], [CLS], ...).
// It does not map tokens to vocabulary ids and it never normalises (NFC/NFD) the text.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "text/token_limit.h"

namespace attnviz {

enum class TokenKind { word, number, punct, symbol, special };

struct Token {
  std::string text;           // the token's text (sanitized utf-8)
  size_t begin = 0, end = 0;  // byte range in the SANITIZED input
  TokenKind kind = TokenKind::word;
};

struct TokenizeLimits {
  size_t max_bytes = size_t{1} << 20;  // 1 MiB of input
  int max_tokens = kMaxTokens;
};

// Invalid UTF-8 is first replaced by U+FFFD (utf8_sanitize) and the offsets refer to that
// sanitized text. Whitespace, control characters (incl. NUL) and stray invisible format
// characters (ZWSP, BOM, bidi marks) separate tokens and are dropped. Rules:
//  - word: a run of letters of any script, with combining marks and digits inside ("GPT2",
//    "x86", "고양이는", NFD jamo, a run of Han/kana as one word). An apostrophe (' or U+2019),
//    hyphen (- U+2010 U+2011, Hebrew maqaf) or ZWJ/ZWNJ/soft hyphen between two letters stays
//    inside ("didn't", "well-known"); at either end it is punctuation.
//  - number: digits with '.' or ',' (or the Arabic separators) between digits ("3.14", "1,000").
//    A number directly followed by a letter continues as ONE word token ("3rd", "5km", "1.5x").
//  - punct: one token per punctuation character ("..." is three "." tokens), with any
//    combining marks that follow it.
//  - symbol: one token per symbol cluster: an emoji with its variation selectors, skin-tone
//    modifiers, tags and ZWJ-joined parts, a regional-indicator pair (flag), a keycap ("1️⃣").
//    Each U+FFFD is a symbol token of its own; a combining mark with no base is a symbol too.
//  - special: "[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]" typed literally (case-sensitive).
// Empty or whitespace-only text gives zero tokens. Errors: input over max_bytes (checked before
// any work) and more than max_tokens tokens (checked as each token is added). Linear time.
Result<std::vector<Token>> tokenize_words(std::string_view text, const TokenizeLimits& limits = {});

bool token_is_punct(const Token& t);  // kind == punct

// "word", "number", "punct", "symbol", "special".
std::string_view name_of(TokenKind kind);

}  // namespace attnviz
