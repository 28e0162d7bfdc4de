// --script FILE: drives the app through a list of actions, one per line, as a person would with
// mouse and keyboard — used by the GUI tests. Each action runs once the engine has answered the
// previous one, and a frame is drawn in between (`nowait` runs one at once: a person does not wait
// either). Layers, heads and queries count from 0. A script starts from the sandbox, not from the
// coreference demo a plain launch opens on, so that it replays the same everywhere: `model coref`
// first to begin there.
//
//   sentence TEXT | sentence_b TEXT (pair, BERT) | source TEXT | cross on|off | compare_sentence TEXT
//   d_model N | heads N | layers N | ffn N (0: attention only) | seed N | score NAME | temperature T | norm post|pre
//   mask causal on|off | mask window R|off | mask strided S|off | mask pad N|off | mask hide Q K | mask none
//   model sandbox|coref|induction|trained | model file PATH (loads at once) | vocabulary on|off
//   model open PATH [SCREENSHOT] (off the UI thread, as the Open button; SCREENSHOT: the next frame, mid-load)
//   local_models (File → Open local model…: scans the stores) | local_models open NAME (a double-click on
//     that row: opens it off the UI thread) | local_models close
//   open_attention PATH | open_attention_b PATH (Compare's B) | drop PATH (as dropped on the window: by what it is)
//   coref_swap (sentence B := A's minimal pair, tired <-> wide) | coref_swap ab (swap sentences A and B)
//   view heads|model|lines|compare|steps|stats|coref|train|translate | compare MODE | layer L | head H | query Q | step S
//   zoom_head H [ZOOM ROW COL] (Heads view: zoom head H, -1: none; a long input's window, ZOOM >= 1)
//   lang en|ko | presentation on|off | panels on|off (presentation mode's side panels) | annotate on|off | colormap NAME
//   color_scale linear|log|power | first_aside on|off (Heads, Model view: the first key apart, rows renormalised)
//   undo | redo (Ctrl+Z / Ctrl+Shift+Z: sentence edits and toggles, state/history.h)
//   words on|off (merge pieces into words) | hide_special on|off (Heads, Model view, Lines, Statistics)
//   export png PATH [SCALE] (the layer's heads grid) | export csv PATH | export json PATH | save PATH | open PATH
//   export view png|svg PATH [SCALE] (the shown view as a figure: PNG at SCALE, or SVG; state/view_figure.h)
//   export slides DIR (every view and every step as 16:9 pages, 1920 x 1080 PNG and SVG)
//   export data patching|attribution|lens|flow|qk|set PATH (.csv or .json: an explanation panel's numbers; state/panel_export.h)
//   train start|pause|resume|stop|reset|wait|compare|use | train save PATH | train demo coref|induction
//   train pair_stop|pair_reset | train pair_demo gather|coref | train pair_seed N | train pair_heads N
//   train pair_steps N (the gather pair's) | train expect_ahead (the pair ended with the N-head model ahead)
//   train seed N | train heads N | train d_model N | train steps N | train report N   (see script_train)
//   arch heads=N d_model=C layers=L ffn=F score=S norm=N positions=P (any of them): the shown demo's
//     (coreference or induction) architecture; trains if not shipped or cached. coref_arch: the same,
//     when the coreference demo is shown
//   translate VERB ... (the Translation view: text, model, tab, head, head_off, head_on, step, curve;
//     views/translate/translate_script.h, with its expectations translation, translate_error,
//     translate_exact and translate_gap)
//   importance_set demo | pairs | preset ID | file PATH | sentence | set | measure | cell L H   ("Which heads
//     matter" over a set: the coreference demo's held-out sentences, with their minimal pairs, a preset set of
//     presets.json or a file; measure waits; expect importance_set "L:H K of N")
//   patching head|position | patching cell L C   (A patched into B: the Coreference view and Compare's
//     sentence B; expect patching L C EFFECT | expect patching_error TEXT)
//   scroll_to patching|lens|flow|detectors|table   (the section comes into view at its view's next frame)
//   lens head L H (the logit lens lists that head's write; expect lens_top ROW TOKEN)
//   flow threshold X | flow weight value_norm|attribution (the flow graph; expect flow_edge L H FROM TO)
//   head_off L H | head_on L H | ablation zero|mean | measure weights|value-norm|rollout | importance (waits)
//   compare_average on|off (1 head vs N heads beside the heads' average) | preset ID (as the Presets menu)
//   steps_notation on|off (the Step by step view's table of the seeds' symbols) | steps_shared_scale on|off
//   hangul on|off (the built-in Korean typing, Shift+Space) | focus sentence|source|sentence_b|compare_sentence
//     (the keyboard goes to that field at the next frame, as a click: for tests that type with real keys)
//   screenshot PATH | quit          (# starts a comment)
//   layout_report PATH   with the next screenshot, where its heatmaps were drawn (as --layout-report)
//   try LINE | paste PATH | expect error|no_error|model_error|status|tokens|sentence|model [TEXT]   (tests)
//   expect answer TEXT | expect answer_full TEXT | expect importance [L:H]  (the answer in English; the best head)
//   expect answer_line TEXT  (the answer line as shown, in the UI's language: the answer or why there is none)
//   expect answer_b_line TEXT  (Compare's B likewise) | expect composing [TEXT] (the built-in typing's syllable)
//   within SECONDS expect ...  asks the expect line again every frame until it holds, for SECONDS (keys
//                        typed from outside, as the input-method test's xdotool does)
//   expect weight L H Q K VALUE  (the shown trace's weight of query Q on key K in layer L head H, within 1e-6;
//                                 in words while the word toggles are on)
//   nowait LINE          runs LINE at the next frame, without waiting for the engine to answer the line
//                        before (a model switch mid-computation, mid-load, mid-training)
//   expect idle SECONDS  waits until nothing is in flight and no view says "computing…" (state/app_busy.h);
//                        fails naming what is still busy after SECONDS
//   wait_limit SECONDS   from here on, a line that waits longer for the engine fails, naming what is busy (0: never)
//   report memory        prints the peak resident memory so far (VmHWM) on stdout
//   echo_lines on|off    prints each line's number on stdout as it starts (a crash's last line, for a replay)
#pragma once
#include <string>
#include <vector>

