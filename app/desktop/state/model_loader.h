// Opens a model (model_open: a checkpoint folder or a model file) on a background thread, so a
// 500 MB checkpoint never freezes the UI, and reports its progress for a progress bar. One load at
// a time; the result is collected once by the UI thread. Owns no UI state and draws nothing.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "base/no_copy.h"
#include "base/result.h"
#include "model/model.h"

namespace attnviz {

struct LoadedModel {
  std::string path;
  Result<Model> model = make_error("not loaded");
  double seconds = 0;
};

class ModelLoader : NoCopy {
 public:
  ~ModelLoader();

  // Starts loading `path`; false (and nothing happens) while another load is running.
  bool start(const std::string& path);
  bool busy() const { return busy_.load(); }
  float progress() const { return progress_.load(); }  // 0..1 of the running load
  std::string path() const;                             // the running (or last) load's path
  std::optional<LoadedModel> take();                    // the finished load, once
  bool has_result() const;                              // a finished load waits to be taken

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> busy_{false};
  std::atomic<float> progress_{0};
  std::string path_;
  std::optional<LoadedModel> done_;
  std::thread thread_;
};

}  // namespace attnviz
