// One full training step against PyTorch autograd: the fixtures in tests/fixtures/train were
// written by make_grad_fixture.py. The batch gradient (batch_loss_grads, as coref_train computes it:
// the examples stacked, two shards) must match autograd to 1e-4, the loss to 1e-5, and adam_step's weights torch.optim.AdamW's to 1e-5.
// The core train tests (test_train.cpp) check the same code against finite differences instead.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/model_file.h"
#include "support/fixture_util.h"
#include "train/train.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

constexpr float kGradTol = 1e-4f;
constexpr double kLossTol = 1e-5;
constexpr float kTrainWeightTol = 1e-5f;

struct TrainFixture {
  Model model;
  TensorFile file;
  std::vector<TrainExample> batch;
};

TrainFixture train_fixture_open(const std::string& path) {
  auto model = model_load(path, std::nullopt);
  REQUIRE_MESSAGE(model.ok(), model.error());
  TrainFixture f{std::move(*model), load_fixture(path), {}};
  const auto j = nlohmann::json::parse(f.file.metadata.at("fixture.batch"));
  auto mask = mask_from_json(j.at("mask"));
  REQUIRE_MESSAGE(mask.ok(), mask.error());
  for (const auto& e : j.at("examples")) {
    TrainExample ex;
    ex.ids = e.at("ids").get<std::vector<int>>();
    ex.targets = e.at("targets").get<std::vector<int>>();
    ex.mask = *mask;
    f.batch.push_back(std::move(ex));
  }
  REQUIRE(f.batch.size() == 3);
  return f;
}

double metadata_number(const TensorFile& f, const std::string& key) { return std::stod(f.metadata.at(key)); }

struct BatchGrads {
  float loss = 0;
  ModelWeights grads;
};

// The mean of the examples' gradients and losses, as coref_train computes it (batch_loss_grads).
BatchGrads batch_grads(const Model& model, const std::vector<TrainExample>& batch) {
  auto lg = batch_loss_grads(model, batch);
  REQUIRE_MESSAGE(lg.ok(), lg.error());
  return {lg->loss, std::move(lg->grads)};
}

// The fixture's tensors under `prefix` ("grad.", "grad2.") as a ModelWeights, through model_io's own
// name mapping.
ModelWeights fixture_weights(const TensorFile& f, const std::string& prefix) {
  TensorFile sub;
  sub.metadata = f.metadata;
  for (const Tensor& t : f.tensors)
    if (t.name.rfind(prefix, 0) == 0) {
      Tensor c = t;
      c.name = t.name.substr(prefix.size());
      sub.tensors.push_back(std::move(c));
    }
  auto m = model_from_tensors(sub, std::nullopt);
  REQUIRE_MESSAGE(m.ok(), prefix << ": " << m.error());
  return std::move(m->weights);
}

float abs_diff(float a, float b) {
  const float d = std::abs(a - b);
  return std::isnan(d) ? std::numeric_limits<float>::infinity() : d;  // a NaN must fail, not vanish
}

// Every tensor of `weights`, named as model_io names it, against the fixture's prefix + name; every
// fixture tensor under the prefix must be one of them. `skip(name, i)` leaves an element out.
template <class Skip>
void check_weights(const Model& like, const ModelWeights& weights, const TensorFile& f, const std::string& prefix,
                   float tol, Skip skip) {
  Model m = like;
  m.weights = weights;
  float worst = 0;
  std::string worst_name;
  size_t compared = 0, skipped = 0;
  for (const Tensor& t : model_to_tensors(m).tensors) {
    const Tensor* ref = f.find(prefix + t.name);
    REQUIRE_MESSAGE(ref != nullptr, "the fixture has no " << prefix << t.name);
    REQUIRE_MESSAGE(ref->shape == t.shape, prefix << t.name << " has another shape");
    float d = 0;
    for (size_t i = 0; i < t.data.size(); ++i) {
      if (skip(t.name, i)) {
        ++skipped;
        continue;
      }
      d = std::max(d, abs_diff(t.data[i], ref->data[i]));
    }
    CHECK_MESSAGE(d <= tol, prefix << t.name << ": max |diff| " << d);
    if (d >= worst) {
      worst = d;
      worst_name = t.name;
    }
    ++compared;
  }
  const auto stored = std::count_if(f.tensors.begin(), f.tensors.end(),
                                    [&](const Tensor& t) { return t.name.rfind(prefix, 0) == 0; });
  CHECK(static_cast<size_t>(stored) == compared);
  MESSAGE(prefix << "*: " << compared << " tensors, worst max |diff| " << worst << " (" << worst_name << ")"
                 << (skipped > 0 ? ", " + std::to_string(skipped) + " ill-conditioned elements left out" : ""));
}

