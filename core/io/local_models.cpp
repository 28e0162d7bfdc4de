// Finding GGUF models in Ollama's, LM Studio's and llama.cpp's stores. Every file-system call takes an
// error_code, so a bad disk or folder becomes a problem message; one bounded walk (depth, entries,
// each folder once) serves LM Studio and llama.cpp, and Ollama's fixed four-level manifest tree is
// read the way Ollama reads it (server/manifest.go, types/model/name.go). No GGUF is parsed here.
#include "io/local_models.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/json.h"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOllamaHost = "registry.ollama.ai";
constexpr std::string_view kOllamaNamespace = "library";
constexpr std::string_view kOllamaTag = "latest";
constexpr std::string_view kOllamaModelLayer = "application/vnd.ollama.image.model";
// Ollama reads no more of a manifest than this either (server/internal/cache/blob).
constexpr uint64_t kManifestMaxBytes = uint64_t{1} << 20;
// Entries looked at per folder when a name is matched ignoring letter case.
constexpr size_t kLookupMaxEntries = 10'000;

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

bool icontains(std::string_view s, std::string_view part) {
  for (size_t i = 0; i + part.size() <= s.size(); ++i)
    if (iequals(s.substr(i, part.size()), part)) return true;
  return false;
}

// A path for a message, in single quotes, with control bytes shown as \xNN so that a strange file
// name cannot break the message's one line. Never shortened: it names the file to go and look at.
std::string path_quoted(const fs::path& path) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char ch : path.string()) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "'";
}

// Whether the file starts with "GGUF", from its first 4 bytes only. O_NONBLOCK: a FIFO named *.gguf
// must not hang the scan (callers check for a regular file as well).
Result<bool> gguf_magic(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error("cannot read " + path_quoted(path) + ": " + std::strerror(errno));
  char magic[4] = {};
  ssize_t n = 0;
  do {
    n = ::read(fd, magic, sizeof magic);
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (n < 0) return make_error("cannot read " + path_quoted(path) + ": " + std::strerror(err));
  return n == 4 && std::memcmp(magic, "GGUF", 4) == 0;
}

// ---- Ollama names ----------------------------------------------------------------------------

struct OllamaName {
  std::string host, space, model, tag;
};

enum class OllamaPart { host, space, model, tag };

// Ollama's rule for one part of a name (types/model/name.go): a letter, digit or '_' first, then
// those or '-', '.' (not in a namespace) and ':' (a host's port); at most 350 bytes for a host and
// 80 for the others. It also keeps "..", "/" and empty parts out of the manifest path built from them.
bool ollama_part_valid(std::string_view s, OllamaPart kind) {
  const size_t max = kind == OllamaPart::host ? 350 : 80;
  if (s.empty() || s.size() > max) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (word) continue;
    if (i == 0) return false;
    if (c == '-') continue;
    if (c == '.' && kind != OllamaPart::space) continue;
    if (c == ':' && kind == OllamaPart::host) continue;
    return false;
  }
  return true;
}

bool ollama_name_valid(const OllamaName& n) {
  return ollama_part_valid(n.host, OllamaPart::host) && ollama_part_valid(n.space, OllamaPart::space) &&
         ollama_part_valid(n.model, OllamaPart::model) && ollama_part_valid(n.tag, OllamaPart::tag);
}

// "[scheme://][host/][namespace/]model[:tag]" as Ollama parses it: the tag follows the last ':' when
// that comes after the last '/' (a host may carry a port), missing parts take Ollama's defaults.
std::optional<OllamaName> ollama_name_parse(std::string_view s) {
  for (const std::string_view scheme : {std::string_view("https://"), std::string_view("http://")})
    if (s.substr(0, scheme.size()) == scheme) {
      s.remove_prefix(scheme.size());
      break;
    }
  OllamaName n{std::string(kOllamaHost), std::string(kOllamaNamespace), "", std::string(kOllamaTag)};
  const size_t colon = s.rfind(':'), slash = s.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    n.tag = std::string(s.substr(colon + 1));
    s = s.substr(0, colon);
  }
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '/') {
      parts.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  if (parts.size() > 3) return std::nullopt;
  if (parts.size() == 3) n.host = parts[0];
  if (parts.size() >= 2) n.space = parts[parts.size() - 2];
  n.model = parts.back();
  if (!ollama_name_valid(n)) return std::nullopt;
  return n;
}

