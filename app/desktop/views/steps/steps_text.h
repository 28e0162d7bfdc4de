// The lecture's ten steps by name: the short chip label, the title and the plain-language
// explanation of each, as string ids in LectureStep order. Shared by the view and its figure;
// headless (string ids only).
#pragma once
#include "analysis/lecture.h"
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

}  // namespace attnviz
