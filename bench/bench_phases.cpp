// The mirrored forward with a stopwatch per step. Each statement copies the one it mirrors in
// core/model/trace.cpp, core/model/layer.cpp or core/model/attention.cpp, so allocations and copies cost the same.
// Heads run in parallel as in attention_forward: their steps are timed per thread and the loop's
// wall time is split between the steps in proportion to the thread time each took.
#include "bench_phases.h"

#include <chrono>
#include <utility>
#include <vector>

#include <omp.h>

#include "bench_timing.h"
#include "model/attention.h"
#include "model/kernels.h"
#include "model/layer.h"
#include "model/mask.h"

namespace attnviz::bench {

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::setup: return "setup";
    case Phase::layer_norm: return "layer_norm";
    case Phase::qkv_proj: return "qkv_proj";
    case Phase::qkv_split: return "qkv_split";
    case Phase::head_copy: return "head_copy";
    case Phase::scores: return "scores";
    case Phase::scale: return "scale";
    case Phase::softmax: return "softmax";
    case Phase::attn_v: return "attn_v";
    case Phase::concat: return "concat";
    case Phase::out_proj: return "out_proj";
    case Phase::residual: return "residual";
    case Phase::ffn1: return "ffn1";
    case Phase::activation: return "activation";
    case Phase::ffn2: return "ffn2";
    case Phase::trace_copy: return "trace_copy";
    case Phase::free_trace: return "free_trace";
    case Phase::count: break;
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

// Times consecutive steps: each add() charges the time since the previous one to a phase.
class Stopwatch {
 public:
  explicit Stopwatch(PhaseProfile& p) : p_(p), t0_(Clock::now()) {}
  void add(Phase phase) {
    const Clock::time_point now = Clock::now();
    p_.seconds[static_cast<size_t>(phase)] += std::chrono::duration<double>(now - t0_).count();
    t0_ = now;
  }
  void restart() { t0_ = Clock::now(); }

 private:
  PhaseProfile& p_;
  Clock::time_point t0_;
};

constexpr Phase kHeadPhases[] = {Phase::head_copy, Phase::scores, Phase::scale, Phase::softmax, Phase::attn_v,
                                 Phase::concat};
constexpr int kHeadPhaseCount = 6;

// Adds the head steps' thread time to prof and the head loop's wall time to head_wall.
AttentionTrace attention_timed(const AttentionWeights& w, const ModelConfig& c, const Mat& x, const Mat& mask,
                               PhaseProfile& prof, double& head_wall) {
  const int C = c.d_model, NH = c.n_heads, HS = c.head_size();
  Stopwatch sw(prof);
  const Mat qkv = linear(x, w.in_proj_w, w.in_proj_b);
  sw.add(Phase::qkv_proj);
  Mat q_all = qkv.leftCols(C);
  Mat k_all = qkv.middleCols(C, C);
  Mat v_all = qkv.rightCols(C);
  AttentionTrace t;
  t.heads.resize(static_cast<size_t>(NH));
  t.concat.resize(x.rows(), C);
  sw.add(Phase::qkv_split);

  // Per-thread step times, each thread's row on its own cache line.
  struct alignas(64) ThreadTimes {
    double s[kHeadPhaseCount] = {};
  };
  std::vector<ThreadTimes> per_thread(static_cast<size_t>(omp_get_max_threads()));
  const float scale = score_scale(c, ScoreKind::scaled_dot);
  const Clock::time_point loop_start = Clock::now();
#pragma omp parallel for schedule(dynamic, 1) if (NH > 1 && x.rows() * x.rows() >= 256)
  for (int h = 0; h < NH; ++h) {
    double* acc = per_thread[static_cast<size_t>(omp_get_thread_num())].s;
    HeadTrace& head = t.heads[static_cast<size_t>(h)];
    Clock::time_point t0 = Clock::now();
    auto lap = [&](int i) {
      const Clock::time_point now = Clock::now();
      acc[i] += std::chrono::duration<double>(now - t0).count();
      t0 = now;
    };
    head.score = c.score_of_head(h);
    head.q = q_all.middleCols(h * HS, HS);
    head.k = k_all.middleCols(h * HS, HS);
    head.v = v_all.middleCols(h * HS, HS);
    lap(0);
    head.scores_raw = [&]() -> Mat { return head.q * head.k.transpose(); }();  // as raw_scores returns it
    lap(1);
    head.scores_scaled = head.scores_raw * scale;
    lap(2);
    head.weights_kept = softmax_masked(head.scores_scaled, mask);
    lap(3);
    head.out.noalias() = head.weights_kept * head.v;
    lap(4);
    t.concat.middleCols(h * HS, HS) = head.out;
    lap(5);
  }
  head_wall += seconds_since(loop_start);
  for (const ThreadTimes& tt : per_thread)
    for (int i = 0; i < kHeadPhaseCount; ++i) prof.seconds[static_cast<size_t>(kHeadPhases[i])] += tt.s[i];
  sw.restart();
  t.out = linear(t.concat, w.out_w, w.out_b);
  sw.add(Phase::out_proj);
  return t;
}

}  // namespace

