#include "analysis/explain_export.h"

#include <charconv>

#include "analysis/export.h"

namespace attnviz {

namespace {

// The shortest text that reads back to the same float (as the JSON writes it).
std::string float_text(float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// One CSV row from fields already formatted.
void csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
}

std::string label_at(const std::vector<std::string>& labels, size_t i) { return i < labels.size() ? labels[i] : std::string(); }

ExplainJson token_pushes_json(const std::vector<TokenPush>& pushes) {
  ExplainJson list = ExplainJson::array();
  for (const TokenPush& p : pushes) list.push_back({{"id", p.id}, {"text", p.text}, {"logit", p.logit}});
  return list;
}

}  // namespace

ExplainJson patch_json(const PatchExport& in) {
  const PatchResult& r = *in.result;
  ExplainJson j;
  j["metric"] = name_of(r.metric);
  j["clean"] = r.clean;
  j["corrupt"] = r.corrupt;
  j["by"] = name_of(r.by);
  j["effect"] = r.effect;
  j["patched_metric"] = r.patched;
  j["patched_answer"] = r.patched_answer;
  j["clean_text"] = in.clean_text;
  j["corrupt_text"] = in.corrupt_text;
  if (r.metric == PatchMetric::logit_diff) {
    j["answer"] = {{"id", r.answer_id}, {"text", r.answer_text}};
    j["wrong"] = {{"id", r.wrong_id}, {"text", r.wrong_text}};
  } else {
    j["clean_referent"] = {{"position", r.clean_referent}, {"text", r.clean_referent_text}};
    j["corrupt_referent"] = {{"position", r.corrupt_referent}, {"text", r.corrupt_referent_text}};
  }
  ExplainJson toks = ExplainJson::array();
  for (size_t t = 0; t < in.corrupt_tokens.size(); ++t) toks.push_back({label_at(in.clean_tokens, t), in.corrupt_tokens[t]});
  j["tokens"] = std::move(toks);
  return j;
}

std::string patch_csv(const PatchExport& in) {
  const PatchResult& r = *in.result;
  std::string out;
  if (r.by == PatchBy::head) csv_row(out, {"layer", "head", "effect", "patched_metric", "patched_answer"});
  else csv_row(out, {"layer", "position", "clean_token", "corrupt_token", "effect", "patched_metric", "patched_answer"});
  for (size_t l = 0; l < r.effect.size(); ++l)
    for (size_t c = 0; c < r.effect[l].size(); ++c) {
      std::vector<std::string> row{std::to_string(l), std::to_string(c)};
      if (r.by == PatchBy::position) {
        row.push_back(label_at(in.clean_tokens, c));
        row.push_back(label_at(in.corrupt_tokens, c));
      }
      row.push_back(float_text(r.effect[l][c]));
      row.push_back(l < r.patched.size() && c < r.patched[l].size() ? float_text(r.patched[l][c]) : "");
      row.push_back(l < r.patched_answer.size() && c < r.patched_answer[l].size() ? r.patched_answer[l][c] : "");
      csv_row(out, row);
    }
  return out;
}

ExplainJson attribution_json(const AttributionExport& in) {
  const LogitAttribution& a = *in.attribution;
  ExplainJson j;
  j["text"] = in.text;
  j["position"] = a.position;
  j["answer"] = {{"id", a.answer_id}, {"text", in.answer_text}};
  j["wrong"] = {{"id", a.wrong_id}, {"text", in.wrong_text}};
  j["attribution"] = {{"heads", a.heads}, {"mlps", a.mlps}, {"embeddings", a.embeddings}, {"biases", a.biases}, {"total", a.total}};
  j["logit_diff"] = a.logit_diff;
  return j;
}

std::string attribution_csv(const AttributionExport& in) {
  const LogitAttribution& a = *in.attribution;
  std::string out;
  csv_row(out, {"component", "layer", "head", "value"});
  for (size_t l = 0; l < a.heads.size(); ++l)
    for (size_t h = 0; h < a.heads[l].size(); ++h) csv_row(out, {"head", std::to_string(l), std::to_string(h), float_text(a.heads[l][h])});
  for (size_t l = 0; l < a.mlps.size(); ++l) csv_row(out, {"mlp", std::to_string(l), "", float_text(a.mlps[l])});
  csv_row(out, {"embeddings", "", "", float_text(a.embeddings)});
  csv_row(out, {"biases", "", "", float_text(a.biases)});
  csv_row(out, {"total", "", "", float_text(a.total)});
  csv_row(out, {"logit_diff", "", "", float_text(a.logit_diff)});
  return out;
}

ExplainJson lens_json(const LensExport& in) {
  ExplainJson j;
  j["position"] = in.position;
  j["token"] = in.token;
  ExplainJson rows = ExplainJson::array();
  for (const LensRow& row : *in.rows) {
    ExplainJson top = ExplainJson::array();
    for (const TokenScore& t : row.top) top.push_back({{"id", t.id}, {"text", t.text}, {"p", t.p}});
    rows.push_back({{"after_layer", row.after_layer}, {"top", std::move(top)}});
  }
  j["lens"] = std::move(rows);
  if (in.write) {
    j["head_write"] = {{"layer", in.write_layer},
                       {"head", in.write_head},
                       {"promoted", token_pushes_json(in.write->promoted)},
                       {"suppressed", token_pushes_json(in.write->suppressed)}};
  }
  return j;
}

std::string lens_csv(const LensExport& in) {
  std::string out;
  csv_row(out, {"after_layer", "rank", "token", "id", "p"});
  for (const LensRow& row : *in.rows)
    for (size_t k = 0; k < row.top.size(); ++k)
      csv_row(out, {std::to_string(row.after_layer), std::to_string(k + 1), row.top[k].text, std::to_string(row.top[k].id), float_text(row.top[k].p)});
  if (!in.write) return out;
  csv_row(out, {"head_write", "rank", "token", "id", "logit", "layer", "head"});
  const auto pushes = [&](const char* kind, const std::vector<TokenPush>& list) {
    for (size_t k = 0; k < list.size(); ++k)
      csv_row(out, {kind, std::to_string(k + 1), list[k].text, std::to_string(list[k].id), float_text(list[k].logit),
                    std::to_string(in.write_layer), std::to_string(in.write_head)});
  };
  pushes("promoted", in.write->promoted);
  pushes("suppressed", in.write->suppressed);
  return out;
}

ExplainJson flow_json(const FlowExport& in) {
  const FlowGraph& g = *in.graph;
  ExplainJson j;
  j["target"] = g.target;
  j["target_token"] = label_at(in.tokens, static_cast<size_t>(std::max(g.target, 0)));
  j["threshold"] = g.threshold;
  j["weight"] = name_of(g.weight);
  if (g.weight == FlowWeight::attribution) {
    j["answer"] = {{"id", g.answer_id}, {"text", in.answer_text}};
    j["wrong"] = {{"id", g.wrong_id}, {"text", in.wrong_text}};
  }
  j["tokens"] = in.tokens;
  ExplainJson edges = ExplainJson::array();
  for (const FlowEdge& e : g.edges)
    edges.push_back({{"layer", e.layer}, {"head", e.head}, {"from", e.from}, {"to", e.to}, {"share", e.share}, {"weight", name_of(e.weight)}});
  j["edges"] = std::move(edges);
  ExplainJson reached = ExplainJson::array();  // [L + 1][T]: column l is before layer l
  for (const auto& column : g.reached) {
    ExplainJson c = ExplainJson::array();
    for (bool b : column) c.push_back(b);
    reached.push_back(std::move(c));
  }
  j["reached"] = std::move(reached);
  return j;
}

std::string flow_csv(const FlowExport& in) {
  std::string out;
  csv_row(out, {"layer", "head", "from", "from_token", "to", "to_token", "share", "weight"});
  for (const FlowEdge& e : in.graph->edges)
    csv_row(out, {std::to_string(e.layer), std::to_string(e.head), std::to_string(e.from), label_at(in.tokens, static_cast<size_t>(e.from)),
                  std::to_string(e.to), label_at(in.tokens, static_cast<size_t>(e.to)), float_text(e.share), std::string(name_of(e.weight))});
  return out;
}

ExplainJson qk_json(const QKExport& in) {
  const QKProjection& p = *in.projection;
  ExplainJson j;
  j["layer"] = in.layer;
  j["head"] = in.head;
  j["explained"] = {p.explained[0], p.explained[1]};
  j["key_scale"] = p.key_scale;
  const auto points = [](const Mat& m, const std::vector<std::string>& tokens) {
    ExplainJson list = ExplainJson::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) list.push_back({{"token", label_at(tokens, static_cast<size_t>(i))}, {"x", m(i, 0)}, {"y", m(i, 1)}});
    return list;
  };
  j["queries"] = points(p.queries, in.query_tokens);
  j["keys"] = points(p.keys, in.key_tokens);
  return j;
}

