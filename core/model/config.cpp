// Validation, names and JSON for ModelConfig and MaskSpec. Every limit a user can hit is
// checked here with a message that names the value, before anything is allocated.
#include "model/config.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/enum_names.h"
#include "base/parse_number.h"
#include "base/json.h"

namespace attnviz {

namespace {

constexpr EnumNames<Activation, 4> kActivations{{
    {Activation::relu, "relu"}, {Activation::gelu, "gelu"}, {Activation::gelu_tanh, "gelu_tanh"},
    {Activation::silu, "silu"}}};
constexpr EnumNames<NormKind, 2> kNormKinds{{{NormKind::layer_norm, "layer_norm"}, {NormKind::rms_norm, "rms_norm"}}};
constexpr EnumNames<RopeScaling, 4> kRopeScalings{{{RopeScaling::none, "none"},
                                                   {RopeScaling::linear, "linear"},
                                                   {RopeScaling::llama3, "llama3"},
                                                   {RopeScaling::divisors, "divisors"}}};
constexpr EnumNames<NormPlacement, 2> kNorms{{
    {NormPlacement::post, "post"}, {NormPlacement::pre, "pre"}}};
constexpr EnumNames<PositionEncoding, 4> kPositions{{
    {PositionEncoding::sinusoidal, "sinusoidal"}, {PositionEncoding::learned, "learned"},
    {PositionEncoding::none, "none"}, {PositionEncoding::rotary, "rotary"}}};
constexpr EnumNames<ScoreKind, 4> kScores{{
    {ScoreKind::scaled_dot, "scaled_dot"}, {ScoreKind::dot, "dot"},
    {ScoreKind::general, "general"}, {ScoreKind::additive, "additive"}}};

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  if (!parse_number(s, v)) return std::nullopt;
  return v;
}

}  // namespace

std::string_view name_of(Activation v) { return enum_name(kActivations, v); }
std::string_view name_of(NormPlacement v) { return enum_name(kNorms, v); }
std::string_view name_of(PositionEncoding v) { return enum_name(kPositions, v); }
std::string_view name_of(ScoreKind v) { return enum_name(kScores, v); }
std::optional<Activation> activation_from_name(std::string_view s) { return enum_from_name(kActivations, s); }
std::optional<NormPlacement> norm_from_name(std::string_view s) { return enum_from_name(kNorms, s); }
std::optional<PositionEncoding> positions_from_name(std::string_view s) { return enum_from_name(kPositions, s); }
std::optional<ScoreKind> score_from_name(std::string_view s) { return enum_from_name(kScores, s); }
std::string_view name_of(NormKind v) { return enum_name(kNormKinds, v); }
std::string_view name_of(RopeScaling v) { return enum_name(kRopeScalings, v); }
std::optional<NormKind> norm_kind_from_name(std::string_view s) { return enum_from_name(kNormKinds, s); }
std::optional<RopeScaling> rope_scaling_from_name(std::string_view s) { return enum_from_name(kRopeScalings, s); }

