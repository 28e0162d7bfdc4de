// The lookup order is the install layout first, so that an installed program never reads the
// source tree it was built from, even when that tree is still on the machine. Nothing is cached:
// the callers keep the answer (AssetPaths) and pass it on.
#include "asset_paths.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "build_info.h"

namespace attnviz {

namespace {

namespace fs = std::filesystem;

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Runs of digits compare as numbers: heads2_dmodel32 comes before heads2_dmodel128.
bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (!is_digit(a[i]) || !is_digit(b[j])) {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
      continue;
    }
    size_t ie = i, je = j;
    while (ie < a.size() && is_digit(a[ie])) ++ie;
    while (je < b.size() && is_digit(b[je])) ++je;
    if (ie - i != je - j) return ie - i < je - j;
    if (const int c = a.substr(i, ie - i).compare(b.substr(j, je - j)); c != 0) return c < 0;
    i = ie, j = je;
  }
  return a.size() - i < b.size() - j;
}

bool has_model(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "model.safetensors", ec);
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

AssetPaths asset_paths_find() {
  AssetPaths a;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = (exe.parent_path() / ATTNVIZ_ASSETS_FROM_BIN).lexically_normal();
    a.tried.push_back(beside.string());
    if (fs::is_directory(beside, ec)) {
      a.dir = beside.string();
      a.installed = true;
      return a;
    }
  }
  a.tried.emplace_back(ATTNVIZ_SOURCE_ASSETS);
  if (fs::is_directory(ATTNVIZ_SOURCE_ASSETS, ec)) a.dir = ATTNVIZ_SOURCE_ASSETS;
  return a;
}

std::string asset_paths_describe(const AssetPaths& assets) {
  if (assets.dir.empty()) return "no assets folder (looked in " + joined(assets.tried, " and ") + ")";
  return assets.dir + (assets.installed ? " (installed, beside the program)" : " (the source tree of this build)");
}

bool demo_name_given(std::string_view model) { return model.substr(0, kDemoPrefix.size()) == kDemoPrefix; }

std::vector<std::string> demo_names(const AssetPaths& assets) {
  std::vector<std::string> names;
  if (assets.dir.empty()) return names;
  const fs::path root = assets.dir;
  if (has_model(root / "demo_coref")) names.push_back("demo:coref");
  if (has_model(root / "demo_induction")) names.push_back("demo:induction");
  if (has_model(root / "demo_gather")) names.push_back("demo:gather");
  if (has_model(root / "demo_translate")) names.push_back("demo:translate");
  // The translation demo's variants: demo:translate/score_dot, …, each a folder of demo_translate.
  std::vector<std::string> variants;
  std::error_code vec;
  for (fs::directory_iterator it(root / "demo_translate", vec), end; !vec && it != end; it.increment(vec))
    if (has_model(it->path())) variants.push_back(it->path().filename().string());
  std::sort(variants.begin(), variants.end());
  for (const std::string& v : variants) names.push_back("demo:translate/" + v);
  std::vector<std::string> grid;
  std::error_code ec;
  for (fs::directory_iterator it(root / "demo_coref_grid", ec), end; !ec && it != end; it.increment(ec))
    if (has_model(it->path())) grid.push_back(it->path().filename().string());
  std::sort(grid.begin(), grid.end(), natural_less);
  for (const std::string& key : grid) names.push_back("demo:coref/" + key);
  return names;
}

Result<DemoModel> demo_model_find(const AssetPaths& assets, const std::string& name) {
  if (assets.dir.empty()) return make_error("cannot open " + name + ": " + asset_paths_describe(assets));
  // Only names that are there are accepted, so a name can never reach outside the assets folder.
  const std::vector<std::string> known = demo_names(assets);
  if (std::find(known.begin(), known.end(), name) == known.end())
    return make_error("unknown demo '" + name + "': " + assets.dir +
                      (known.empty() ? " holds no demo" : " holds " + joined(known, ", ")));
  const std::string rest = name.substr(kDemoPrefix.size());
  DemoModel d;
  if (rest == "coref" || rest == "induction" || rest == "gather" || rest == "translate") {
    d.demo = rest;
    d.dir = (fs::path(assets.dir) / ("demo_" + rest)).string();
  } else if (rest.rfind("translate/", 0) == 0) {  // a variant of the translation demo
    d.demo = "translate";
    d.dir = (fs::path(assets.dir) / "demo_translate" / rest.substr(rest.find('/') + 1)).string();
  } else {
    d.demo = "coref";
    d.grid_key = rest.substr(rest.find('/') + 1);
    d.dir = (fs::path(assets.dir) / "demo_coref_grid" / d.grid_key).string();
  }
  return d;
}

}  // namespace attnviz
