// trace_run: text -> tokens -> X -> layers -> Trace. In cross-attention the source sentence is
// first encoded by the same stack (self-attention); its output is the memory every layer's
// attention reads its keys and values from, as the decoder of an encoder-decoder does.
#include "core/trace.h"

#include "core/embed.h"
#include "core/kernels.h"
#include "core/mask.h"

namespace attnviz {

namespace {

struct TokenizedInput {
  std::vector<TraceToken> tokens;
  int real = 0;  // tokens before padding
};

Result<TokenizedInput> tokenize_for_trace(const std::string& text, int pad_to) {
  auto words = tokenize_words(text);
  if (!words) return make_error(words.error());
  TokenizedInput out;
  for (const Token& w : *words) out.tokens.push_back(TraceToken{w.text, w.kind, true, false});
  out.real = static_cast<int>(out.tokens.size());
  if (out.real == 0) return make_error("the sentence has no tokens: type some words");
  if (pad_to > 0) {
    if (out.real > pad_to)
      return make_error("the sentence has " + std::to_string(out.real) + " tokens, more than the pad length " +
                        std::to_string(pad_to));
    while (static_cast<int>(out.tokens.size()) < pad_to)
      out.tokens.push_back(TraceToken{"[PAD]", TokenKind::special, true, true});
  }
  return out;
}

Result<Mat> embed_for_trace(const Model& model, std::vector<TraceToken>& tokens) {
  std::vector<std::string> texts;
  texts.reserve(tokens.size());
  for (const TraceToken& t : tokens) texts.push_back(t.text);
  auto e = embed_tokens(model, texts);
  if (!e) return make_error(e.error());
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i].in_vocab = e->in_vocab[i] != 0;
  return std::move(e->x);
}

// Runs every layer; memory == nullptr for self-attention. False when cancelled.
bool run_layers(const Model& model, const Mat& x0, const Mat* memory, const Mat& mask, const TraceControl& control,
                std::vector<LayerTrace>& out, Mat& final) {
  const ModelConfig& c = model.config;
  const Mat* x = &x0;
  out.clear();
  out.reserve(static_cast<size_t>(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) {
    if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return false;
    out.push_back(layer_forward(model.weights.layers[static_cast<size_t>(l)], c, *x, memory, mask));
    x = &out.back().out;
    if (control.layers_done) control.layers_done->fetch_add(1, std::memory_order_relaxed);
  }
  final = c.final_norm ? layer_norm(*x, model.weights.final_norm_w, model.weights.final_norm_b, c.ln_eps) : *x;
  return true;
}

Result<Trace> trace_embeddings(const Model& model, const TraceInput& input, const TraceControl& control) {
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
    t.queries.push_back(TraceToken{"t" + std::to_string(i), TokenKind::word, true, false});
  t.keys = t.queries;
  t.real_keys = static_cast<int>(x.rows());
  t.embed = x;
  t.mask = mask_build(input.mask, t.n_queries(), t.n_keys(), t.real_keys);
  if (!run_layers(model, t.embed, nullptr, t.mask, control, t.layers, t.final)) return make_error(kTraceCancelled);
  return t;
}

}  // namespace

Result<Trace> trace_run(const Model& model, const TraceInput& input, const TraceControl& control) {
  // Shapes only: finiteness of every weight was checked where the model was loaded (model_check);
  // re-reading 85M weights per forward cost GPT-2-small 0.2 s.
  if (Status s = model_check_shapes(model); !s) return make_error(s.error());
  if (Status s = mask_spec_validate(input.mask); !s) return make_error(s.error());
  Result<Trace> result = [&]() -> Result<Trace> {
    if (input.embeddings) {
      if (!input.source_text.empty()) return make_error("cross-attention needs text input, not embeddings");
      return trace_embeddings(model, input, control);
    }
    const bool cross = !input.source_text.empty();
    // Padding applies to the keys: the sentence itself, or the source in cross-attention.
    auto target = tokenize_for_trace(input.text, cross ? 0 : input.mask.pad_to);
    if (!target) return make_error(target.error());
    Trace t;
    t.cross = cross;
    t.queries = std::move(target->tokens);
    auto x = embed_for_trace(model, t.queries);
    if (!x) return make_error(x.error());
    t.embed = std::move(*x);
    if (!cross) {
      t.keys = t.queries;
      t.real_keys = target->real;
      t.mask = mask_build(input.mask, t.n_queries(), t.n_keys(), t.real_keys);
      if (!run_layers(model, t.embed, nullptr, t.mask, control, t.layers, t.final)) return make_error(kTraceCancelled);
      return t;
    }
    auto source = tokenize_for_trace(input.source_text, input.mask.pad_to);
    if (!source) return make_error("source sentence: " + source.error());
    t.keys = std::move(source->tokens);
    t.real_keys = source->real;
    auto xs = embed_for_trace(model, t.keys);
    if (!xs) return make_error("source sentence: " + xs.error());
    // The encoder sees the whole source except its padding.
    MaskSpec encoder_mask;
    encoder_mask.pad_to = input.mask.pad_to;
    const Mat source_mask = mask_build(encoder_mask, t.n_keys(), t.n_keys(), t.real_keys);
    std::vector<LayerTrace> encoder_layers;
    if (!run_layers(model, *xs, nullptr, source_mask, control, encoder_layers, t.memory)) return make_error(kTraceCancelled);
    t.mask = mask_build(input.mask, t.n_queries(), t.n_keys(), t.real_keys);
    if (!run_layers(model, t.embed, &t.memory, t.mask, control, t.layers, t.final)) return make_error(kTraceCancelled);
    return t;
  }();
  if (result) {
    result->config = model.config;
    result->model_source = model.source;
  }
  return result;
}

}  // namespace attnviz
