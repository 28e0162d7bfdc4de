// GPT-2 and the BERT relatives (BERT, RoBERTa, DistilBERT): their config.json keys (each family's
// table) and tensor names mapped onto the engine's model. GPT-2's Conv1D weights are stored (in, out)
// and are transposed; the encoders' separate query / key / value are stacked into the engine's
// in_proj. The masked-LM heads of the three encoders share one loader, each with its own tensor names.
#include <algorithm>
#include <iterator>

#include "io/hf_detail.h"

namespace attnviz::hf {

namespace {

// GPT2Config's keys.
constexpr ConfigKey kGpt2Keys[] = {
    {"n_embd", KeyUse::read},
    {"n_head", KeyUse::read},
    {"n_layer", KeyUse::read},
    {"n_positions", KeyUse::read},
    {"n_inner", KeyUse::read},
    {"layer_norm_epsilon", KeyUse::read},
    {"vocab_size", KeyUse::read},
    {"activation_function", KeyUse::read},
    {"tie_word_embeddings", KeyUse::read},
    {"n_ctx", KeyUse::harmless},        // older files' copy of n_positions, which transformers no longer reads
    {"resid_pdrop", KeyUse::harmless},  // dropout is off at inference
    {"embd_pdrop", KeyUse::harmless},
    {"attn_pdrop", KeyUse::harmless},
    {"summary_type", KeyUse::harmless},  // GPT2DoubleHeadsModel's classifier head
    {"summary_use_proj", KeyUse::harmless},
    {"summary_activation", KeyUse::harmless},
    {"summary_proj_to_labels", KeyUse::harmless},
    {"summary_first_dropout", KeyUse::harmless},
    {"reorder_and_upcast_attn", KeyUse::harmless},  // the same scores computed in float32, as here
    {"is_decoder", KeyUse::harmless},               // causal whatever it says
    {"scale_attn_weights", KeyUse::only, "true", "scores divided by sqrt(head size)"},
    {"scale_attn_by_inverse_layer_idx", KeyUse::only, "false", "scores not divided by the layer number"},
};

// BertConfig's keys, which RoBERTa shares (RobertaConfig adds none that change the numbers).
constexpr ConfigKey kBertKeys[] = {
    {"hidden_size", KeyUse::read},
    {"num_attention_heads", KeyUse::read},
    {"num_hidden_layers", KeyUse::read},
    {"max_position_embeddings", KeyUse::read},
    {"intermediate_size", KeyUse::read},
    {"type_vocab_size", KeyUse::read},
    {"layer_norm_eps", KeyUse::read},
    {"vocab_size", KeyUse::read},
    {"hidden_act", KeyUse::read},
    {"tie_word_embeddings", KeyUse::read},
    {"hidden_dropout_prob", KeyUse::harmless},  // dropout is off at inference
    {"attention_probs_dropout_prob", KeyUse::harmless},
    {"classifier_dropout", KeyUse::harmless},
    {"directionality", KeyUse::harmless},  // Google's multilingual configs: what the tokenizer was made for
    {"pooler_fc_size", KeyUse::harmless},  // the pooler, which attnviz does not run
    {"pooler_num_attention_heads", KeyUse::harmless},
    {"pooler_num_fc_layers", KeyUse::harmless},
    {"pooler_size_per_head", KeyUse::harmless},
    {"pooler_type", KeyUse::harmless},
    {"position_embedding_type", KeyUse::only, "\"absolute\"", "a learned vector per position"},
};
constexpr ConfigKey kRobertaKeys[] = {
    {"pad_token_id", KeyUse::read},  // positions start after it
};

// DistilBertConfig's keys.
constexpr ConfigKey kDistilbertKeys[] = {
    {"dim", KeyUse::read},
    {"n_heads", KeyUse::read},
    {"n_layers", KeyUse::read},
    {"max_position_embeddings", KeyUse::read},
    {"hidden_dim", KeyUse::read},
    {"vocab_size", KeyUse::read},
    {"activation", KeyUse::read},
    {"tie_word_embeddings", KeyUse::read},
    {"dropout", KeyUse::harmless},  // dropout is off at inference
    {"attention_dropout", KeyUse::harmless},
    {"qa_dropout", KeyUse::harmless},  // the heads of other tasks
    {"seq_classif_dropout", KeyUse::harmless},
    {"sinusoidal_pos_embds", KeyUse::harmless},  // only how the position table is initialised; it is read
    {"tie_weights_", KeyUse::harmless},          // an old spelling transformers no longer reads
};

Status fill_gpt2(ConfigReader& r, HfConfig& out) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"n_embd", 768}, {"n_head", 12}, {"n_layer", 12}, {"n_positions", 1024});
  c.d_ff = r.integer("n_inner", 4 * c.d_model);
  c.ln_eps = r.number("layer_norm_epsilon", 1e-5f);
  out.vocab_size = r.integer("vocab_size", 50257);
  out.tied = r.flag("tie_word_embeddings", true);
  if (Status s = read_activation(r, "activation_function", "gelu_new", c.activation); !s) return s;
  c.norm = NormPlacement::pre;
  c.positions = PositionEncoding::learned;
  c.final_norm = true;
  c.causal = true;
  return Ok{};
}

