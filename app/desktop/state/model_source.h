// Switching the model every view shows: the sandbox, a demo from assets/, a file, or the model the
// Train view is training. A failed switch keeps the previous model and says why (model_error).
#pragma once
#include <memory>
#include <string>

#include "base/result.h"
#include "model/model.h"

namespace attnviz {

struct AppState;

// Which model every view shows. The sandbox is built from AppState's `config` and `seed`; the
// others are a fixed Model (`AppState::model`): a demo shipped in assets/, a file, or the Train
// view's model.
// attention: no model at all, the weights of an attention file (state/attention_source.h).
enum class ModelSource { sandbox, demo_coref, demo_induction, demo_gather, file, trained, attention };
inline constexpr ModelSource kAllModelSources[] = {ModelSource::sandbox,        ModelSource::demo_coref,
                                                   ModelSource::demo_induction, ModelSource::demo_gather,
                                                   ModelSource::file,
                                                   ModelSource::trained, ModelSource::attention};

// demo_coref / demo_induction / demo_gather load assets/demo_*/model.safetensors; file loads `path` with
// model_open (a checkpoint folder, a model file, or a folder holding model.safetensors); trained takes the Train view's latest weights. Switching to
// a demo also sets what it needs: the induction demo gets a causal mask and, if the sentence is
// not made of its tokens, a sample sequence with a repeated segment. attention opens `path` as an
// attention file (app_open_attention).
Status app_use_source(AppState& app, ModelSource source, const std::string& path = {});

// A shipped demo by the name --model gives it (demo:coref, demo:induction, demo:gather, or a model of the
// coreference grid, demo:coref/heads2_dmodel32: the coreference demo with that architecture).
// An unknown name is an error listing the known ones, also left in model_error.
Status app_use_demo(AppState& app, const std::string& name);

// Starts opening `path` (a Hugging Face checkpoint folder, an attnviz model file or folder) on the
// loader thread; app_poll_model_loader installs it as ModelSource::file when it is done, adds it to
// the recent models and says so in the status bar. A failure lands in model_error and the previous
// model stays. A demo name (demo:coref, ...) opens at once through app_use_demo. Scripts and
// sessions use app_use_source(file), which loads synchronously.
void app_open_model(AppState& app, const std::string& path);
void app_poll_model_loader(AppState& app);  // once per frame, from app_update

// Installs a model the Train view produced as ModelSource::trained.
void app_use_trained(AppState& app, std::shared_ptr<const Model> model);

// The config the views describe: the fixed model's, or the sandbox's.
const ModelConfig& app_model_config(const AppState& app);

// "sandbox", "coref", "induction", "gather", "file", "trained", "attention": for sessions and scripts.
const char* source_id(ModelSource s);
bool source_from_id(const std::string& id, ModelSource& out);

// The first-launch state: the coreference demo on "The animal didn't cross the street because it
// was too tired.", layer 2 (where the shipped demo's resolving head is) and the pronoun's row
// highlighted. Stays on the sandbox (and says why in model_error) if the demo cannot be read.
void app_open_on_meaning(AppState& app);

// A sentence of the induction demo's tokens with a repeated segment (for the sentence box).
std::string induction_sample_text();

// A preset sentence as the Presets menu sets it: its demo opened first when it names one (a preset
// for the gather demo's words), then the sentence (and a cross-attention source). A demo that does
// not open is in model_error; the sentence is set all the same.
struct Preset;
Status app_apply_preset(AppState& app, const Preset& preset);

// The gather demo's 1-head model of the same d_model and seed (assets/demo_gather/one_head): what
// Compare's "1 head vs N heads" puts beside the shipped 4 heads. Null when it cannot be read.
std::shared_ptr<const Model> gather_single_head(AppState& app);

}  // namespace attnviz