// As `ollama list` shows a name (Name.DisplayShortest): without Ollama's own host, and without its
// "library" namespace on that host; the tag always.
std::string ollama_display(const OllamaName& n) {
  std::string out;
  if (!iequals(n.host, kOllamaHost))
    out = n.host + "/" + n.space + "/";
  else if (!iequals(n.space, kOllamaNamespace))
    out = n.space + "/";
  return out + n.model + ":" + n.tag;
}

// ---- Ollama manifests ------------------------------------------------------------------------

// What a manifest says about its GGUF weights. An empty blob: the manifest has no model layer (a
// cloud model, or weights that are not GGUF), which is no fault of the manifest.
struct OllamaWeights {
  std::string blob;
  uint64_t bytes = 0;
};

bool digest_valid(std::string_view d) {
  // Ollama accepts either separator in a digest (server.GetBlobsPath).
  if (d.size() != 7 + 64 || (d.substr(0, 7) != "sha256:" && d.substr(0, 7) != "sha256-")) return false;
  return std::all_of(d.begin() + 7, d.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); });
}

// The manifest at `manifest`, in the store at `root`: the model layer's blob, checked to be there,
// as long as the manifest says, and a GGUF. Keys the reader does not need are let through: the format
// is Ollama's, and it adds keys (layers gained "from", "name", "dtype", "shape") without notice.
Result<OllamaWeights> ollama_manifest_read(const fs::path& root, const fs::path& manifest) {
  const std::string what = "Ollama manifest " + path_quoted(manifest);
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) return make_error(what + " is not a file");
  auto bytes = file_read_bytes(manifest.string(), kManifestMaxBytes);
  if (!bytes) return make_error(bytes.error());
  auto parsed = json_parse_strict(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), what);
  if (!parsed) return make_error(parsed.error());
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return make_error(what + " is not a JSON object");
  if (auto v = j.find("schemaVersion"); v != j.end() && !(v->is_number_unsigned() && v->get<uint64_t>() == 2))
    return make_error(what + " has schemaVersion " + json_quote(v->dump()) + " (this reader knows 2)");
  auto layers = j.find("layers");
  if (layers == j.end() || !layers->is_array()) return make_error(what + " has no 'layers' list");
  const nlohmann::json* model = nullptr;
  for (const nlohmann::json& layer : *layers) {
    if (!layer.is_object()) return make_error(what + " has a layer that is not an object");
    auto type = layer.find("mediaType");
    // The last model layer, as Ollama loads it (GetModel lets each one replace the one before).
    // Projector, adapter, template, params and license layers are not the weights.
    if (type != layer.end() && type->is_string() && type->get_ref<const std::string&>() == kOllamaModelLayer) model = &layer;
  }
  if (!model) return OllamaWeights{};
  auto d = model->find("digest");
  const std::string digest = d != model->end() && d->is_string() ? d->get<std::string>() : "";
  if (!digest_valid(digest)) return make_error(what + ": the model layer's digest " + json_quote(digest) + " is not sha256:<64 hex digits>");
  const std::string hex = digest.substr(7);
  const fs::path blobs = root / "blobs";
  fs::path blob = blobs / ("sha256-" + hex);
  if (!fs::exists(blob, ec)) {
    // Older Ollama named blobs "sha256:<hex>" and renames them when it next starts (fixBlobs); a
    // store it has not started since still holds the old names.
    const fs::path old_name = blobs / ("sha256:" + hex);
    if (!fs::exists(old_name, ec)) return make_error(what + ": its model blob 'sha256-" + hex + "' is missing from " + path_quoted(blobs));
    blob = old_name;
  }
  if (!fs::is_regular_file(blob, ec)) return make_error(what + ": its model blob " + path_quoted(blob) + " is not a file");
  const uintmax_t size = fs::file_size(blob, ec);
  if (ec) return make_error("cannot read " + path_quoted(blob) + ": " + ec.message());
  // A blob shorter than its layer is an unfinished copy, not a model.
  if (auto s = model->find("size"); s != model->end() && s->is_number_unsigned() && s->get<uint64_t>() != size)
    return make_error(what + ": its model blob " + path_quoted(blob) + " is " + std::to_string(size) + " bytes, the manifest says " +
                      std::to_string(s->get<uint64_t>()));
  auto magic = gguf_magic(blob);
  if (!magic) return make_error(magic.error());
  if (!*magic) return make_error(what + ": its model blob " + path_quoted(blob) + " is not a GGUF file");
  return OllamaWeights{blob.string(), size};
}