// BERT's keys, which RoBERTa shares; `eps` is the family's default layer_norm_eps.
Status fill_bert_keys(ConfigReader& r, HfConfig& out, int type_vocab, float eps) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"hidden_size", 768}, {"num_attention_heads", 12}, {"num_hidden_layers", 12},
             {"max_position_embeddings", 512});
  c.d_ff = r.integer("intermediate_size", 3072);
  c.type_vocab = r.integer("type_vocab_size", type_vocab);
  c.ln_eps = r.number("layer_norm_eps", eps);
  out.vocab_size = r.integer("vocab_size", 30522);
  out.tied = r.flag("tie_word_embeddings", true);
  if (Status s = read_activation(r, "hidden_act", "gelu", c.activation); !s) return s;
  c.norm = NormPlacement::post;
  c.positions = PositionEncoding::learned;
  c.embed_norm = true;
  return Ok{};
}

Status fill_bert(ConfigReader& r, HfConfig& out) { return fill_bert_keys(r, out, 2, 1e-12f); }

// RoBERTa is BERT with positions counted from padding_idx + 1 (create_position_ids_from_input_ids)
// and, usually, one token type.
Status fill_roberta(ConfigReader& r, HfConfig& out) {
  if (Status s = fill_bert_keys(r, out, 1, 1e-12f); !s) return s;
  out.config.position_padding_idx = r.integer("pad_token_id", 1);
  if (out.config.position_padding_idx + 1 >= out.config.max_positions)
    return make_error("config.json: RoBERTa's max_position_embeddings must exceed pad_token_id + 1");
  out.vocab_size = r.integer("vocab_size", 50265);
  return Ok{};
}

// DistilBERT: its own key names, no token types, and LayerNorm eps 1e-12 fixed in the model code.
Status fill_distilbert(ConfigReader& r, HfConfig& out) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"dim", 768}, {"n_heads", 12}, {"n_layers", 6}, {"max_position_embeddings", 512});
  c.d_ff = r.integer("hidden_dim", 3072);
  out.vocab_size = r.integer("vocab_size", 30522);
  out.tied = r.flag("tie_word_embeddings", true);
  if (Status s = read_activation(r, "activation", "gelu", c.activation); !s) return s;
  c.ln_eps = 1e-12f;
  c.norm = NormPlacement::post;
  c.positions = PositionEncoding::learned;  // sinusoidal_pos_embds only initialises this table
  c.embed_norm = true;
  return Ok{};
}

