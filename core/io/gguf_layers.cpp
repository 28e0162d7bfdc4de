// A GGUF file's layers decoded on demand: each request for a layer that is not cached decodes its
// tensors from the mapped file (one decode at a time: each already runs on every core), and the most
// recently used layers stay decoded up to the budget, so a forward, the importance grid's many
// re-runs and a patching sweep decode each layer once when the budget holds them all.
#include <list>
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
    cache_[static_cast<size_t>(l)] = decoded;
    recent_.push_front(l);
    while (static_cast<int>(recent_.size()) > kept_) {  // the least recently used go, never this one
      cache_[static_cast<size_t>(recent_.back())].reset();
      recent_.pop_back();
    }
    return std::shared_ptr<const LayerWeights>(decoded);
  }

  uint64_t layer_bytes() const override { return layer_float_bytes(config_); }
  int layers_kept() const override { return kept_; }

 private:
  std::shared_ptr<const LayerWeights> cached(int l) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& hit = cache_[static_cast<size_t>(l)];
    if (hit) {
      recent_.remove(l);
      recent_.push_front(l);
    }
    return hit;
  }

  std::shared_ptr<const GgufMapped> file_;
  const Arch& arch_;
  ModelConfig config_;
  int kept_;
  std::function<void(float)> no_progress_;
  mutable std::mutex mutex_;     // guards cache_ and recent_
  mutable std::mutex decoding_;  // one layer decoded at a time
  mutable std::vector<std::shared_ptr<const LayerWeights>> cache_;  // by layer; null: not decoded
  mutable std::list<int> recent_;  // the decoded layers, most recently used first
};

}  // namespace

uint64_t layer_float_bytes(const ModelConfig& c) {
  const uint64_t C = static_cast<uint64_t>(c.d_model), F = static_cast<uint64_t>(c.d_ff),
                 KV = static_cast<uint64_t>(c.kv_dim());
  const uint64_t values = (C + 2 * KV) * C + C * C + 3 * C * F + (C + 2 * KV) + 5 * C + F;
  return values * sizeof(float);
}

std::shared_ptr<const LayerSource> layer_source_make(std::shared_ptr<const GgufMapped> file, const Arch& arch,
                                                     ModelConfig config, int kept) {
  return std::make_shared<GgufLayerSource>(std::move(file), arch, std::move(config), std::max(1, kept));
}

}  // namespace attnviz::gguf
