// Token probabilities with three decimals, as the CLI prints them. Each NoAnswer code has its own
// string, picked by a switch so that a code added to core without one is a compiler warning here.
#include "state/answer_text.h"

#include <cstdio>

namespace attnviz {

namespace {
std::string top_list(const PositionAnswer& pa, int top) {
  std::string out;
  char buf[32];
  for (size_t i = 0; i < pa.top.size() && static_cast<int>(i) < top; ++i) {
    std::snprintf(buf, sizeof buf, " %.3f", static_cast<double>(pa.top[i].p));
    out += (i ? ", " : "") + pa.top[i].text + buf;
  }
  return out;
}
}  // namespace

std::string answer_text(const ModelAnswer& a, const Trace& t, Lang lang, int top) {
  if (a.kind == AnswerKind::coref) {
    const auto& p = a.coref;
    const std::string pronoun = p.pronoun >= 0 && p.pronoun < t.n_queries() ? t.queries[static_cast<size_t>(p.pronoun)].text : "it";
    return tr_format(lang, Str::answer_coref, pronoun.c_str(), p.referent_text.c_str(), static_cast<double>(p.probability));
  }
  std::string out;
  for (const PositionAnswer& pa : a.predictions) {
    if (!out.empty()) out += " · ";
    if (a.kind == AnswerKind::next_token) out += tr_format(lang, Str::answer_next, top_list(pa, top).c_str());
    else if (a.kind == AnswerKind::at_word)
      out += tr_format(lang, Str::answer_at_word, t.queries[static_cast<size_t>(pa.position)].text.c_str(),
                       top_list(pa, top).c_str());
    else out += tr_format(lang, Str::answer_masked, pa.position, top_list(pa, top).c_str());
  }
  return out;
}

std::string no_answer_text(const NoAnswer& why, Lang lang) {
  switch (why.reason) {
    case NoAnswerReason::no_output_head: return tr(lang, Str::why_no_output_head);
    case NoAnswerReason::no_model: return tr(lang, Str::why_no_model);
    case NoAnswerReason::cross_attention: return tr(lang, Str::why_cross_attention);
    case NoAnswerReason::no_tokens: return tr(lang, Str::why_no_tokens);
    case NoAnswerReason::no_pronoun: return tr(lang, Str::why_no_pronoun);
    case NoAnswerReason::no_its: return tr(lang, Str::why_no_its);
    case NoAnswerReason::no_candidates: return tr(lang, Str::why_no_candidates);
    case NoAnswerReason::unknown_word: return tr_format(lang, Str::why_unknown_word, why.word.c_str());
    case NoAnswerReason::no_word_readout: return tr(lang, Str::why_no_word_readout);
    case NoAnswerReason::no_mask: return tr(lang, Str::why_no_mask);
    case NoAnswerReason::needs_causal: return tr(lang, Str::why_needs_causal);
    case NoAnswerReason::mask_not_trained: return tr(lang, Str::why_mask_not_trained);
    case NoAnswerReason::other_sentence: return tr(lang, Str::why_other_sentence);
    case NoAnswerReason::other_model: return tr(lang, Str::why_other_model);
    case NoAnswerReason::cancelled: return tr(lang, Str::why_cancelled);
    case NoAnswerReason::bad_weights: return tr_format(lang, Str::why_bad_weights, why.word.c_str());
  }
  return no_answer_english(why);  // a code added to core before its strings: English beats nothing
}

std::string answer_line_text(const ModelAnswer* answer, const NoAnswer* why, const Trace& trace, Lang lang) {
  if (answer) return answer_text(*answer, trace, lang);
  if (why) return tr_format(lang, Str::answer_none, no_answer_text(*why, lang).c_str());
  return {};
}

}  // namespace attnviz