void load_gpt2(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w) {
  const ModelConfig& c = hf.config;
  const int C = c.d_model, F = c.d_ff, vocab = hf.vocab_size;
  take.mat("wte.weight", vocab, C, w.tok_embed);
  take.mat("wpe.weight", c.max_positions, C, w.pos_embed);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    layer_norm_from(take, p + "ln_1", C, L.norm1_w, L.norm1_b);
    // Conv1D stores (in, out): y = x W + b. The engine wants nn.Linear's (out, in).
    take.mat(p + "attn.c_attn.weight", 3 * C, C, L.attn.in_proj_w, true);
    take.vec(p + "attn.c_attn.bias", 3 * C, L.attn.in_proj_b);
    take.mat(p + "attn.c_proj.weight", C, C, L.attn.out_w, true);
    take.vec(p + "attn.c_proj.bias", C, L.attn.out_b);
    layer_norm_from(take, p + "ln_2", C, L.norm2_w, L.norm2_b);
    take.mat(p + "mlp.c_fc.weight", F, C, L.ff1_w, true);
    take.vec(p + "mlp.c_fc.bias", F, L.ff1_b);
    take.mat(p + "mlp.c_proj.weight", C, F, L.ff2_w, true);
    take.vec(p + "mlp.c_proj.bias", C, L.ff2_b);
  }
  layer_norm_from(take, "ln_f", C, w.final_norm_w, w.final_norm_b);
  // GPT2LMHeadModel's lm_head is tied to wte (and usually absent from safetensors); a file that
  // keeps it must hold wte's values, since the engine scores tokens with tok_embed. Untied, the file
  // must have it (and still hold wte's values).
  if (!hf.tied) require_untied_head(take, "lm_head.weight");
  if (take.has("lm_head.weight", TensorTaker::Where::top)) {
    WeightMat lm_head;
    take.mat("lm_head.weight", vocab, C, lm_head, false, TensorTaker::Where::top);
    check_tied(take, lm_head, "lm_head.weight", w.tok_embed, prefix + "wte.weight",
               "attnviz reads only an lm_head tied to the token embeddings");
  }
}

int count_gpt2(const HfConfig& hf, const TensorFile& file) {
  return 12 * hf.config.n_layers + 4 + (file.find("lm_head.weight") ? 1 : 0);
}

// A masked-LM head on top of an encoder: dense, the model's activation, LayerNorm with its eps, then
// a decoder tied to the word embeddings plus a bias. The names sit outside the encoder's prefix.
// Safetensors drops tied duplicates, so the decoder's weight (and a second name of its bias) are
// usually absent; a file that keeps them must hold the tied values, the only layout supported.
struct MlmNames {
  const char* dense_w;
  const char* dense_b;
  const char* norm_w;
  const char* norm_b;
  const char* bias;       // the decoder's bias
  const char* decoder_w;  // tied to the word embeddings
  const char* decoder_b;  // another name of `bias`; nullptr when the family has none
};
constexpr MlmNames kBertMlm{"cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
                            "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias",
                            "cls.predictions.bias", "cls.predictions.decoder.weight", "cls.predictions.decoder.bias"};
constexpr MlmNames kRobertaMlm{"lm_head.dense.weight", "lm_head.dense.bias", "lm_head.layer_norm.weight",
                               "lm_head.layer_norm.bias", "lm_head.bias", "lm_head.decoder.weight",
                               "lm_head.decoder.bias"};
constexpr MlmNames kDistilbertMlm{"vocab_transform.weight", "vocab_transform.bias", "vocab_layer_norm.weight",
                                  "vocab_layer_norm.bias", "vocab_projector.bias", "vocab_projector.weight", nullptr};

std::vector<const char*> mlm_all(const MlmNames& n) {
  std::vector<const char*> all{n.dense_w, n.dense_b, n.norm_w, n.norm_b, n.bias, n.decoder_w};
  if (n.decoder_b) all.push_back(n.decoder_b);
  return all;
}

int count_mlm(const TensorFile& file, const MlmNames& names) {
  int n = 0;
  for (const char* name : mlm_all(names)) n += file.find(name) ? 1 : 0;
  return n;
}