// The manifest for `n` under `manifests`: the exact path when it exists, else at each level the first
// entry (by name) that matches ignoring letter case, as Ollama resolves names. Empty when none does.
fs::path manifest_find(const fs::path& manifests, const OllamaName& n) {
  std::error_code ec;
  const fs::path exact = manifests / n.host / n.space / n.model / n.tag;
  if (fs::is_regular_file(exact, ec)) return exact;
  fs::path at = manifests;
  for (const std::string* part : {&n.host, &n.space, &n.model, &n.tag}) {
    fs::path next = at / *part;
    if (!fs::exists(next, ec)) {
      std::vector<std::string> matches;
      size_t budget = kLookupMaxEntries;
      fs::directory_iterator it(at, ec);
      for (; !ec && it != fs::directory_iterator() && budget > 0; it.increment(ec), --budget)
        if (std::string file = it->path().filename().string(); iequals(file, *part)) matches.push_back(std::move(file));
      if (matches.empty()) return {};
      next = at / *std::min_element(matches.begin(), matches.end());
    }
    at = std::move(next);
  }
  return fs::is_regular_file(at, ec) ? at : fs::path();
}

// ---- The scan --------------------------------------------------------------------------------

// One scan's bounds and findings, shared by every store it looks in.
struct Scan {
  Scan(const LocalModelPlaces& p, LocalModelScan& o) : places(p), out(o) {}

  const LocalModelPlaces& places;
  LocalModelScan& out;
  size_t entries = 0;
  bool stopped = false;
  std::set<std::string> folders_seen;  // canonical paths: a link back up the tree is entered once

  void problem(std::string message) { out.problems.push_back(std::move(message)); }

  // The entries of `dir`, sorted by name so that results do not depend on the file system's order.
  // An unreadable folder is a problem; once max_entries have been looked at, every list is empty.
  std::vector<fs::directory_entry> list(const fs::path& dir) {
    std::vector<fs::directory_entry> found;
    if (stopped) return found;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      if (++entries > places.max_entries) {
        stopped = true;
        problem("stopped looking after " + std::to_string(places.max_entries) + " folder entries, in " + path_quoted(dir) +
                ": models past there are not listed");
        break;
      }
      found.push_back(*it);
    }
    if (ec) problem("cannot read folder " + path_quoted(dir) + ": " + ec.message());
    std::sort(found.begin(), found.end(), [](const fs::directory_entry& a, const fs::directory_entry& b) {
      return a.path().filename().native() < b.path().filename().native();
    });
    return found;
  }

  // Whether to look in `root`: one that does not exist is no problem (that tool is not installed);
  // a file, an unreadable path, or a folder already looked in under another name is passed over.
  bool root_usable(const std::string& root) {
    if (root.empty()) return false;
    std::error_code ec;
    const fs::file_status st = fs::status(root, ec);
    if (st.type() == fs::file_type::not_found) return false;
    if (ec) {
      problem("cannot read " + path_quoted(root) + ": " + ec.message());
      return false;
    }
    if (!fs::is_directory(st)) {
      problem(path_quoted(root) + " is not a folder");
      return false;
    }
    const fs::path canonical = fs::canonical(root, ec);
    if (ec) {
      problem("cannot read " + path_quoted(root) + ": " + ec.message());
      return false;
    }
    return folders_seen.insert(canonical.string()).second;
  }
};

bool hidden(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();  // a copy: filename() is a temporary
  return name.empty() || name[0] == '.';
}

bool folder_at(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_directory(ec);  // follows links, as Ollama's glob does
}