std::string qk_csv(const QKExport& in) {
  std::string out;
  csv_row(out, {"kind", "position", "token", "x", "y"});
  const auto points = [&](const char* kind, const Mat& m, const std::vector<std::string>& tokens) {
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      csv_row(out, {kind, std::to_string(i), label_at(tokens, static_cast<size_t>(i)), float_text(m(i, 0)), float_text(m(i, 1))});
  };
  points("query", in.projection->queries, in.query_tokens);
  points("key", in.projection->keys, in.key_tokens);
  return out;
}

ExplainJson importance_set_json(const ImportanceSetExport& in) {
  const ImportanceSetGrid& set = *in.grid;
  ExplainJson j;
  j["set"] = in.source;
  j["ablation"] = name_of(set.mode);
  ExplainJson list = ExplainJson::array(), grids = ExplainJson::array(), best = ExplainJson::array(), changes = ExplainJson::array();
  for (size_t i = 0; i < set.sentences.size(); ++i) {
    const ImportanceGrid& g = set.per_sentence[i];
    list.push_back({{"line", set.sentences[i].line}, {"text", set.sentences[i].text}});
    grids.push_back(g.drop);
    best.push_back({g.best_layer, g.best_head});
    ExplainJson flips = ExplainJson::array();
    for (const auto& row : g.flips) {
      ExplainJson r = ExplainJson::array();
      for (bool b : row) r.push_back(b);
      flips.push_back(std::move(r));
    }
    changes.push_back(std::move(flips));
  }
  j["sentences"] = std::move(list);
  j["importance"] = set.mean;
  j["spread"] = set.spread;
  j["answer_changes"] = set.answer_changes;
  j["per_sentence"] = std::move(grids);
  j["per_sentence_most_important"] = std::move(best);
  j["per_sentence_answer_changes"] = std::move(changes);
  j["most_important"] = {set.best_layer, set.best_head};
  return j;
}

std::string importance_set_csv(const ImportanceSetExport& in) {
  const ImportanceSetGrid& set = *in.grid;
  std::string out;
  csv_row(out, {"layer", "head", "mean", "spread", "answer_changes", "sentences"});
  for (size_t l = 0; l < set.mean.size(); ++l)
    for (size_t h = 0; h < set.mean[l].size(); ++h)
      csv_row(out, {std::to_string(l), std::to_string(h), float_text(set.mean[l][h]), float_text(set.spread[l][h]),
                    std::to_string(set.answer_changes[l][h]), std::to_string(set.sentences.size())});
  return out;
}

}  // namespace attnviz
