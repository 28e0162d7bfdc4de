// Everything the app knows, owned by main() — no globals. Panels edit the "what the user asked
// for" and "what the user is looking at" parts (setting `dirty` when the engine must rerun);
// app_update() is the one place that sends work to the engine and installs results, including
// the derived maps the Compare view shows. Panels only read Traces; they never compute attention.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "state/compute_worker.h"
#include "state/model_loader.h"
#include "views/coref/coref_state.h"
#include "widgets/heatmap_textures.h"
#include "views/train/train_state.h"
#include "views/stats/stats_state.h"
#include "shell/strings.h"
#include "render/colormap.h"
#include "model/config.h"
#include "io/presets.h"
#include "io/session.h"
#include "model/trace.h"

namespace attnviz {

enum class View { heads, model, lines, compare, steps, stats, coref, train };
inline constexpr View kAllViews[] = {View::heads, View::model, View::lines, View::compare,
                                     View::steps, View::stats, View::coref, View::train};

// Which model every view shows. The sandbox is built from `config` and `seed`; the others are a
// fixed Model (`AppState::model`): a demo shipped in assets/, a file, or the Train panel's model.
enum class ModelSource { sandbox, demo_coref, demo_induction, file, trained };
inline constexpr ModelSource kAllModelSources[] = {ModelSource::sandbox, ModelSource::demo_coref,
                                                   ModelSource::demo_induction, ModelSource::file,
                                                   ModelSource::trained};

// What the Compare view puts beside the main trace (A). B is computed only while Compare is shown.
enum class CompareMode {
  sentence_b,          // the same model on a second sentence ("tired" vs "wide")
  single_vs_multi,     // one head at the same d_model vs the configured heads (and their average)
  masked_vs_unmasked,  // the masks as set vs none (or causal, when none is set)
  scaled_vs_unscaled,  // ÷√d_k on vs off
};
inline constexpr CompareMode kAllCompareModes[] = {CompareMode::sentence_b, CompareMode::single_vs_multi,
                                                   CompareMode::masked_vs_unmasked, CompareMode::scaled_vs_unscaled};

// Maps derived from A and B for the chosen layer, rebuilt by app_update when either changes.
struct CompareMaps {
  std::vector<Mat> a;        // per head of A, plus (single_vs_multi) the average of A's heads last
  std::vector<Mat> b;        // per head of B
  std::vector<Mat> diff;     // a[i] - b[i] where shapes match (single_vs_multi: average - B's head)
  std::vector<std::string> a_titles, b_titles, diff_titles;
  std::string note;          // why a difference could not be drawn (different token counts), else empty
  uint64_t key = 0;          // (trace version, layer) these maps were built for
};

// Where a head's heatmap landed on screen this frame (written while drawing, read by
// --layout-report so the GUI tests can check pixels against the engine's weights).
struct DrawnHeatmap {
  int layer = 0, head = 0;
  float x = 0, y = 0, cell = 0;  // top-left of cell (0, 0) and the cell size, in framebuffer pixels
  int rows = 0, cols = 0;
};

struct AppState {
  // What the user asked for.
  std::string sentence = "The animal didn't cross the street because it was too tired.";
  std::string source_sentence = "The animal didn't cross the street because it was too tired.";
  bool cross = false;
  ModelConfig config;  // the sandbox: the paper's base model, C = 512, 8 heads, post-norm, sinusoidal
  uint64_t seed = 1;
  MaskSpec mask;
  ModelSource source = ModelSource::sandbox;
  std::shared_ptr<const Model> model;  // the model of every source but the sandbox (null there)
  std::string model_path;              // ModelSource::file: the file or folder it came from
  std::string model_error;             // why the last model switch failed (the previous model stays)
  bool model_file_pending = false;     // "File…" chosen in the Model panel, not loaded yet
  std::string model_path_edit;         // the Model panel's path field, opened on "Open"
  std::vector<std::string> recent_models;  // newest first (app/desktop/state/recent_models.h), shown under the path field
  std::string sentence_b;              // a checkpoint with sentence pairs (BERT): [CLS] A [SEP] B [SEP]
  bool vocab_open = false;             // the Model panel's vocabulary list is unfolded
  // Changing either of these needs a new B: set `dirty` (app_update asks for B with every request
  // while the Compare view is shown).
  CompareMode compare_mode = CompareMode::sentence_b;
  std::string compare_sentence = "The animal didn't cross the street because it was too wide.";

