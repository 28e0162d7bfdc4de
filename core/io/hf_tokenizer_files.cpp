// Tokenizer file discovery for checkpoint folders: tokenizer.json for every family (its pipeline
// picks the implementation, core/text/tokenizer_json.h), else the family's own older files.
#include "io/hf_tokenizer_files.h"

#include <filesystem>

#include "base/file_io.h"
#include "text/bpe_tokenizer.h"
#include "text/tokenizer_json.h"
#include "text/wordpiece_tokenizer.h"

namespace attnviz {

namespace {

namespace fs = std::filesystem;

Result<std::string> read_text(const fs::path& p) {
  auto bytes = file_read_bytes(p.string(), kMaxTokenizerFileBytes);
  if (!bytes) return make_error(bytes.error());
  return std::string(bytes->begin(), bytes->end());
}

// Wraps a loader's result with the file it came from, and erases the concrete type.
template <class T>
Result<std::shared_ptr<const SubwordTokenizer>> shared(Result<T> r, const fs::path& file) {
  if (!r) return make_error("'" + file.string() + "': " + r.error());
  return std::shared_ptr<const SubwordTokenizer>(std::make_shared<T>(std::move(*r)));
}

Result<std::shared_ptr<const SubwordTokenizer>> load_gpt2(const fs::path& dir) {
  const fs::path vocab = dir / "vocab.json", merges = dir / "merges.txt";
  if (!path_is_file(vocab) || !path_is_file(merges))
    return make_error("'" + dir.string() + "' has no GPT-2 tokenizer: expected tokenizer.json, or vocab.json and merges.txt");
  auto v = read_text(vocab);
  if (!v) return make_error(v.error());
  auto m = read_text(merges);
  if (!m) return make_error(m.error());
  return shared(bpe_from_vocab_merges(*v, *m), vocab);
}

Result<std::shared_ptr<const SubwordTokenizer>> load_bert(const fs::path& dir) {
  const fs::path vocab = dir / "vocab.txt", config = dir / "tokenizer_config.json";
  if (!path_is_file(vocab)) return make_error("'" + dir.string() + "' has no BERT tokenizer: expected tokenizer.json or vocab.txt");
  WordPieceOptions options;  // BertTokenizer's defaults (uncased) when there is no tokenizer_config.json
  if (path_is_file(config)) {
    auto text = read_text(config);
    if (!text) return make_error(text.error());
    auto o = wordpiece_options_from_config(*text);
    if (!o) return make_error("'" + config.string() + "': " + o.error());
    options = *o;
  }
  auto v = read_text(vocab);
  if (!v) return make_error(v.error());
  return shared(wordpiece_from_vocab_txt(*v, options), vocab);
}

// tokenizer.json, with tokenizer_config.json beside it for the padding token when there is one.
Result<std::shared_ptr<const SubwordTokenizer>> load_tokenizer_json(const fs::path& dir) {
  const fs::path tj = dir / "tokenizer.json", config = dir / "tokenizer_config.json";
  auto text = read_text(tj);
  if (!text) return make_error(text.error());
  std::string config_text;
  if (path_is_file(config)) {
    auto c = read_text(config);
    if (!c) return make_error(c.error());
    config_text = std::move(*c);
  }
  auto tok = tokenizer_from_json(*text, config_text);
  if (!tok) return make_error("'" + tj.string() + "': " + tok.error());
  return std::shared_ptr<const SubwordTokenizer>(std::move(*tok));
}

}  // namespace

Result<std::shared_ptr<const SubwordTokenizer>> hf_tokenizer_load(const std::string& folder, CheckpointFamily family) {
  const fs::path dir(folder);
  if (path_is_file(dir / "tokenizer.json")) return load_tokenizer_json(dir);
  if (family == CheckpointFamily::gpt2) return load_gpt2(dir);
  if (family == CheckpointFamily::bert) return load_bert(dir);
  return make_error("'" + dir.string() + "' has no tokenizer: expected tokenizer.json");
}

}  // namespace attnviz
