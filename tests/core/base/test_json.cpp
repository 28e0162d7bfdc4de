// The strict JSON reader: what it accepts comes back as nlohmann would build it; duplicate keys (at
// any depth), deep nesting, bad UTF-8 and bad syntax are refused with exact one-line messages.
#include <doctest/doctest.h>

#include <string>

#include "base/json.h"
#include "support/check_util.h"

using namespace attnviz;
using attnviz::test::has;

namespace {

// The message of a refused text, or "(accepted)".
std::string error_of(std::string_view text, int max_depth = kJsonMaxDepth) {
  auto r = json_parse_strict(text, "x.json", max_depth);
  return r.ok() ? std::string("(accepted)") : r.error();
}

JsonError parts_of(std::string_view text, int max_depth = kJsonMaxDepth) {
  JsonError e;
  auto r = json_parse_strict(text, "x.json", max_depth, &e);
  REQUIRE_FALSE(r.ok());
  CHECK(e.message == r.error());
  return e;
}

}  // namespace

TEST_CASE("json: a valid document comes back as nlohmann builds it") {
  const std::string text = R"({"name": "caf\u00e9 \"q\" 고양이", "n": -3, "u": 18446744073709551615, "f": 0.25,
    "t": true, "z": null, "list": [1, [2, {"deep": []}], {}], "empty": "", "e": 1e-3})";
  auto j = json_parse_strict(text, "x.json");
  REQUIRE(j.ok());
  CHECK(*j == nlohmann::json::parse(text));
  CHECK(j->dump() == nlohmann::json::parse(text).dump());
  CHECK((*j)["name"] == "caf\xC3\xA9 \"q\" \xEA\xB3\xA0\xEC\x96\x91\xEC\x9D\xB4");
  CHECK((*j)["n"].is_number_integer());
  CHECK((*j)["u"].get<uint64_t>() == 18446744073709551615ull);
  CHECK((*j)["list"][1][1]["deep"].is_array());
  // Any value may be the top; whitespace around it and a byte order mark are fine.
  CHECK(json_parse_strict("  [1, 2]\n", "x.json")->size() == 2);
  CHECK(*json_parse_strict("\"text\"", "x.json") == "text");
  CHECK(*json_parse_strict("\xEF\xBB\xBF{\"a\": 1}", "x.json") == nlohmann::json{{"a", 1}});
  // The same key in different objects is no duplicate.
  CHECK(error_of(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]})") == "(accepted)");
}

