// Validation, names and JSON for ModelConfig and MaskSpec. Every limit a user can hit is
// checked here with a message that names the value, before anything is allocated.
#include "model/config.h"

#include <array>

#include <nlohmann/json.hpp>

#include "base/enum_names.h"
#include "base/parse_number.h"

namespace attnviz {

namespace {

constexpr EnumNames<Activation, 3> kActivations{{
    {Activation::relu, "relu"}, {Activation::gelu, "gelu"}, {Activation::gelu_tanh, "gelu_tanh"}}};
constexpr EnumNames<NormPlacement, 2> kNorms{{
    {NormPlacement::post, "post"}, {NormPlacement::pre, "pre"}}};
constexpr EnumNames<PositionEncoding, 3> kPositions{{
    {PositionEncoding::sinusoidal, "sinusoidal"}, {PositionEncoding::learned, "learned"},
    {PositionEncoding::none, "none"}}};
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

Status config_validate(const ModelConfig& c) {
  auto fail = [](std::string m) { return make_error(std::move(m)); };
  if (c.d_model < 1 || c.d_model > kMaxDModel)
    return fail("d_model must be between 1 and " + std::to_string(kMaxDModel) + " (got " + std::to_string(c.d_model) + ")");
  if (c.n_heads < 1) return fail("the number of heads must be at least 1 (got " + std::to_string(c.n_heads) + ")");
  if (c.d_model % c.n_heads != 0)
    return fail("d_model " + std::to_string(c.d_model) + " is not divisible by " + std::to_string(c.n_heads) +
                " heads: each head needs d_model / heads dimensions");
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
  // The whole parameter count, in 64-bit, so a huge config is refused before allocating.
  const int64_t C = c.d_model, F = c.d_ff, L = c.n_layers;
  const int64_t params = L * (4 * C * C + 2 * C * F);
  if (params > (int64_t{1} << 31)) return fail("the model is too large: " + std::to_string(params) + " parameters");
  return Ok{};
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

Result<ModelConfig> config_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error("the model config must be a JSON object");
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
                   read_enum(j, "score", c.score, score_from_name)})
    if (!s) return make_error("model config: " + s.error());
  if (auto it = j.find("head_scores"); it != j.end()) {
    if (!it->is_array()) return make_error("model config: 'head_scores' must be a list of names");
    for (const auto& e : *it) {
      auto v = e.is_string() ? score_from_name(e.get_ref<const std::string&>()) : std::nullopt;
      if (!v) return make_error("model config: unknown scoring function in 'head_scores'");
      c.head_scores.push_back(*v);
    }
  }
  if (Status s = config_validate(c); !s) return make_error("model config: " + s.error());
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

}  // namespace attnviz
