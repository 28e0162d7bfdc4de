#include "state/local_models_state.h"

#include "io/model_open.h"
#include "state/app_state.h"
#include "state/model_source.h"

namespace attnviz {

void local_models_rescan(LocalModelsWindow& window) {
  window.places = LocalModelPlaces::from_environment();
  window.scan = local_models_find(window.places);
  window.scanned = true;
  window.selected = window.scan.models.empty() ? -1 : 0;
}

void local_models_show(AppState& app) {
  app.local_models.shown = true;
  local_models_rescan(app.local_models);
}

std::string local_model_open_path(const LocalModel& model) {
  return model.store == LocalModelStore::ollama ? std::string(kOllamaPrefix) + model.name : model.path;
}

bool local_models_open(AppState& app, size_t i) {
  LocalModelsWindow& w = app.local_models;
  if (i >= w.scan.models.size()) return false;
  const std::string path = local_model_open_path(w.scan.models[i]);
  app.model_path_edit = path;
  app_open_model(app, path);
  w.shown = false;
  return true;
}

int local_models_find_name(const LocalModelsWindow& window, std::string_view name) {
  for (size_t i = 0; i < window.scan.models.size(); ++i)
    if (window.scan.models[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace attnviz