void load_mlm_head(TensorTaker& take, const MlmNames& n, const std::string& embed_name, const HfConfig& hf,
                   ModelWeights& w) {
  const ModelConfig& c = hf.config;
  const int vocab = hf.vocab_size;
  constexpr auto top = TensorTaker::Where::top;
  const std::vector<const char*> all = mlm_all(n);
  if (std::none_of(all.begin(), all.end(), [&](const char* name) { return take.has(name, top); }))
    return;  // an encoder without its head: still a model, it answers nothing
  // Half a head is a damaged file, not an encoder: name the first missing tensor. The bias may be
  // kept under either of its tied names.
  const bool has_bias = take.has(n.bias, top);
  const bool has_decoder_b = n.decoder_b && take.has(n.decoder_b, top);
  for (const char* name : {n.dense_w, n.dense_b, n.norm_w, n.norm_b, n.bias})
    if (!take.has(name, top) && !(name == n.bias && has_decoder_b))
      return take.fail(std::string("the masked-LM head is incomplete: the checkpoint has no tensor '") + name + "'");
  const int C = c.d_model;
  take.mat(n.dense_w, C, C, w.mlm_dense_w, false, top);
  take.vec(n.dense_b, C, w.mlm_dense_b, top);
  take.vec(n.norm_w, C, w.mlm_norm_w, top);
  take.vec(n.norm_b, C, w.mlm_norm_b, top);
  if (has_bias) take.vec(n.bias, vocab, w.output_b, top);
  if (has_decoder_b) {
    if (!has_bias) {
      take.vec(n.decoder_b, vocab, w.output_b, top);  // the bias kept under its other tied name only
    } else {
      Vec decoder_b;
      take.vec(n.decoder_b, vocab, decoder_b, top);
      check_tied(take, decoder_b, n.decoder_b, w.output_b, n.bias,
                 "the decoder's bias must be the head's bias (Hugging Face ties them)");
    }
  }
  if (!hf.tied) require_untied_head(take, n.decoder_w);
  if (take.has(n.decoder_w, top)) {
    WeightMat decoder_w;
    take.mat(n.decoder_w, vocab, C, decoder_w, false, top);
    check_tied(take, decoder_w, n.decoder_w, w.tok_embed, embed_name,
               "attnviz reads only a decoder tied to the word embeddings");
  }
}

// Separate query, key and value projections (each (C, C) with a bias, named `base` + part) stacked
// in that order into the engine's in_proj (PyTorch's in_proj_weight), each converted straight into
// its block.
void take_stacked_qkv(TensorTaker& take, const std::string& base, const char* const (&parts)[3], int C,
                      AttentionWeights& a) {
  a.in_proj_w.resize(3 * C, C);
  a.in_proj_b.resize(3 * C);
  for (int k = 0; k < 3; ++k) {
    take.rows_of(base + parts[k] + ".weight", C, C, a.in_proj_w, k * C);
    take.segment_of(base + parts[k] + ".bias", C, a.in_proj_b, k * C);
  }
}

// The tensor names of a post-norm encoder layer (BERT's and DistilBERT's differ only in these).
struct EncoderLayerNames {
  const char* layer;            // "encoder.layer." + i + "."
  const char* qkv_base;         // the query / key / value projections' common start
  const char* const qkv[3];     // their own names
  const char* out;              // the attention's output projection
  const char* norm1;            // the LayerNorm after attention
  const char* ff1;              // the FFN's two projections
  const char* ff2;
  const char* norm2;            // the LayerNorm after the FFN
};
constexpr EncoderLayerNames kBertLayer{"encoder.layer.", "attention.self.", {"query", "key", "value"},
                                       "attention.output.dense", "attention.output.LayerNorm",
                                       "intermediate.dense", "output.dense", "output.LayerNorm"};
constexpr EncoderLayerNames kDistilbertLayer{"transformer.layer.", "attention.", {"q_lin", "k_lin", "v_lin"},
                                             "attention.out_lin", "sa_layer_norm", "ffn.lin1", "ffn.lin2",
                                             "output_layer_norm"};