Status config_validate(const ModelConfig& c, int64_t max_layer_params) {
  auto fail = [](std::string m) { return make_error(std::move(m)); };
  if (c.d_model < 1 || c.d_model > kMaxDModel)
    return fail("d_model must be between 1 and " + std::to_string(kMaxDModel) + " (got " + std::to_string(c.d_model) + ")");
  if (c.n_heads < 1) return fail("the number of heads must be at least 1 (got " + std::to_string(c.n_heads) + ")");
  if (c.head_dim < 0 || c.head_dim > kMaxHeadDim)
    return fail("the head width (head_dim) must be between 1 and " + std::to_string(kMaxHeadDim) + ", or 0 for d_model / heads (got " +
                std::to_string(c.head_dim) + ")");
  if (c.head_dim == 0 && c.d_model % c.n_heads != 0)
    return fail("d_model " + std::to_string(c.d_model) + " is not divisible by " + std::to_string(c.n_heads) +
                " heads: each head needs d_model / heads dimensions");
  if (int64_t{c.n_heads} * c.head_size() > 4 * int64_t{kMaxDModel})
    return fail("the heads are too wide together: " + std::to_string(c.n_heads) + " x " + std::to_string(c.head_size()));
  if (c.n_layers < 1 || c.n_layers > kMaxLayers)
    return fail("the number of layers must be between 1 and " + std::to_string(kMaxLayers) + " (got " + std::to_string(c.n_layers) + ")");
  // 0 is allowed: an attention-only layer (no feed-forward block), as in the induction demo.
  if (c.d_ff < 0 || c.d_ff > kMaxFF)
    return fail("the FFN width must be between 0 (no feed-forward block) and " + std::to_string(kMaxFF) + " (got " +
                std::to_string(c.d_ff) + ")");
  if (!(c.ln_eps > 0.0f) || !(c.ln_eps < 1.0f)) return fail("LayerNorm eps must be in (0, 1)");
  if (!(c.temperature >= kMinTemperature && c.temperature <= kMaxTemperature))
    return fail("temperature must be between " + std::to_string(kMinTemperature) + " and " +
                std::to_string(kMaxTemperature) + " (got " + std::to_string(c.temperature) + ")");
  if (!c.head_scores.empty() && static_cast<int>(c.head_scores.size()) != c.n_heads)
    return fail("per-head scoring functions: expected " + std::to_string(c.n_heads) + ", got " + std::to_string(c.head_scores.size()));
  if (c.max_positions < 1 || c.max_positions > 1 << 16) return fail("max_positions must be between 1 and 65536");
  if (c.type_vocab < 0 || c.type_vocab > kMaxTypeVocab)
    return fail("the number of token types must be between 0 and " + std::to_string(kMaxTypeVocab));
  if (c.n_kv_heads < 0 || (c.n_kv_heads > 0 && c.n_heads % c.n_kv_heads != 0))
    return fail("the " + std::to_string(c.n_heads) + " query heads cannot be shared evenly by " +
                std::to_string(c.n_kv_heads) + " key/value heads");
  if (c.sliding_window < 0) return fail("the sliding window must be 0 (none) or more keys");
  if (c.sliding_window_pattern < 0 || c.sliding_window_pattern == 1 || (c.sliding_window_pattern > 0 && c.sliding_window == 0))
    return fail("a sliding-window pattern needs a sliding window and a period of 2 or more layers (got " +
                std::to_string(c.sliding_window_pattern) + ")");
  if (c.rope_local_theta != 0.0f &&
      (c.sliding_window_pattern == 0 || c.positions != PositionEncoding::rotary || !(c.rope_local_theta > 1.0f) ||
       !std::isfinite(c.rope_local_theta)))
    return fail("a local rotary base must be above 1 and needs rotary positions and a sliding-window pattern");
  for (const auto& [name, v] : {std::pair{"scaled_dot_scale", c.scaled_dot_scale}, std::pair{"attn_softcap", c.attn_softcap},
                                std::pair{"logit_softcap", c.logit_softcap}})
    if (!(v >= 0.0f) || !std::isfinite(v)) return fail(std::string(name) + " must be 0 (none) or a positive number");
  if (!(c.embed_multiplier > 0.0f) || !std::isfinite(c.embed_multiplier))
    return fail("the embedding multiplier must be a positive number");
  if (c.qk_norm && c.norm_kind != NormKind::rms_norm) return fail("normalised queries and keys (qk_norm) need RMSNorm");
  if (c.sublayer_norm && (c.norm != NormPlacement::pre || c.parallel_residual))
    return fail("normalised sublayer outputs (sublayer_norm) need pre-norm layers without a parallel residual");
  if (c.position_padding_idx >= 0 && c.positions != PositionEncoding::learned)
    return fail("a position padding index needs learned positions");
  if (c.positions == PositionEncoding::rotary) {
    const RopeConfig& r = c.rope;
    if (!(r.theta > 1.0f) || !std::isfinite(r.theta)) return fail("the rotary base (rope_theta) must be above 1");
    if (!(r.fraction > 0.0f && r.fraction <= 1.0f)) return fail("the rotary share of each head must be in (0, 1]");
    if (c.rotary_dims() < 2) return fail("the rotary share of each head rotates no pair of dimensions");
    if (r.scaling == RopeScaling::divisors) {
      if (static_cast<int>(r.divisors.size()) != c.rotary_dims() / 2)
        return fail("per-pair rotary divisors: expected " + std::to_string(c.rotary_dims() / 2) + " (one per rotated pair), got " +
                    std::to_string(r.divisors.size()));
      for (float d : r.divisors)
        if (!(d > 0.0f) || !std::isfinite(d)) return fail("per-pair rotary divisors must be positive and finite");
    } else if (!r.divisors.empty()) {
      return fail("per-pair rotary divisors are given but the scaling is " + std::string(name_of(r.scaling)));
    }
    if (r.scaling != RopeScaling::none && r.scaling != RopeScaling::divisors && !(r.factor >= 1.0f && std::isfinite(r.factor)))
      return fail("the rotary scaling factor must be 1 or more");
    if (r.scaling == RopeScaling::llama3 &&
        (!(r.high_freq_factor > r.low_freq_factor) || !(r.low_freq_factor > 0.0f) || r.original_max_positions < 1))
      return fail("llama3 rotary scaling needs 0 < low_freq_factor < high_freq_factor and an original context length");
  }
  // The whole parameter count, in 64-bit, so a huge config is refused before allocating.
  const int64_t C = c.d_model, F = c.d_ff, L = c.n_layers, KV = c.kv_dim(), QD = c.q_dim();
  const int64_t params = L * (2 * C * QD + 2 * C * KV + (c.gated_ffn ? 3 : 2) * C * F);
  if (params > max_layer_params) return fail("the model is too large: " + std::to_string(params) + " parameters");
  return Ok{};
}

