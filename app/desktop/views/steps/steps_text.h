// The lecture's ten steps by name: the short chip label, the title and the plain-language
// explanation of each, as string ids in LectureStep order. Shared by the view and its figure;
// headless (string ids only).
#pragma once
#include <string>

#include "analysis/lecture.h"
#include "model/config.h"
#include "shell/strings.h"

namespace attnviz {

inline constexpr Str kStepsShort[kLectureStepCount] = {
    Str::steps_short_input, Str::steps_short_split,   Str::steps_short_qkv,    Str::steps_short_scores, Str::steps_short_scale,
    Str::steps_short_mask,  Str::steps_short_softmax, Str::steps_short_values, Str::steps_short_concat, Str::steps_short_out};
inline constexpr Str kStepsTitle[kLectureStepCount] = {
    Str::steps_title_input, Str::steps_title_split,   Str::steps_title_qkv,    Str::steps_title_scores, Str::steps_title_scale,
    Str::steps_title_mask,  Str::steps_title_softmax, Str::steps_title_values, Str::steps_title_concat, Str::steps_title_out};
inline constexpr Str kStepsExplain[kLectureStepCount] = {
    Str::steps_explain_input, Str::steps_explain_split,   Str::steps_explain_qkv,    Str::steps_explain_scores,
    Str::steps_explain_scale, Str::steps_explain_mask,    Str::steps_explain_softmax, Str::steps_explain_values,
    Str::steps_explain_concat, Str::steps_explain_out};

// The step's formula in the seeds' notation, as formula markup (state/formula_markup.h), for a head
// scoring with `score`; empty where that score has no formula of this form (additive, "general").
inline std::string steps_formula_markup(LectureStep step, ScoreKind score) {
  const bool scaled = score == ScoreKind::scaled_dot, dot = scaled || score == ScoreKind::dot;
  const std::string scores = scaled ? "\\frac{Q_iK_i^T}{\\sqrt{d_k}}" : "Q_iK_i^T";
  switch (step) {
    case LectureStep::input: return "X = (x_1, …, x_n),\\, x_j: d_{model}";
    case LectureStep::head_split: return "d_k = d_v = \\frac{d_{model}}{h}";
    case LectureStep::qkv: return "Q_i = XW^Q_i,\\, K_i = XW^K_i,\\, V_i = XW^V_i";
    case LectureStep::scores: return dot ? "Q_iK_i^T" : "";
    case LectureStep::scale: return dot ? scores : "";
    case LectureStep::mask: return dot ? scores + " + M" : "";
    case LectureStep::softmax: return dot ? "A_i = softmax(" + scores + " + M)" : "";
    case LectureStep::weighted_sum:
      return scaled ? "head_i = Attention(QW^Q_i, KW^K_i, VW^V_i) = softmax(\\frac{QW^Q_i(KW^K_i)^T}{\\sqrt{d_k}})VW^V_i"
                    : "head_i = A_iV_i";
    case LectureStep::concat: return "Concat(head_1, …, head_h)";
    case LectureStep::out_proj: return "MultiHead(Q,K,V) = Concat(head_1, …, head_h)W^O";
  }
  return {};
}

}  // namespace attnviz
