// The model's answer as one line of text in the UI's language: "it → animal (p = 1.000)",
// "next token: ·cat 0.231, ·dog 0.102, …", "[MASK] #4: paris 0.61, …", or why there is none. Headless.
#pragma once
#include <string>

#include "analysis/answer.h"
#include "shell/strings.h"

namespace attnviz {

std::string answer_text(const ModelAnswer& answer, const Trace& trace, Lang lang, int top = 3);

// Why there is no answer (a NoAnswer from analysis/answer.h), in the UI's language with its values;
// the English is core's no_answer_english, word for word.
std::string no_answer_text(const NoAnswer& why, Lang lang);

// The answer line as shown: the answer, or "no answer: <why>" ("답 없음: …"); empty with neither.
std::string answer_line_text(const ModelAnswer* answer, const NoAnswer* why, const Trace& trace, Lang lang);

}  // namespace attnviz
