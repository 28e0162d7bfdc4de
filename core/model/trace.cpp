// trace_run: text -> tokens -> X -> layers -> Trace. In cross-attention the source sentence is
// first encoded by the same stack (self-attention); its output is the memory every layer's
// attention reads its keys and values from, as the decoder of an encoder-decoder does.
#include "model/trace.h"

#include <algorithm>
#include <cstdio>

#include "base/memory_available.h"
#include "model/embed.h"
#include "model/kernels.h"
#include "model/layer_source.h"
#include "model/lean_layers.h"
#include "model/mask.h"
#include "text/subword_display.h"

namespace attnviz {

namespace {

// Tokens and the first layer's input for one sentence (or a pair, or given ids).
struct TokenizedInput {
  std::vector<TraceToken> tokens;
  int real = 0;  // tokens before padding
  Mat x;         // (T, C)
};

Status pad_tokens(TokenizedInput& in, int pad_to, const TraceToken& pad) {
  if (pad_to <= 0) return Ok{};
  if (in.real > pad_to)
    return make_error("the sentence has " + std::to_string(in.real) + " tokens, more than the pad length " +
                      std::to_string(pad_to));
  while (static_cast<int>(in.tokens.size()) < pad_to) in.tokens.push_back(pad);
  return Ok{};
}

// Word-level models (sandbox, demos): core/text/word_tokenizer.h's words, embedded by text.
Result<TokenizedInput> words_for_trace(const Model& model, const std::string& text, int pad_to) {
  auto words = tokenize_words(text);
  if (!words) return make_error(words.error());
  TokenizedInput out;
  for (const Token& w : *words) out.tokens.push_back(TraceToken{.text = w.text, .kind = w.kind});
  out.real = static_cast<int>(out.tokens.size());
  if (out.real == 0) return make_error("the sentence has no tokens: type some words");
  if (Status s = pad_tokens(out, pad_to, TraceToken{.text = "[PAD]", .kind = TokenKind::special, .pad = true}); !s)
    return make_error(s.error());
  std::vector<std::string> texts;
  texts.reserve(out.tokens.size());
  for (const TraceToken& t : out.tokens) texts.push_back(t.text);
  auto e = embed_tokens(model, texts);
  if (!e) return make_error(e.error());
  for (size_t i = 0; i < out.tokens.size(); ++i) out.tokens[i].in_vocab = e->in_vocab[i] != 0;
  out.x = std::move(e->x);
  return out;
}

TraceToken subword_trace_token(const SubwordEncoding& enc, const SubwordToken& t) {
  return TraceToken{.text = subword_token_label(enc, t),
                    .kind = subword_token_kind(enc, t),
                    .in_vocab = !t.unknown,
                    .id = t.id,
                    .piece = t.piece,
                    .segment = t.segment,
                    .type_id = t.type_id,
                    .continues = t.continues,
                    .begin = t.begin,
                    .end = t.end};
}

// Padding for checkpoints uses the tokenizer's own [PAD] id, in segment 0 as Hugging Face pads.
Result<TraceToken> subword_pad_token(const Model& model) {
  const auto pad = model.tokenizer->pad_id();
  if (!pad) return make_error("this model's tokenizer has no padding token, so the padding mask cannot be used");
  const std::string& piece = model.tokenizer->piece(*pad);
  return TraceToken{.text = piece, .kind = TokenKind::special, .pad = true, .id = *pad, .piece = piece};
}

Result<TokenizedInput> subwords_embed(const Model& model, TokenizedInput out, int pad_to) {
  if (out.real == 0) return make_error("the sentence has no tokens: type some words");
  if (pad_to > 0) {
    auto pad = subword_pad_token(model);
    if (!pad) return make_error(pad.error());
    if (Status s = pad_tokens(out, pad_to, *pad); !s) return make_error(s.error());
  }
  std::vector<int> ids, segments;
  for (const TraceToken& t : out.tokens) {
    ids.push_back(t.id);
    segments.push_back(t.type_id);
  }
  auto x = embed_ids(model, ids, segments);
  if (!x) return make_error(x.error());
  out.x = std::move(*x);
  return out;
}

// Checkpoints: the model's own tokenizer (a pair when text_b is given), embedded by id.
Result<TokenizedInput> subwords_for_trace(const Model& model, const std::string& text, const std::string& text_b,
                                          int pad_to) {
  auto enc = text_b.empty() ? model.tokenizer->encode(text) : model.tokenizer->encode(text, text_b);
  if (!enc) return make_error(enc.error());
  TokenizedInput out;
  for (const SubwordToken& t : enc->tokens) out.tokens.push_back(subword_trace_token(*enc, t));
  out.real = static_cast<int>(out.tokens.size());
  return subwords_embed(model, std::move(out), pad_to);
}

// Ids given directly (tests, the CLI's --ids): shown as their vocabulary pieces.
Result<TokenizedInput> ids_for_trace(const Model& model, const TraceInput& input, int pad_to) {
  if (!input.segment_ids.empty() && input.segment_ids.size() != input.token_ids.size())
    return make_error("there must be one segment id per token id");
  if (static_cast<int>(input.token_ids.size()) > kMaxTokens)
    return make_error("more than " + std::to_string(kMaxTokens) + " token ids");
  TokenizedInput out;
  for (size_t i = 0; i < input.token_ids.size(); ++i) {
    const int id = input.token_ids[i];
    const bool known = model.tokenizer && id >= 0 && id < model.tokenizer->vocab_size();
    const bool in_vocab = !model.tokenizer && id >= 0 && static_cast<size_t>(id) < model.vocab.size();
    // "#12" is built by insert: GCC 12 warns falsely (-Warray-bounds) on "#" + std::to_string here.
    const std::string piece = known      ? model.tokenizer->piece(id)
                              : in_vocab ? model.vocab[static_cast<size_t>(id)]
                                         : std::to_string(id).insert(0, 1, '#');
    // A checkpoint's token reads as the text it decodes to (" cat" for "Ġcat"), as when tokenized.
    const std::string decoded = known ? model.tokenizer->decode(std::vector<int>{id}) : std::string();
    out.tokens.push_back(TraceToken{.text = decoded.empty() ? piece : subword_visible_text(decoded), .id = id, .piece = piece,
                                    .segment = input.segment_ids.empty() ? 0 : input.segment_ids[i],
                                    .type_id = input.segment_ids.empty() ? 0 : input.segment_ids[i]});
  }
  out.real = static_cast<int>(out.tokens.size());
  if (pad_to > 0 && !model.tokenizer) return make_error("padding given ids needs a checkpoint with a tokenizer");
  return subwords_embed(model, std::move(out), pad_to);
}

Result<TokenizedInput> tokens_for_trace(const Model& model, const std::string& text, const std::string& text_b,
                                        int pad_to) {
  if (model.tokenizer) return subwords_for_trace(model, text, text_b, pad_to);
  if (!text_b.empty())
    return make_error("a sentence pair needs a checkpoint with its own tokenizer (BERT); this model reads one sentence");
  return words_for_trace(model, text, pad_to);
}

// Layer l's mask: `sliding` on a sliding layer of a model whose layers differ (built then), else `mask`.
const Mat& mask_of_layer(const Mat& mask, const Mat& sliding, const ModelConfig& c, int l) {
  return sliding.size() > 0 && layer_slides(c, l) ? sliding : mask;
}

// Runs every layer; memory == nullptr for self-attention. An error when cancelled (kTraceCancelled)
// or when a layer kept in its file's encoding cannot be decoded.
// mask_sliding: the sliding layers' mask when the model's layers differ (Trace::mask_sliding), else empty.
Status run_layers(const Model& model, const Mat& x0, const Mat* memory, const Mat& mask, const Mat& mask_sliding,
                  MapsKept kept, const Ablation& ablation, const TraceControl& control, std::vector<LayerTrace>& out,
                  Mat& final) {
  const ModelConfig& c = model.config;
  const Mat* x = &x0;
  out.clear();
  out.reserve(static_cast<size_t>(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) {
    if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return make_error(kTraceCancelled);
    auto layer = model_layer(model, l);
    if (!layer) return make_error(layer.error());
    out.push_back(layer_forward(**layer, config_of_layer(c, l), *x, memory, mask_of_layer(mask, mask_sliding, c, l), kept,
                                ablation_for_layer(ablation, l, c.n_heads)));
    if (kept == MapsKept::none) {  // a long input: the layer's input and heads stay (model/lean_layers.h)
      layer_trace_release(out.back(), true);
      if (l > 0) out[static_cast<size_t>(l) - 1].out.resize(0, 0);  // it is this layer's x_in
    }
    x = &out.back().out;
    if (control.layers_done) control.layers_done->fetch_add(1, std::memory_order_relaxed);
  }
  final = trace_final_of(model, *x);
  return Ok{};
}

// The model's own window w (the last w keys, itself included) on top of the input's mask: the
// local-window mask with radius w - 1, the narrower of it and the user's.
MaskSpec with_window(MaskSpec mask, int w) {
  mask.window = mask.window < 0 ? w - 1 : std::min(mask.window, w - 1);
  return mask;
}

// The checks every forward starts with, and the mask it applies: the input's, plus the model's own.
Result<MaskSpec> checked_mask(const Model& model, const TraceInput& input) {
  // Shapes only: finiteness of every weight was checked where the model was loaded (model_check);
  // re-reading 85M weights per forward cost GPT-2-small 0.2 s.
  if (Status s = model_check_shapes(model); !s) return make_error(s.error());
  if (Status s = mask_spec_validate(input.mask); !s) return make_error(s.error());
  if (Status s = ablation_validate(input.ablation, model.config); !s) return make_error(s.error());
  // A causal checkpoint (GPT) is causal whatever masks the user adds on top, and a model with its
  // own sliding window (Mistral) keeps it.
  MaskSpec mask = input.mask;
  mask.causal = mask.causal || model.config.causal;
  // When only some layers slide (Gemma), the window is theirs alone (build_masks).
  if (const int w = model.config.sliding_window; w > 0 && !layers_differ(model.config)) mask = with_window(mask, w);
  return mask;
}

// The mask of the sliding layers of a model whose layers differ; built only for those.
void build_masks(Trace& t, const ModelConfig& c, const MaskSpec& mask) {
  t.mask = mask_build(mask, t.n_queries(), t.n_keys(), t.real_keys);
  t.mask_sliding = layers_differ(c) ? mask_build(with_window(mask, c.sliding_window), t.n_queries(), t.n_keys(), t.real_keys)
                                    : Mat();
}

// A trace is refused before any layer runs when it would pass its limit (TraceInput::max_memory;
// 2 GiB unless the app or the CLI sized it from the machine). Without one, 4,096 tokens (padding
// alone gets there) in 8 layers of 32 heads asked for 17 GB and the system killed the app (found by
// the soak test).

}  // namespace

MapsKept trace_maps_kept(const ModelConfig& c, int64_t tq, int64_t tk, bool on_demand) {
  const int64_t cells = tq * tk * c.n_heads * c.n_layers;
  if (on_demand || cells > kKeepMapsCells) return MapsKept::none;
  return cells > kKeepScoresCells ? MapsKept::weights : MapsKept::all;
}

namespace {

// The bytes of attention matrices a forward of Tq queries over Tk keys keeps, in every layer.
int64_t trace_attention_bytes(const ModelConfig& c, int64_t tq, int64_t tk, bool on_demand) {
  const MapsKept kept = trace_maps_kept(c, tq, tk, on_demand);
  int64_t matrices = 0;  // per layer: weights, plus raw and scaled scores where kept (head_forward)
  for (int h = 0; h < c.n_heads; ++h) {
    const bool recomputable = head_scores_recomputable(c.score_of_head(h));
    matrices += !recomputable || kept == MapsKept::all ? 3 : kept == MapsKept::weights ? 1 : 0;
  }
  return matrices * c.n_layers * tq * tk * static_cast<int64_t>(sizeof(Mat::Scalar));
}

// "17.2 GB", "67 MB": a limit set to 64M must not read as 0.1 GB.
std::string size_text(int64_t bytes) {
  char buf[32];
  if (bytes >= 1'000'000'000) std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
  else std::snprintf(buf, sizeof buf, "%.0f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

Status trace_size_check(const ModelConfig& c, int64_t tq, int64_t tk, int64_t max_memory, int64_t extra_bytes,
                        bool on_demand) {
  const int64_t limit = max_memory > 0 ? max_memory : kTraceMemoryDefault;
  const int64_t bytes = trace_bytes(c, tq, tk, on_demand) + extra_bytes;
  if (bytes <= limit) return Ok{};
  // The size suggested is in whole G rounded up from GB: a G (2^30 bytes) is more than a GB, so it
  // fits, and it never reads smaller than the size said before it.
  const long long suggest = static_cast<long long>((bytes + 999'999'999) / 1'000'000'000);
  const int fit = trace_tokens_fit(c, limit, on_demand);
  char what[256];
  if (trace_maps_kept(c, tq, tk, on_demand) == MapsKept::none)
    std::snprintf(what, sizeof what, "the trace would take %s (each layer's rows for %lld tokens; the maps are formed when "
                  "shown)", size_text(bytes).c_str(), static_cast<long long>(tq));
  else
    std::snprintf(what, sizeof what, "the attention weights would take %s (%lld x %lld in each of %d heads x %d layers), "
                  "the whole trace %s", size_text(trace_attention_bytes(c, tq, tk, on_demand)).c_str(),
                  static_cast<long long>(tq), static_cast<long long>(tk), c.n_heads, c.n_layers, size_text(bytes).c_str());
  char line[640];
  std::snprintf(line, sizeof line,
                "%s, over its limit of %s: %d tokens fit in this model. Use a shorter text (or padding), fewer heads "
                "or layers, or, if the machine has the memory, raise the limit with --max-trace-memory SIZE (%lldG "
                "for this input)",
                what, size_text(limit).c_str(), fit, suggest);
  return make_error(line);
}

namespace {

// The fields that say how a trace was made.
void describe(Trace& t, const Model& model, const TraceInput& input, const MaskSpec& mask) {
  t.config = model.config;
  t.model_source = model.source;
  t.ablation = input.ablation;
  t.causal = mask.causal;
}

Result<Trace> prepare_embeddings(const Model& model, const TraceInput& input, const MaskSpec& mask) {
  const Mat& x = *input.embeddings;
  if (x.cols() != model.config.d_model)
    return make_error("the input has " + std::to_string(x.cols()) + " features per token but the model's d_model is " +
                      std::to_string(model.config.d_model));
  if (x.rows() < 1 || x.rows() > kMaxTokens)
    return make_error("the input must have between 1 and " + std::to_string(kMaxTokens) + " rows (tokens)");
  if (!x.allFinite()) return make_error("the input contains NaN or infinite values");
  if (input.mask.pad_to > 0) return make_error("the padding mask needs text input; embeddings are used as given");
  Trace t;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    t.queries.push_back(TraceToken{.text = std::to_string(i).insert(0, 1, 't')});  // "t3": as ids_for_trace's "#12"
  t.keys = t.queries;
  t.real_keys = static_cast<int>(x.rows());
  t.embed = x;
  build_masks(t, model.config, mask);
  return t;
}

// A sentence (or pair, or ids) attending to itself; padding applies to its keys.
Result<Trace> prepare_tokens(const Model& model, const TraceInput& input, const MaskSpec& mask) {
  auto target = input.token_ids.empty() ? tokens_for_trace(model, input.text, input.text_b, input.mask.pad_to)
                                        : ids_for_trace(model, input, input.mask.pad_to);
  if (!target) return make_error(target.error());
  Trace t;
  t.queries = std::move(target->tokens);
  t.keys = t.queries;
  t.real_keys = target->real;
  t.embed = std::move(target->x);
  build_masks(t, model.config, mask);
  return t;
}

// The source is encoded first (self-attention over it, its padding hidden); its output is the
// memory the target's layers read keys and values from. Padding applies to the source only.
Result<Trace> trace_cross(const Model& model, const TraceInput& input, const MaskSpec& mask,
                          const TraceControl& control) {
  auto target = input.token_ids.empty() ? tokens_for_trace(model, input.text, input.text_b, 0)
                                        : ids_for_trace(model, input, 0);
  if (!target) return make_error(target.error());
  Trace t;
  t.cross = true;
  t.queries = std::move(target->tokens);
  t.embed = std::move(target->x);
  auto source = tokens_for_trace(model, input.source_text, "", input.mask.pad_to);
  if (!source) return make_error("source sentence: " + source.error());
  t.keys = std::move(source->tokens);
  t.real_keys = source->real;
  const Mat& xs = source->x;
  // The encoder sees the whole source except its padding.
  // The encoder's (Tk, Tk) matrices live until the target's layers have run.
  const ModelConfig& c = model.config;
  if (Status s = trace_size_check(c, t.n_queries(), t.n_keys(), input.max_memory,
                                  trace_bytes(c, t.n_keys(), t.n_keys(), input.maps_on_demand), input.maps_on_demand);
      !s)
    return make_error(s.error());
  t.maps_kept = trace_maps_kept(c, t.n_queries(), t.n_keys(), input.maps_on_demand);
  MaskSpec encoder_mask;
  encoder_mask.pad_to = input.mask.pad_to;
  encoder_mask.causal = model.config.causal;
  const Mat source_mask = mask_build(encoder_mask, t.n_keys(), t.n_keys(), t.real_keys);
  std::vector<LayerTrace> encoder_layers;
  const MapsKept encoder_kept = trace_maps_kept(c, t.n_keys(), t.n_keys(), input.maps_on_demand);
  if (layers_differ(c)) return make_error("cross-attention with layers of different windows is not supported");
  if (Status s = run_layers(model, xs, nullptr, source_mask, Mat(), encoder_kept, input.ablation, control, encoder_layers,
                            t.memory);
      !s)
    return make_error(s.error());
  t.mask = mask_build(mask, t.n_queries(), t.n_keys(), t.real_keys);
  if (Status s = run_layers(model, t.embed, &t.memory, t.mask, Mat(), t.maps_kept, input.ablation, control, t.layers, t.final);
      !s)
    return make_error(s.error());
  return t;
}

}  // namespace

int64_t trace_bytes(const ModelConfig& c, int64_t tq, int64_t tk, bool on_demand) {
  const int64_t C = c.d_model, F = c.d_ff, L = c.n_layers, heads_width = int64_t{c.n_heads} * c.head_size();
  const int64_t rotary = c.positions == PositionEncoding::rotary ? 1 : 0;
  const int64_t sublayer_norms = c.sublayer_norm ? (F > 0 ? 2 : 1) * C : 0;
  // Per layer and query: x_in, attn_in, resid1, out and the attention's out; its concat (NH·HS);
  // the FFN's input, hidden and output; the sublayers' normalised outputs (Gemma); each head's q
  // and out (and q unrotated). Per layer and key: each head's k and v (and k unrotated; grouped
  // heads each keep their own copy). Per query once: embed and final. One (Tq, Tk) mask, two when
  // only some layers slide.
  const int64_t masks = tq * tk * (layers_differ(c) ? 2 : 1);
  if (trace_maps_kept(c, tq, tk, on_demand) == MapsKept::none) {
    // A lean trace (model/lean_layers.h): per layer and query x_in and each head's q and out, per
    // layer and key each head's k and v; the last layer's out, embed and final once.
    const int64_t floats = tq * (L * (C + 2 * heads_width) + 3 * C) + tk * L * 2 * heads_width + masks;
    return floats * static_cast<int64_t>(sizeof(Mat::Scalar));
  }
  const int64_t per_query =
      L * (5 * C + heads_width + (F > 0 ? 2 * C + F : 0) + sublayer_norms + heads_width * (2 + rotary)) + 2 * C;
  const int64_t per_key = L * heads_width * (2 + rotary);
  const int64_t floats = tq * per_query + tk * per_key + masks;
  return trace_attention_bytes(c, tq, tk, on_demand) + floats * static_cast<int64_t>(sizeof(Mat::Scalar));
}

int trace_tokens_fit(const ModelConfig& c, int64_t max_memory, bool on_demand) {
  // trace_bytes grows with T, except where a kind of matrix stops being kept (kKeepScoresCells,
  // kKeepMapsCells): it drops there. So the longest fit is looked for in the stretch past the last
  // drop first, then in the stretches before it.
  auto fits = [&](int64_t t) { return trace_bytes(c, t, t, on_demand) <= max_memory; };
  auto longest = [&](int64_t lo, int64_t hi) {  // fits(lo) holds; the largest t in [lo, hi] that fits
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  std::vector<int64_t> ends;  // the last T of each stretch of one MapsKept, ascending
  for (int64_t t = 1; t < kMaxTokens; ++t)
    if (trace_maps_kept(c, t, t, on_demand) != trace_maps_kept(c, t + 1, t + 1, on_demand)) ends.push_back(t);
  ends.push_back(kMaxTokens);
  for (size_t i = ends.size(); i-- > 0;) {
    const int64_t first = i == 0 ? 1 : ends[i - 1] + 1;
    if (fits(first)) return static_cast<int>(longest(first, ends[i]));
  }
  return 0;
}

Mat trace_final_of(const Model& model, const Mat& last_out) {
  const ModelConfig& c = model.config;
  return c.final_norm ? norm_apply(last_out, model.weights.final_norm_w, model.weights.final_norm_b, c) : last_out;
}

Result<Trace> trace_prepare(const Model& model, const TraceInput& input) {
  auto mask = checked_mask(model, input);
  if (!mask) return make_error(mask.error());
  if (!input.source_text.empty())
    return make_error(input.embeddings ? "cross-attention needs text input, not embeddings"
                                       : "cross-attention runs its encoder before the layers: use trace_run");
  auto t = input.embeddings ? prepare_embeddings(model, input, *mask) : prepare_tokens(model, input, *mask);
  if (!t) return t;
  if (Status s = trace_size_check(model.config, t->n_queries(), t->n_keys(), input.max_memory, 0, input.maps_on_demand); !s)
    return make_error(s.error());
  describe(*t, model, input, *mask);
  t->maps_kept = trace_maps_kept(model.config, t->n_queries(), t->n_keys(), input.maps_on_demand);
  return t;
}

const Mat& trace_layer_mask(const Trace& t, int l) {
  return mask_of_layer(t.mask, t.mask_sliding, t.config, l);
}

Status trace_finish(const Model& model, Trace& t, const TraceControl& control) {
  return run_layers(model, t.embed, nullptr, t.mask, t.mask_sliding, t.maps_kept, t.ablation, control, t.layers, t.final);
}

Result<Trace> trace_run(const Model& model, const TraceInput& input, const TraceControl& control) {
  if (input.source_text.empty() || input.embeddings) {  // trace_prepare names the embeddings error
    auto t = trace_prepare(model, input);
    if (!t) return t;
    if (Status s = trace_finish(model, *t, control); !s) return make_error(s.error());
    return t;
  }
  auto mask = checked_mask(model, input);
  if (!mask) return make_error(mask.error());
  auto t = trace_cross(model, input, *mask, control);
  if (t) describe(*t, model, input, *mask);
  return t;
}

Result<Mat> trace_final_ablated(const Model& model, const Trace& base, const Ablation& ablation) {
  Interventions iv;
  iv.ablation = ablation;
  return trace_final_intervened(model, base, iv);
}

Result<Mat> trace_final_intervened(const Model& model, const Trace& base, const Interventions& iv) {
  const ModelConfig& c = model.config;
  if (base.cross) return make_error("switching heads off or patching needs self-attention, not cross-attention");
  if (static_cast<int>(base.layers.size()) != c.n_layers || base.embed.cols() != c.d_model)
    return make_error("the trace was not made by this model");
  if (Status s = interventions_validate(iv, c, base.n_queries()); !s) return make_error(s.error());
  // Layers before the first one the interventions change are base's own.
  const int first = interventions_first_layer(iv, base.ablation, c);
  if (first == c.n_layers) return base.final;
  Mat x = base.layers[static_cast<size_t>(first)].x_in;
  for (int l = first; l < c.n_layers; ++l) {
    interventions_apply_residual(iv, l, x);
    auto layer = model_layer(model, l);
    if (!layer) return make_error(layer.error());
    x = layer_forward(**layer, config_of_layer(c, l), x, nullptr, trace_layer_mask(base, l), base.maps_kept,
                      interventions_for_layer(iv, l, c.n_heads))
            .out;
  }
  return trace_final_of(model, x);
}

}  // namespace attnviz
