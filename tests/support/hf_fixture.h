// The tiny Hugging Face checkpoints of tests/fixtures/hf (make_hf_checkpoints.py): opening one,
// reading its reference cases (text, ids, pieces, segments). max_abs_diff is in fixture_util.h.
#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/model_open.h"
#include "support/fixture_util.h"

namespace attnviz::test {

struct RefCase {
  std::string name, text, text_b;
  std::vector<int> ids, segments;
  std::vector<std::string> pieces;
};

inline std::vector<RefCase> ref_cases(const std::string& folder) {
  std::ifstream in(fixture_path("hf/" + folder + "/reference.json"));
  const auto j = nlohmann::json::parse(in);
  std::vector<RefCase> out;
  for (const auto& c : j["cases"])
    out.push_back(RefCase{c["name"], c["text"], c.value("text_b", ""), c["ids"], c["token_type_ids"], c["pieces"]});
  return out;
}

inline Model open_fixture(const std::string& folder) {
  auto m = model_open(fixture_path("hf/" + folder));
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

}  // namespace attnviz::test
