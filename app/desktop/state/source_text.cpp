// Core names the labels it makes (kSource... and made_source in model/model.h), the retrain the two
// prefixes it gives (state/demo_retrain.h): each is recognised exactly, never guessed from words.
#include "state/source_text.h"

#include <utility>

#include "model/model.h"
#include "state/demo_retrain.h"

namespace attnviz {

std::string model_source_text(std::string_view source, Lang lang) {
  static constexpr std::pair<std::string_view, Str> kMade[] = {{kSourceSandbox, Str::srcl_sandbox},
                                                               {kSourceCorefDemo, Str::srcl_coref_demo},
                                                               {kSourceInductionDemo, Str::srcl_induction_demo},
                                                               {kSourceGatherDemo, Str::srcl_gather_demo}};
  for (const auto& [what, label] : kMade) {
    uint64_t seed = 0;
    if (made_source_seed(source, what, seed)) return tr_format(lang, label, std::to_string(seed).c_str());
  }
  static constexpr std::pair<std::string_view, Str> kPrefixed[] = {{kTrainedSourcePrefix, Str::srcl_trained},
                                                                   {kCacheSourcePrefix, Str::srcl_cache}};
  for (const auto& [prefix, label] : kPrefixed)
    if (source.substr(0, prefix.size()) == prefix)
      return tr_format(lang, label, std::string(source.substr(prefix.size())).c_str());
  return std::string(source);
}

}  // namespace attnviz
