// The Translation view's script verbs and expectations (declared and listed in state/script.h).
#include "state/script.h"

#include <sstream>

#include "base/parse_number.h"

namespace attnviz {

namespace {

Status two_ints(const std::string& args, int& a, int& b) {
  std::istringstream in(args);
  std::string extra;
  if (!(in >> a >> b) || (in >> extra)) return make_error("expected a layer and a head (from 0)");
  return Ok{};
}

}  // namespace

Status script_translate(AppState& app, const std::string& rest) {
  TranslateState& t = app.translate;
  const size_t space = rest.find(' ');
  const std::string verb = rest.substr(0, space), args = space == std::string::npos ? "" : rest.substr(space + 1);
  if (verb == "text") {
    t.text = args;
  } else if (verb == "model") {
    if (Status s = translate_set_variant(app, args); !s) return s;
  } else if (verb == "tab") {
    const auto tab = translate_tab_from_id(args);
    if (!tab) return make_error("unknown tab '" + args + "' (alignment, steps, scores, bottleneck)");
    t.tab = *tab;
    t.tab_request = true;
    if (*tab == TranslateTab::bottleneck) translate_curve_start(app);
  } else if (verb == "head") {
    translate_refresh(app);
    if (args == "best" || args == "mean") {
      t.head = args == "best" ? -1 : -2;
      return Ok{};
    }
    int layer = 0, head = 0;
    if (Status s = two_ints(args, layer, head); !s) return s;
    const TranslateModel* m = translate_shown_model(app);
    if (!m || m->arch.bottleneck) return make_error("the shown translation model has no cross-attention heads");
    if (layer < 0 || layer >= m->arch.decoder_layers || head < 0 || head >= m->arch.n_heads)
      return make_error("no cross-attention head " + args + " in this model");
    t.head = layer * m->arch.n_heads + head;
  } else if (verb == "head_off" || verb == "head_on") {
    int layer = 0, head = 0;
    if (Status s = two_ints(args, layer, head); !s) return s;
    if (t.cross_off.has(layer, head) == (verb == "head_off")) return Ok{};
    if (Status s = translate_toggle_head(app, layer, head); !s) return s;
  } else if (verb == "step") {
    translate_refresh(app);
    int step = 0;
    if (!parse_int_in(args, 0, 1000, step)) return make_error("expected a step number");
    if (Status s = translate_set_step(app, step); !s) return s;
  } else if (verb == "curve") {
    int n = 0;
    if (!parse_int_in(args, 1, 1000, n)) return make_error("expected a number of sentences of each length (1 to 1000)");
    if (t.curve_job.busy()) return make_error("the plot is being measured; wait for it");
    t.curve_per_clause_count = n;
    t.curve.reset();
    t.curve_error.clear();
    translate_curve_start(app);
  } else if (verb == "train") {
    TranslateTrainSettings s = t.train_settings;
    std::istringstream in(args);
    for (std::string kv; in >> kv;) {
      const size_t eq = kv.find('=');
      const std::string key = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
      int* field = key == "seed" ? &s.seed : key == "heads" ? &s.n_heads : key == "d_model" ? &s.d_model : key == "steps" ? &s.max_steps : nullptr;
      if (!field) return make_error("unknown training setting '" + key + "' (seed, heads, d_model, steps)");
      if (!parse_int_in(value, 0, 1000000, *field)) return make_error("expected " + key + "=N, got '" + kv + "'");
    }
    t.train_settings = s;
    if (Status st = translate_train_start(app); !st) return st;
  } else if (verb == "train_stop") {
    t.train_job.stop();
  } else if (verb == "shipped") {
    if (Status s = translate_use_shipped(app); !s) return s;
  } else {
    return make_error("unknown translate action '" + verb + "' (text, model, tab, head, head_off, head_on, step, curve, train, train_stop, shipped)");
  }
  translate_refresh(app);
  return Ok{};
}

std::string script_expect_translate(const AppState& app, const std::string& kind, const std::string& text) {
  const TranslateState& t = app.translate;
  if (kind == "translate_error")
    return !text.empty() && t.error.find(text) != std::string::npos ? std::string()
                                                                     : "expected the translation error to contain '" + text + "', it is '" + t.error + "'";
  if (kind == "translate_trained")
    return !text.empty() && t.train_result.find(text) != std::string::npos
               ? std::string()
               : "expected the retrain's result to contain '" + text + "', it is '" + t.train_result + "'" +
                     (t.train_error.empty() ? std::string() : " (error: " + t.train_error + ")");
  if (!t.readout) return "expected a translation, there is none" + (t.error.empty() ? std::string() : ": " + t.error);
  const TranslateReadout& r = *t.readout;
  if (kind == "translation") {
    const std::string got = translate_written(r.output);
    return got == text ? std::string() : "expected the translation '" + text + "', it is '" + got + "'";
  }
  if (kind == "translate_exact") {
    if (text != "yes" && text != "no") return "expected translate_exact yes|no";
    return r.exact == (text == "yes") ? std::string()
                                      : std::string("expected the translation ") + (r.exact ? "not " : "") + "to be the grammar's ('" +
                                            r.pair.korean_text() + "'), it is '" + translate_written(r.output) + "'";
  }
  if (kind == "translate_gap") {
    int points = 0;
    if (!parse_int_in(text, 0, 100, points)) return "expected translate_gap N (points)";
    if (!t.curve) return "the bottleneck plot is not measured" + (t.curve_error.empty() ? std::string() : ": " + t.curve_error);
    const auto& c = *t.curve;
    const int k = kTranslateMaxClauses;
    const double a = c.sentences[k] ? 100.0 * c.exact_attention[k] / c.sentences[k] : 0.0;
    const double b = c.sentences[k] ? 100.0 * c.exact_bottleneck[k] / c.sentences[k] : 0.0;
    if (a - b >= points) return {};
    return "expected the bottleneck " + std::to_string(points) + " points below attention on 3 clauses: attention " + std::to_string(a) +
           "%, bottleneck " + std::to_string(b) + "%";
  }
  return "unknown translation expectation '" + kind + "'";
}

}  // namespace attnviz
