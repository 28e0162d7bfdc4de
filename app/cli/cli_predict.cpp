// attnviz-cli predict and heads: what a model answers for a sentence (the coreference demo's
// referent, the next token of a causal model, a BERT masked-LM head's tokens at each [MASK]),
// with heads switched off if asked, and which heads that answer depends on (--importance).
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/answer.h"
#include "analysis/generate.h"
#include "analysis/importance.h"
#include "analysis/importance_set.h"
#include "base/file_io.h"
#include "cli_json.h"
#include "cli_run.h"
#include "io/model_open.h"
#include "model/head_map.h"
#include "model/trace.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

using Json = CliJson;

struct Run {
  Model model;
  Trace trace;
};

Result<Run> open_and_trace(const CliOptions& o, const Ablation& ablation) {
  auto model = model_open(o.model_path, std::nullopt, {}, MappedValues::in_place, o.layers_kept);  // the process ends soon after
  if (!model) return make_error(model.error());
  TraceInput in;
  in.text = o.text;
  in.mask = o.mask;
  in.ablation = ablation;
  in.max_memory = cli_trace_memory(o);
  auto trace = trace_run(*model, in);
  if (!trace) return make_error(trace.error());
  return Run{std::move(*model), std::move(*trace)};
}

// Why there is no answer, in English, with the flag that fixes it where there is one.
std::string answer_error(const NoAnswer& why) {
  const bool causal = why.reason == NoAnswerReason::needs_causal || why.reason == NoAnswerReason::no_pronoun;
  return no_answer_english(why) + (causal ? " (--mask causal)" : "");
}

void print_answer(const ModelAnswer& a, const Trace& t, std::ostream& out) {
  out << std::fixed << std::setprecision(3);
  if (a.kind == AnswerKind::coref) {
    const CorefPrediction& p = a.coref;
    out << t.queries[static_cast<size_t>(p.pronoun)].text << " (#" << p.pronoun << ") -> " << p.referent_text << " (#"
        << p.referent << ", p = " << p.probability << ")\n";
  } else {
    for (const PositionAnswer& pa : a.predictions) {
      out << (a.kind == AnswerKind::next_token ? "next token after #" : a.kind == AnswerKind::at_word ? "answer at #" : "[MASK] #")
          << pa.position << " ("
          << t.queries[static_cast<size_t>(pa.position)].text << "):";
      for (const TokenScore& s : pa.top) out << "  " << s.text << " (" << s.id << ") " << s.p;
      out << "\n";
    }
  }
  out.unsetf(std::ios::floatfield);
}

Json score_json(const TokenScore& s) { return {{"token", s.token}, {"text", s.text}, {"id", s.id}, {"p", s.p}}; }

Json scores_json(const std::vector<TokenScore>& scores) {
  Json top = Json::array();
  for (const TokenScore& s : scores) top.push_back(score_json(s));
  return top;
}

Json answer_json(const ModelAnswer& a, const Trace& t) {
  Json j;
  j["kind"] = name_of(a.kind);
  if (a.kind == AnswerKind::coref) {
    const CorefExample& e = a.example;
    j["pronoun"] = {{"index", e.pronoun}, {"text", t.queries[static_cast<size_t>(e.pronoun)].text}};
    j["candidates"] = Json::array();
    for (int c : {e.candidate_a, e.candidate_b})
      j["candidates"].push_back({{"index", c}, {"text", t.keys[static_cast<size_t>(c)].text}});
    j["referent"] = {{"index", a.coref.referent}, {"text", a.coref.referent_text}, {"probability", a.coref.probability}};
  } else {
    Json preds = Json::array();
    for (const PositionAnswer& pa : a.predictions) preds.push_back({{"position", pa.position}, {"top", scores_json(pa.top)}});
    j["predictions"] = std::move(preds);
  }
  j["log_prob"] = a.log_prob;
  return j;
}

Json heads_json(const std::vector<HeadRef>& heads) {
  Json out = Json::array();
  for (const HeadRef& h : heads) out.push_back({h.layer, h.head});
  return out;
}

}  // namespace

