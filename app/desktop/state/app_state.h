// Everything the app knows, owned by main() — no globals. Panels edit the "what the user asked
// for" and "what the user is looking at" parts (setting `dirty` when the engine must rerun);
// app_update() is the one place that sends work to the engine and installs results, including
// the derived maps the Compare view shows. Panels only read Traces; they never compute attention.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "asset_paths.h"
#include "base/memory_available.h"
#include "io/attention_file.h"
#include "io/presets.h"
#include "io/session.h"
#include "model/config.h"
#include "model/trace.h"
#include "render/colormap.h"
#include "shell/strings.h"
#include "state/generation.h"
#include "state/history.h"
#include "state/compute_worker.h"
#include "state/demo_retrain.h"
#include "state/hangul_compose.h"
#include "state/importance_runner.h"
#include "state/importance_set_state.h"
#include "state/flow_state.h"
#include "state/lens_state.h"
#include "state/patching_state.h"
#include "state/measure_maps.h"
#include "state/local_models_state.h"
#include "state/model_loader.h"
#include "state/model_source.h"
#include "state/shown_words.h"
#include "state/views.h"
#include "views/compare/compare_state.h"
#include "views/coref/coref_state.h"
#include "views/heads/heads_state.h"
#include "views/lines/lines_state.h"
#include "views/stats/stats_state.h"
#include "views/steps/steps_state.h"
#include "views/train/train_state.h"
#include "views/translate/translate_state.h"

namespace attnviz {

struct AppState {
  // What the user asked for.
  std::string sentence = "The animal didn't cross the street because it was too tired.";
  std::string source_sentence = "The animal didn't cross the street because it was too tired.";
  bool cross = false;
  ModelConfig config;  // the sandbox: the paper's base model, C = 512, 8 heads, post-norm, sinusoidal
  uint64_t seed = 1;
  RngGenerator generator = kRngNewest;  // what draws the sandbox from the seed (a session may name the first)
  MaskSpec mask;
  ModelSource source = ModelSource::sandbox;
  std::shared_ptr<const Model> model;  // the model of every source but the sandbox (null there)
  std::shared_ptr<const Model> gather_one_head;  // assets/demo_gather/one_head once read (gather_single_head)
  std::string model_path;              // ModelSource::file / attention: the file or folder it came from
  std::shared_ptr<const AttentionFile> attention;    // ModelSource::attention: the file shown (A)
  std::shared_ptr<const AttentionFile> attention_b;  // ...and a second one, B in the Compare view
  std::string model_error;             // why the last model switch failed (the previous model stays)
  bool model_file_pending = false;     // "File…" chosen in the Model panel, not loaded yet
  std::string model_path_edit;         // the Model panel's path field, opened on "Open"
  std::vector<std::string> recent_models;  // newest first (app/desktop/state/recent_models.h), shown under the path field
  std::string sentence_b;              // a checkpoint with sentence pairs (BERT): [CLS] A [SEP] B [SEP]
  bool vocab_open = false;             // the Model panel's vocabulary list is unfolded
  Ablation ablation;                   // heads switched off in every view (sessions keep it)
  History history;                     // undo / redo of the fields above (state/history.h)

  // What the user is looking at.
  View view = View::heads;
  int layer = 0;
  int head = 0;             // the chosen head (step by step, lines focus, ←/→)
  int query = -1;           // highlighted query row in every head, -1: none
  Colormap cmap = Colormap::viridis;
  bool annotate = true;
  Lang lang = Lang::en;
  bool presentation = false;  // larger fonts and lines for a projector
  bool presentation_panels = false;  // in presentation mode, the side panels (F6); hidden by default
  HangulTyping hangul;        // the built-in Korean typing in the text fields (Shift+Space)
  std::string focus_field;    // a text field to put the keyboard in at the next frame (`focus`), then ""
  std::string scroll_to;      // a section its view scrolls to at the next frame it draws (patching, lens, flow, detectors, table), then ""
  AttentionMeasure measure = AttentionMeasure::weights;  // what Heads, Model view and Lines draw
  ColorScaleSpec color_scale;  // how Heads and the Model view spread values over the colour map
  bool maps_on_demand = false;  // every head's map formed when shown (TraceInput::maps_on_demand), not only a long
                                // input's: the script's `maps on_demand`
  bool first_aside = false;    // Heads, Model view, Lines: the first key drawn apart, the rest of each
                               // row renormalised (weights and rollout; app_first_aside says when it applies)
  WordViewOptions word_view;  // Heads, Model view, Lines, Statistics in words / without special tokens

  // What each view remembers (views/<view>/<view>_state.h), each with reset().
  HeadsState heads;
  LinesState lines;
  CompareState compare;  // its mode and sentence B decide trace B: changing either sets `dirty`
  StepsState steps;
  StatsState stats;
  CorefState coref;
  TrainState train;
  TranslateState translate;  // its own sentence and models: the shipped translation demos

