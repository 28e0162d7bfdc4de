// Each verb maps onto the same AppState fields the panels edit, so a script exercises exactly
// the state changes a click would make.
#include "state/script.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/file_io.h"
#include "base/parse_number.h"
#include "model/head_map.h"
#include "state/app_state.h"
#include "state/file_actions.h"
#include "state/answer_text.h"
#include "state/app_busy.h"
#include "state/attention_source.h"
#include "state/demo_retrain.h"
#include "state/local_models_state.h"
#include "state/model_source.h"
#include "state/panel_export.h"

namespace attnviz {

namespace {

bool is_text_verb(const std::string& v) {
  return v == "sentence" || v == "sentence_b" || v == "source" || v == "compare_sentence" || v == "expect" ||
         v == "within" || v == "translate";
}

bool to_on(const std::string& s, bool& out) {
  if (s != "on" && s != "off") return false;
  out = s == "on";
  return true;
}

// The test verbs (not in the menus), so a GUI test can check that a bad input was answered and the
// previous state kept, without stopping at the first refusal:
//   try LINE                 runs LINE; a refusal goes to the status bar and the script goes on
//   paste PATH               the sentence := the file's bytes (a paste too long for a script line)
//   expect error TEXT        the newest computation failed with a message containing TEXT
//   expect no_error          ...or succeeded
//   expect model_error TEXT  the last model switch failed so
//   expect status TEXT       the status bar (last file action or `try`) contains TEXT
//   expect tokens N          the shown trace has N queries
//   expect sentence TEXT     the sentence is exactly TEXT
//   expect model TEXT        the shown trace's model source contains TEXT ("sandbox", a path)
//   expect local_models N P  File → Open local model… lists N models and P files it could not list
//   expect composing [TEXT]  the built-in Korean typing is composing exactly TEXT (nothing: none)
std::string script_expect(const AppState& app, const std::string& what) {
  const size_t space = what.find(' ');
  const std::string kind = what.substr(0, space);
  const std::string text = space == std::string::npos ? std::string() : what.substr(space + 1);
  auto contains = [&](const std::string& field, const char* name) -> std::string {
    if (!text.empty() && field.find(text) != std::string::npos) return {};
    return std::string("expected the ") + name + " to contain '" + text + "', it is '" + field + "'";
  };
  if (kind == "error") return contains(app.error, "error");
  if (kind == "no_error") return app.error.empty() ? std::string() : "expected no error, got '" + app.error + "'";
  if (kind == "model_error") return contains(app.model_error, "model error");
  if (kind == "status") return contains(app.status, "status");
  if (kind == "model") return app.trace ? contains(app.trace->model_source, "model") : "expected a trace";
  if (kind == "local_models") {
    const std::string got = std::to_string(app.local_models.scan.models.size()) + " " +
                            std::to_string(app.local_models.scan.problems.size());
    return got == text ? std::string() : "expected " + text + " local models and problems, the list has " + got;
  }
  if (kind == "composing")
    return app.hangul.composing == text ? std::string()
                                        : "expected to be composing '" + text + "', it is '" + app.hangul.composing + "'";
  if (kind == "sentence")
    return app.sentence == text ? std::string() : "expected the sentence '" + text + "', it is '" + app.sentence + "'";
  if (kind == "answer")
    return app.answer && app.trace ? contains(answer_text(*app.answer, *app.trace, Lang::en), "answer")
                                   : "expected an answer, there is none: " + (app.answer_error ? no_answer_english(*app.answer_error) : "");
  if (kind == "answer_line") {  // as shown, in the UI's language
    const std::string line = app.trace ? answer_line_text(app.answer ? &*app.answer : nullptr,
                                                          app.answer_error ? &*app.answer_error : nullptr, *app.trace, app.lang)
                                       : std::string();
    return contains(line, "answer line");
  }
  if (kind == "answer_b_line") {  // Compare's B, as shown
    const std::string line = app.trace_b ? answer_line_text(app.answer_b ? &*app.answer_b : nullptr,
                                                            app.answer_b_error ? &*app.answer_b_error : nullptr, *app.trace_b, app.lang)
                                         : std::string();
    return contains(line, "B's answer line");
  }
  if (kind == "answer_full")
    return app.answer_full && app.trace ? contains(answer_text(*app.answer_full, *app.trace, Lang::en), "full model's answer")
                                        : std::string("expected the full model's answer beside the ablated one");
  if (kind == "importance") {
    const ImportanceGrid* g = app_importance(app);
    if (!g) return "expected an importance grid for the current trace";
    const std::string best = std::to_string(g->best_layer) + ":" + std::to_string(g->best_head);
    return text.empty() || best == text ? std::string() : "expected the most important head " + text + ", it is " + best;
  }
  if (kind == "retrain")
    return contains(app.retrain.outcome ? retrain_outcome_text(*app.retrain.outcome, Lang::en) : "", "retrain message");
  if (kind == "idle") return app_busy(app).empty() ? std::string() : "still busy: " + app_busy_text(app);
  if (kind == "maps") {  // expect maps formed|kept: whether the shown trace forms its maps on demand
    if (text != "formed" && text != "kept") return "expected maps formed|kept";
    if (!app.trace) return "expected a trace";
    const bool formed = trace_forms_maps(*app.trace);
    return formed == (text == "formed") ? std::string() : std::string("the trace ") + (formed ? "forms" : "keeps") + " its maps";
  }
  if (kind == "weight") {
    std::istringstream in(text);
    int l = 0, h = 0, q = 0, k = 0;
    double want = 0;
    if (!(in >> l >> h >> q >> k >> want)) return "expected weight L H Q K VALUE";
    if (!app.trace) return "expected a trace";
    const Trace& t = app_shown_trace(app);
    if (l < 0 || l >= static_cast<int>(t.layers.size()) || h < 0 || h >= t.config.n_heads || q < 0 ||
        q >= t.n_queries() || k < 0 || k >= t.n_keys())
      return "the shown trace has no cell " + text;
    const double got = head_map_at(t, l, h, q, k);
    if (std::abs(got - want) <= 1e-6) return {};
    return "expected the weight " + std::to_string(want) + " at layer " + std::to_string(l) + " head " +
           std::to_string(h) + " (" + std::to_string(q) + ", " + std::to_string(k) + "), it is " + std::to_string(got);
  }
  if (kind == "translation" || kind == "translate_error" || kind == "translate_exact" || kind == "translate_gap" ||
      kind == "translate_trained")
    return script_expect_translate(app, kind, text);
  if (kind == "importance_set") {  // the set's most important head on average, and for how many answers
    const ImportanceSetGrid* g = importance_set_shown(app);
    if (!g) return "expected an importance grid over a set" + (app.importance_set.error.empty() ? std::string() : ": " + app.importance_set.error);
    const std::string best = std::to_string(g->best_layer) + ":" + std::to_string(g->best_head) + " " +
                             std::to_string(g->answer_changes[static_cast<size_t>(g->best_layer)][static_cast<size_t>(g->best_head)]) +
                             " of " + std::to_string(g->sentences.size());
    return text.empty() || best == text ? std::string() : "expected the set's most important head " + text + ", it is " + best;
  }
  if (kind == "patching") {  // patching L C EFFECT: the shown run's effect at a cell, within 0.01
    int l = 0, c = 0;
    double want = 0;
    std::istringstream in(text);
    if (!(in >> l >> c >> want)) return "expected patching L C EFFECT";
    const PatchingRun* run = patching_current(app);
    if (!run) return "expected a patching result for A and B (is sentence B shown?)";
    if (!run->result) return "expected a patching result: " + (run->trace_error.empty() && run->failure ? patch_failure_english(*run->failure) : run->trace_error);
    const auto& e = run->result->effect;
    if (l < 0 || l >= static_cast<int>(e.size()) || c < 0 || c >= static_cast<int>(e[0].size()))
      return "the patching grid has no cell " + text;
    const double got = e[static_cast<size_t>(l)][static_cast<size_t>(c)];
    if (std::abs(got - want) <= 0.01) return {};
    return "expected the patching effect " + std::to_string(want) + " at " + std::to_string(l) + " " + std::to_string(c) +
           ", it is " + std::to_string(got);
  }
  if (kind == "flow_edge") {  // flow_edge L H FROM TO: the flow graph holds that edge
    int l = 0, h = 0, from = 0, to = 0;
    std::istringstream in(text);
    if (!(in >> l >> h >> from >> to)) return "expected flow_edge L H FROM TO";
    const FlowShown* flow = flow_current(app);
    if (!flow) return "the flow graph is not computed for this trace (view stats)";
    if (!flow->graph) return "the flow graph has none: " + flow->error;
    for (const FlowEdge& e : flow->graph->edges)
      if (e.layer == l && e.head == h && e.from == from && e.to == to) return {};
    return "the flow graph has no edge " + text + " (" + std::to_string(flow->graph->edges.size()) + " edges at threshold " +
           std::to_string(app.flow.threshold) + ")";
  }
  if (kind == "lens_top") {  // lens_top ROW TOKEN: the logit lens's likeliest token in a row (0: the embeddings)
    const std::string row_text = text.substr(0, text.find(' ')), want = text.find(' ') == std::string::npos ? "" : text.substr(text.find(' ') + 1);
    int row = 0;
    if (!parse_int_in(row_text, 0, 4096, row)) return "expected lens_top ROW TOKEN";
    const LensResult* lens = lens_current(app);
    if (!lens) return "the logit lens is not computed for this trace (view stats)";
    if (row >= static_cast<int>(lens->rows.size()) || lens->rows[static_cast<size_t>(row)].top.empty())
      return "the logit lens has no row " + row_text + (lens->rows_error.empty() ? "" : ": " + lens->rows_error);
    const std::string got = lens->rows[static_cast<size_t>(row)].top.front().text;
    return got == want ? std::string() : "expected the lens's top token " + want + " in row " + row_text + ", it is " + got;
  }
  if (kind == "patching_error") {  // patching_error TEXT: why the shown run has no grid, in the UI's language
    const PatchingRun* run = patching_current(app);
    if (!run) return "expected a patching run for A and B (is sentence B shown?)";
    const std::string got = patching_failure_text(*run, app.lang);
    if (run->result) return "expected patching to fail with '" + text + "', it has a grid";
    return got.find(text) != std::string::npos ? std::string() : "expected patching to fail with '" + text + "', it says '" + got + "'";
  }
  if (kind == "tokens") {
    int n = 0;
    if (!parse_int_in(text, 0, kMaxTokens, n)) return "expected tokens N";
    const int got = app.trace ? app_shown_trace(app).n_queries() : -1;
    return got == n ? std::string() : "expected " + text + " tokens, the trace has " + std::to_string(got);
  }
  return "unknown expectation '" + kind +
         "' (error, no_error, model_error, status, tokens, sentence, model, answer, answer_line, answer_b_line, answer_full, importance, weight, idle, "
         "translation, translate_error, translate_exact, translate_gap, translate_trained, importance_set, patching, patching_error, lens_top, flow_edge)";
}

// `try LINE`, `nowait LINE`: the line after the verb, with the rest as one argument for TEXT verbs,
// as script_parse gives it.
ScriptLine inner_line(const ScriptLine& line) {
  const auto& a = line.args;
  ScriptLine inner{line.number, a[0], std::vector<std::string>(a.begin() + 1, a.end())};
  if (is_text_verb(inner.verb)) {
    std::string rest;
    for (size_t i = 1; i < a.size(); ++i) rest += (i > 1 ? " " : "") + a[i];
    inner.args = {rest};
  }
  return inner;
}

// The peak and current resident memory of this process, from /proc/self/status (Linux).
std::string memory_report() {
  std::ifstream in("/proc/self/status");
  std::string line, peak, now;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) peak = line.substr(6);
    if (line.rfind("VmRSS:", 0) == 0) now = line.substr(6);
  }
  auto trim = [](std::string s) { return s.substr(std::min(s.size(), s.find_first_not_of(" \t"))); };
  if (peak.empty()) return "memory: no /proc/self/status";
  return "memory: peak " + trim(peak) + " (VmHWM), now " + trim(now) + " (VmRSS)";
}

}  // namespace

