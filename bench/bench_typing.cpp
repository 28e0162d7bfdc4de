// attnviz-bench-typing: what a keystroke costs with a checkpoint loaded. Opens the folder, tokenizes
// a sentence of about --tokens tokens, then types a new last word letter by letter (deleting the old
// one first) and times each keystroke three ways, median of --repeat: (a) trace_run on the whole
// sentence, (b) trace_run_reusing from the previous keystroke's trace, as the app's worker runs
// it, (c) the model's next-token answer the worker reads after either. Prints one JSON line. Not a test.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "analysis/answer.h"
#include "base/memory_tuning.h"
#include "bench_timing.h"
#include "base/parse_number.h"
#include "io/model_open.h"
#include "model/trace.h"
#include "model/trace_reuse.h"

namespace {

using namespace attnviz;
using bench::upper_median;
using bench::median_seconds;

struct Options {
  std::string model;
  int tokens = 32, repeat = 7, threads = 2;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], v = argv[i + 1];
    bool ok = true;
    if (flag == "--model")
      o.model = v;
    else if (flag == "--tokens")
      ok = parse_int_in(v, 2, kMaxTokens, o.tokens);
    else if (flag == "--repeat")
      ok = parse_int_in(v, 1, 1000, o.repeat);
    else if (flag == "--threads")
      ok = parse_int_in(v, 1, 256, o.threads);
    else
      ok = false;
    if (!ok) return false;
  }
  return !o.model.empty() && argc % 2 == 1;
}

int token_count(const Model& m, const std::string& text) {
  auto enc = m.tokenizer->encode(text);
  return enc ? static_cast<int>(enc->tokens.size()) : 0;
}

// Words of a plain sentence in order, each kept when the stem plus the last word still fits in
// `tokens` tokens and skipped otherwise (the synthetic vocabulary splits a word into 1-4 tokens),
// until the sentence is `tokens` long or no word fits.
std::string sentence_stem(const Model& m, int tokens, const std::string& last_word) {
  const std::vector<std::string> words = {"The", "animal", "didn't", "cross", "the", "street", "because", "it",
                                          "was", "too",    "wide",   "and",   "a",   "night",  "was",     "cold"};
  std::string stem;
  for (size_t i = 0, misses = 0; misses < words.size() && token_count(m, stem + last_word) < tokens; ++i) {
    const std::string longer = stem + words[i % words.size()] + " ";
    if (token_count(m, longer + last_word) > tokens) {
      ++misses;
    } else {
      stem = longer;
      misses = 0;
    }
  }
  return stem;
}

// The texts of typing: the old last word deleted letter by letter, then the new one typed.
std::vector<std::string> keystrokes(const std::string& stem, const std::string& old_word, const std::string& new_word) {
  std::vector<std::string> texts;
  for (size_t n = old_word.size(); n > 0; --n) texts.push_back(stem + old_word.substr(0, n));
  for (size_t n = 1; n <= new_word.size(); ++n) texts.push_back(stem + new_word.substr(0, n));
  return texts;
}

// Calls f(a's matrix, b's matrix, name, square) for every intermediate two traces hold; square:
// a (T, T) head matrix, the others being (T, features).
template <class F>
void for_each_pair(const Trace& a, const Trace& b, F&& f) {
  f(a.final, b.final, "final", false);
  for (size_t l = 0; l < a.layers.size(); ++l) {
    const LayerTrace &la = a.layers[l], &lb = b.layers[l];
    const std::string at = " L" + std::to_string(l);
    f(la.x_in, lb.x_in, "x_in" + at, false);
    f(la.attn_in, lb.attn_in, "attn_in" + at, false);
    f(la.attn.concat, lb.attn.concat, "concat" + at, false);
    f(la.attn.out, lb.attn.out, "attn.out" + at, false);
    f(la.resid1, lb.resid1, "resid1" + at, false);
    f(la.ffn_in, lb.ffn_in, "ffn_in" + at, false);
    f(la.ffn_hidden, lb.ffn_hidden, "ffn_hidden" + at, false);
    f(la.ffn_out, lb.ffn_out, "ffn_out" + at, false);
    f(la.out, lb.out, "out" + at, false);
    for (size_t h = 0; h < la.attn.heads.size(); ++h) {
      const HeadTrace &ha = la.attn.heads[h], &hb = lb.attn.heads[h];
      const std::string head = at + " H" + std::to_string(h);
      f(ha.q, hb.q, "q" + head, false);
      f(ha.k, hb.k, "k" + head, false);
      f(ha.v, hb.v, "v" + head, false);
      f(ha.scores_raw, hb.scores_raw, "scores_raw" + head, true);
      f(ha.scores_scaled, hb.scores_scaled, "scores_scaled" + head, true);
      f(ha.weights_kept, hb.weights_kept, "weights" + head, true);
      f(ha.out, hb.out, "head out" + head, false);
    }
  }
}

