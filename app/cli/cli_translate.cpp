// attnviz-cli translate: the translation demo's Korean for an English sentence of its grammar
// (core/demos/translate_grammar.h), by greedy decoding, and with --json the tokens and every
// cross-attention weight. A sentence outside the grammar is refused with what is wrong, never
// translated by guess.
#include <filesystem>

#include "cli_json.h"
#include "cli_run.h"
#include "demos/translate_file.h"

namespace attnviz {

int cli_translate(const CliOptions& o, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string file = fs::is_directory(o.model_path, ec) ? (fs::path(o.model_path) / "model.safetensors").string() : o.model_path;
  auto model = translate_load(file);
  if (!model) return cli_fail(err, model.error());
  auto pair = translate_parse(o.text);
  if (!pair) return cli_fail(err, pair.error());
  const TranslateExample ex = translate_example(*pair, model->encoder.vocab, model->decoder.vocab);
  // Three clauses make at most 37 Korean tokens; a few more let a model that runs on show it.
  auto ids = translate_greedy(*model, ex.source_ids, static_cast<int>(ex.target_ids.size()) + 8);
  if (!ids) return cli_fail(err, ids.error());
  std::vector<std::string> target;
  for (const int id : *ids) target.push_back(model->decoder.vocab[static_cast<size_t>(id)]);
  std::string spaced;
  for (const std::string& t : target) spaced += (spaced.empty() ? "" : " ") + t;
  out << spaced << "\n";
  if (o.json_path.empty()) return 0;
  // The produced tokens read back with teacher forcing: row i of each head is the position that
  // produced target token i (the same weights greedy decoding saw at that step).
  std::vector<int> input = {kTranslateBos};
  input.insert(input.end(), ids->begin(), ids->end());
  auto f = translate_forward(*model, ex.source_ids, input);
  if (!f) return cli_fail(err, f.error());
  CliJson j;
  j["source_tokens"] = pair->source;
  j["target_tokens"] = target;
  j["target_text"] = spaced;
  CliJson layers = CliJson::array();
  for (const DecoderLayerTrace& layer : f->decoder) {
    CliJson heads = CliJson::array();
    for (const HeadTrace& head : layer.cross.attn.heads) {
      CliJson rows = CliJson::array();
      for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(ids->size()); ++i) {
        CliJson row = CliJson::array();
        for (Eigen::Index k = 0; k < head.weights_kept.cols(); ++k) row.push_back(head.weights_kept(i, k));
        rows.push_back(std::move(row));
      }
      heads.push_back(std::move(rows));
    }
    layers.push_back(std::move(heads));
  }
  j["cross_attentions"] = std::move(layers);
  if (Status s = cli_write_json(o.json_path, j, out); !s) return cli_fail(err, s.error());
  return 0;
}

}  // namespace attnviz