void check_weights(const Model& like, const ModelWeights& weights, const TensorFile& f, const std::string& prefix,
                   float tol) {
  check_weights(like, weights, f, prefix, tol, [](const std::string&, size_t) { return false; });
}

}  // namespace

TEST_CASE("train vs torch: a batch's loss and every gradient match autograd (1e-4)") {
  const auto files = fixture_safetensors("train");
  REQUIRE(files.size() >= 2);
  for (const std::string& path : files) {
    CAPTURE(path);
    const TrainFixture f = train_fixture_open(path);
    const BatchGrads g = batch_grads(f.model, f.batch);
    CHECK(std::abs(g.loss - metadata_number(f.file, "fixture.loss")) < kLossTol);
    check_weights(f.model, g.grads, f.file, "grad.", kGradTol);
    // The global norm adam_step clips by, and that it does clip here (else clipping goes untested).
    const auto norms = nlohmann::json::parse(f.file.metadata.at("fixture.grad_norm"));
    CHECK(weights_norm(g.grads) == doctest::Approx(norms.at(0).get<double>()).epsilon(1e-5));
    CHECK(weights_norm(g.grads) > AdamConfig{}.clip_norm);
  }
}

TEST_CASE("train vs torch: adam_step fed the reference gradients matches torch.optim.AdamW for two steps (1e-5)") {
  for (const std::string& path : fixture_safetensors("train")) {
    CAPTURE(path);
    const TrainFixture f = train_fixture_open(path);
    const AdamConfig adam;
    const auto want = nlohmann::json::parse(f.file.metadata.at("fixture.adam"));
    CHECK(adam.lr == doctest::Approx(want.at("lr").get<double>()));
    CHECK(adam.beta1 == doctest::Approx(want.at("beta1").get<double>()));
    CHECK(adam.beta2 == doctest::Approx(want.at("beta2").get<double>()));
    CHECK(adam.eps == doctest::Approx(want.at("eps").get<double>()).epsilon(1e-6));
    CHECK(adam.weight_decay == doctest::Approx(want.at("weight_decay").get<double>()));
    CHECK(adam.clip_norm == doctest::Approx(want.at("clip_norm").get<double>()));

    // Step 1 moves each weight by about lr·sign(g); step 2 depends on both clip factors and on the
    // moments carried in the state.
    ModelWeights w = f.model.weights;
    AdamState state = adam_init(w);
    adam_step(w, fixture_weights(f.file, "grad."), state, adam);
    check_weights(f.model, w, f.file, "after.", kTrainWeightTol);
    adam_step(w, fixture_weights(f.file, "grad2."), state, adam);
    check_weights(f.model, w, f.file, "after2.", kTrainWeightTol);
    CHECK(state.step == 2);
  }
}

TEST_CASE("train vs torch: a full step on our own gradients lands on torch's weights, and the next loss and gradients on torch's") {
  for (const std::string& path : fixture_safetensors("train")) {
    CAPTURE(path);
    const TrainFixture f = train_fixture_open(path);
    Model model = f.model;
    AdamState state = adam_init(model.weights);
    const BatchGrads g1 = batch_grads(model, f.batch);
    // Adam's first step g/(|g|+eps) turns a gradient that is 0 up to rounding (the key bias, to which
    // softmax is blind) into an arbitrary fraction of lr. Elements where either side's clipped
    // gradient is that small but not both exactly 0 are left out; their gradients were checked to
    // 1e-4 above. Exact zeros on both sides (weights no loss reaches) are compared: only decay moves them.
    Model named = f.model;
    named.weights = fixture_weights(f.file, "grad.");
    const float clip = AdamConfig{}.clip_norm / weights_norm(named.weights);
    const TensorFile ref_grads = model_to_tensors(named);
    named.weights = g1.grads;
    const TensorFile our_grads = model_to_tensors(named);
    auto ill_conditioned = [&](const std::string& name, size_t i) {
      const float r = std::abs(ref_grads.find(name)->data[i]) * clip;
      const float o = std::abs(our_grads.find(name)->data[i]) * clip;
      return (r != 0.0f || o != 0.0f) && std::max(r, o) < 1e-6f;
    };
    adam_step(model.weights, g1.grads, state, AdamConfig{});
    check_weights(f.model, model.weights, f.file, "after.", kTrainWeightTol, ill_conditioned);

    // At the stepped weights our gradient is torch's again.
    const BatchGrads g2 = batch_grads(model, f.batch);
    CHECK(std::abs(g2.loss - metadata_number(f.file, "fixture.loss2")) < kLossTol);
    check_weights(f.model, g2.grads, f.file, "grad2.", kGradTol);
  }
}