PhaseProfile phases_run(const Model& model, const Mat& x, const MaskSpec& spec) {
  PhaseProfile prof;
  const ModelConfig& c = model.config;
  const bool pre = c.norm == NormPlacement::pre;
  const Clock::time_point start = Clock::now();
  double head_wall = 0;  // wall time of every head loop, to turn the steps' thread time into wall time
  {
    Stopwatch sw(prof);
    (void)model_check(model);
    (void)mask_spec_validate(spec);
    (void)x.allFinite();
    const int T = static_cast<int>(x.rows());
    const Mat mask = mask_build(spec, T, T, T);
    const Mat embed = x;
    sw.add(Phase::setup);

    std::vector<LayerTrace> layers;
    layers.reserve(static_cast<size_t>(c.n_layers));
    const Mat* in = &embed;
    for (int l = 0; l < c.n_layers; ++l) {
      const LayerWeights& w = model.weights.layers[static_cast<size_t>(l)];
      LayerTrace t;
      t.x_in = *in;
      sw.add(Phase::trace_copy);
      if (pre) {
        t.attn_in = layer_norm(*in, w.norm1_w, w.norm1_b, c.ln_eps);
        sw.add(Phase::layer_norm);
      } else {
        t.attn_in = *in;
        sw.add(Phase::trace_copy);
      }
      t.attn = attention_timed(w.attn, c, t.attn_in, mask, prof, head_wall);
      sw.restart();
      t.resid1 = *in + t.attn.out;
      sw.add(Phase::residual);
      if (!pre) {
        t.resid1 = layer_norm(t.resid1, w.norm1_w, w.norm1_b, c.ln_eps);
        sw.add(Phase::layer_norm);
      }
      if (pre) {
        t.ffn_in = layer_norm(t.resid1, w.norm2_w, w.norm2_b, c.ln_eps);
        sw.add(Phase::layer_norm);
      } else {
        t.ffn_in = t.resid1;
        sw.add(Phase::trace_copy);
      }
      t.ffn_hidden = linear(t.ffn_in, w.ff1_w, w.ff1_b);
      sw.add(Phase::ffn1);
      activation_apply(t.ffn_hidden, c.activation);
      sw.add(Phase::activation);
      t.ffn_out = linear(t.ffn_hidden, w.ff2_w, w.ff2_b);
      sw.add(Phase::ffn2);
      t.out = t.resid1 + t.ffn_out;
      sw.add(Phase::residual);
      if (!pre) {
        t.out = layer_norm(t.out, w.norm2_w, w.norm2_b, c.ln_eps);
        sw.add(Phase::layer_norm);
      }
      layers.push_back(std::move(t));
      in = &layers.back().out;
      sw.add(Phase::trace_copy);
    }
    if (c.final_norm) {
      prof.final = layer_norm(*in, model.weights.final_norm_w, model.weights.final_norm_b, c.ln_eps);
      sw.add(Phase::layer_norm);
    } else {
      prof.final = *in;
      sw.add(Phase::trace_copy);
    }
    const Clock::time_point free_start = Clock::now();
    layers.clear();
    layers.shrink_to_fit();
    prof.seconds[static_cast<size_t>(Phase::free_trace)] += seconds_since(free_start);
  }
  prof.total = seconds_since(start);

  double head_thread = 0;
  for (Phase p : kHeadPhases) head_thread += prof.seconds[static_cast<size_t>(p)];
  if (head_thread > 0)
    for (Phase p : kHeadPhases) prof.seconds[static_cast<size_t>(p)] *= head_wall / head_thread;
  return prof;
}

}  // namespace attnviz::bench
