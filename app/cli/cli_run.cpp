// Each output is independent: a failed --png does not stop --json, and every failure is reported
// with the file it concerns. Nothing is recomputed per output; all read the one Trace.
#include "cli_run.h"

#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "analysis/export.h"
#include "analysis/measures.h"
#include "analysis/word_view.h"
#include "analysis/stats.h"
#include "asset_paths.h"
#include "base/file_io.h"
#include "base/memory_available.h"
#include "font_find.h"
#include "io/attention_file.h"
#include "io/model_file.h"
#include "io/model_open.h"
#include "io/npy.h"
#include "model/head_map.h"
#include "model/mask.h"
#include "model/trace.h"
#include "version.h"

namespace attnviz {

namespace {

// The architecture flags must agree with a model that fixes its own architecture (a model file's
// config, a checkpoint's config.json, a PyTorch state dict's shapes): a differing value cannot be
// applied to the file's weights, and dropping it without a word would show another model than the
// one asked for. The message names both values; a flag equal to the file's value is fine.
Status flags_agree(const CliOptions& o, const ModelConfig& file) {
  const ModelConfig& a = o.config;
  auto number = [](float v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  struct Field {
    const char* flag;
    const char* key;  // as config_to_json names it
    bool same;
    std::string asked, has;
  };
  const Field fields[] = {
      {"d-model", "d_model", a.d_model == file.d_model, std::to_string(a.d_model), std::to_string(file.d_model)},
      {"heads", "n_heads", a.n_heads == file.n_heads, std::to_string(a.n_heads), std::to_string(file.n_heads)},
      {"layers", "n_layers", a.n_layers == file.n_layers, std::to_string(a.n_layers), std::to_string(file.n_layers)},
      {"ffn", "d_ff", a.d_ff == file.d_ff, std::to_string(a.d_ff), std::to_string(file.d_ff)},
      {"activation", "activation", a.activation == file.activation, std::string(name_of(a.activation)),
       std::string(name_of(file.activation))},
      {"norm", "norm", a.norm == file.norm, std::string(name_of(a.norm)), std::string(name_of(file.norm))},
      {"positions", "positions", a.positions == file.positions, std::string(name_of(a.positions)),
       std::string(name_of(file.positions))},
      {"ln-eps", "ln_eps", a.ln_eps == file.ln_eps, number(a.ln_eps), number(file.ln_eps)},
  };
  for (const Field& f : fields)
    if (o.given.count(f.flag) && !f.same)
      return make_error("--" + std::string(f.flag) + " " + f.asked + " disagrees with the model file's " + f.key + " " +
                        f.has);
  return Ok{};
}

// The scoring function and temperature are not the file's to fix: they are what attnviz lets one try
// on any weights, so given flags replace the file's (its per-head choices too, for --score).
Status apply_experiments(const CliOptions& o, Model& model) {
  ModelConfig& c = model.config;
  if (o.given.count("score")) {
    c.score = o.config.score;
    c.head_scores.clear();
  }
  if (o.given.count("head-scores")) c.head_scores = o.config.head_scores;
  if (o.given.count("temperature")) c.temperature = o.config.temperature;
  if (Status s = config_validate(c); !s) return s;
  model_ensure_score_parameters(model, kMissingScoreSeed);  // for a scoring function the file lacks
  return Ok{};
}

Result<TraceInput> make_input(const CliOptions& o) {
  TraceInput in;
  in.max_memory = cli_trace_memory(o);
  in.mask = o.mask;
  in.ablation = o.ablation;
  if (!o.input_npy.empty()) {
    auto x = npy_read(o.input_npy);
    if (!x) return make_error(x.error());
    in.embeddings = std::move(*x);
  } else {
    in.text = o.text;
    in.text_b = o.text_b;
    in.source_text = o.source_text;
  }
  return in;
}

void print_summary(const Trace& t, std::ostream& out) {
  const std::string sizes = counted(t.config.n_heads, "head") + ", " + counted(t.config.n_layers, "layer");
  if (t.weights_only)
    out << (t.cross ? "cross-attention: " : "attention file: ") << t.model_source << " — " << sizes
        << ", weights only\n";
  else
    out << "model: " << t.model_source << " — d_model " << t.config.d_model << ", " << sizes << ", "
        << name_of(t.config.norm) << "-norm\n";
  auto print_tokens = [&](const char* label, const std::vector<TraceToken>& tokens) {
    out << label << " (" << tokens.size() << "):";
    for (size_t i = 0; i < tokens.size(); ++i) out << " " << i << ":" << tokens[i].text << (tokens[i].in_vocab ? "" : "*");
    out << "\n";
  };
  print_tokens(t.cross ? "queries" : "tokens", t.queries);
  if (t.cross) print_tokens("keys", t.keys);
  std::vector<bool> punct;
  for (const TraceToken& k : t.keys) punct.push_back(k.kind == TokenKind::punct);
  out << "\nlayer head score        entropy  max_w  mean_dist  first_tok  punct  strongest key of the last query\n";
  for (size_t l = 0; l < t.layers.size(); ++l)
    for (size_t h = 0; h < t.layers[l].attn.heads.size(); ++h) {
      const HeadTrace& head = t.layers[l].attn.heads[h];
      const HeadMap map = head_map(t, static_cast<int>(l), static_cast<int>(h));  // one at a time
      const HeadStats s = head_stats(*map, punct);
      const auto top = top_keys(*map, t.n_queries() - 1, 1);
      out << std::setw(5) << l << std::setw(5) << h << "  " << std::left << std::setw(11) << (t.weights_only ? "-" : name_of(head.score))
          << std::right << std::fixed << std::setprecision(3) << std::setw(9) << s.entropy << std::setw(7)
          << s.max_weight << std::setw(11) << s.mean_distance << std::setw(11) << s.first_token_share << std::setw(7)
          << s.punct_share << "  ";
      if (!top.empty()) out << t.keys[static_cast<size_t>(top[0].key)].text << " (" << top[0].weight << ")";
      out << "\n";
    }
  out.unsetf(std::ios::floatfield);
}

// A query whose every key is hidden attends nowhere: its weights are all 0 (not NaN), which a
// reader of the numbers could take for a bug, so the CLI says which rows those are.
void print_fully_masked(const Trace& t, std::ostream& err) {
  const std::vector<int> rows = mask_fully_hidden_rows(t.mask);
  if (rows.empty()) return;
  err << "attnviz-cli: note: every key is masked for " << (rows.size() == 1 ? "query" : "queries");
  for (size_t i = 0; i < rows.size() && i < 8; ++i)
    err << (i ? ", " : " ") << rows[i] << " (" << t.queries[static_cast<size_t>(rows[i])].text << ")";
  if (rows.size() > 8) err << " and " << rows.size() - 8 << " more";
  err << ": " << (rows.size() == 1 ? "its attention row is" : "their attention rows are") << " all zeros\n";
}

// The maps --measure asks for, computed only for what the outputs show: every head for --json,
// one layer for --png, one head for --csv.
struct MeasureMaps {
  std::vector<std::vector<Mat>> value_norm;  // [L][NH], the layers asked for (others empty)
  std::vector<Mat> rollout;                  // [L]
};

// `model` may be null only for the weights and rollout (an attention file).
Result<MeasureMaps> measure_maps(const CliOptions& o, const Model* model, const Trace& t) {
  MeasureMaps m;
  if (o.measure == AttentionMeasure::rollout) {
    auto r = attention_rollout(t);
    if (!r) return make_error(r.error());
    m.rollout = std::move(*r);
  }
  if (o.measure == AttentionMeasure::value_norm) {
    m.value_norm.resize(t.layers.size());
    for (int l = 0; l < static_cast<int>(t.layers.size()); ++l) {
      if (o.json_path.empty() && l != o.layer) continue;
      for (int h = 0; h < t.config.n_heads; ++h) {
        if (!model) return make_error("value-norm needs the model");
        auto map = value_norm_map(*model, t, l, h);
        if (!map) return make_error(map.error());
        m.value_norm[static_cast<size_t>(l)].push_back(std::move(*map));
      }
    }
  }
  return m;
}

// The measure's maps of one layer (one per head): the value-norm maps, or the layer's rollout for
// every head; null for the weights.
std::optional<std::vector<Mat>> layer_maps(const CliOptions& o, const MeasureMaps& m, const Trace& t) {
  if (o.layer < 0 || o.layer >= static_cast<int>(t.layers.size())) return std::nullopt;
  if (o.measure == AttentionMeasure::value_norm) return m.value_norm[static_cast<size_t>(o.layer)];
  if (o.measure == AttentionMeasure::rollout)
    return std::vector<Mat>(static_cast<size_t>(t.config.n_heads), m.rollout[static_cast<size_t>(o.layer)]);
  return std::nullopt;
}

// The layer's grid as a PNG (at --png-scale) or an SVG (in pixels at scale 1): one layout for both.
Status write_grid(const CliOptions& o, const Trace& t, const std::optional<std::vector<Mat>>& maps, bool svg) {
  // --first-aside: each head's map (the weights, or the measure's) with the first key set aside.
  std::vector<Mat> aside;
  if (o.first_aside && o.layer >= 0 && o.layer < static_cast<int>(t.layers.size()))
    for (int h = 0; h < t.config.n_heads; ++h)
      aside.push_back(attention_first_key_aside(maps ? (*maps)[static_cast<size_t>(h)] : *head_map(t, o.layer, h)));
  const std::vector<Mat>* shown = !aside.empty() ? &aside : maps ? &*maps : nullptr;
  auto spec = trace_layer_grid(t, o.layer, shown, name_of(o.measure));
  if (!spec) return make_error(spec.error());
  spec->scale = svg ? 1.0f : o.png_scale;
  spec->cmap = o.colormap;
  spec->color_scale = o.color_scale;
  spec->first_column_apart = !aside.empty();
  if (spec->color_scale.kind != ColorScale::linear) spec->caption += std::string(" — ") + std::string(name_of(o.color_scale.kind)) + " colour scale";
  if (spec->first_column_apart) spec->caption += " — first token apart (grey), rest renormalised";
  const std::optional<FontRaster> font = font_find_and_load();  // no font: ASCII fallback labels
  const FontRaster* f = font ? &*font : nullptr;
  if (svg) {
    auto fig = heatmap_grid_figure(*spec, f);
    return fig ? figure_svg_write(o.svg_path, *fig, f) : Status(make_error(fig.error()));
  }
  auto image = heatmap_grid_render(*spec, f);
  if (!image) return make_error(image.error());
  return png_write(o.png_path, *image);
}

// The outputs every trace gives, a model's or an attention file's: the summary when nothing else
// is asked for, --json, --csv and --png. Returns the exit status so far.
int write_outputs(const CliOptions& o, const Model* model, const Trace& trace, std::ostream& out, std::ostream& err) {
  int status = 0;
  auto fail = [&](const std::string& message) { return cli_fail(err, message); };
  auto report = [&](const Status& s, const std::string& what) {
    if (!s) status = fail(what + ": " + s.error());
  };
  auto measures = measure_maps(o, model, trace);
  if (!measures) return fail("--measure " + std::string(name_of(o.measure)) + ": " + measures.error());
  const std::optional<std::vector<Mat>> maps = layer_maps(o, *measures, trace);
  if (!o.json_path.empty()) {
    JsonExportOptions options{o.json_weights, true, o.top_k};
    if (o.measure == AttentionMeasure::value_norm) options.value_norm = &measures->value_norm;
    if (o.measure == AttentionMeasure::rollout) options.rollout = &measures->rollout;
    const std::string json = trace_to_json(trace, o.mask, options);
    if (o.json_path == "-") out << json << "\n";
    else report(file_write_atomic(o.json_path, json), "--json");
  }
  // Standard output may be a full disk: flushing here turns a silently lost --json - into exit 1.
  if (!out.flush()) status = fail("cannot write to standard output (is the disk full?)");
  if (!o.csv_path.empty()) {
    const Mat* map = maps && o.head >= 0 && o.head < static_cast<int>(maps->size()) ? &(*maps)[static_cast<size_t>(o.head)]
                                                                                    : nullptr;
    auto csv = trace_head_csv(trace, o.layer, o.head, map);
    report(csv ? file_write_atomic(o.csv_path, *csv) : Status(make_error(csv.error())), "--csv");
  }
  if (!o.png_path.empty()) report(write_grid(o, trace, maps, false), "--png");
  if (!o.svg_path.empty()) report(write_grid(o, trace, maps, true), "--svg");
  return status;
}

// attention --attention FILE: the file's weights, as a model's trace would show them. Rows that do
// not sum to 1 are listed on standard error (they are shown as they are, not renormalised).
int attention_file_run(const CliOptions& o, std::ostream& out, std::ostream& err) {
  auto file = attention_file_read(o.attention_path);
  if (!file) {
    return cli_fail(err, file.error());
  }
  if (o.cross && !file->cross_trace) {
    err << "attnviz-cli: --cross: " << o.attention_path << " has no cross_attentions\n";
    return 1;
  }
  if (!file->off_rows.empty())
    err << "attnviz-cli: note: " << file->off_rows.size() << " attention row(s) do not sum to 1 (within "
        << kRowSumTolerance << "), shown as saved: " << off_rows_summary(file->off_rows) << "\n";
  const bool any_output = !o.json_path.empty() || !o.csv_path.empty() || !o.png_path.empty() || !o.svg_path.empty();
  if (!any_output) {
    print_summary(file->trace, out);
    if (file->cross_trace) {
      out << "\n";
      print_summary(*file->cross_trace, out);
    }
  }
  return write_outputs(o, nullptr, o.cross ? *file->cross_trace : file->trace, out, err);
}

// Every command but help and version, with --model naming a folder or file (not a demo).
int run_command(const CliOptions& o, std::ostream& out, std::ostream& err) {
  if (o.command == CliCommand::train_coref) return cli_train_coref(o, out, err);
  if (o.command == CliCommand::train_induction) return cli_train_induction(o, out, err);
  if (o.command == CliCommand::train_gather) return cli_train_gather(o, out, err);
  if (o.command == CliCommand::train_translate) return cli_train_translate(o, out, err);
  if (o.command == CliCommand::train_pair) return cli_train_pair(o, out, err);
  if (o.command == CliCommand::predict) return cli_predict(o, out, err);
  if (o.command == CliCommand::heads) return o.logit_attribution ? cli_logit_attribution(o, out, err) : cli_heads(o, out, err);
  if (o.command == CliCommand::patch) return cli_patch(o, out, err);
  if (o.command == CliCommand::sentences) return cli_sentences(o, out, err);
  if (o.command == CliCommand::generate) return cli_generate(o, out, err);
  if (o.command == CliCommand::translate) return cli_translate(o, out, err);
  if (!o.attention_path.empty()) return attention_file_run(o, out, err);
  auto fail = [&](const std::string& message) { return cli_fail(err, message); };
  const std::string& path = o.model_path.empty() ? o.weights_path : o.model_path;
  if (path.empty() && o.layers_kept >= 0) return fail("--layers-kept needs a GGUF model (--model FILE.gguf)");
  // The process ends soon after: a file's F32 weights are read in place, not copied.
  auto model = path.empty() ? model_init_random(o.config, o.seed, o.generator)
                            : model_open(path, o.config, {}, MappedValues::in_place, o.layers_kept);
  if (!model) return fail(model.error());
  if (!path.empty()) {
    // A flag at odds with the file is a usage error, as one at odds with another flag is.
    if (Status s = flags_agree(o, model->config); !s) {
      fail(s.error());
      return 2;
    }
    if (Status s = apply_experiments(o, *model); !s) return fail(s.error());
  }
  auto input = make_input(o);
  if (!input) return fail(input.error());
  auto trace = trace_run(*model, *input);
  if (!trace) return fail(trace.error());
  if (o.word_view.any()) {  // words for pieces, no special tokens: what every output below shows
    auto words = trace_word_view(*trace, o.word_view);
    if (!words) return fail(words.error());
    trace = std::move(*words);
  }

  print_fully_masked(*trace, err);
  const bool any_output = !o.json_path.empty() || !o.csv_path.empty() || !o.png_path.empty() || !o.svg_path.empty() ||
                          !o.save_weights.empty();
  if (!any_output) print_summary(*trace, out);
  int status = write_outputs(o, &*model, *trace, out, err);
  if (!o.save_weights.empty())
    if (Status s = model_save(o.save_weights, *model); !s) status = fail("--save-weights: " + s.error());
  return status;
}

}  // namespace

int cli_run(const CliOptions& o, std::ostream& out, std::ostream& err) {
  if (o.command == CliCommand::help) {
    out << cli_help();
    return 0;
  }
  if (o.command == CliCommand::version) {
    out << version_text(o.verbose);
    return 0;
  }
  if (!demo_name_given(o.model_path)) return run_command(o, out, err);
  // A shipped demo's name becomes its folder here, once, for every command that takes --model.
  auto demo = demo_model_find(asset_paths_find(), o.model_path);
  if (!demo) {
    return cli_fail(err, demo.error());
  }
  if ((demo->demo == "translate") != (o.command == CliCommand::translate))
    return cli_fail(err, demo->demo == "translate"
                             ? o.model_path + " is an encoder-decoder: attnviz-cli translate reads it"
                             : "translate reads a translation model (demo:translate), not " + o.model_path);
  CliOptions resolved = o;
  resolved.model_path = demo->dir;
  return run_command(resolved, out, err);
}

int64_t cli_trace_memory(const CliOptions& o) {
  return o.max_trace_memory > 0 ? o.max_trace_memory : trace_memory_limit(memory_available(memory_texts_read()));
}

int cli_fail(std::ostream& err, std::string_view message) {
  err << "attnviz-cli: " << message << "\n";
  return 1;
}

std::string counted(long long n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace attnviz