// Ollama's store: manifests/<host>/<namespace>/<model>/<tag>, the four levels Ollama globs.
void ollama_store_find(Scan& scan, const fs::path& root) {
  const fs::path manifests = root / "manifests";
  std::error_code ec;
  if (!fs::is_directory(manifests, ec)) return;  // nothing pulled yet
  for (const auto& host : scan.list(manifests)) {
    if (hidden(host) || !folder_at(host)) continue;
    for (const auto& space : scan.list(host.path())) {
      if (hidden(space) || !folder_at(space)) continue;
      for (const auto& model : scan.list(space.path())) {
        if (hidden(model) || !folder_at(model)) continue;
        for (const auto& tag : scan.list(model.path())) {
          if (hidden(tag) || folder_at(tag)) continue;
          const OllamaName n{host.path().filename().string(), space.path().filename().string(), model.path().filename().string(),
                             tag.path().filename().string()};
          if (!ollama_name_valid(n)) {
            scan.problem(path_quoted(tag.path()) + " is not an Ollama manifest: its path does not spell a model name");
            continue;
          }
          auto weights = ollama_manifest_read(root, tag.path());
          if (!weights) {
            scan.problem(weights.error());
            continue;
          }
          if (weights->blob.empty()) continue;
          scan.out.models.push_back(LocalModel{ollama_display(n), weights->blob, LocalModelStore::ollama, weights->bytes, 1});
        }
      }
    }
  }
}

struct GgufFile {
  fs::path path;
  std::string name;  // under the store's root, with '/'
  uint64_t bytes = 0;
};

// Every *.gguf under `dir` (at `depth` below the store's root) but projectors, each folder entered once.
void gguf_files_collect(Scan& scan, const fs::path& root, const fs::path& dir, int depth, std::vector<GgufFile>& found) {
  for (const auto& e : scan.list(dir)) {
    if (hidden(e)) continue;  // LM Studio's .internal, editors' and downloaders' leftovers
    const std::string file = e.path().filename().string();
    const bool gguf_name = iends_with(file, ".gguf");
    std::error_code ec;
    const fs::file_status st = e.status(ec);  // follows links
    if (ec || st.type() == fs::file_type::not_found) {
      if (gguf_name) scan.problem("cannot read " + path_quoted(e.path()) + ": " + (ec ? ec.message() : std::string("not found")));
      continue;
    }
    if (fs::is_directory(st)) {
      if (depth + 1 >= scan.places.max_depth) continue;
      const fs::path canonical = fs::canonical(e.path(), ec);
      if (ec) {
        scan.problem("cannot read folder " + path_quoted(e.path()) + ": " + ec.message());
        continue;
      }
      if (!scan.folders_seen.insert(canonical.string()).second) continue;
      gguf_files_collect(scan, root, e.path(), depth + 1, found);
      continue;
    }
    if (!gguf_name || !fs::is_regular_file(st)) continue;
    // A multimodal projector (llama.cpp's --mmproj) goes with a model; it is not one.
    if (icontains(file, "mmproj")) continue;
    const uintmax_t size = fs::file_size(e.path(), ec);
    if (ec) {
      scan.problem("cannot read " + path_quoted(e.path()) + ": " + ec.message());
      continue;
    }
    found.push_back(GgufFile{e.path(), e.path().lexically_relative(root).generic_string(), size});
  }
}

// "<prefix>-00002-of-00003.gguf": part 2 of a GGUF split in 3 (llama.cpp's gguf-split naming).
struct SplitName {
  std::string prefix, extension;
  int part = 0, count = 0;
};

std::optional<SplitName> split_name(std::string_view file) {
  constexpr size_t kTail = 15;  // "-00002-of-00003"
  if (!iends_with(file, ".gguf") || file.size() < kTail + 5) return std::nullopt;
  const std::string_view stem = file.substr(0, file.size() - 5), tail = stem.substr(stem.size() - kTail);
  auto number = [](std::string_view digits) {
    int v = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return -1;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-") return std::nullopt;
  const int part = number(tail.substr(1, 5)), count = number(tail.substr(10, 5));
  if (part < 1 || count < 1 || part > count) return std::nullopt;
  return SplitName{std::string(stem.substr(0, stem.size() - kTail)), std::string(file.substr(file.size() - 5)), part, count};
}

std::string split_file(const SplitName& s, int part) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "-%05d-of-%05d", part, s.count);
  return s.prefix + digits + s.extension;
}

