// Ablation sets: kept sorted so that sessions, JSON and the status bar list heads in one order.
#include "model/ablation.h"

#include <algorithm>

#include "base/enum_names.h"
#include "base/parse_number.h"

namespace attnviz {

namespace {
constexpr EnumNames<AblationMode, 2> kModes{{{AblationMode::zero, "zero"}, {AblationMode::mean, "mean"}}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}
}  // namespace

bool Ablation::has(int layer, int head) const {
  return std::binary_search(heads.begin(), heads.end(), HeadRef{layer, head});
}

void ablation_set(Ablation& a, HeadRef head, bool off) {
  auto it = std::lower_bound(a.heads.begin(), a.heads.end(), head);
  const bool present = it != a.heads.end() && *it == head;
  if (off && !present) a.heads.insert(it, head);
  if (!off && present) a.heads.erase(it);
}

void ablation_toggle(Ablation& a, HeadRef head) { ablation_set(a, head, !a.has(head.layer, head.head)); }

Status ablation_validate(const Ablation& a, const ModelConfig& c) {
  for (const HeadRef& h : a.heads) {
    if (h.layer < 0 || h.layer >= c.n_layers)
      return make_error("cannot switch off head " + std::to_string(h.layer) + ":" + std::to_string(h.head) +
                        ": the model has layers 0 to " + std::to_string(c.n_layers - 1));
    if (h.head < 0 || h.head >= c.n_heads)
      return make_error("cannot switch off head " + std::to_string(h.layer) + ":" + std::to_string(h.head) +
                        ": the model has heads 0 to " + std::to_string(c.n_heads - 1));
  }
  return Ok{};
}

Result<std::vector<HeadRef>> ablation_heads_parse(std::string_view text) {
  Ablation a;
  if (trim(text).empty()) return a.heads;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    const size_t colon = item.find(':');
    int layer = -1, head = -1;
    const bool ok = colon != std::string_view::npos && parse_int_in(trim(item.substr(0, colon)), 0, kMaxLayers, layer) &&
                    parse_int_in(trim(item.substr(colon + 1)), 0, kMaxDModel, head);
    if (!ok) return make_error("'" + std::string(item) + "' is not a head: write LAYER:HEAD, counted from 0 (e.g. 1:3)");
    ablation_set(a, HeadRef{layer, head}, true);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return a.heads;
}

std::string ablation_heads_format(const std::vector<HeadRef>& heads) {
  std::string out;
  for (const HeadRef& h : heads) out += (out.empty() ? "" : ",") + std::to_string(h.layer) + ":" + std::to_string(h.head);
  return out;
}

std::string ablation_heads_label(const std::vector<HeadRef>& heads) {
  std::string out;
  for (const HeadRef& h : heads)
    out += (out.empty() ? "L" : ", L") + std::to_string(h.layer + 1) + " H" + std::to_string(h.head + 1);
  return out;
}

std::string_view name_of(AblationMode mode) { return enum_name(kModes, mode); }
std::optional<AblationMode> ablation_mode_from_name(std::string_view s) { return enum_from_name(kModes, s); }

bool LayerAblation::any() const {
  return std::find(off.begin(), off.end(), true) != off.end() ||
         std::any_of(patch.begin(), patch.end(), [](const Mat* m) { return m != nullptr; });
}

LayerAblation ablation_for_layer(const Ablation& a, int layer, int n_heads) {
  LayerAblation out;
  out.mode = a.mode;
  for (const HeadRef& h : a.heads) {
    if (h.layer != layer || h.head < 0 || h.head >= n_heads) continue;
    if (out.off.empty()) out.off.assign(static_cast<size_t>(n_heads), false);
    out.off[static_cast<size_t>(h.head)] = true;
  }
  return out;
}

void ablation_apply(Mat& concat, const LayerAblation& ablate, int hs) {
  for (size_t h = 0; h < ablate.patch.size(); ++h)
    if (ablate.patch[h] && ablate.patch[h]->rows() == concat.rows() && ablate.patch[h]->cols() == hs)
      concat.middleCols(static_cast<Eigen::Index>(h) * hs, hs) = *ablate.patch[h];
  for (size_t h = 0; h < ablate.off.size(); ++h) {
    if (!ablate.off[h]) continue;
    auto block = concat.middleCols(static_cast<Eigen::Index>(h) * hs, hs);
    if (ablate.mode == AblationMode::zero || block.rows() == 0) {
      block.setZero();
    } else {
      const RowVec mean = block.colwise().mean();
      block.rowwise() = mean;
    }
  }
}

}  // namespace attnviz