  // Derived state, written only by app_update().
  std::shared_ptr<const Trace> trace;    // A: the newest successful result
  std::shared_ptr<const Trace> trace_b;  // B for the Compare view (null when not shown)
  std::shared_ptr<const Model> trace_model;  // the model that made `trace`
  std::optional<ModelAnswer> answer;       // what the model answers for A (heads off as asked)
  std::optional<ModelAnswer> answer_full;  // with heads off: the full model's answer, for before/after
  std::optional<NoAnswer> answer_error;    // why there is no answer (no output head, no "it", ...)
  GenerationState generation;              // Generate: tokens still to append, the generated positions
  std::optional<ModelAnswer> answer_b;     // B's answer (Compare), when its model gives one
  std::optional<NoAnswer> answer_b_error;  // why B has none, when it is worth saying (a mask not trained with)
  MeasureMaps maps;                        // the measure's maps of A (app_update keeps them current)
  ShownWords words;                        // A in words, when the word toggles are on (state/shown_words.h)
  uint64_t shown_version = 0;              // bumped whenever what the weights views draw changes
  ImportanceRunner importance;             // "which heads matter", off the UI thread
  std::optional<ImportanceResult> importance_result;  // the newest grid (its trace_version says for what)
  ImportanceSetState importance_set;       // ...and over a set of sentences
  PatchingState patching;                  // A's activations patched into B's run, off the UI thread
  LensState lens;                          // the logit lens and direct attribution of A, at one position
  FlowState flow;                          // the flow of information into that position
  uint64_t trace_version = 0;            // bumped whenever A or B is replaced
  std::string error;                     // why the newest request failed (the previous trace stays)
  std::string error_b;
  double compute_seconds = 0;
  std::chrono::steady_clock::time_point compute_finished;  // when the worker finished the shown result
  bool dirty = true;                     // an edit is waiting to be computed
  uint64_t posted_id = 0;                // newest request sent to the worker
  uint64_t shown_id = 0;                 // request the current trace answers
  int64_t trace_max_memory = kTraceMemoryDefault;  // the most bytes one trace may take (TraceInput::max_memory):
                                                   // --max-trace-memory, or sized from the machine at launch
  AssetPaths assets = asset_paths_find();  // where the shipped demos and presets.json are, looked up once
  std::vector<Preset> presets;
  std::vector<PresetSet> preset_sets;      // sets of sentences for "Which heads matter" over a set
  std::string presets_error;
  std::string status;                    // last file action's result, shown in the status bar
  bool status_is_error = false;

  DemoRetrain retrain;          // the coreference demo's live architecture (trains off the UI thread)
  ComputeWorker worker;
  ModelLoader model_loader;     // opens checkpoints off the UI thread (app_open_model)
  LocalModelsWindow local_models;  // File → Open local model… (state/local_models_state.h)
};

// Sends the edit to the worker when dirty, installs finished results and rebuilds derived maps.
// Called once per frame before the panels draw (the GUI then refreshes its textures).
void app_update(AppState& app);
// Sends an edit waiting to be computed (app.dirty) to the engine now, as app_update would at the
// start of the next frame; for an attention file, whose trace is the file's, installs that trace.
void app_send_edit(AppState& app);

// True when the shown view needs trace B (Compare; the Coreference view's minimal pair).
bool app_needs_b(const AppState& app);

// True while the worker has not answered the newest edit, or a model is loading.
bool app_computing(const AppState& app);

// True when the model reads sentence pairs (a BERT checkpoint): the Sentence panel offers B.
bool app_reads_pairs(const AppState& app);

// Switches one head off or on again (every view, recomputed); false when it is not in the model.
bool app_toggle_head(AppState& app, int layer, int head);
// Starts the importance grid for the current trace and sentence (a no-op while it runs for it).
void app_start_importance(AppState& app);
// The importance grid of the current trace, when one has been computed for it.
const ImportanceGrid* app_importance(const AppState& app);

// Whether the first key is set aside in what is drawn: asked for, the measure's rows are distributions,
// and pieces are not merged into words (whose maps are not rebuilt for it).
bool app_first_aside(const AppState& app);
// The map the heatmap views draw for a head of A: its weights (in words when shown) or the chosen
// measure's, with the first key set aside when app_first_aside. Formed now when the trace forms its
// maps on demand (MeasureMaps::formed keeps it while asked for): hold the pointer, not a reference
// to what it points to, while the map is used.
std::shared_ptr<const Mat> app_head_map(const AppState& app, int layer, int head);

// Head h of `layer` of `trace` (A, B or A's words): its weights, kept by the trace or formed on demand
// (A's kept in MeasureMaps::formed while asked for; B's formed each time).
std::shared_ptr<const Mat> app_head_weights(const AppState& app, const Trace& trace, int layer, int head);

// The measure the heatmap views draw: the chosen one once its maps are built, else the weights (the
// words are shown, or the measure could not be built).
AttentionMeasure app_measure_drawn(const AppState& app);

// Whether the heatmap views show one map per layer rather than one per head: the rollout, which
// mixes every head of the layers up to it, once it is built (app_head_map gives it for any head).
bool app_map_per_layer(const AppState& app);

// Every view back to how it first opens (each view's reset()).
void app_reset_views(AppState& app);

// Session files: the state <-> core::Session. Loading replaces the current state only when the
// whole file is valid; otherwise it returns the error and changes nothing.
Session app_capture_session(const AppState& app);
Status app_apply_session(AppState& app, const Session& session);

}  // namespace attnviz