// A folder of loose GGUF files (LM Studio's publisher/repo tree, llama.cpp's cache): each file a
// model, but a split GGUF once, as its first part, when all its parts are there.
void gguf_store_find(Scan& scan, const fs::path& root, LocalModelStore store) {
  std::vector<GgufFile> files;
  gguf_files_collect(scan, root, root, 0, files);
  struct Split {
    SplitName name;
    std::map<int, const GgufFile*> parts;
  };
  std::map<std::tuple<std::string, std::string, int>, Split> splits;  // by folder, prefix and count
  std::vector<LocalModel> candidates;
  for (const GgufFile& f : files) {
    const auto split = split_name(f.path.filename().string());
    if (!split || split->count == 1) {
      candidates.push_back(LocalModel{f.name, f.path.string(), store, f.bytes, 1});
      continue;
    }
    Split& s = splits[{f.path.parent_path().string(), split->prefix, split->count}];
    s.name = *split;
    s.parts[split->part] = &f;
  }
  for (const auto& [key, s] : splits) {
    const fs::path folder = std::get<0>(key);
    int missing = 0;
    uint64_t bytes = 0;
    for (int part = 1; part <= s.name.count && missing == 0; ++part) {
      auto it = s.parts.find(part);
      if (it == s.parts.end())
        missing = part;
      else
        bytes += it->second->bytes;
    }
    if (missing != 0) {
      scan.problem(path_quoted(folder / split_file(s.name, missing)) + " is missing: the split GGUF " +
                   path_quoted(folder / split_file(s.name, 1)) + " is not listed");
      continue;
    }
    const GgufFile& first = *s.parts.at(1);
    candidates.push_back(LocalModel{first.name, first.path.string(), store, bytes, s.name.count});
  }
  for (LocalModel& m : candidates) {
    auto magic = gguf_magic(m.path);
    if (!magic) {
      scan.problem(magic.error());
      continue;
    }
    if (!*magic) {
      scan.problem(path_quoted(m.path) + " is named .gguf but does not start with \"GGUF\"");
      continue;
    }
    scan.out.models.push_back(std::move(m));
  }
}

// An environment variable as Ollama reads it (envconfig.Var): spaces, then quotes, trimmed.
std::string ollama_var(std::string_view v) {
  auto trim = [&](std::string_view chars) {
    while (!v.empty() && chars.find(v.front()) != std::string_view::npos) v.remove_prefix(1);
    while (!v.empty() && chars.find(v.back()) != std::string_view::npos) v.remove_suffix(1);
  };
  trim(" \t\r\n\v\f");
  trim("\"'");
  return std::string(v);
}

// The folder ~/.lmstudio-home-pointer names: where LM Studio keeps its home when moved. Empty when
// there is no such file or it does not hold an absolute path.
std::string lmstudio_home_pointed(const fs::path& home) {
  const fs::path pointer = home / ".lmstudio-home-pointer";
  std::error_code ec;
  if (!fs::is_regular_file(pointer, ec)) return {};
  auto bytes = file_read_bytes(pointer.string(), 4096);
  if (!bytes) return {};
  std::string text(bytes->begin(), bytes->end());
  while (!text.empty() && std::strchr(" \t\r\n", text.back())) text.pop_back();
  while (!text.empty() && std::strchr(" \t\r\n", text.front())) text.erase(text.begin());
  return !text.empty() && text[0] == '/' ? text : std::string();
}

bool folder_readable(const std::string& path) {
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  return !ec;
}

}  // namespace

LocalModelPlaces LocalModelPlaces::from_environment() {
  auto var = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  LocalModelEnvironment env;
  env.home = var("HOME");
  env.ollama_models = var("OLLAMA_MODELS");
  env.llama_cache = var("LLAMA_CACHE");
  env.xdg_cache_home = var("XDG_CACHE_HOME");
  return from_environment(env);
}

