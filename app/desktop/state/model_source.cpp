// Demo models are read from the assets folder AppState found (app/common/asset_paths.h), the same
// place presets.json comes from. Loading a small demo takes milliseconds, so it happens here, on
// the UI thread; the previous model is replaced only once the new one has loaded.
#include "state/app_state.h"
#include "state/model_source.h"

#include "asset_paths.h"
#include "base/enum_names.h"
#include "base/rng.h"
#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "demos/gather_data.h"
#include "demos/induction_data.h"
#include "demos/induction_demo.h"
#include "io/model_open.h"
#include "io/presets.h"
#include "state/attention_source.h"
#include "state/demo_retrain.h"
#include "state/recent_models.h"
#include "text/word_tokenizer.h"

namespace attnviz {

namespace {

constexpr EnumNames<ModelSource, 7> kSourceIds{{
    {ModelSource::sandbox, "sandbox"}, {ModelSource::demo_coref, "coref"}, {ModelSource::demo_induction, "induction"},
    {ModelSource::demo_gather, "gather"},
    {ModelSource::file, "file"}, {ModelSource::trained, "trained"}, {ModelSource::attention, "attention"}}};
static_assert(std::size(kSourceIds) == std::size(kAllModelSources));


// True when every word of text is in the vocabulary (so the demo sees no [UNK]).
bool text_in_vocab(const std::string& text, const std::vector<std::string>& vocab) {
  auto tokens = tokenize_words(text);
  if (!tokens || tokens->empty()) return false;
  for (const Token& t : *tokens)
    if (std::find(vocab.begin(), vocab.end(), t.text) == vocab.end()) return false;
  return true;
}

void install_model(AppState& app, Model model, ModelSource source, const std::string& path);

// Another model starts with every head on: the heads switched off were the previous model's (its
// layer 1 head 1 is not this one's). The status bar says which came back on. A demo retrained with
// another architecture is the same demo and keeps them (app_state.cpp's ablation_fit_model).
void heads_on_for_new_model(AppState& app) {
  if (app.ablation.heads.empty()) return;
  const std::string msg =
      tr_format(app.lang, Str::ablation_new_model, ablation_heads_label(app.ablation.heads).c_str());
  app.ablation.heads.clear();
  app.status = app.status.empty() || app.status_is_error ? msg : app.status + " · " + msg;
  app.status_is_error = false;
}

}  // namespace

std::string induction_sample_text() {
  Rng rng(seed_for(7, "app.induction.sample"));
  const InductionTrainOptions o;
  auto seq = induction_sequence(rng, o.vocab_size, kInductionLength, kInductionSegment);
  return seq ? induction_text(*seq, induction_vocabulary(o.vocab_size)) : std::string();
}

Status app_use_source(AppState& app, ModelSource source, const std::string& path) {
  if (source == ModelSource::sandbox) {
    if (app.source != ModelSource::sandbox) heads_on_for_new_model(app);
    app.model.reset();
    app.attention.reset();
    app.attention_b.reset();
    app.source = source;
    app.model_error.clear();
    app.dirty = true;
    return Ok{};
  }
  if (source == ModelSource::attention) return app_open_attention(app, path);
  if (source == ModelSource::trained) {
    auto snap = app.train.runner.snapshot();
    if (!snap.model) return make_error("nothing has been trained yet: start training in the Train view");
    app_use_trained(app, snap.model);
    return Ok{};
  }
  std::string from = path;
  if (source != ModelSource::file) {
    auto demo = demo_model_find(app.assets, std::string("demo:") + source_id(source));
    if (!demo) {
      app.model_error = demo.error();
      return make_error(demo.error());
    }
    from = demo->dir;
  }
  auto m = model_open(from);
  if (!m) {
    app.model_error = m.error();
    return make_error(m.error());
  }
  if (source != ModelSource::file)  // the short name people see in the panel and the status bar
    m->source = std::string("assets/demo_") + source_id(source);
  if (demo_is_live(source)) {  // the shipped architecture, whatever was trained before
    demo_shown_arch(app.retrain, source) = demo_shipped_arch(source);
    app.retrain.outcome.reset();
  }
  install_model(app, std::move(*m), source, path);
  return Ok{};
}

Status app_use_demo(AppState& app, const std::string& name) {
  auto demo = demo_model_find(app.assets, name);
  if (!demo) {
    app.model_error = demo.error();
    return make_error(demo.error());
  }
  if (demo->demo == "translate") {  // an encoder-decoder: none of the views reads one yet
    app.model_error = name + " is the translation demo's encoder-decoder: attnviz-cli translate reads it; the app's views do not yet";
    return make_error(app.model_error);
  }
  ModelSource source = ModelSource::demo_coref;
  if (!source_from_id(demo->demo, source)) return make_error("unknown demo '" + demo->demo + "'");
  if (Status s = app_use_source(app, source); !s) return s;
  if (demo->grid_key.empty()) return Ok{};
  // One of the grid's models: the coreference demo with that architecture, as the Model panel
  // would pick it (and shows it), found in the grid without training.
  CorefTrainOptions arch = coref_options(app.retrain.coref);
  char rest = 0;
  if (std::sscanf(demo->grid_key.c_str(), "heads%d_dmodel%d%c", &arch.n_heads, &arch.d_model, &rest) != 2 ||
      coref_arch_key(arch) != demo->grid_key || !coref_arch_in_grid(arch))
    return make_error(name + ": not an architecture of the coreference grid");
  demo_retrain_request(app, DemoJob{ModelSource::demo_coref, coref_arch(arch)});
  if (app.retrain.training) {  // the grid's folder is there, yet its model did not open
    app.retrain.runner.reset();
    app.retrain.training = false;
    app.model_error = name + ": " + demo->dir + "/model.safetensors did not open";
    return make_error(app.model_error);
  }
  return Ok{};
}

void app_open_model(AppState& app, const std::string& path) {
  if (path.empty()) {
    app.model_error = "type the path of a checkpoint folder or a model file first";
    return;
  }
  if (demo_name_given(path)) {  // a shipped demo opens at once, as if chosen in the Model panel
    (void)app_use_demo(app, path);  // a failure is in model_error
    return;
  }
  if (!app.model_loader.start(path)) {
    app.model_error = "a model is still loading; wait for it to finish";
    return;
  }
  app.model_error.clear();
  app.model_path_edit = path;  // the path field shows what is loading
}

void app_poll_model_loader(AppState& app) {
  auto done = app.model_loader.take();
  if (!done) return;
  if (!done->model) {
    app.model_error = done->model.error();
    app.status = done->model.error();  // also where a dropped path's failure is looked for
    app.status_is_error = true;
    return;
  }
  const Model& m = *done->model;
  const Lang L = app.lang;
  const std::string words = m.tokenizer ? tr_format(L, Str::loaded_pieces, std::string(m.tokenizer->kind_name()).c_str(),
                                                    m.tokenizer->vocab_size())
                            : m.vocab.empty() ? std::string()
                                              : tr_format(L, Str::loaded_words, static_cast<int>(m.vocab.size()));
  app.status = tr_format(L, Str::loaded_model, done->path.c_str(), m.config.n_layers, m.config.n_heads, m.config.d_model,
                         words.c_str(), done->seconds);
  install_model(app, std::move(*done->model), ModelSource::file, done->path);
  app.model_file_pending = false;
  app.status_is_error = false;
  if (Status s = recent_models_add(app.recent_models, done->path); !s) {
    app.status += " · " + s.error();  // the model is open; only remembering it failed
  }
}

namespace {

void install_model(AppState& app, Model model, ModelSource source, const std::string& path) {
  heads_on_for_new_model(app);
  app.model = std::make_shared<const Model>(std::move(model));
  app.attention.reset();
  app.attention_b.reset();
  app.source = source;
  app.model_path = source == ModelSource::file ? path : std::string();
  app.model_error.clear();
  if (source == ModelSource::demo_induction) {
    app.mask = MaskSpec{};
    app.mask.causal = true;  // a decoder: each token sees only what came before it
    if (!text_in_vocab(app.sentence, app.model->vocab)) app.sentence = induction_sample_text();
  } else if (source == ModelSource::demo_gather) {
    app.mask = MaskSpec{};
    if (gather_make(app.sentence).answer < 0) app.sentence = std::string(kGatherSentence);  // seed 003's
  } else {
    app.mask = MaskSpec{};  // a checkpoint that is causal (GPT) applies its own causal mask
  }
  app.trace_b.reset();
  app.error_b.clear();
  app.query = -1;
  app.dirty = true;
}

}  // namespace

void app_use_trained(AppState& app, std::shared_ptr<const Model> model) {
  if (!model) return;
  const bool decoder = app.train.demo == DemoKind::induction;
  if (app.source != ModelSource::trained) {
    heads_on_for_new_model(app);
    app.mask = MaskSpec{};
    app.mask.causal = decoder;
    if (decoder && !text_in_vocab(app.sentence, model->vocab)) app.sentence = induction_sample_text();
  }
  app.model = std::move(model);
  app.attention.reset();
  app.attention_b.reset();
  app.source = ModelSource::trained;
  app.model_error.clear();
  app.dirty = true;
}

const ModelConfig& app_model_config(const AppState& app) {
  if (app.source == ModelSource::attention && app.attention) return app.attention->trace.config;
  return app.source != ModelSource::sandbox && app.model ? app.model->config : app.config;
}

const char* source_id(ModelSource s) { return enum_name(kSourceIds, s).data(); }  // names are literals

bool source_from_id(const std::string& id, ModelSource& out) {
  const auto s = enum_from_name(kSourceIds, id);
  if (s) out = *s;
  return s.has_value();
}

void app_open_on_meaning(AppState& app) {
  if (Status s = app_use_source(app, ModelSource::demo_coref); !s) return;
  app.sentence = "The animal didn't cross the street because it was too tired.";
  app.layer = 1;
  app.head = 3;  // the shipped demo's head 4 of layer 2 sends "it" to its referent (README; a test checks it)
  app.query = coref_make(app.sentence).pronoun;
  app.dirty = true;
}

std::shared_ptr<const Model> gather_single_head(AppState& app) {
  if (app.gather_one_head) return app.gather_one_head;
  auto demo = demo_model_find(app.assets, "demo:gather");
  if (!demo) return nullptr;
  auto m = model_open(demo->dir + "/one_head");
  if (!m) return nullptr;
  m->source = "assets/demo_gather/one_head";
  app.gather_one_head = std::make_shared<const Model>(std::move(*m));
  return app.gather_one_head;
}

Status app_apply_preset(AppState& app, const Preset& p) {
  Status opened = p.model.empty() ? Status(Ok{}) : app_use_demo(app, p.model);
  app.sentence = p.text;
  app.cross = !p.source.empty();
  if (app.cross) app.source_sentence = p.source;
  app.query = -1;
  app.dirty = true;
  return opened;
}

}  // namespace attnviz