// The largest difference between two traces, where it is and the largest value there, and the
// largest per kind of matrix ("scores_raw", "weights", "out", ...): GEMMs over other row counts
// round differently, so differences scale with the values. rows >= 0 compares only the first
// `rows` rows (and columns of the (T, T) matrices): the prefix two inputs share.
struct TraceDiff {
  float diff = 0, magnitude = 0;
  std::string field;
  std::map<std::string, float> by_kind;
};
TraceDiff trace_diff(const Trace& a, const Trace& b, Eigen::Index rows = -1) {
  TraceDiff d;
  for_each_pair(a, b, [&](const Mat& x, const Mat& y, const std::string& name, bool square) {
    const Eigen::Index r = rows < 0 ? x.rows() : rows, c = rows < 0 || !square ? x.cols() : rows;
    if (x.size() == 0 || y.rows() < r || y.cols() < c) return;
    const float diff = (x.topLeftCorner(r, c) - y.topLeftCorner(r, c)).cwiseAbs().maxCoeff();
    float& kind = d.by_kind[name.substr(0, name.find(" L"))];
    kind = std::max(kind, diff);
    if (diff > d.diff) d.diff = diff, d.magnitude = y.topLeftCorner(r, c).cwiseAbs().maxCoeff(), d.field = name;
  });
  return d;
}

template <class T>
T checked(Result<T> r) {
  if (!r) {
    std::cerr << "attnviz-bench-typing: " << r.error() << "\n";
    std::exit(1);
  }
  return std::move(*r);
}

}  // namespace

int main(int argc, char** argv) {
  memory_keep_freed_blocks();  // as the app does
  Options o;
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: attnviz-bench-typing --model DIR [--tokens 32] [--repeat 7] [--threads 2]\n";
    return 2;
  }
  omp_set_num_threads(o.threads);
  Eigen::setNbThreads(o.threads);
  const Model model = checked(model_open(o.model));
  if (!model.tokenizer) {
    std::cerr << "attnviz-bench-typing: the model has no tokenizer of its own\n";
    return 1;
  }
  const std::string stem = sentence_stem(model, o.tokens, "tired.");
  const std::vector<std::string> texts = keystrokes(stem, "tired.", "sleepy.");
  TraceInput in;
  in.text = stem + "tired.";
  Trace previous = checked(trace_run(model, in));  // the sentence before the first keystroke
  Trace previous_full = previous;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> full_all, reuse_all, answer_all;
  float worst_diff = 0;
  for (size_t k = 1; k < texts.size(); ++k) {
    in.text = texts[k];
    Trace full = checked(trace_run(model, in));
    Trace reused = checked(trace_run_reusing(model, in, previous));
    const TraceDiff diff = trace_diff(reused, full);
    // trace_run's own rounding: the rows two full traces share, computed at two lengths.
    const TraceDiff own = trace_diff(full, previous_full, reused.reused_rows);
    const double full_s = median_seconds(o.repeat, [&] { checked(trace_run(model, in)); });
    const double reuse_s = median_seconds(o.repeat, [&] { checked(trace_run_reusing(model, in, previous)); });
    const double answer_s = median_seconds(o.repeat, [&] { checked(model_answer(model, reused, in.text)); });
    rows.push_back({{"text_end", texts[k].substr(stem.size())},
                    {"tokens", full.n_queries()},
                    {"reused_rows", reused.reused_rows},
                    {"full_s", full_s},
                    {"reuse_s", reuse_s},
                    {"answer_s", answer_s},
                    {"max_abs_diff", diff.diff},
                    {"diff_at", diff.field},
                    {"largest_value_there", diff.magnitude},
                    {"max_abs_diff_by_kind", diff.by_kind},
                    {"full_vs_full_shared_rows_diff", own.diff}});
    full_all.push_back(full_s);
    reuse_all.push_back(reuse_s);
    answer_all.push_back(answer_s);
    worst_diff = std::max(worst_diff, diff.diff);
    previous = std::move(reused);  // the next keystroke starts from this one, as in the app
    previous_full = std::move(full);
  }
  const double reuse_med = upper_median(reuse_all), answer_med = upper_median(answer_all);
  const nlohmann::json j = {{"model", o.model},
                            {"sentence", stem + "tired."},
                            {"tokens", token_count(model, stem + "tired.")},
                            {"threads", o.threads},
                            {"repeat", o.repeat},
                            {"keystrokes", rows},
                            {"full_median_s", upper_median(full_all)},
                            {"reuse_median_s", reuse_med},
                            {"answer_median_s", answer_med},
                            {"reuse_plus_answer_median_s", reuse_med + answer_med},
                            {"max_abs_diff", worst_diff},
                            {"under_100ms", reuse_med + answer_med < 0.1}};
  std::cout << j.dump() << "\n";
  return 0;
}