LocalModelPlaces LocalModelPlaces::from_environment(const LocalModelEnvironment& env) {
  LocalModelPlaces p;
  try {
    auto add = [](std::vector<std::string>& list, const std::string& path) {
      if (!path.empty() && std::find(list.begin(), list.end(), path) == list.end()) list.push_back(path);
    };
    const fs::path home = env.home;
    const bool has_home = !env.home.empty();
    if (const std::string models = ollama_var(env.ollama_models); !models.empty())
      add(p.ollama, models);
    else if (has_home)
      add(p.ollama, (home / ".ollama" / "models").string());
    if (!env.ollama_service.empty() && folder_readable(env.ollama_service)) add(p.ollama, env.ollama_service);
    if (has_home) {
      if (const std::string pointed = lmstudio_home_pointed(home); !pointed.empty()) add(p.lm_studio, (fs::path(pointed) / "models").string());
      add(p.lm_studio, (home / ".lmstudio" / "models").string());
      add(p.lm_studio, (home / ".cache" / "lm-studio" / "models").string());
    }
    if (!env.llama_cache.empty())
      add(p.llama_cpp_cache, env.llama_cache);
    else if (!env.xdg_cache_home.empty())
      add(p.llama_cpp_cache, (fs::path(env.xdg_cache_home) / "llama.cpp").string());
    else if (has_home)
      add(p.llama_cpp_cache, (home / ".cache" / "llama.cpp").string());
  } catch (const std::exception&) {
    // Only allocation can fail here; the places found so far are still places to look.
  }
  return p;
}

LocalModelScan local_models_find(const LocalModelPlaces& places) {
  LocalModelScan out;
  try {
    Scan scan(places, out);
    for (const std::string& root : places.ollama)
      if (scan.root_usable(root)) ollama_store_find(scan, root);
    for (const std::string& root : places.lm_studio)
      if (scan.root_usable(root)) gguf_store_find(scan, root, LocalModelStore::lm_studio);
    for (const std::string& root : places.llama_cpp_cache)
      if (scan.root_usable(root)) gguf_store_find(scan, root, LocalModelStore::llama_cpp_cache);
  } catch (const std::exception& e) {
    out.problems.push_back(std::string("looking for local models stopped: ") + e.what());
  }
  try {
    std::sort(out.models.begin(), out.models.end(), [](const LocalModel& a, const LocalModel& b) {
      return std::tie(a.store, a.name, a.path) < std::tie(b.store, b.name, b.path);
    });
    std::sort(out.problems.begin(), out.problems.end());
    out.problems.erase(std::unique(out.problems.begin(), out.problems.end()), out.problems.end());
  } catch (const std::exception&) {
    // Sorting strings fails only when memory runs out; the unsorted lists are still true.
  }
  return out;
}

Result<std::string> ollama_model_path(const std::vector<std::string>& ollama_dirs, std::string_view name) {
  try {
    const std::string shown = json_quote(name);
    const auto n = ollama_name_parse(name);
    if (!n)
      return make_error(shown + " is not an Ollama model name ([host/][namespace/]model[:tag], each part letters, digits, '_', '-' or '.')");
    std::string looked;
    for (const std::string& dir : ollama_dirs) {
      if (dir.empty()) continue;  // not the current folder
      const fs::path root(dir);
      const fs::path manifest = manifest_find(root / "manifests", *n);
      if (manifest.empty()) {
        looked += (looked.empty() ? "" : " or ") + path_quoted(root / "manifests" / n->host / n->space / n->model / n->tag);
        continue;
      }
      auto weights = ollama_manifest_read(root, manifest);
      if (!weights) return make_error("cannot open Ollama model " + shown + ": " + weights.error());
      if (weights->blob.empty())
        return make_error("Ollama model " + shown + " has no GGUF weights: " + path_quoted(manifest) + " has no layer of type " +
                          std::string(kOllamaModelLayer) + " (a cloud model, or one not stored as GGUF)");
      return weights->blob;
    }
    if (looked.empty()) return make_error("no Ollama model " + shown + ": no Ollama models folder to look in");
    return make_error("no Ollama model " + shown + ": no manifest at " + looked);
  } catch (const std::exception& e) {
    return make_error(std::string("looking for an Ollama model failed: ") + e.what());
  }
}

}  // namespace attnviz