TEST_CASE("json: brackets inside strings are text, not nesting") {
  const std::string text = R"({"open": "[[[[{{{{", "escaped": "\"[[[[\\", "close": "]]}}"})";
  auto j = json_parse_strict(text, "x.json", 1);
  REQUIRE(j.ok());
  CHECK((*j)["open"] == "[[[[{{{{");
  CHECK((*j)["escaped"] == "\"[[[[\\");
  CHECK((*j)["close"] == "]]}}");
}

TEST_CASE("json: a duplicate key at the top is refused by name") {
  CHECK(error_of(R"({"a": 1, "b": 2, "a": 3})") == "x.json has duplicate key 'a'");
  const JsonError e = parts_of(R"({"a": 1, "a": 1})");
  CHECK(e.fault == JsonFault::duplicate_key);
  CHECK(e.key == "a");
  CHECK(e.path.empty());
}

TEST_CASE("json: a nested duplicate key is refused with the path to it") {
  CHECK(error_of(R"({"model": {"vocab": {"x": 0, "y": 1, "x": 2}}})") ==
        "x.json has duplicate key 'x' in 'model.vocab'");
  const JsonError e = parts_of(R"({"added_tokens": [{"id": 1}, {"id": 2, "content": "a", "id": 3}]})");
  CHECK(e.message == "x.json has duplicate key 'id' in 'added_tokens[1]'");
  REQUIRE(e.path.size() == 2);
  CHECK(std::get<std::string>(e.path[0]) == "added_tokens");
  CHECK(std::get<size_t>(e.path[1]) == 1);
  CHECK(error_of(R"([[], {"k": 1, "k": 2}])") == "x.json has duplicate key 'k' in '[1]'");
  // The first duplicate is reported, even when the text breaks later on.
  CHECK(error_of(R"({"a": 1, "a": 2, oops)") == "x.json has duplicate key 'a'");
  // A key holding a newline keeps the message on one line.
  CHECK(error_of("{\"a\\nb\": 1, \"a\\nb\": 2}") == "x.json has duplicate key 'a\\x0ab'");
}

TEST_CASE("json: nesting deeper than the limit is refused before parsing") {
  CHECK(error_of("[[[1]]]", 3) == "(accepted)");
  CHECK(error_of("[[[1]]]", 2) == "x.json is nested deeper than 2 levels");
  CHECK(error_of(R"({"a": {"b": [1]}})", 2) == "x.json is nested deeper than 2 levels");
  CHECK(error_of(std::string(64, '[') + std::string(64, ']')) == "(accepted)");
  CHECK(error_of(std::string(65, '[') + std::string(65, ']')) == "x.json is nested deeper than 64 levels");
  // Depth is counted before syntax: a hostile run of openers is refused as deep, cheaply.
  const JsonError e = parts_of(std::string(1'000'000, '{'));
  CHECK(e.fault == JsonFault::too_deep);
  CHECK(e.message == "x.json is nested deeper than 64 levels");
}

TEST_CASE("json: syntax errors are refused without an exception") {
  CHECK(error_of("{") == "x.json is not valid JSON");
  const JsonError e = parts_of(R"({"a": 1,})");
  CHECK(e.fault == JsonFault::syntax);
  CHECK(e.message == "x.json is not valid JSON");
  INFO(e.reason);
  CHECK(e.reason.rfind("parse error at line 1, column 9: syntax error while parsing object key", 0) == 0);
  for (const char* bad : {"", " ", "{} x", "{\"a\" 1}", "[1 2]", "{'a': 1}", "{\"a\": 1 /* note */}", "nul", "01",
                          "1e999", "\"unterminated", "\"tab\there\"", "{\"a\": tru}"}) {
    INFO(bad);
    CHECK_NOTHROW(CHECK(parts_of(bad).fault == JsonFault::syntax));
  }
  // Every cut of a valid document is refused, never thrown.
  const std::string full = R"({"model": {"vocab": {"a": 0, "b": 1}, "merges": ["a b"]}, "x": [1.5, true, null]})";
  for (size_t cut = 0; cut < full.size(); ++cut) CHECK_NOTHROW(CHECK_FALSE(json_parse_strict(full.substr(0, cut), "x").ok()));
}

TEST_CASE("json: bad UTF-8 is refused with the offset of the bad byte") {
  CHECK(error_of("{\"a\xff\": 1}") == "x.json is not valid UTF-8 (bad byte at offset 3)");
  CHECK(error_of("[\"\xC0\xAF\"]") == "x.json is not valid UTF-8 (bad byte at offset 2)");   // overlong '/'
  CHECK(error_of("[\"\xED\xA0\x80\"]") == "x.json is not valid UTF-8 (bad byte at offset 2)");  // a surrogate
  CHECK(error_of("[\"ok\", \"\xE2\x82") == "x.json is not valid UTF-8 (bad byte at offset 8)");   // cut short
  const JsonError e = parts_of("\xff");
  CHECK(e.fault == JsonFault::invalid_utf8);
  CHECK(e.offset == 0);
}

TEST_CASE("json: json_quote keeps a hostile name to one bounded line") {
  CHECK(json_quote("w") == "'w'");
  CHECK(json_quote("a\nb\x7f") == "'a\\x0ab\\x7f'");
  CHECK(json_quote("\xEA\xB3\xA0") == "'\xEA\xB3\xA0'");
  const std::string quoted = json_quote(std::string(1000, 'n'));
  CHECK(quoted == "'" + std::string(200, 'n') + "...'");
  CHECK_FALSE(has(quoted, "\n"));
}

TEST_CASE("json: json_keys_known names the first unknown key and every known one") {
  const auto j = nlohmann::json::parse(R"({"alpha": 1, "gamma": 2, "beta": 3})");
  CHECK(json_keys_known(j, {"alpha", "beta", "gamma"}).ok());
  CHECK(json_keys_known(j, {"alpha", "beta"}).error() == "unknown key 'gamma' (known: alpha, beta)");
  CHECK(json_keys_known(nlohmann::json::array({1, 2}), {"alpha"}).ok());  // not an object: the caller's to refuse
  CHECK(json_keys_known(nlohmann::json::object(), {}).ok());
  CHECK(json_unknown_key("bad\nkey", {"a"}) == "unknown key 'bad\\x0akey' (known: a)");
}
