// The loader thread: model_open with a progress callback, then hand the result over.
#include "state/model_loader.h"

#include <chrono>

#include "io/model_open.h"
#include "state/ui_wake.h"

namespace attnviz {

ModelLoader::~ModelLoader() {
  if (thread_.joinable()) thread_.join();  // a load cannot be interrupted; it ends on its own
}

bool ModelLoader::start(const std::string& path) {
  if (busy_.load()) return false;
  if (thread_.joinable()) thread_.join();  // the previous load finished: reap its thread
  {
    std::lock_guard lock(mutex_);
    path_ = path;
    done_.reset();
  }
  progress_ = 0;
  busy_ = true;
  thread_ = std::thread([this, path] {
    const auto t0 = std::chrono::steady_clock::now();
    auto model = model_open(path, std::nullopt, [this](float f) { progress_.store(f); });
    LoadedModel out{path, std::move(model),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
    {
      std::lock_guard lock(mutex_);
      done_ = std::move(out);
      busy_ = false;
    }
    ui_wake();
  });
  return true;
}

std::string ModelLoader::path() const {
  std::lock_guard lock(mutex_);
  return path_;
}

bool ModelLoader::has_result() const {
  std::lock_guard lock(mutex_);
  return done_.has_value();
}

std::optional<LoadedModel> ModelLoader::take() {
  std::lock_guard lock(mutex_);
  std::optional<LoadedModel> out = std::move(done_);
  done_.reset();
  return out;
}

}  // namespace attnviz