void take_encoder_layers(TensorTaker& take, const ModelConfig& c, const EncoderLayerNames& n, ModelWeights& w) {
  const int C = c.d_model, F = c.d_ff;
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = n.layer + std::to_string(i) + ".";
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    take_stacked_qkv(take, p + n.qkv_base, n.qkv, C, L.attn);
    linear_from(take, p + n.out, C, C, L.attn.out_w, L.attn.out_b);
    layer_norm_from(take, p + n.norm1, C, L.norm1_w, L.norm1_b);
    linear_from(take, p + n.ff1, F, C, L.ff1_w, L.ff1_b);
    linear_from(take, p + n.ff2, C, F, L.ff2_w, L.ff2_b);
    layer_norm_from(take, p + n.norm2, C, L.norm2_w, L.norm2_b);
  }
}

// BERT and RoBERTa: one layout under "bert." / "roberta.".
void load_bert_layout(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w,
                      const MlmNames& head) {
  const ModelConfig& c = hf.config;
  const int C = c.d_model;
  take.mat("embeddings.word_embeddings.weight", hf.vocab_size, C, w.tok_embed);
  take.mat("embeddings.position_embeddings.weight", c.max_positions, C, w.pos_embed);
  take.mat("embeddings.token_type_embeddings.weight", c.type_vocab, C, w.type_embed);
  layer_norm_from(take, "embeddings.LayerNorm", C, w.embed_norm_w, w.embed_norm_b);
  take_encoder_layers(take, c, kBertLayer, w);
  load_mlm_head(take, head, prefix + "embeddings.word_embeddings.weight", hf, w);
}

void load_bert(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w) {
  load_bert_layout(take, hf, prefix, w, kBertMlm);
}
void load_roberta(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w) {
  if (hf.config.activation != Activation::gelu && count_mlm(take.file(), kRobertaMlm) > 0)
    return take.fail("RoBERTa's masked-LM head applies gelu; a model with hidden_act other than gelu is not supported");
  load_bert_layout(take, hf, prefix, w, kRobertaMlm);
}
int count_bert(const HfConfig& hf, const TensorFile& file) { return 16 * hf.config.n_layers + 5 + count_mlm(file, kBertMlm); }
int count_roberta(const HfConfig& hf, const TensorFile& file) {
  return 16 * hf.config.n_layers + 5 + count_mlm(file, kRobertaMlm);
}

void load_distilbert(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w) {
  const ModelConfig& c = hf.config;
  const int C = c.d_model;
  take.mat("embeddings.word_embeddings.weight", hf.vocab_size, C, w.tok_embed);
  take.mat("embeddings.position_embeddings.weight", c.max_positions, C, w.pos_embed);
  layer_norm_from(take, "embeddings.LayerNorm", C, w.embed_norm_w, w.embed_norm_b);
  take_encoder_layers(take, c, kDistilbertLayer, w);
  load_mlm_head(take, kDistilbertMlm, prefix + "embeddings.word_embeddings.weight", hf, w);
}
int count_distilbert(const HfConfig& hf, const TensorFile& file) {
  return 16 * hf.config.n_layers + 4 + count_mlm(file, kDistilbertMlm);
}

}  // namespace

const Family& family_gpt2() {
  static const Family f{CheckpointFamily::gpt2, "gpt2", "GPT2", "wte.weight", "transformer.", fill_gpt2, load_gpt2,
                        count_gpt2, "GPT2Config", kGpt2Keys, {}};
  return f;
}
const Family& family_bert() {
  static const Family f{CheckpointFamily::bert, "bert", "Bert", "embeddings.word_embeddings.weight", "bert.",
                        fill_bert, load_bert, count_bert, "BertConfig", kBertKeys, {}};
  return f;
}
const Family& family_roberta() {
  static const Family f{CheckpointFamily::roberta, "roberta", "Roberta", "embeddings.word_embeddings.weight",
                        "roberta.", fill_roberta, load_roberta, count_roberta, "RobertaConfig", kRobertaKeys,
                        kBertKeys};
  return f;
}
const Family& family_distilbert() {
  static const Family f{CheckpointFamily::distilbert, "distilbert", "DistilBert", "embeddings.word_embeddings.weight",
                        "distilbert.", fill_distilbert, load_distilbert, count_distilbert, "DistilBertConfig",
                        kDistilbertKeys, {}};
  return f;
}

}  // namespace attnviz::hf
