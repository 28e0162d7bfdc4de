// Where the data shipped with attnviz is: the trained demos (demo_coref/, demo_induction/), the
// coreference grid (demo_coref_grid/heads{NH}_dmodel{C}/) and presets.json. Found relative to the
// running program first (installed: <prefix>/bin/attnviz reads <prefix>/share/attnviz/assets),
// then in the source tree the build was made from. Reads the file system; keeps nothing.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace attnviz {

struct AssetPaths {
  std::string dir;                 // the assets folder; empty when no place looked at has one
  bool installed = false;          // dir lies beside the program, not in the source tree
  std::vector<std::string> tried;  // every folder looked at, in order (for messages)
};

// Looks up the assets folder. Callers look once and pass the answer on (main, AppState).
AssetPaths asset_paths_find();

// "installed: beside the program", "the source tree", or that nothing was found and where it looked.
std::string asset_paths_describe(const AssetPaths& assets);

// A shipped demo, as --model names it in both programs: demo:coref, demo:induction, demo:gather,
// demo:translate and its variants (demo:translate/score_dot, …), or one of the coreference grid's
// models, demo:coref/heads2_dmodel32.
struct DemoModel {
  std::string dir;       // the folder holding its model.safetensors
  std::string demo;      // "coref", "induction", "gather" or "translate"
  std::string grid_key;  // "heads2_dmodel32" for a model of the coreference grid; empty otherwise
};

inline constexpr std::string_view kDemoPrefix = "demo:";
bool demo_name_given(std::string_view model);  // starts with "demo:": resolve it, it is not a path

// The named demo's folder. Errors name the demo and list the known ones, or say where the assets
// were looked for when there are none.
Result<DemoModel> demo_model_find(const AssetPaths& assets, const std::string& name);

// Every demo name the assets hold: demo:coref, demo:induction, demo:gather, demo:translate and its
// variants, then the grid's, sorted.
std::vector<std::string> demo_names(const AssetPaths& assets);

}  // namespace attnviz