  // What the user is looking at.
  View view = View::heads;
  int layer = 0;
  int head = 0;             // the chosen head (step by step, lines focus, ←/→)
  int zoom_head = -1;       // Heads view: >= 0 shows one head at full size
  int query = -1;           // highlighted query row in every head, -1: none
  int step = 0;             // Step by step: index of the current step
  Colormap cmap = Colormap::viridis;
  bool annotate = true;
  Lang lang = Lang::en;
  bool presentation = false;         // larger fonts and lines for a projector
  std::vector<uint8_t> lines_hidden; // Lines view: 1 = head switched off (size NH)
  int stats_sort_column = 0;         // Statistics view
  bool stats_sort_descending = false;
  StatsCache stats_cache;            // Statistics view: rows built by panel_stats, keyed by trace_version
  struct {                           // Step by step: the shown head's scores (head_scores), per trace
    uint64_t version = 0;
    int layer = -1, head = -1;
    HeadScores scores;
  } steps_scores;
  CorefViewState coref_view;         // Coreference view
  TrainViewState train_view;         // Train view: settings, runners and what they last reported

  // Derived state, written only by app_update().
  std::shared_ptr<const Trace> trace;    // A: the newest successful result
  std::shared_ptr<const Trace> trace_b;  // B for the Compare view (null when not shown)
  uint64_t trace_version = 0;            // bumped whenever A or B is replaced
  CompareMaps compare;
  std::string error;                     // why the newest request failed (the previous trace stays)
  std::string error_b;
  double compute_seconds = 0;
  bool dirty = true;                     // an edit is waiting to be computed
  uint64_t posted_id = 0;                // newest request sent to the worker
  uint64_t shown_id = 0;                 // request the current trace answers
  std::vector<Preset> presets;
  std::string presets_error;
  std::vector<DrawnHeatmap> drawn;       // cleared each frame by the shell, filled by the Heads view
  std::string status;                    // last file action's result, shown in the status bar
  bool status_is_error = false;

  int texture_side = kMaxTextureSide;  // long inputs: maps are pooled to this (set by the view drawing them)
  struct {                             // Heads view, a zoomed head of a long input: the window shown
    float zoom = 1;                    // 1: the whole map; n: 1/n of its rows and columns
    float row0 = 0, col0 = 0;          // top-left cell of the window (fractional while dragging)
  } heads_viewport;
  HeatmapTextures detail_texture;      // that window at full resolution (or pooled to the drawn size)
  ComputeWorker worker;
  ModelLoader model_loader;     // opens checkpoints off the UI thread (app_open_model)
  HeatmapTextures textures;     // every layer x head of A, index layer * NH + head
  HeatmapTextures textures_b;   // every layer x head of B
  HeatmapTextures textures_cmp; // compare: a, then b, then diff (diverging colour map)
};

// Sends the edit to the worker when dirty, installs finished results and rebuilds derived maps
// and textures. Called once per frame before the panels draw.
void app_update(AppState& app);

// True when the shown view needs trace B (Compare; the Coreference view's minimal pair).
bool app_needs_b(const AppState& app);

// True while the worker has not answered the newest edit, or a model is loading.
bool app_computing(const AppState& app);

// True when the model reads sentence pairs (a BERT checkpoint): the Sentence panel offers B.
bool app_reads_pairs(const AppState& app);

// The texture of head h of layer l of A.
unsigned app_head_texture(const AppState& app, int layer, int head);

// Session files: the state <-> core::Session. Loading replaces the current state only when the
// whole file is valid; otherwise it returns the error and changes nothing.
Session app_capture_session(const AppState& app);
Status app_apply_session(AppState& app, const Session& session);

// Per-view names for sessions and scripts ("heads", "model", ...).
const char* view_id(View v);
bool view_from_id(const std::string& id, View& out);

}  // namespace attnviz
