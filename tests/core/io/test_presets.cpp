// The shipped presets file parses and still holds the examples people look for (the Winograd animal
// pair, the law sentence, Korean, a long text, a cross-attention pair) and the sets measured together
// (the coreference demo's kind of sentence in minimal pairs, indirect objects); bad files are refused.
#include <doctest/doctest.h>

#include <algorithm>

#include "demos/coref_data.h"
#include "io/presets.h"
#include "text/word_tokenizer.h"

using namespace attnviz;

TEST_CASE("presets: the shipped file has the animal pair, the law sentence, Korean, a long text and a cross pair") {
  auto p = presets_load(std::string(ATTNVIZ_FIXTURES) + "/../../assets/presets.json");
  REQUIRE_MESSAGE(p.ok(), p.error());
  auto find = [&](const std::string& id) -> const Preset* {
    for (const Preset& x : p->presets)
      if (x.id == id) return &x;
    return nullptr;
  };
  REQUIRE(find("animal_tired"));
  CHECK(find("animal_tired")->text == "The animal didn't cross the street because it was too tired.");
  REQUIRE(find("animal_wide"));
  CHECK(find("animal_wide")->text.find("wide.") != std::string::npos);
  REQUIRE(find("law"));
  REQUIRE(find("korean"));
  REQUIRE(find("cross"));
  CHECK_FALSE(find("cross")->source.empty());
  REQUIRE(find("long"));
  auto tokens = tokenize_words(find("long")->text);
  REQUIRE(tokens.ok());
  CHECK(tokens->size() >= 200);
  CHECK(tokens->size() <= 400);
}

TEST_CASE("presets: malformed files are refused with a message") {
  CHECK_FALSE(presets_parse("[]").ok());
  CHECK_FALSE(presets_parse("{\"presets\": 3}").ok());
  auto r = presets_parse("{\"presets\": [{\"id\": \"x\", \"name_en\": \"X\", \"text\": \"hi\"}]}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("entry 0") != std::string::npos);
  CHECK(presets_parse("{\"presets\": []}")->presets.empty());
  CHECK(presets_parse("{\"presets\": [], \"presets\": []}").error() == "presets: the file has duplicate key 'presets'");
  CHECK(presets_parse("{\"presets\": [").error() == "presets: the file is not valid JSON");
}

TEST_CASE("presets: an unknown key or another format is an error naming it") {
  CHECK(presets_parse(R"({"format": "attnviz.presets/1", "presets": [], "preset": []})").error() ==
        "presets: unknown key 'preset' (known: format, presets, sets)");
  CHECK(presets_parse(R"({"presets": [{"id": "x", "name_en": "X", "name_ko": "X", "txt": "hi"}]})").error() ==
        "presets: entry 0: unknown key 'txt' (known: id, name_en, name_ko, text, source, model)");
  CHECK(presets_parse(R"({"format": "attnviz.presets/2", "presets": []})").error() ==
        "presets: 'format' must be 'attnviz.presets/1'");
  CHECK(presets_parse(R"({"format": "attnviz.presets/1", "presets": []})").ok());
}

TEST_CASE("preset sets: the coreference demo's kind of sentence in minimal pairs, and indirect objects for language models") {
  auto p = presets_load(std::string(ATTNVIZ_FIXTURES) + "/../../assets/presets.json");
  REQUIRE_MESSAGE(p.ok(), p.error());
  REQUIRE(p->sets.size() == 3);
  const PresetSet& kind = p->sets[0];
  CHECK(kind.id == "coref_kind");
  CHECK(kind.model == "demo:coref");
  REQUIRE(kind.sentences.size() == 20);
  CHECK(kind.sentences[0] == "The animal didn't cross the street because it was too tired.");
  // Every sentence of the coreference sets is one the demo's grammar decides, and its minimal pair is in the set too.
  for (size_t k = 0; k < 2; ++k)
    for (const std::string& text : p->sets[k].sentences) {
      const CorefExample e = coref_make(text);
      CHECK_MESSAGE(e.referent >= 0, text);
      const std::string pair = coref_minimal_pair(e);
      CHECK_MESSAGE(std::find(p->sets[k].sentences.begin(), p->sets[k].sentences.end(), pair) != p->sets[k].sentences.end(), text);
    }
  CHECK(p->sets[1].id == "trophy");
  CHECK(p->sets[2].id == "ioi");
  CHECK(p->sets[2].model.empty());  // any language model
  CHECK(p->sets[2].sentences.size() == 9);
}

TEST_CASE("preset sets: a set without sentences, an unknown key or a model that is not a demo is refused, naming it") {
  CHECK(presets_parse(R"({"presets": [], "sets": [{"id": "s", "name_en": "S", "name_ko": "S", "sentences": []}]})").error() ==
        "presets: set 0 (s) needs a non-empty 'sentences' list");
  CHECK(presets_parse(R"({"presets": [], "sets": [{"id": "s", "name_en": "S", "name_ko": "S", "sentences": ["a", ""]}]})").error() ==
        "presets: set 0 (s): sentence 2 is not a non-empty string");
  CHECK(presets_parse(R"({"presets": [], "sets": [{"id": "s", "name_en": "S", "name_ko": "S", "text": "a"}]})").error() ==
        "presets: set 0: unknown key 'text' (known: id, name_en, name_ko, model, sentences)");
  CHECK(presets_parse(R"({"presets": [], "sets": [{"id": "s", "name_en": "S", "name_ko": "S", "model": "gpt2", "sentences": ["a"]}]})").error() ==
        "presets: set 0: model must name a shipped demo (demo:...)");
  CHECK(presets_parse(R"({"presets": [], "sets": {}})").error() == "presets: 'sets' must be a list");
  auto ok = presets_parse(R"({"presets": [], "sets": [{"id": "s", "name_en": "S", "name_ko": "에스", "sentences": ["one", "two"]}]})");
  REQUIRE(ok.ok());
  CHECK(ok->sets[0].name_ko == "에스");
  CHECK(ok->sets[0].sentences[1] == "two");
}
