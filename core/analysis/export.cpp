// JSON via nlohmann's basic_json with float as its number type, so each weight prints as the
// shortest decimal that reads back to the same float (e.g. 0.25, not 0.25000000372529).
#include "analysis/export.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/stats.h"
#include "model/head_map.h"

namespace attnviz {

namespace {

using JsonF = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

JsonF matrix_json(const Mat& m) {
  JsonF rows = JsonF::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    JsonF row = JsonF::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

JsonF tokens_json(const std::vector<TraceToken>& tokens) {
  JsonF out = JsonF::array();
  for (const TraceToken& t : tokens) {
    JsonF tok = {{"text", t.text}, {"kind", name_of(t.kind)}, {"in_vocab", t.in_vocab}, {"pad", t.pad}};
    if (t.id >= 0) {  // a checkpoint's tokenizer: the id, the vocabulary piece, the sentence it belongs to
      tok["id"] = t.id;
      tok["piece"] = t.piece;
      tok["segment"] = t.segment;
      tok["continues"] = t.continues;
    } else if (!t.piece.empty()) {  // an attention file's token: the string as saved
      tok["piece"] = t.piece;
    }
    out.push_back(std::move(tok));
  }
  return out;
}

std::vector<bool> punct_flags(const std::vector<TraceToken>& keys) {
  std::vector<bool> flags;
  for (const TraceToken& t : keys) flags.push_back(t.kind == TokenKind::punct);
  return flags;
}


std::string short_number(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(v));
  return buf;
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string trace_to_json(const Trace& trace, const MaskSpec& mask, const JsonExportOptions& options) {
  JsonF j;
  j["format"] = "attnviz.trace/1";
  j["model"] = {{"source", trace.model_source}, {"config", JsonF::parse(config_to_json(trace.config).dump())}};
  j["mask"] = JsonF::parse(mask_to_json(mask).dump());
  j["cross"] = trace.cross;
  if (trace.weights_only) j["weights_only"] = true;  // an attention file: no model ran, no hidden states
  j["tokens"] = tokens_json(trace.queries);
  if (trace.cross) j["key_tokens"] = tokens_json(trace.keys);
  if (trace.ablation.any()) {
    JsonF off = JsonF::array();
    for (const HeadRef& h : trace.ablation.heads) off.push_back({h.layer, h.head});
    j["ablated"] = std::move(off);
    j["ablation"] = name_of(trace.ablation.mode);
  }
  const std::vector<bool> punct = punct_flags(trace.keys);
  JsonF layers = JsonF::array();
  for (size_t l = 0; l < trace.layers.size(); ++l) {
    const LayerTrace& layer = trace.layers[l];
    JsonF heads = JsonF::array();
    for (size_t hi = 0; hi < layer.attn.heads.size(); ++hi) {
      const HeadTrace& head = layer.attn.heads[hi];
      // One map at a time: formed here when the trace does not keep them (MapsKept::none).
      const HeadMap map = head_map(trace, static_cast<int>(l), static_cast<int>(hi));
      const Mat& weights = *map;
      const HeadStats s = head_stats(weights, punct);
      JsonF h;
      if (!trace.weights_only) h["score"] = name_of(head.score);  // an attention file does not say
      h["stats"] = {{"entropy", s.entropy}, {"max_weight", s.max_weight}, {"mean_distance", s.mean_distance},
                    {"first_token_share", s.first_token_share}, {"punct_share", s.punct_share}};
      if (options.top_k > 0) {
        JsonF top = JsonF::array();
        for (int q = 0; q < weights.rows(); ++q) {
          JsonF keys = JsonF::array();
          for (const KeyWeight& kw : top_keys(weights, q, options.top_k))
            keys.push_back({{"key", kw.key}, {"weight", kw.weight}});
          top.push_back(std::move(keys));
        }
        h["top_keys"] = std::move(top);
      }
      if (options.weights) h["weights"] = matrix_json(weights);
      if (options.value_norm && l < options.value_norm->size() && hi < (*options.value_norm)[l].size())
        h["value_norm"] = matrix_json((*options.value_norm)[l][hi]);
      if (head.ablated) h["ablated"] = true;
      heads.push_back(std::move(h));
    }
    JsonF entry = {{"heads", std::move(heads)}};
    if (options.rollout && l < options.rollout->size()) entry["rollout"] = matrix_json((*options.rollout)[l]);
    layers.push_back(std::move(entry));
  }
  j["layers"] = std::move(layers);
  if (options.hidden && !trace.weights_only) j["final_hidden"] = matrix_json(trace.final);
  return j.dump(-1, ' ', false, JsonF::error_handler_t::replace);  // bytes that are not UTF-8 (a path, a piece): U+FFFD
}

Status trace_check_layer_head(const Trace& trace, int layer, int head) {
  const int L = static_cast<int>(trace.layers.size());
  if (layer < 0 || layer >= L)
    return make_error("layer " + std::to_string(layer) + " does not exist: the model has layers 0 to " + std::to_string(L - 1));
  const int NH = trace.config.n_heads;
  if (head < 0 || head >= NH)
    return make_error("head " + std::to_string(head) + " does not exist: each layer has heads 0 to " + std::to_string(NH - 1));
  return Ok{};
}

Result<std::string> trace_head_csv(const Trace& trace, int layer, int head, const Mat* map) {
  if (Status s = trace_check_layer_head(trace, layer, head); !s) return make_error(s.error());
  const HeadMap formed = map ? HeadMap::of_kept(*map) : head_map(trace, layer, head);
  const Mat& w = *formed;
  std::string out = "query\\key";
  for (const TraceToken& k : trace.keys) {
    out += ',';
    out += csv_field(k.text);
  }
  out += "\n";
  char buf[32];
  for (int i = 0; i < w.rows(); ++i) {
    out += csv_field(trace.queries[static_cast<size_t>(i)].text);
    for (int j = 0; j < w.cols(); ++j) {
      std::snprintf(buf, sizeof buf, ",%.9g", static_cast<double>(w(i, j)));
      out += buf;
    }
    out += "\n";
  }
  return out;
}

Result<HeatmapGridSpec> trace_layer_grid(const Trace& trace, int layer, const std::vector<Mat>* maps,
                                         std::string_view measure) {
  if (Status s = trace_check_layer_head(trace, layer, 0); !s) return make_error(s.error());
  HeatmapGridSpec spec;
  for (const TraceToken& t : trace.queries) spec.row_labels.push_back(t.text);
  for (const TraceToken& t : trace.keys) spec.col_labels.push_back(t.text);
  const auto& heads = trace.layers[static_cast<size_t>(layer)].attn.heads;
  if (maps && maps->size() != heads.size()) return make_error("one map per head is needed");
  for (size_t h = 0; h < heads.size(); ++h) {
    if (!maps) spec.held.push_back(head_map_shared(trace, layer, static_cast<int>(h)));
    spec.panels.push_back(HeatmapPanel{.title = "head " + std::to_string(h) + " · " +
                                                std::string(name_of(heads[h].score)) + (heads[h].ablated ? " · off" : ""),
                                       .weights = maps ? &(*maps)[h] : spec.held.back().get(),
                                       .id = ""});
  }
  if (maps) {
    float top = 0;
    for (const Mat& m : *maps) top = std::max(top, m.size() > 0 ? m.maxCoeff() : 0.0f);
    spec.vmax = top > 0 ? top : 1.0f;
  }
  const ModelConfig& c = trace.config;
  spec.caption = "layer " + std::to_string(layer) + " of " + std::to_string(c.n_layers) + " — " +
                 std::to_string(c.n_heads) + " heads, d_model " + std::to_string(c.d_model) + ", " +
                 std::string(name_of(c.norm)) + "-norm" + (trace.cross ? ", cross-attention" : "") +
                 (maps ? " — " + std::string(measure) + " (colours 0 to " + short_number(spec.vmax) + ")" : "");
  return spec;
}

}  // namespace attnviz
