// Reads a coreference model's answer off a Trace that has already been computed: the pronoun's
// final state through the model's output projection, compared between the two candidates' words.
// No forward pass runs here, so a UI can show the answer for a probe trace it already holds.
// It does not tokenize differently from coref_make, and it does not train or pick candidates itself.
#pragma once
#include <string_view>

#include "core/coref_data.h"
#include "core/coref_demo.h"
#include "core/model.h"
#include "core/result.h"
#include "core/trace.h"

namespace attnviz {

struct CorefReadout {
  CorefExample example;        // pronoun, candidates and property as token indices of the trace
  CorefPrediction prediction;  // the same fields coref_predict fills, from the trace's final states
};

// `trace` must be the self-attention trace of `text` on `model` (no padding). Errors when the text
// has no "it" or fewer than two candidates, when the trace's tokens are not the text's, or when the
// model has no output projection. The result equals coref_predict(model, text) up to rounding.
Result<CorefReadout> coref_readout(const Model& model, const Trace& trace, std::string_view text);

}  // namespace attnviz