Result<std::vector<ScriptLine>> script_parse(std::string_view text) {
  std::vector<ScriptLine> lines;
  std::istringstream in{std::string(text)};
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const size_t first = raw.find_first_not_of(" \t");
    if (first == std::string::npos || raw[first] == '#') continue;
    ScriptLine line;
    line.number = number;
    std::istringstream words(raw.substr(first));
    words >> line.verb;
    if (is_text_verb(line.verb)) {
      std::string rest;
      std::getline(words, rest);
      const size_t start = rest.find_first_not_of(" \t");
      line.args.push_back(start == std::string::npos ? "" : rest.substr(start));
    } else {
      for (std::string w; words >> w;) line.args.push_back(w);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

ScriptPacing script_pacing(const ScriptLine& line) {
  ScriptPacing p;
  if (line.verb == "nowait") p.wait_for_engine = false;
  double seconds = 0;
  if (line.verb == "expect" && !line.args.empty() && line.args[0].rfind("idle ", 0) == 0 &&
      parse_number(line.args[0].substr(5), seconds) && seconds > 0) {
    p.wait_for_engine = false;
    p.retry_seconds = seconds;
  }
  if (line.verb == "within" && !line.args.empty() && parse_number(line.args[0].substr(0, line.args[0].find(' ')), seconds) &&
      seconds > 0) {
    p.wait_for_engine = false;
    p.retry_seconds = seconds;
  }
  return p;
}

ScriptStep script_apply(AppState& app, const ScriptLine& line) {
  ScriptStep step;
  const auto& a = line.args;
  auto fail = [&](const std::string& m) {
    step.error = "script line " + std::to_string(line.number) + " (" + line.verb + "): " + m;
    return step;
  };
  auto need = [&](size_t n) { return a.size() == n; };
  ModelConfig& c = app.config;
  auto set_config_int = [&](int ModelConfig::*field, int lo, int hi) -> bool {
    int v = 0;
    if (!need(1) || !parse_int_in(a[0], lo, hi, v)) return false;
    c.*field = v;
    app.dirty = true;
    return true;
  };
  const std::string& v = line.verb;
  bool on = false;
  int n = 0;
  if (v == "sentence") app.sentence = a[0], app.dirty = true;
  else if (v == "sentence_b") app.sentence_b = a[0], app.dirty = true;
  else if (v == "source") app.source_sentence = a[0], app.dirty = true;
  else if (v == "compare_sentence") app.compare.sentence = a[0], app.dirty = true;
  else if (v == "cross") {
    if (!need(1) || !to_on(a[0], app.cross)) return fail("expected on or off");
    app.dirty = true;
  } else if (v == "d_model") {
    if (!set_config_int(&ModelConfig::d_model, 1, kMaxDModel)) return fail("expected a width");
  } else if (v == "heads") {
    if (!set_config_int(&ModelConfig::n_heads, 1, kMaxDModel)) return fail("expected a head count");
    c.head_scores.clear();
  } else if (v == "layers") {
    if (!set_config_int(&ModelConfig::n_layers, 1, kMaxLayers)) return fail("expected a layer count");
  } else if (v == "ffn") {
    if (!set_config_int(&ModelConfig::d_ff, 0, kMaxFF)) return fail("expected an FFN width (0: attention only)");
  } else if (v == "seed") {
    if (!need(1) || !parse_int_in(a[0], 0, 1 << 30, n)) return fail("expected a seed");
    app.seed = static_cast<uint64_t>(n);
    app.dirty = true;
  } else if (v == "score") {
    auto k = need(1) ? score_from_name(a[0]) : std::nullopt;
    if (!k) return fail("expected scaled_dot, dot, general or additive");
    c.score = *k;
    c.head_scores.clear();
    app.dirty = true;
  } else if (v == "norm") {
    auto k = need(1) ? norm_from_name(a[0]) : std::nullopt;
    if (!k) return fail("expected post or pre");
    c.norm = *k;
    app.dirty = true;
  } else if (v == "temperature") {
    float t = 0;
    if (!need(1)) return fail("expected a temperature");
    if (!parse_number(a[0], t) || !(t >= kMinTemperature && t <= kMaxTemperature)) return fail("expected 0.001 to 1000");
    c.temperature = t;
    app.dirty = true;
  } else if (v == "mask") {
    MaskSpec& m = app.mask;
    if (need(1) && a[0] == "none") m = MaskSpec{};
    else if (need(2) && a[0] == "causal" && to_on(a[1], on)) m.causal = on;
    else if (need(2) && a[0] == "window") m.window = a[1] == "off" ? -1 : (parse_int_in(a[1], 0, kMaxTokens, n) ? n : -2);
    else if (need(2) && a[0] == "strided") m.stride = a[1] == "off" ? 0 : (parse_int_in(a[1], 1, kMaxTokens, n) ? n : -1);
    else if (need(2) && a[0] == "pad") m.pad_to = a[1] == "off" ? 0 : (parse_int_in(a[1], 1, kMaxTokens, n) ? n : -1);
    else if (need(3) && a[0] == "hide") {
      int q = 0, k = 0;
      if (!parse_int_in(a[1], 0, kMaxTokens, q) || !parse_int_in(a[2], 0, kMaxTokens, k)) return fail("expected query and key numbers");
      m.hidden_cells.emplace_back(q, k);
    } else return fail("unknown mask action");
    if (Status s = mask_spec_validate(m); !s) return fail(s.error());
    app.dirty = true;
  } else if (v == "model" && !a.empty() && a[0] == "open") {  // as the Model panel's Open button
    if (a.size() < 2 || a.size() > 3) return fail("expected model open PATH [SCREENSHOT]");
    app_open_model(app, a[1]);
    if (!app.model_error.empty()) return fail(app.model_error);
    if (a.size() == 3) {
      step.screenshot = a[2];
      step.screenshot_now = true;  // while it loads: the progress bar
    }
  } else if (v == "model") {
    ModelSource src = ModelSource::sandbox;
    if (a.empty() || !source_from_id(a[0], src) || need(1) != (src != ModelSource::file))
      return fail("expected sandbox, coref, induction, gather, trained or file PATH");
    if (Status s = app_use_source(app, src, src == ModelSource::file ? a[1] : std::string()); !s) return fail(s.error());
  } else if (v == "local_models") {  // File → Open local model… (and a double-click on a row)
    if (a.empty()) {
      local_models_show(app);
    } else if (a[0] == "close" && a.size() == 1) {
      app.local_models.shown = false;
    } else if (a[0] == "open" && a.size() >= 2) {
      std::string name = a[1];
      for (size_t i = 2; i < a.size(); ++i) name += " " + a[i];
      if (!app.local_models.scanned) local_models_show(app);
      const int i = local_models_find_name(app.local_models, name);
      if (i < 0) return fail("no local model named '" + name + "' in the list");
      (void)local_models_open(app, static_cast<size_t>(i));
      if (!app.model_error.empty()) return fail(app.model_error);
    } else {
      return fail("expected local_models, local_models open NAME or local_models close");
    }
  } else if (v == "open_attention" || v == "open_attention_b") {  // File → Open attention… (as B…)
    if (!need(1)) return fail("expected a path");
    Status s = v == "open_attention" ? app_open_attention(app, a[0]) : app_open_attention_b(app, a[0]);
    if (!s) return fail(s.error());
  } else if (v == "drop") {  // a path dropped on the window: a failure goes to the status bar, as for a person
    if (!need(1)) return fail("expected a path");
    app_open_path(app, a[0]);
  } else if (v == "head_off" || v == "head_on") {  // a click on a head's toggle
    int l = 0, h = 0;
    if (!need(2) || !parse_int_in(a[0], 0, kMaxLayers, l) || !parse_int_in(a[1], 0, kMaxDModel, h))
      return fail("expected a layer and a head");
    if (app.ablation.has(l, h) != (v == "head_off") && !app_toggle_head(app, l, h))
      return fail(app.source == ModelSource::attention ? std::string(tr(Lang::en, Str::attn_no_switch))
                                                       : "the model has no head " + a[0] + ":" + a[1]);
  } else if (v == "ablation") {
    auto m = need(1) ? ablation_mode_from_name(a[0]) : std::nullopt;
    if (!m) return fail("expected zero or mean");
    app.ablation.mode = *m;
    app.dirty = true;
  } else if (v == "measure") {
    auto m = need(1) ? measure_from_name(a[0]) : std::nullopt;
    if (!m) return fail("expected weights, value-norm or rollout");
    app.measure = *m;
  } else if (v == "importance") {  // the "Which heads matter" button; the next line waits for the grid
    app_start_importance(app);
  } else if (v == "importance_set") {  // "Which heads matter" over a set of sentences
    const std::string what = a.empty() ? std::string() : a[0];
    if (what == "demo") {
      importance_set_use_demo(app);
    } else if (what == "pairs") {
      importance_set_use_minimal_pairs(app);
    } else if (what == "file" && a.size() == 2) {
      if (Status s = importance_set_load_file(app, a[1]); !s) return fail(s.error());
    } else if (what == "preset" && a.size() == 2) {
      if (Status s = importance_set_use_preset(app, a[1]); !s) return fail(s.error());
    } else if (what == "sentence" || what == "set") {
      app.importance_set.scope = what == "set" ? ImportanceScope::set : ImportanceScope::sentence;
    } else if (what == "measure") {
      if (Status s = importance_set_start(app); !s) return fail(s.error());
    } else if (what == "cell" && a.size() == 3) {
      int l = 0, h = 0;
      if (!parse_int_in(a[1], 0, 4096, l) || !parse_int_in(a[2], 0, 4096, h)) return fail("expected cell L H");
      app.importance_set.cell_layer = l;
      app.importance_set.cell_head = h;
    } else {
      return fail("expected demo, pairs, preset ID, file PATH, sentence, set, measure or cell L H");
    }
  } else if (v == "flow") {  // flow threshold X | flow weight value_norm|attribution: the flow graph's panel
    float x = 0;
    if (a.size() == 2 && a[0] == "weight" && (a[1] == "value_norm" || a[1] == "attribution")) {
      app.flow.weight = a[1] == "attribution" ? FlowWeight::attribution : FlowWeight::value_norm;
    } else {
      if (a.size() != 2 || a[0] != "threshold" || !parse_number(a[1], x) || !(x > 0 && x <= 1))
        return fail("expected flow threshold X (0 < X <= 1) or flow weight value_norm|attribution");
      app.flow.threshold = x;
    }
    flow_refresh(app);
  } else if (v == "lens") {  // lens head L H: the head whose write the logit lens lists
    int l = 0, h = 0;
    if (a.size() != 3 || a[0] != "head" || !parse_int_in(a[1], 0, 4096, l) || !parse_int_in(a[2], 0, 4096, h))
      return fail("expected lens head L H");
    lens_choose_head(app, l, h);
  } else if (v == "scroll_to") {  // scroll_to SECTION: the section comes into view at the next frame its view draws
    static const std::vector<std::string> sections{"patching", "lens", "flow", "detectors", "table"};
    if (!need(1) || std::find(sections.begin(), sections.end(), a[0]) == sections.end())
      return fail("expected scroll_to patching|lens|flow|detectors|table");
    app.scroll_to = a[0];
  } else if (v == "patching") {  // patching head|position, patching cell L C: the Coreference view's patching panel
    const std::string what = a.empty() ? std::string() : a[0];
    if (what == "head" || what == "position") {
      app.patching.by = what == "head" ? PatchBy::head : PatchBy::position;
    } else if (what == "cell" && a.size() == 3) {
      int l = 0, c = 0;
      if (!parse_int_in(a[1], 0, 4096, l) || !parse_int_in(a[2], 0, kMaxTokens, c)) return fail("expected cell L C");
      app.patching.cell_row = l;
      app.patching.cell_column = c;
    } else {
      return fail("expected head, position or cell L C");
    }
    patching_update(app);
  } else if (v == "arch" || v == "coref_arch") {  // the Model panel's architecture controls of the demo shown
    if (v == "coref_arch" && app.source != ModelSource::demo_coref)
      return fail("the coreference demo is not the model shown (model coref)");
    if (!demo_is_live(app.source)) return fail("no trained demo is shown (model coref or model induction)");
    std::string words;
    for (const std::string& kv : a) words += kv + " ";
    auto o = demo_arch_parse(words, demo_shown_arch(app.retrain, app.source));
    if (!o) return fail(o.error());
    demo_retrain_request(app, DemoJob{app.source, *o});
  } else if (v == "coref_swap") {  // the Coreference view's buttons (app/desktop/views/coref/coref_state.h)
    if (a.empty()) {
      if (!coref_use_minimal_pair(app)) return fail("the sentence has no property word to swap (tired, wide, ...)");
    } else if (a.size() == 1 && a[0] == "ab") {
      coref_swap_sentences(app);
    } else {
      return fail("expected nothing (B := the minimal pair) or ab (swap sentences A and B)");
    }
  } else if (v == "train") {
    if (Status s = script_train(app, a); !s) return fail(s.error());
  } else if (v == "translate") {
    if (Status s = script_translate(app, a.empty() ? std::string() : a[0]); !s) return fail(s.error());
  } else if (v == "undo" || v == "redo") {  // Ctrl+Z / Ctrl+Shift+Z
    if (!(v == "undo" ? history_undo(app) : history_redo(app))) return fail("nothing to " + v);
  } else if (v == "words") {  // the Sentence panel's "merge pieces into words"
    if (!need(1) || !to_on(a[0], app.word_view.merge_pieces)) return fail("expected on or off");
  } else if (v == "hide_special") {  // ...and "hide special tokens"
    if (!need(1) || !to_on(a[0], app.word_view.hide_special)) return fail("expected on or off");
  } else if (v == "vocabulary") {
    if (!need(1) || !to_on(a[0], app.vocab_open)) return fail("expected on or off");
  } else if (v == "view") {
    if (!need(1) || !view_from_id(a[0], app.view)) return fail("unknown view");
    // Its scan starts now, so that the next line waits for it (app_busy) rather than for nothing.
    if (app.view == View::stats && app.trace && !app_computing(app)) (void)stats_cache_refresh(app);
  } else if (v == "compare") {
    const auto mode = need(1) ? compare_mode_from_name(a[0]) : std::nullopt;
    if (!mode) return fail("unknown compare mode");
    app.compare.mode = *mode;
    app.dirty = true;
  } else if (v == "steps_notation") {  // the Step by step view's notation table
    if (!need(1) || (a[0] != "on" && a[0] != "off")) return fail("expected steps_notation on|off");
    app.steps.notation = a[0] == "on";
  } else if (v == "steps_shared_scale") {  // the Step by step view's one colour scale for the scores
    if (!need(1) || (a[0] != "on" && a[0] != "off")) return fail("expected steps_shared_scale on|off");
    app.steps.shared_scale = a[0] == "on";
  } else if (v == "compare_average") {  // 1 head vs N heads: beside the average instead of each head
    if (!need(1) || (a[0] != "on" && a[0] != "off")) return fail("expected compare_average on|off");
    app.compare.average = a[0] == "on";
  } else if (v == "preset") {  // the Presets menu's entry with this id
    if (!need(1)) return fail("expected preset ID");
    const auto it = std::find_if(app.presets.begin(), app.presets.end(), [&](const Preset& p) { return p.id == a[0]; });
    if (it == app.presets.end()) return fail("unknown preset '" + a[0] + "'");
    if (Status s = app_apply_preset(app, *it); !s) return fail(s.error());
  } else if (v == "zoom_head") {  // the Heads view's zoomed head and, for a long input, its window
    int h = 0, row = 0, col = 0;
    float zoom = 1;
    if (a.empty() || !parse_int_in(a[0], -1, kMaxDModel, h)) return fail("expected zoom_head H [ZOOM ROW COL]");
    if (a.size() == 4 && (!parse_number(a[1], zoom) || !parse_int_in(a[2], 0, kMaxTokens, row) ||
                          !parse_int_in(a[3], 0, kMaxTokens, col)))
      return fail("expected zoom_head H [ZOOM ROW COL]");
    app.heads.zoom_head = h;
    if (h >= 0) app.head = h;  // the shell keeps the zoomed head on the chosen one
    app.heads.viewport.zoom = zoom;
    app.heads.viewport.row0 = static_cast<float>(row);
    app.heads.viewport.col0 = static_cast<float>(col);
  } else if (v == "layer" || v == "head" || v == "query" || v == "step") {
    int& field = v == "layer" ? app.layer : v == "head" ? app.head : v == "query" ? app.query : app.steps.step;
    if (!need(1) || !parse_int_in(a[0], v == "query" ? -1 : 0, kMaxTokens, field)) return fail("expected a number");
  } else if (v == "lang") {
    if (!need(1) || (a[0] != "en" && a[0] != "ko")) return fail("expected en or ko");
    app.lang = a[0] == "ko" ? Lang::ko : Lang::en;
  } else if (v == "presentation") {
    if (!need(1) || !to_on(a[0], app.presentation)) return fail("expected on or off");
  } else if (v == "hangul") {
    if (!need(1) || !to_on(a[0], app.hangul.on)) return fail("expected on or off");
  } else if (v == "focus") {
    if (!need(1) || (a[0] != "sentence" && a[0] != "source" && a[0] != "sentence_b" && a[0] != "compare_sentence"))
      return fail("expected sentence, source, sentence_b or compare_sentence");
    app.focus_field = a[0];
  } else if (v == "within") {  // within SECONDS expect ...: asked again every frame until it holds (script_pacing)
    const std::string& rest = a[0];
    const size_t space = rest.find(' ');
    double seconds = 0;
    if (space == std::string::npos || !parse_number(rest.substr(0, space), seconds) || seconds <= 0)
      return fail("expected a number of seconds and an expect line");
    auto inner = script_parse(rest.substr(space + 1));
    if (!inner || inner->size() != 1 || inner->front().verb != "expect") return fail("expected an expect line after the seconds");
    ScriptLine again = inner->front();
    again.number = line.number;
    return script_apply(app, again);
  } else if (v == "panels") {
    if (!need(1) || !to_on(a[0], app.presentation_panels)) return fail("expected on or off");
  } else if (v == "annotate") {
    if (!need(1) || !to_on(a[0], app.annotate)) return fail("expected on or off");
  } else if (v == "color_scale") {  // the Scale combo: linear | log | power (square root)
    auto k = need(1) ? color_scale_from_name(a[0]) : std::nullopt;
    if (!k) return fail("expected linear, log or power");
    app.color_scale.kind = *k;
  } else if (v == "maps") {  // maps on_demand|by_length: every head's map formed when shown, or as the length asks
    if (!need(1) || (a[0] != "on_demand" && a[0] != "by_length")) return fail("expected maps on_demand|by_length");
    app.maps_on_demand = a[0] == "on_demand";
    app.dirty = true;
  } else if (v == "first_aside") {  // "Set the first token aside"
    if (!need(1) || !to_on(a[0], app.first_aside)) return fail("expected on or off");
  } else if (v == "colormap") {
    auto m = need(1) ? colormap_from_name(a[0]) : std::nullopt;
    if (!m || *m == Colormap::diverging) return fail("expected viridis, magma or high_contrast");
    app.cmap = *m;
  } else if (v == "export" && a.size() >= 2) {
    Status s = make_error("unknown export kind");
    if (a[0] == "png") {
      float scale = 1.0f;
      if (a.size() == 3 && (!parse_number(a[2], scale) || !(scale > 0))) return fail("expected a positive scale");
      s = app_export_png(app, a[1], scale);
    } else if (a[0] == "view") {  // export view png|svg PATH [SCALE]: the shown view as a figure
      float scale = 1.0f;
      if (a.size() < 3 || a.size() > 4 || (a[1] != "png" && a[1] != "svg")) return fail("expected export view png|svg PATH [SCALE]");
      if (a.size() == 4 && (a[1] != "png" || !parse_number(a[3], scale) || !(scale > 0)))
        return fail("expected a positive scale (PNG only)");
      s = app_export_view(app, a[2], a[1] == "svg" ? FigureFormat::svg : FigureFormat::png, scale);
    } else if (a[0] == "data") {  // export data PANEL PATH.csv|.json: an explanation panel's numbers
      const std::optional<DataPanel> panel = a.size() == 3 ? data_panel_parse(a[1]) : std::nullopt;
      if (!panel) return fail("expected export data patching|attribution|lens|flow|qk|set PATH");
      s = app_export_panel(app, *panel, a[2]);
    } else if (a[0] == "csv") s = app_export_csv(app, a[1]);
    else if (a[0] == "json") s = app_export_json(app, a[1]);
    else if (a[0] == "slides") {  // export slides DIR: every view and step as 16:9 pages
      auto n = app_export_slides(app, a[1]);
      s = n ? Status(Ok{}) : Status(make_error(n.error()));
      if (n) {
        app.status = std::to_string(n->pages) + " slides";
        for (const std::string& id : n->skipped) app.status += "; skipped " + id;
      }
    }
    if (!s) return fail(s.error());
  } else if (v == "save") {
    if (!need(1)) return fail("expected a path");
    if (Status s = app_save_session(app, a[0]); !s) return fail(s.error());
  } else if (v == "open") {
    if (!need(1)) return fail("expected a path");
    if (Status s = app_open_session(app, a[0]); !s) return fail(s.error());
  } else if (v == "screenshot") {
    if (!need(1)) return fail("expected a path");
    step.screenshot = a[0];
  } else if (v == "layout_report") {
    if (!need(1)) return fail("expected a path");
    step.layout_report = a[0];
  } else if (v == "quit") {
    step.quit = true;
  } else if (v == "try") {
    if (a.empty()) return fail("expected a line to try");
    step = script_apply(app, inner_line(line));
    if (!step.error.empty()) {
      app.status = step.error;
      app.status_is_error = true;
      step.error.clear();
    }
  } else if (v == "nowait") {  // main() ran it without waiting (script_pacing); applied as any line
    if (a.empty()) return fail("expected a line to run");
    step = script_apply(app, inner_line(line));
  } else if (v == "wait_limit") {
    double seconds = 0;
    if (!need(1) || !parse_number(a[0], seconds) || !(seconds >= 0)) return fail("expected a number of seconds");
    step.wait_limit = seconds;
  } else if (v == "echo_lines") {
    if (!need(1) || !to_on(a[0], on)) return fail("expected on or off");
    step.echo_lines = on ? 1 : 0;
  } else if (v == "report") {
    if (!need(1) || a[0] != "memory") return fail("expected report memory");
    step.report = memory_report();
  } else if (v == "generate") {  // as the Sentence panel's Generate button
    int n = 0;
    if (!need(1) || !parse_int_in(a[0], 1, 256, n)) return fail("expected a number of tokens from 1 to 256");
    if (!app_generate(app, n)) return fail("generation needs a causal checkpoint with an output head");
  } else if (v == "paste") {
    if (!need(1)) return fail("expected a path");
    auto bytes = file_read_bytes(a[0], uint64_t{64} << 20);
    if (!bytes) return fail(bytes.error());
    app.sentence.assign(bytes->begin(), bytes->end());
    app.dirty = true;
  } else if (v == "expect") {
    if (a[0].rfind("translat", 0) == 0) translate_refresh(app);  // as the view would before drawing
    if (std::string m = script_expect(app, a[0]); !m.empty()) return fail(m);
  } else {
    return fail("unknown action");
  }
  return step;
}

}  // namespace attnviz
