// The version line and, for --version --verbose, the asset lookup's answer. Kept apart from the
// programs' main() so that a version bump recompiles this file and asset_paths.cpp alone.
#include "version.h"

#include "asset_paths.h"
#include "build_info.h"

namespace attnviz {

const char* attnviz_version() { return ATTNVIZ_VERSION; }

std::string version_text(bool verbose) {
  std::string text = std::string("attnviz ") + ATTNVIZ_VERSION + "\n";
  if (!verbose) return text;
  const AssetPaths assets = asset_paths_find();
  text += "assets: " + asset_paths_describe(assets) + "\n";
  std::string demos;
  for (const std::string& name : demo_names(assets)) demos += (demos.empty() ? "" : ", ") + name;
  text += "demos: " + (demos.empty() ? std::string("none") : demos) + "\n";
  return text;
}

}  // namespace attnviz