bool layer_slides(const ModelConfig& c, int l) {
  const int n = c.sliding_window_pattern;
  return c.sliding_window > 0 && (n == 0 || l % n < n - 1);
}

bool layers_differ(const ModelConfig& c) { return c.sliding_window > 0 && c.sliding_window_pattern > 0; }

ModelConfig config_of_layer(const ModelConfig& c, int l) {
  if (!layers_differ(c)) return c;
  ModelConfig out = c;
  out.sliding_window_pattern = 0;
  out.rope_local_theta = 0.0f;
  if (!layer_slides(c, l)) {
    out.sliding_window = 0;
  } else if (c.rope_local_theta > 0.0f) {
    out.rope = RopeConfig{};
    out.rope.theta = c.rope_local_theta;
    out.rope.fraction = c.rope.fraction;
  }
  return out;
}

Status mask_spec_validate(const MaskSpec& m) {
  if (m.pad_to < 0 || m.pad_to > kMaxTokens)
    return make_error("pad length must be between 0 and " + std::to_string(kMaxTokens));
  if (m.window < -1) return make_error("window radius must be 0 or more");
  if (m.stride < 0) return make_error("stride must be 1 or more");
  for (const auto& [i, j] : m.hidden_cells)
    if (i < 0 || j < 0) return make_error("a custom mask cell has a negative index");
  return Ok{};
}

