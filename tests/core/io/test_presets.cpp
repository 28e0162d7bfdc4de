// The shipped presets file parses and still holds the examples people look for (the Winograd animal
// pair, the law sentence, Korean, a long text, a cross-attention pair); bad files are refused.
#include <doctest/doctest.h>

#include "io/presets.h"
#include "text/word_tokenizer.h"

using namespace attnviz;

TEST_CASE("presets: the shipped file has the animal pair, the law sentence, Korean, a long text and a cross pair") {
  auto p = presets_load(std::string(ATTNVIZ_FIXTURES) + "/../../assets/presets.json");
  REQUIRE_MESSAGE(p.ok(), p.error());
  auto find = [&](const std::string& id) -> const Preset* {
    for (const Preset& x : *p)
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
  CHECK(presets_parse("{\"presets\": []}")->empty());
  CHECK(presets_parse("{\"presets\": [], \"presets\": []}").error() == "presets: the file has duplicate key 'presets'");
  CHECK(presets_parse("{\"presets\": [").error() == "presets: the file is not valid JSON");
}

TEST_CASE("presets: an unknown key or another format is an error naming it") {
  CHECK(presets_parse(R"({"format": "attnviz.presets/1", "presets": [], "preset": []})").error() ==
        "presets: unknown key 'preset' (known: format, presets)");
  CHECK(presets_parse(R"({"presets": [{"id": "x", "name_en": "X", "name_ko": "X", "txt": "hi"}]})").error() ==
        "presets: entry 0: unknown key 'txt' (known: id, name_en, name_ko, text, source, model)");
  CHECK(presets_parse(R"({"format": "attnviz.presets/2", "presets": []})").error() ==
        "presets: 'format' must be 'attnviz.presets/1'");
  CHECK(presets_parse(R"({"format": "attnviz.presets/1", "presets": []})").ok());
}
