// attnviz-cli patch and heads --logit-attribution: explanations that read the model's logits
// (analysis/patching.h, analysis/logit_attribution.h), printed as grids and written as JSON.
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/logit_attribution.h"
#include "analysis/patching.h"
#include "cli_json.h"
#include "cli_run.h"
#include "io/model_open.h"
#include "model/trace.h"

namespace attnviz {

namespace {


Result<Trace> trace_text(const CliOptions& o, const Model& model, const std::string& text) {
  TraceInput in;
  in.text = text;
  in.mask = o.mask;
  in.max_memory = cli_trace_memory(o);
  return trace_run(model, in);
}

// --answer / --answer-id (or --wrong / --wrong-id): unset when neither was given.
Result<std::optional<int>> token_flag(const CliOptions& o, const Model& model, bool answer) {
  const std::string& text = answer ? o.answer_token : o.wrong_token;
  const int id = answer ? o.answer_id : o.wrong_id;
  const char* flag = answer ? "answer" : "wrong";
  if (o.given.count(std::string(flag) + "-id")) return std::optional<int>(id);
  if (!o.given.count(flag)) return std::optional<int>();
  auto parsed = token_id_parse(model, text);
  if (!parsed) return make_error("--" + std::string(flag) + ": " + parsed.error());
  return std::optional<int>(*parsed);
}

std::string token_label(const Trace& t, int i) {
  return i >= 0 && i < t.n_queries() ? t.queries[static_cast<size_t>(i)].text : "?";
}

void print_grid(std::ostream& out, const std::vector<std::vector<float>>& grid, const std::string& column) {
  out << "layer";
  const size_t columns = grid.empty() ? 0 : grid.front().size();
  for (size_t j = 0; j < columns; ++j) out << std::setw(9) << (column + std::to_string(j));
  out << "\n" << std::fixed << std::setprecision(3);
  for (size_t l = 0; l < grid.size(); ++l) {
    out << std::setw(5) << l;
    for (float v : grid[l]) out << std::setw(9) << v;
    out << "\n";
  }
  out.unsetf(std::ios::floatfield);
}

}  // namespace

int cli_patch(const CliOptions& o, std::ostream& stdout_stream, std::ostream& err) {
  std::ostringstream discard;
  std::ostream& out = o.json_path == "-" ? discard : stdout_stream;
  auto model = model_open(o.model_path, std::nullopt, {}, MappedValues::in_place, o.layers_kept);  // the process ends soon after
  if (!model) return cli_fail(err, model.error());
  PatchTokens tokens;
  for (bool answer : {true, false}) {
    auto t = token_flag(o, *model, answer);
    if (!t) return cli_fail(err, t.error());
    (answer ? tokens.answer : tokens.wrong) = *t;
  }
  auto clean = trace_text(o, *model, o.clean_text);
  if (!clean) return cli_fail(err, "--clean: " + clean.error());
  auto corrupt = trace_text(o, *model, o.corrupt_text);
  if (!corrupt) return cli_fail(err, "--corrupt: " + corrupt.error());
  const PatchBy by = o.patch_by_position ? PatchBy::position : PatchBy::head;
  auto r = patch_run(*model, *clean, o.clean_text, *corrupt, o.corrupt_text, by, tokens);
  if (!r) return cli_fail(err, r.error());

  out << std::fixed << std::setprecision(4);
  if (r->metric == PatchMetric::logit_diff)
    out << "metric: logit(" << r->answer_text << ") - logit(" << r->wrong_text << ") at the last position\n";
  else
    out << "metric: log p(" << r->clean_referent_text << " #" << r->clean_referent << ") - log p("
        << r->corrupt_referent_text << " #" << r->corrupt_referent << ") at \"it\"\n";
  out << "clean " << r->clean << ", corrupt " << r->corrupt << "\n";
  out.unsetf(std::ios::floatfield);
  out << "effect = (m(patched) - m(corrupt)) / (m(clean) - m(corrupt)), the clean run's "
      << (by == PatchBy::head ? "head output z" : "residual entering the layer at one position") << " patched in\n";
  print_grid(out, r->effect, by == PatchBy::head ? "H" : "#");
  if (by == PatchBy::position) {
    out << "positions:";
    for (int t = 0; t < corrupt->n_queries(); ++t) out << " #" << t << " " << token_label(*corrupt, t);
    out << "\n";
  }
  if (o.json_path.empty()) return 0;
  PatchExport ex{&*r, o.clean_text, o.corrupt_text, {}, {}};
  for (int t = 0; t < corrupt->n_queries(); ++t) {
    ex.clean_tokens.push_back(token_label(*clean, t));
    ex.corrupt_tokens.push_back(token_label(*corrupt, t));
  }
  const ExplainJson j = patch_json(ex);
  if (Status s = cli_write_json(o.json_path, j, stdout_stream); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

int cli_logit_attribution(const CliOptions& o, std::ostream& stdout_stream, std::ostream& err) {
  std::ostringstream discard;
  std::ostream& out = o.json_path == "-" ? discard : stdout_stream;
  auto model = model_open(o.model_path, std::nullopt, {}, MappedValues::in_place, o.layers_kept);
  if (!model) return cli_fail(err, model.error());
  auto answer = token_flag(o, *model, true);
  if (!answer) return cli_fail(err, answer.error());
  auto wrong = token_flag(o, *model, false);
  if (!wrong) return cli_fail(err, wrong.error());
  auto trace = trace_text(o, *model, o.text);
  if (!trace) return cli_fail(err, trace.error());
  auto a = logit_attribution(*model, *trace, answer->value_or(-1), wrong->value_or(-1));
  if (!a) return cli_fail(err, a.error());
  const std::string answer_text = answer_token_text(*model, a->answer_id), wrong_text = answer_token_text(*model, a->wrong_id);
  out << "logit(" << answer_text << ") - logit(" << wrong_text << ") after #" << a->position << " "
      << token_label(*trace, a->position) << "\n";
  out << "each head's direct write (through the final norm linearised at the residual):\n";
  print_grid(out, a->heads, "H");
  out << std::fixed << std::setprecision(3) << "MLPs:";
  for (float m : a->mlps) out << " " << m;
  out << "\nembeddings " << a->embeddings << ", biases " << a->biases << ", total " << a->total
      << " (the model's own difference " << a->logit_diff << ")\n";
  out.unsetf(std::ios::floatfield);
  if (o.json_path.empty()) return 0;
  const ExplainJson j = attribution_json({&*a, o.text, answer_text, wrong_text});
  if (Status s = cli_write_json(o.json_path, j, stdout_stream); !s) return cli_fail(err, "--json: " + s.error());
  return 0;
}

}  // namespace attnviz