Status mask_spec_add(MaskSpec& spec, std::string_view text) {
  if (text == "none") { spec = MaskSpec{}; return Ok{}; }
  if (text == "causal") { spec.causal = true; return Ok{}; }
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return make_error("unknown mask '" + std::string(text) + "' (expected causal, window:R, strided:S, pad:N or none)");
  const std::string_view kind = text.substr(0, colon);
  const auto n = parse_int(text.substr(colon + 1));
  if (!n) return make_error("mask '" + std::string(text) + "' needs a whole number after ':'");
  if (kind == "window") {
    if (*n < 0) return make_error("window radius must be 0 or more");
    spec.window = *n;
  } else if (kind == "strided") {
    if (*n < 1) return make_error("stride must be 1 or more");
    spec.stride = *n;
  } else if (kind == "pad") {
    if (*n < 1 || *n > kMaxTokens) return make_error("pad length must be between 1 and " + std::to_string(kMaxTokens));
    spec.pad_to = *n;
  } else {
    return make_error("unknown mask '" + std::string(kind) + "' (expected causal, window:R, strided:S, pad:N or none)");
  }
  return Ok{};
}

nlohmann::json config_to_json(const ModelConfig& c) {
  nlohmann::json j{{"d_model", c.d_model}, {"n_heads", c.n_heads}, {"n_layers", c.n_layers},
                   {"d_ff", c.d_ff}, {"activation", name_of(c.activation)}, {"norm", name_of(c.norm)},
                   {"positions", name_of(c.positions)}, {"ln_eps", c.ln_eps}, {"score", name_of(c.score)},
                   {"temperature", c.temperature}, {"max_positions", c.max_positions},
                   {"final_norm", c.final_norm}, {"causal", c.causal}, {"embed_norm", c.embed_norm},
                   {"type_vocab", c.type_vocab}};
  // The later families' fields, written only when they differ from the defaults, so the files of
  // every earlier model read and write as before.
  const ModelConfig d;
  const auto unless_default = [&j](const char* key, const auto& value, const auto& fallback) {
    if (value != fallback) j[key] = value;
  };
  unless_default("n_kv_heads", c.n_kv_heads, d.n_kv_heads);
  if (c.norm_kind != d.norm_kind) j["norm_kind"] = name_of(c.norm_kind);
  unless_default("gated_ffn", c.gated_ffn, d.gated_ffn);
  unless_default("parallel_residual", c.parallel_residual, d.parallel_residual);
  unless_default("sliding_window", c.sliding_window, d.sliding_window);
  unless_default("position_padding_idx", c.position_padding_idx, d.position_padding_idx);
  unless_default("head_dim", c.head_dim, d.head_dim);
  unless_default("qk_norm", c.qk_norm, d.qk_norm);
  unless_default("scaled_dot_scale", c.scaled_dot_scale, d.scaled_dot_scale);
  unless_default("attn_softcap", c.attn_softcap, d.attn_softcap);
  unless_default("logit_softcap", c.logit_softcap, d.logit_softcap);
  unless_default("embed_multiplier", c.embed_multiplier, d.embed_multiplier);
  unless_default("sublayer_norm", c.sublayer_norm, d.sublayer_norm);
  unless_default("sliding_window_pattern", c.sliding_window_pattern, d.sliding_window_pattern);
  unless_default("rope_local_theta", c.rope_local_theta, d.rope_local_theta);
  if (c.positions == PositionEncoding::rotary)
    j["rope"] = {{"theta", c.rope.theta}, {"fraction", c.rope.fraction}, {"scaling", name_of(c.rope.scaling)},
                 {"factor", c.rope.factor}, {"low_freq_factor", c.rope.low_freq_factor},
                 {"high_freq_factor", c.rope.high_freq_factor},
                 {"original_max_positions", c.rope.original_max_positions}};
  if (c.positions == PositionEncoding::rotary && !c.rope.divisors.empty()) j["rope"]["divisors"] = c.rope.divisors;
  if (!c.head_scores.empty()) {
    auto arr = nlohmann::json::array();
    for (ScoreKind s : c.head_scores) arr.push_back(name_of(s));
    j["head_scores"] = arr;
  }
  return j;
}

