// The script verbs of the Train view (`train start`, `train wait`, ...; see app/desktop/state/script.h). They
// call the same actions as the view's buttons, so a GUI test exercises what a click would do.
#include "base/parse_number.h"
#include "state/script.h"
#include "views/train/train_actions.h"

namespace attnviz {

Status script_train(AppState& app, const std::vector<std::string>& a) {
  TrainState& tv = app.train;
  if (a.empty())
    return make_error("expected start, pause, resume, stop, reset, wait, compare, pair_stop, pair_reset, expect_ahead, use, "
                      "save PATH, demo NAME, pair_demo NAME or a setting");
  const std::string& what = a[0];
  if (a.size() == 1) {
    if (what == "start") return train_start(app);
    if (what == "pause") tv.runner.pause();
    else if (what == "resume") tv.runner.resume();
    else if (what == "stop") tv.runner.stop();
    else if (what == "reset") train_reset(app);
    else if (what == "wait") tv.script_wait = true;
    else if (what == "compare") return train_pair_start(app);
    else if (what == "pair_stop") train_pair_stop(app);  // the compare tab's Stop and Reset
    else if (what == "pair_reset") train_pair_reset(app);
    else if (what == "use") return train_use_in_views(app);
    else if (what == "expect_ahead") {  // the pair has ended with the N-head model ahead (train_pair_outcome)
      const TrainPairOutcome o = train_pair_outcome(app);
      if (!o.ended) return make_error("the pair has not ended");
      if (!o.n_heads_ahead) return make_error("the N-head model is not ahead: " + o.summary);
    }
    else return make_error("unknown train action '" + what + "'");
    return Ok{};
  }
  if (a.size() != 2) return make_error("expected one value after '" + what + "'");
  if (what == "save") {
    auto file = train_save(app, a[1]);
    if (!file) return make_error(file.error());
    return Ok{};
  }
  if (what == "pair_demo") {
    if (a[1] != "gather" && a[1] != "coref") return make_error("expected gather or coref");
    tv.pair_demo = a[1] == "gather" ? DemoKind::gather : DemoKind::coreference;
    return Ok{};
  }
  if (what == "pair_seed" || what == "pair_heads" || what == "pair_steps") {
    TrainSettings& g = tv.pair_gather_settings;
    int& field = what == "pair_seed" ? g.seed : what == "pair_heads" ? g.n_heads : g.max_steps;
    const int lo = what == "pair_heads" ? 2 : what == "pair_steps" ? 1 : 0;
    const int hi = what == "pair_heads" ? 32 : what == "pair_steps" ? 100000 : 1 << 30;
    if (!parse_int_in(a[1], lo, hi, field))
      return make_error("expected " + what + " from " + std::to_string(lo) + " to " + std::to_string(hi));
    return Ok{};
  }
  if (what == "demo") {
    if (a[1] != "coref" && a[1] != "induction") return make_error("expected coref or induction");
    train_choose_demo(tv, a[1] == "coref" ? DemoKind::coreference : DemoKind::induction);
    return Ok{};
  }
  struct Field {
    const char* name;
    int TrainSettings::*field;
    int lo, hi;
  };
  const Field fields[] = {{"seed", &TrainSettings::seed, 0, 1 << 30},      {"heads", &TrainSettings::n_heads, 1, 64},
                          {"d_model", &TrainSettings::d_model, 1, 1024},   {"steps", &TrainSettings::max_steps, 1, 100000},
                          {"report", &TrainSettings::report_every, 1, 1000}};
  for (const Field& f : fields)
    if (what == f.name) {
      int v = 0;
      if (!parse_int_in(a[1], f.lo, f.hi, v))
        return make_error(std::string("expected ") + f.name + " from " + std::to_string(f.lo) + " to " + std::to_string(f.hi));
      tv.settings.*f.field = v;
      return Ok{};
    }
  return make_error("unknown train setting '" + what + "'");
}

bool script_train_ready(AppState& app) { return train_script_ready(app); }

}  // namespace attnviz
