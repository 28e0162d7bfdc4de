// Switching heads off: which (layer, head) pairs are ablated and how. An ablated head still forms
// its weights (the views draw them, hatched); only what it passes on changes: its output is
// replaced before W_O by zeros, or by its own output averaged over the input's positions.
// Parsing ("0:1,1:3") and validation against a config live here; the forward applies it.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/tensor.h"
#include "model/config.h"

namespace attnviz {

enum class AblationMode { zero, mean };

struct HeadRef {
  int layer = 0, head = 0;
  friend bool operator==(const HeadRef&, const HeadRef&) = default;
  friend auto operator<=>(const HeadRef&, const HeadRef&) = default;
};

struct Ablation {
  std::vector<HeadRef> heads;  // sorted, no repeats (ablation_set keeps them so)
  AblationMode mode = AblationMode::zero;

  bool any() const { return !heads.empty(); }
  bool has(int layer, int head) const;
};

// Adds or removes one head, keeping `heads` sorted; toggle flips it.
void ablation_set(Ablation& a, HeadRef head, bool off);
void ablation_toggle(Ablation& a, HeadRef head);

// Every head inside the config's layers and heads; the message names the first that is not.
Status ablation_validate(const Ablation& a, const ModelConfig& config);

// "L:H,L:H" (layers and heads from 0, spaces allowed around items); an empty string is no head.
Result<std::vector<HeadRef>> ablation_heads_parse(std::string_view text);
// "0:1,1:3": the inverse of ablation_heads_parse.
std::string ablation_heads_format(const std::vector<HeadRef>& heads);
// "L1 H2, L2 H4" (from 1, as the views label heads), for the status bar.
std::string ablation_heads_label(const std::vector<HeadRef>& heads);

std::string_view name_of(AblationMode mode);            // "zero", "mean"
std::optional<AblationMode> ablation_mode_from_name(std::string_view s);

// One layer's share of an ablation, as attention_forward takes it, and of a patching run's
// interventions (model/intervention.h): heads whose output is replaced by another run's.
struct LayerAblation {
  std::vector<bool> off;  // NH; empty: no head of this layer is off
  AblationMode mode = AblationMode::zero;
  std::vector<const Mat*> patch;  // NH; empty, or non-null where the head's output (its z: weights · V, b_V
                                  // inside) is replaced at every position by this (Tq, HS) matrix
  bool any() const;
};
LayerAblation ablation_for_layer(const Ablation& a, int layer, int n_heads);

// Replaces the switched-off heads' column blocks of concat (Tq, NH·HS) in place: zeros, or each
// block's mean over the rows (the positions); a patched head's block becomes its patch (a patch
// of another row count is a caller's bug: model/intervention.h validates them first).
void ablation_apply(Mat& concat, const LayerAblation& ablate, int head_size);

}  // namespace attnviz