#include "base/result.h"
#include "state/app_state.h"

namespace attnviz {

struct ScriptLine {
  int number = 0;      // in the file, for messages
  std::string verb;
  std::vector<std::string> args;  // words after the verb; TEXT-taking verbs get the rest as one
};

Result<std::vector<ScriptLine>> script_parse(std::string_view text);

struct ScriptStep {
  bool quit = false;
  std::string screenshot;  // main() saves the next frame here...
  bool screenshot_now = false;  // ...even if the app is still busy (otherwise once it is idle)
  std::string layout_report;    // main() writes the next screenshot's layout report here
  std::string error;       // "script line N: ..." — the run stops
  std::string report;      // main() prints it on stdout (`report memory`)
  double wait_limit = -1;  // >= 0: main() applies it to the lines after (`wait_limit`)
  int echo_lines = -1;     // 0 or 1: main() stops or starts printing each line's number (`echo_lines`)
};

// How main() runs a line: by default once the engine has answered the previous one; `nowait` at
// once; `expect idle S` at once and again every frame while it fails, for S seconds.
struct ScriptPacing {
  bool wait_for_engine = true;
  double retry_seconds = 0;
};
ScriptPacing script_pacing(const ScriptLine& line);

// Applies one line to the app (the file actions report through the shell's functions).
ScriptStep script_apply(AppState& app, const ScriptLine& line);

// The Train view's verbs (app/desktop/views/train/train_script.cpp), given the words after `train`:
//   start            train from scratch with the settings below; every view follows the model
//   pause | resume   hold / continue the run at its next report
//   stop | reset     stop at the next report keeping the model / stop and forget the run
//   compare          train a 1-head and an N-head coreference model (N = heads) side by side
//   pair_stop | pair_reset   stop that pair keeping its models / stop it and forget them
//   use              show the run's model in every view
//   wait             hold the script until every run has ended (and the view's heatmaps caught up)
//   save PATH        write the run's model: a .safetensors file, or a folder getting model.safetensors
//   demo coref|induction   choose the demo and put back its defaults
//   seed N | heads N | d_model N | steps N (max steps) | report N (steps between reports)
Status script_train(AppState& app, const std::vector<std::string>& args);

// The Translation view's verbs (app/desktop/views/translate/translate_script.cpp), given what follows `translate`:
//   text TEXT                 the English sentence (as typed in the view)
//   model ID                  translate | score_dot | score_general | score_additive | bottleneck
//   tab ID                    alignment | steps | scores | bottleneck (the last starts measuring the plot)
//   head L H | head best | head mean   the head the alignment and the steps show (from 0)
//   head_off L H | head_on L H         switch a cross-attention head off / on again
//   step N                    the decoding step shown (from 0; the last is the [EOS] step)
//   curve N                   the bottleneck plot on N held-out sentences of each length (measured anew)
//   train [seed=N] [heads=N] [d_model=C] [steps=N]   retrain the shown model off the UI thread (the
//                             next line waits for it); train_stop | shipped (the shipped model back)
// and its expectations (after `expect`):
//   translation TEXT          the model's Korean, as written ("큰 고양이가 …"), is exactly TEXT
//   translate_error TEXT      the view's message (a sentence outside the grammar, ...) contains TEXT
//   translate_exact yes|no    the translation is (not) the grammar's
//   translate_gap N           the bottleneck plot is measured and the bottleneck's 3-clause exact rate
//                             is at least N points below the attention model's
//   translate_trained TEXT    the last retrain's result line contains TEXT
Status script_translate(AppState& app, const std::string& rest);
std::string script_expect_translate(const AppState& app, const std::string& kind, const std::string& text);

// False while a `train wait` is still waiting; main() runs the next line only when this is true.
bool script_train_ready(AppState& app);

}  // namespace attnviz