namespace {

// Reads an optional member of a given JSON type into `out`; a wrong type is an error.
template <class T>
Status read_member(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return make_error(std::string("'") + key + "' must be true or false");
  } else if constexpr (std::is_integral_v<T>) {
    if (!it->is_number_integer()) return make_error(std::string("'") + key + "' must be a whole number");
    const auto v = it->get<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX) return make_error(std::string("'") + key + "' is out of range");
    out = static_cast<T>(v);
    return Ok{};
  } else {
    if (!it->is_number()) return make_error(std::string("'") + key + "' must be a number");
  }
  out = it->get<T>();
  return Ok{};
}

template <class E>
Status read_enum(const nlohmann::json& j, const char* key, E& out, std::optional<E> (*parse)(std::string_view)) {
  auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (!it->is_string()) return make_error(std::string("'") + key + "' must be a name");
  auto v = parse(it->get_ref<const std::string&>());
  if (!v) return make_error(std::string("unknown ") + key + " '" + it->get<std::string>() + "'");
  out = *v;
  return Ok{};
}

}  // namespace

Result<ModelConfig> config_from_json(const nlohmann::json& j, std::string_view what) {
  const std::string where = std::string(what) + ": ";
  if (!j.is_object()) return make_error("the " + std::string(what) + " must be a JSON object");
  // Every key config_to_json writes; a misspelt one would otherwise leave its default in place.
  const JsonKeys keys = {"d_model",
                         "n_heads",
                         "n_layers",
                         "d_ff",
                         "activation",
                         "norm",
                         "positions",
                         "ln_eps",
                         "score",
                         "temperature",
                         "max_positions",
                         "final_norm",
                         "causal",
                         "embed_norm",
                         "type_vocab",
                         "n_kv_heads",
                         "norm_kind",
                         "gated_ffn",
                         "parallel_residual",
                         "sliding_window",
                         "position_padding_idx",
                         "rope",
                         "head_scores",
                         "head_dim",
                         "qk_norm",
                         "scaled_dot_scale",
                         "attn_softcap",
                         "logit_softcap",
                         "embed_multiplier",
                         "sublayer_norm",
                         "sliding_window_pattern",
                         "rope_local_theta"};
  if (Status s = json_keys_known(j, keys); !s) return make_error(where + s.error());
  ModelConfig c;
  for (Status s : {read_member(j, "d_model", c.d_model), read_member(j, "n_heads", c.n_heads),
                   read_member(j, "n_layers", c.n_layers), read_member(j, "d_ff", c.d_ff),
                   read_member(j, "ln_eps", c.ln_eps), read_member(j, "temperature", c.temperature),
                   read_member(j, "max_positions", c.max_positions), read_member(j, "final_norm", c.final_norm),
                   read_member(j, "causal", c.causal), read_member(j, "embed_norm", c.embed_norm),
                   read_member(j, "type_vocab", c.type_vocab),
                   read_enum(j, "activation", c.activation, activation_from_name),
                   read_enum(j, "norm", c.norm, norm_from_name),
                   read_enum(j, "positions", c.positions, positions_from_name),
                   read_enum(j, "score", c.score, score_from_name),
                   read_member(j, "n_kv_heads", c.n_kv_heads), read_member(j, "gated_ffn", c.gated_ffn),
                   read_member(j, "parallel_residual", c.parallel_residual),
                   read_member(j, "sliding_window", c.sliding_window),
                   read_member(j, "position_padding_idx", c.position_padding_idx),
                   read_enum(j, "norm_kind", c.norm_kind, norm_kind_from_name), read_member(j, "head_dim", c.head_dim),
                   read_member(j, "qk_norm", c.qk_norm), read_member(j, "scaled_dot_scale", c.scaled_dot_scale),
                   read_member(j, "attn_softcap", c.attn_softcap), read_member(j, "logit_softcap", c.logit_softcap),
                   read_member(j, "embed_multiplier", c.embed_multiplier), read_member(j, "sublayer_norm", c.sublayer_norm),
                   read_member(j, "sliding_window_pattern", c.sliding_window_pattern),
                   read_member(j, "rope_local_theta", c.rope_local_theta)})
    if (!s) return make_error(where + s.error());
  if (auto it = j.find("rope"); it != j.end()) {
    if (!it->is_object()) return make_error(where + "'rope' must be an object");
    const JsonKeys rope_keys = {
        "theta", "fraction", "scaling", "factor", "low_freq_factor", "high_freq_factor", "original_max_positions",
        "divisors"};
    if (Status s = json_keys_known(*it, rope_keys); !s) return make_error(where + "rope: " + s.error());
    RopeConfig& r = c.rope;
    for (Status s : {read_member(*it, "theta", r.theta), read_member(*it, "fraction", r.fraction),
                     read_member(*it, "factor", r.factor), read_member(*it, "low_freq_factor", r.low_freq_factor),
                     read_member(*it, "high_freq_factor", r.high_freq_factor),
                     read_member(*it, "original_max_positions", r.original_max_positions),
                     read_enum(*it, "scaling", r.scaling, rope_scaling_from_name)})
      if (!s) return make_error(where + "rope: " + s.error());
    if (auto d = it->find("divisors"); d != it->end()) {
      if (!d->is_array()) return make_error(where + "rope: 'divisors' must be a list of numbers");
      for (const auto& e : *d) {
        if (!e.is_number()) return make_error(where + "rope: 'divisors' must be a list of numbers");
        r.divisors.push_back(e.get<float>());
      }
    }
  }
  if (auto it = j.find("head_scores"); it != j.end()) {
    if (!it->is_array()) return make_error(where + "'head_scores' must be a list of names");
    for (const auto& e : *it) {
      auto v = e.is_string() ? score_from_name(e.get_ref<const std::string&>()) : std::nullopt;
      if (!v) return make_error(where + "unknown scoring function in 'head_scores'");
      c.head_scores.push_back(*v);
    }
  }
  if (Status s = config_validate(c); !s) return make_error(where + s.error());
  return c;
}

