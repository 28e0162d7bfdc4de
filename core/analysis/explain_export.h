// The explanations as data: activation patching, direct logit attribution, the logit lens and a
// head's write, the flow graph, the query/key projection and importance over a set, each as JSON
// (the CLI's --json and the app's export write the same keys) and as CSV in long form (one row per
// number, with its layer, head and tokens: ready for a spreadsheet or pandas). Floats are written as
// the shortest text that reads back to the same float. Nothing here computes.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/flow_graph.h"
#include "analysis/importance_set.h"
#include "analysis/logit_attribution.h"
#include "analysis/logit_lens.h"
#include "analysis/patching.h"
#include "analysis/qk_projection.h"

namespace attnviz {

// Keys in the order written; numbers as floats (shortest round-trip text).
using ExplainJson = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

// Patching (core/analysis/patching.h): tokens are each text's token labels, one per position.
struct PatchExport {
  const PatchResult* result = nullptr;
  std::string clean_text, corrupt_text;
  std::vector<std::string> clean_tokens, corrupt_tokens;
};
ExplainJson patch_json(const PatchExport& in);
// layer,head,effect,patched_metric,patched_answer (by head) or layer,position,clean_token,corrupt_token,... (by position).
std::string patch_csv(const PatchExport& in);

struct AttributionExport {
  const LogitAttribution* attribution = nullptr;
  std::string text, answer_text, wrong_text;
};
ExplainJson attribution_json(const AttributionExport& in);
// component,layer,head,value: every head, every MLP, then embeddings, biases and total (layer and
// head empty where they do not apply), and the model's own difference as "logit_diff".
std::string attribution_csv(const AttributionExport& in);

// The logit lens at one position and, when given, one head's write there.
struct LensExport {
  const std::vector<LensRow>* rows = nullptr;
  int position = -1;
  std::string token;
  const HeadWrite* write = nullptr;  // optional
  int write_layer = -1, write_head = -1;
};
ExplainJson lens_json(const LensExport& in);
// after_layer,rank,token,id,p (after_layer -1: the embeddings); then the head's write as
// head_write,rank,token,id,logit with "promoted" or "suppressed" in the first column.
std::string lens_csv(const LensExport& in);

struct FlowExport {
  const FlowGraph* graph = nullptr;
  std::vector<std::string> tokens;       // one per position
  std::string answer_text, wrong_text;   // attribution: the two tokens compared
};
ExplainJson flow_json(const FlowExport& in);
// layer,head,from,from_token,to,to_token,share,weight: one row per edge, layers from the last.
std::string flow_csv(const FlowExport& in);

struct QKExport {
  const QKProjection* projection = nullptr;
  int layer = -1, head = -1;
  std::vector<std::string> query_tokens, key_tokens;
};
ExplainJson qk_json(const QKExport& in);
// kind,position,token,x,y: "query" rows then "key" rows.
std::string qk_csv(const QKExport& in);

struct ImportanceSetExport {
  const ImportanceSetGrid* grid = nullptr;
  std::string source;  // the file, or where the set came from
};
ExplainJson importance_set_json(const ImportanceSetExport& in);
// layer,head,mean,spread,answer_changes,sentences: one row per head.
std::string importance_set_csv(const ImportanceSetExport& in);

}  // namespace attnviz
