// A GGUF file's layers decoded on demand: each request for a layer that is not kept decodes its
// tensors from the mapped file (one decode at a time: each already runs on every core). The first
// layers decoded stay decoded up to the budget and the others are decoded each time they are needed:
// a forward walks the layers in order, so a least-recently-used cache smaller than the model would
// evict every layer before its next use and decode all of them every time (bench/README.md), where
// keeping a fixed set decodes only the layers beyond it. A budget that holds them all decodes each
// layer once, for a forward, the importance grid's many re-runs and a patching sweep alike.
#include <mutex>

#include "io/gguf_detail.h"
#include "model/layer_source.h"

namespace attnviz::gguf {

namespace {

class GgufLayerSource final : public LayerSource {
 public:
  GgufLayerSource(std::shared_ptr<const GgufMapped> file, const Arch& arch, ModelConfig config, int kept)
      : file_(std::move(file)), arch_(arch), config_(std::move(config)), kept_(kept),
        cache_(static_cast<size_t>(config_.n_layers)) {}

  Result<std::shared_ptr<const LayerWeights>> layer(int l) const override {
    if (l < 0 || l >= config_.n_layers) return make_error("the model has no layer " + std::to_string(l));
    if (auto hit = cached(l)) return hit;
    std::lock_guard<std::mutex> one_decode(decoding_);
    if (auto hit = cached(l)) return hit;  // decoded while this thread waited
    auto decoded = std::make_shared<LayerWeights>();
    TensorTaker take(*file_, no_progress_);
    arch_.load_layer(take, config_, l, *decoded);
    if (const std::string& error = take.run(); !error.empty()) return make_error(error);
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_now_ < kept_) {  // room left: kept; otherwise the caller's alone, freed after its use
      cache_[static_cast<size_t>(l)] = decoded;
      ++kept_now_;
    }
    return std::shared_ptr<const LayerWeights>(decoded);
  }

  uint64_t layer_bytes() const override { return layer_float_bytes(config_); }
  int layers_kept() const override { return kept_; }

 private:
  std::shared_ptr<const LayerWeights> cached(int l) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cache_[static_cast<size_t>(l)];
  }

  std::shared_ptr<const GgufMapped> file_;
  const Arch& arch_;
  ModelConfig config_;
  int kept_;
  std::function<void(float)> no_progress_;
  mutable std::mutex mutex_;     // guards cache_ and kept_now_
  mutable std::mutex decoding_;  // one layer decoded at a time
  mutable std::vector<std::shared_ptr<const LayerWeights>> cache_;  // by layer; null: not kept
  mutable int kept_now_ = 0;
};

}  // namespace

uint64_t layer_float_bytes(const ModelConfig& c) {
  const uint64_t C = static_cast<uint64_t>(c.d_model), F = static_cast<uint64_t>(c.d_ff),
                 KV = static_cast<uint64_t>(c.kv_dim()), QD = static_cast<uint64_t>(c.q_dim());
  const uint64_t values = (QD + 2 * KV) * C + C * QD + 3 * C * F + (QD + 2 * KV) + 7 * C + F + 2 * QD / c.n_heads;
  return values * sizeof(float);
}

std::shared_ptr<const LayerSource> layer_source_make(std::shared_ptr<const GgufMapped> file, const Arch& arch,
                                                     ModelConfig config, int kept) {
  return std::make_shared<GgufLayerSource>(std::move(file), arch, std::move(config), std::max(0, kept));
}

}  // namespace attnviz::gguf
