// The GGUF models already on this machine, in the stores people keep them in: Ollama's (manifests
// naming content-addressed blobs), LM Studio's models folder and llama.cpp's download cache. Reads
// folder listings, Ollama's small JSON manifests and the first 4 bytes of a file; it never parses a
// GGUF, reaches the network or throws, and what it cannot read becomes a problem message.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace attnviz {

// In the order a list shows them.
enum class LocalModelStore { ollama, lm_studio, llama_cpp_cache };

struct LocalModel {
  // What a person calls it: "llama3.2:1b" as `ollama list` shows it (host and namespace only when not
  // Ollama's own library); for LM Studio the path under its models folder,
  // "lmstudio-community/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q4_K_M.gguf"; for llama.cpp's
  // cache the file name.
  std::string name;
  std::string path;  // the GGUF file to open: for Ollama the blob, for a split GGUF its first part
  LocalModelStore store = LocalModelStore::ollama;
  uint64_t bytes = 0;  // on disk; a split GGUF's parts added up
  int parts = 1;       // a split GGUF ("-00001-of-00003.gguf"): its number of files, listed once
};

// The variables that say where the tools keep models; empty counts as unset, as the tools read them.
struct LocalModelEnvironment {
  std::string home;            // $HOME
  std::string ollama_models;   // $OLLAMA_MODELS
  std::string llama_cache;     // $LLAMA_CACHE
  std::string xdg_cache_home;  // $XDG_CACHE_HOME
  // The store of Ollama's Linux system service (its user's home): looked in only when readable.
  std::string ollama_service = "/usr/share/ollama/.ollama/models";
};

// Where to look, and how far. A folder that does not exist is skipped without a word.
struct LocalModelPlaces {
  std::vector<std::string> ollama;           // Ollama models folders, each holding manifests/ and blobs/
  std::vector<std::string> lm_studio;        // LM Studio models folders: <publisher>/<repo>/*.gguf
  std::vector<std::string> llama_cpp_cache;  // llama.cpp cache folders: *.gguf
  // Bounds that keep a scan of a huge or looping tree short; reaching the second is a problem message.
  int max_depth = 4;            // how many names deep below a root a file is looked for (publisher/repo/file: 3)
  size_t max_entries = 10'000;  // folder entries looked at in the whole scan

  // As the tools choose: Ollama's $OLLAMA_MODELS (trimmed of spaces and quotes, as Ollama does) or
  // ~/.ollama/models, then the system service's store when readable; LM Studio's models folder in the
  // home that ~/.lmstudio-home-pointer names, ~/.lmstudio/models and the older
  // ~/.cache/lm-studio/models; llama.cpp's $LLAMA_CACHE, else $XDG_CACHE_HOME/llama.cpp, else
  // ~/.cache/llama.cpp. The first form reads the process's variables.
  static LocalModelPlaces from_environment();
  static LocalModelPlaces from_environment(const LocalModelEnvironment& env);
};

struct LocalModelScan {
  std::vector<LocalModel> models;     // by store, then name, then path
  std::vector<std::string> problems;  // one line each, naming the file or folder at fault; sorted
};

// Lists GGUF files (those starting with "GGUF"), leaving out multimodal projectors (an Ollama
// projector layer, "mmproj" in a file name) and every part of a split GGUF but its first. Problems: a
// manifest that is not valid JSON or names a missing, short or non-GGUF blob, a ".gguf" that is not
// one, a split GGUF with a part missing, a folder that cannot be read, the scan's bounds reached.
LocalModelScan local_models_find(const LocalModelPlaces& places);

// The GGUF blob of an Ollama model, named as `ollama run` takes it: "llama3.2:1b", "llama3.2" (tag
// "latest"), "user/model:tag", "host/namespace/model:tag"; letter case does not matter, as in Ollama.
// The folders are tried in order. Errors name what was looked for and where:
//   no Ollama model 'llama3.2:1b': no manifest at '<dir>/manifests/registry.ollama.ai/library/llama3.2/1b'
Result<std::string> ollama_model_path(const std::vector<std::string>& ollama_dirs, std::string_view name);

}  // namespace attnviz
