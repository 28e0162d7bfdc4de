// Head detectors: one score in [0, 1] per head saying how much it behaves like a known kind of head
// (previous-token, attention sink, duplicate-token, induction, coreference), from its attention
// weights and the token texts alone. Reads a Trace; never runs a model or changes the weights.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/tensor.h"
#include "model/trace.h"

namespace attnviz {

enum class Detector { previous_token, first_token, duplicate_token, induction, coreference };
inline constexpr Detector kAllDetectors[] = {Detector::previous_token, Detector::first_token,
                                             Detector::duplicate_token, Detector::induction,
                                             Detector::coreference};

// defined = false: no query qualified (e.g. no repeated token for induction); score is then 0.
struct DetectorScore {
  float score = 0;
  bool defined = false;
};

// weights: (Tq, Tk), row = query, rows sum to 1 or are all zero (a fully masked query; skipped).
// tokens: the texts of the positions, compared exactly (case matters); for the token-based
// detectors a position must be a row, a column and a token, so mismatched sizes use the overlap.
// pronoun / referent: query and key index for Detector::coreference, ignored by the others.
DetectorScore detector_score(Detector d, const Mat& weights, const std::vector<std::string>& tokens,
                             int pronoun = -1, int referent = -1);

struct DetectorGrid {
  Detector detector = Detector::previous_token;
  std::vector<std::vector<DetectorScore>> by_layer_head;  // [L][NH]
};

// Every head of a self-attention trace. Padding is cut off first (queries and keys past
// real_keys), so [PAD] never counts as a duplicate. A cross-attention trace has no shared
// positions between queries and keys: every score comes back undefined.
DetectorGrid detector_grid(Detector d, const Trace& trace, int pronoun = -1, int referent = -1);
// Several detectors' grids from one pass: each head's map is formed once (model/head_map.h) and
// scored by every detector, heads over the machine's threads.
// `visit`, when given, also sees each head's whole (Tq, Tk) map (from the thread that formed it:
// it must write only what belongs to that head).
using HeadMapVisitor = std::function<void(int layer, int head, const Mat& map)>;
std::vector<DetectorGrid> detector_grids(const std::vector<Detector>& detectors, const Trace& trace, int pronoun = -1,
                                         int referent = -1, const HeadMapVisitor& visit = {});

// "previous_token", "first_token", "duplicate_token", "induction", "coreference".
std::string_view name_of(Detector d);
std::optional<Detector> detector_from_name(std::string_view s);
// One line of English for a tooltip or a --help text.
std::string_view detector_definition(Detector d);

}  // namespace attnviz
