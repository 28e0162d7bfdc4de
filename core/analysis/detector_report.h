// What the Statistics view shows for each head detector over a whole trace: detector_grid's scores,
// why the grid is empty (the same reason for every head — they share the tokens and the mask), how
// many queries each score averages over, and the strongest head. Reads a Trace; runs no model.
#pragma once
#include <string_view>
#include <vector>

#include "analysis/detectors.h"
#include "model/trace.h"

namespace attnviz {

// Why no head has a score. none: at least one head does.
enum class DetectorGap {
  none,
  cross_attention,   // queries and keys are different sentences: no shared positions
  too_short,         // fewer than two real tokens
  no_repeat,         // duplicate-token / induction: no token occurs twice
  no_spaced_repeat,  // induction: every repeat directly follows its copy ("x x"), nothing in between
  no_referent,       // coreference: no "it", fewer than two known nouns, or no deciding property word
  masked,            // every query that qualified is fully masked
};

// The coreference detector's target: the pronoun's query, its referent's key and the property word
// that decided it (token indices of the trace), -1 when absent.
struct CorefTarget {
  int pronoun = -1, referent = -1, property = -1;
};

struct DetectorReport {
  DetectorGrid grid;                    // detector_grid's scores, [L][NH]
  DetectorGap gap = DetectorGap::none;
  int queries = 0;                      // queries each score averages over (1 for coreference)
  int best_layer = -1, best_head = -1;  // the highest defined score (first in layer-major order on ties)
  float best_score = 0;
};

// coref_make's rule applied to the trace's own (unpadded) query tokens, so the indices match the
// trace even when the sentence box has changed since it was computed. All -1 in cross-attention
// or when the rule cannot decide.
CorefTarget coref_target_find(const Trace& trace);

// coref is used by Detector::coreference only.
DetectorReport detector_report(Detector d, const Trace& trace, const CorefTarget& coref = {});
// The same from a grid already scored (detector_grids: every detector from one pass over the maps).
DetectorReport detector_report_of(DetectorGrid grid, const Trace& trace, const CorefTarget& coref = {});

// Every detector, in kAllDetectors order, with the target coref_target_find gives.
struct DetectorReports {
  CorefTarget coref;
  std::vector<DetectorReport> reports;
};
DetectorReports detector_reports(const Trace& trace, const HeadMapVisitor& visit = {});

// "none", "cross_attention", "too_short", "no_repeat", "no_spaced_repeat", "no_referent", "masked".
std::string_view name_of(DetectorGap g);

}  // namespace attnviz