nlohmann::json mask_to_json(const MaskSpec& m) {
  auto cells = nlohmann::json::array();
  for (const auto& [i, j] : m.hidden_cells) cells.push_back({i, j});
  return {{"causal", m.causal}, {"pad_to", m.pad_to}, {"window", m.window}, {"stride", m.stride},
          {"hidden_cells", cells}};
}

Result<MaskSpec> mask_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error("the mask must be a JSON object");
  if (Status s = json_keys_known(j, {"causal", "pad_to", "window", "stride", "hidden_cells"}); !s)
    return make_error("mask: " + s.error());
  MaskSpec m;
  for (Status s : {read_member(j, "causal", m.causal), read_member(j, "pad_to", m.pad_to),
                   read_member(j, "window", m.window), read_member(j, "stride", m.stride)})
    if (!s) return make_error("mask: " + s.error());
  if (auto it = j.find("hidden_cells"); it != j.end()) {
    if (!it->is_array()) return make_error("mask: 'hidden_cells' must be a list of [query, key] pairs");
    for (const auto& cell : *it) {
      if (!cell.is_array() || cell.size() != 2 || !cell[0].is_number_integer() || !cell[1].is_number_integer())
        return make_error("mask: each hidden cell must be [query, key]");
      const auto qi = cell[0].get<int64_t>(), ki = cell[1].get<int64_t>();
      if (qi < 0 || ki < 0 || qi >= kMaxTokens || ki >= kMaxTokens) return make_error("mask: hidden cell out of range");
      m.hidden_cells.emplace_back(static_cast<int>(qi), static_cast<int>(ki));
    }
  }
  if (Status s = mask_spec_validate(m); !s) return make_error("mask: " + s.error());
  return m;
}

bool config_uses(const ModelConfig& c, ScoreKind kind) {
  if (c.head_scores.empty()) return c.score == kind;
  return std::find(c.head_scores.begin(), c.head_scores.end(), kind) != c.head_scores.end();
}

}  // namespace attnviz
