// Token probabilities with three decimals, as the CLI prints them.
#include "state/answer_text.h"

#include <cstdio>
#include <string_view>
#include <utility>

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
    out += a.kind == AnswerKind::next_token ? tr_format(lang, Str::answer_next, top_list(pa, top).c_str())
                                            : tr_format(lang, Str::answer_masked, pa.position, top_list(pa, top).c_str());
  }
  return out;
}

std::string no_answer_text(const std::string& error, Lang lang) {
  static constexpr std::pair<std::string_view, Str> kReasons[] = {
      {kNoAnswerNoOutputHead, Str::why_no_output_head}, {kNoAnswerCrossAttention, Str::why_cross_attention},
      {kNoAnswerNoPronoun, Str::why_no_pronoun},       {kNoAnswerNoCandidates, Str::why_no_candidates},
      {kNoAnswerNoMask, Str::why_no_mask},             {kNoAnswerNeedsCausal, Str::why_needs_causal}};
  for (const auto& [reason, id] : kReasons)
    if (error == reason) return tr(lang, id);
  return error;
}

}  // namespace attnviz