int cli_predict(const CliOptions& o, std::ostream& stdout_stream, std::ostream& err) {
  // With --json - the JSON alone goes to standard output, so that it parses.
  std::ostringstream discard;
  std::ostream& out = o.json_path == "-" ? discard : stdout_stream;
  const int top_k = o.given.count("top-k") ? o.top_k : 5;
  auto run = open_and_trace(o, o.ablation);
  if (!run) return cli_fail(err, run.error());
  auto answer = model_answer(run->model, run->trace, o.text, top_k);
  if (!answer) return cli_fail(err, answer_error(answer.why()));
  // With heads off, the full model's answer beside it: what switching them off changed.
  std::optional<ModelAnswer> full;
  if (o.ablation.any()) {
    auto f = trace_final_ablated(run->model, run->trace, Ablation{});
    if (!f) return cli_fail(err, f.error());
    auto a = model_answer_from_final(run->model, run->trace, *f, *answer, top_k);
    if (!a) return cli_fail(err, answer_error(a.why()));
    full = std::move(*a);
    out << "heads off (" << name_of(o.ablation.mode) << "): " << ablation_heads_label(o.ablation.heads) << "\n";
  }
  print_answer(*answer, run->trace, out);
  if (full) {
    out << "with every head on: ";
    print_answer(*full, run->trace, out);
  }
  if (o.json_path.empty()) return 0;
  Json j;
  j["text"] = o.text;
  j["ablated"] = heads_json(o.ablation.heads);
  j["ablation"] = name_of(o.ablation.mode);
  const Json answer_fields = answer_json(*answer, run->trace);
  for (const auto& [key, value] : answer_fields.items()) j[key] = value;
  if (answer->kind == AnswerKind::coref) {  // every head's attention from "it" to each candidate
    const CorefExample& e = answer->example;
    Json heads = Json::array();
    for (size_t l = 0; l < run->trace.layers.size(); ++l)
      for (size_t h = 0; h < run->trace.layers[l].attn.heads.size(); ++h) {
        const Mat w = head_map_rows(run->trace, static_cast<int>(l), static_cast<int>(h), e.pronoun, 1);
        heads.push_back({{"layer", l}, {"head", h}, {"to_candidates", {w(0, e.candidate_a), w(0, e.candidate_b)}}});
      }
    j["heads"] = std::move(heads);
  }
  if (full) j["unablated"] = answer_json(*full, run->trace);
  if (Status s = cli_write_json(o.json_path, j, stdout_stream); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

// heads --set FILE --importance: every sentence's grid, their mean, each head's spread and how many
// answers each head's absence changes.
int cli_heads_set(const CliOptions& o, std::ostream& stdout_stream, std::ostream& err) {
  std::ostringstream discard;
  std::ostream& out = o.json_path == "-" ? discard : stdout_stream;
  auto bytes = file_read_bytes(o.set_path, uint64_t{16} << 20);
  if (!bytes) return cli_fail(err, "--set: " + bytes.error());
  auto sentences = sentence_set_parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!sentences) return cli_fail(err, "--set " + o.set_path + ": " + sentences.error());
  auto model = model_open(o.model_path, std::nullopt, {}, MappedValues::in_place, o.layers_kept);  // the process ends soon after
  if (!model) return cli_fail(err, model.error());
  ImportanceSetInput in;
  in.mask = o.mask;
  in.mode = o.ablation.mode;
  in.max_memory = cli_trace_memory(o);
  auto set = importance_set(*model, *sentences, in);
  if (!set) return cli_fail(err, "--set " + o.set_path + ": " + set.error());
  const size_t n = set->sentences.size();
  out << "mean drop in log p(answer) with one head off (" << name_of(set->mode) << ") over " << n << " sentence"
      << (n == 1 ? "" : "s") << ", ± its spread; [k]: the answer changes for k of them\n";
  out << "layer";
  for (int h = 0; h < model->config.n_heads; ++h) out << std::setw(22) << ("H" + std::to_string(h));
  out << "\n" << std::fixed << std::setprecision(3);
  for (size_t l = 0; l < set->mean.size(); ++l) {
    out << std::setw(5) << l;
    for (size_t h = 0; h < set->mean[l].size(); ++h) {
      std::ostringstream cell;
      cell << std::fixed << std::setprecision(3) << set->mean[l][h] << " ± " << set->spread[l][h] << " [" << set->answer_changes[l][h] << "]";
      out << std::setw(23) << cell.str();
    }
    out << "\n";
  }
  out.unsetf(std::ios::floatfield);
  out << "most important on average: layer " << set->best_layer << " head " << set->best_head << " (the answer changes for "
      << set->answer_changes[static_cast<size_t>(set->best_layer)][static_cast<size_t>(set->best_head)] << " of " << n << ")\n";
  if (o.json_path.empty()) return 0;
  const ExplainJson j = importance_set_json({&*set, o.set_path});
  if (Status s = cli_write_json(o.json_path, j, stdout_stream); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

int cli_heads(const CliOptions& o, std::ostream& stdout_stream, std::ostream& err) {
  if (!o.set_path.empty()) return cli_heads_set(o, stdout_stream, err);
  std::ostringstream discard;
  std::ostream& out = o.json_path == "-" ? discard : stdout_stream;
  auto run = open_and_trace(o, Ablation{});
  if (!run) return cli_fail(err, run.error());
  auto grid = importance_grid(run->model, run->trace, o.text, o.ablation.mode);
  if (!grid) return cli_fail(err, answer_error(grid.why()));
  out << "answer: ";
  print_answer(grid->answer, run->trace, out);
  const bool changes = importance_changes_answer(*grid);
  out << "drop in log p(answer) with one head off (" << name_of(grid->mode) << ")"
      << (changes ? "; * the answer changes" : "") << "\n";
  out << "layer";
  for (int h = 0; h < run->model.config.n_heads; ++h) out << std::setw(9) << ("H" + std::to_string(h));
  out << "\n" << std::fixed << std::setprecision(3);
  for (size_t l = 0; l < grid->drop.size(); ++l) {
    out << std::setw(5) << l;
    for (size_t h = 0; h < grid->drop[l].size(); ++h)
      out << std::setw(8) << grid->drop[l][h] << (grid->flips[l][h] ? "*" : " ");
    out << "\n";
  }
  out.unsetf(std::ios::floatfield);
  out << "most important: layer " << grid->best_layer << " head " << grid->best_head << "\n";
  if (!changes) out << "no single head changes the answer when switched off: the model resolves it redundantly\n";
  if (o.json_path.empty()) return 0;
  Json j;
  j["text"] = o.text;
  j["ablation"] = name_of(grid->mode);
  j["answer"] = answer_json(grid->answer, run->trace);
  j["importance"] = grid->drop;
  Json flips = Json::array();
  for (const auto& row : grid->flips) flips.push_back(row);
  j["answer_changes"] = std::move(flips);
  j["most_important"] = {grid->best_layer, grid->best_head};
  if (Status s = cli_write_json(o.json_path, j, stdout_stream); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

int cli_generate(const CliOptions& o, std::ostream& stdout_stream, std::ostream& err) {
  std::ostringstream discard;
  std::ostream& out = o.json_path == "-" ? discard : stdout_stream;
  auto model = model_open(o.model_path, std::nullopt, {}, MappedValues::in_place, o.layers_kept);  // the process ends soon after
  if (!model) return cli_fail(err, model.error());
  GenerateOptions g;
  g.tokens = o.tokens;
  g.temperature = o.sample_temperature;
  g.top_k = o.given.count("top-k") ? o.top_k : 5;
  g.seed = o.seed;
  g.max_memory = cli_trace_memory(o);
  auto gen = generate(*model, o.text, g);
  if (!gen) return cli_fail(err, gen.error());
  // The prompt, then each new token with its probability; the whole text at the end.
  out << o.text;
  for (const GeneratedStep& s : gen->steps) out << "[" << s.chosen.text << "]";
  out << "\n" << std::fixed << std::setprecision(3);
  for (const GeneratedStep& s : gen->steps) {
    out << "#" << s.position << " " << s.chosen.text << " (" << s.chosen.id << ") p " << s.chosen.p << "   top:";
    for (const TokenScore& t : s.top) out << "  " << t.text << " " << t.p;
    out << "\n";
  }
  out.unsetf(std::ios::floatfield);
  // A step may end inside a character (byte-level tokens): invalid bytes read as U+FFFD.
  const std::string text = model->tokenizer ? utf8_sanitize(model->tokenizer->decode(gen->ids)) : std::string();
  out << "text: " << text << "\n";
  if (o.json_path.empty()) return 0;
  Json j;
  j["prompt"] = o.text;
  j["prompt_ids"] = gen->prompt_ids;
  j["temperature"] = g.temperature;
  j["top_k"] = g.top_k;
  j["seed"] = g.seed;
  Json steps = Json::array();
  for (const GeneratedStep& s : gen->steps)
    steps.push_back({{"position", s.position}, {"token", score_json(s.chosen)}, {"top", scores_json(s.top)}});
  j["steps"] = std::move(steps);
  j["ids"] = gen->ids;
  j["text"] = text;
  j["reused_rows"] = gen->reused_rows;
  if (Status s = cli_write_json(o.json_path, j, stdout_stream); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

}  // namespace attnviz
