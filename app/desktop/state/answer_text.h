// The model's answer as one line of text in the UI's language: "it → animal (p = 1.000)",
// "next token: ·cat 0.231, ·dog 0.102, …", "[MASK] #4: paris 0.61, …". Headless.
#pragma once
#include <string>

#include "analysis/answer.h"
#include "shell/strings.h"

namespace attnviz {

std::string answer_text(const ModelAnswer& answer, const Trace& trace, Lang lang, int top = 3);

// Why there is no answer (model_answer's error), in the UI's language: core's named reasons
// (kNoAnswer... in analysis/answer.h) are translated, any other error is shown as it is.
std::string no_answer_text(const std::string& error, Lang lang);

}  // namespace attnviz
