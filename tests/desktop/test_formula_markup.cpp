// The formula markup the Step by step view typesets: scripts, fractions, radicals and Σ parse into
// the tree the drawing lays out, the plain text reads back, and bad markup is an error naming it.
#include <doctest/doctest.h>

#include "state/formula_markup.h"
#include "support/check_util.h"

using namespace attnviz;
using namespace attnviz::test;
using Kind = FormulaNode::Kind;

TEST_CASE("formula markup: the seeds' attention formula") {
  auto f = formula_parse("Attention(Q,K,V) = softmax(\\frac{QK^T}{\\sqrt{d_k}})V");
  REQUIRE_MESSAGE(f.ok(), f.error());
  CHECK(formula_plain(*f) == "Attention(Q,K,V) = softmax((QK^T)/√d_k)V");
  // The fraction is one node with its numerator and a radical as denominator.
  const FormulaNode* frac = nullptr;
  for (const FormulaNode& k : f->kids)
    if (k.kind == Kind::frac) frac = &k;
  REQUIRE(frac);
  REQUIRE(frac->kids.size() == 2);
  CHECK(formula_plain(frac->kids[0]) == "QK^T");
  REQUIRE(frac->kids[1].kids.size() == 1);
  CHECK(frac->kids[1].kids[0].kind == Kind::sqrt);
  CHECK(formula_plain(frac->kids[1].kids[0].kids[0]) == "d_k");
}

TEST_CASE("formula markup: a symbol with a superscript and a subscript, groups, UTF-8, Σ") {
  auto w = formula_parse("W^Q_i");
  REQUIRE(w.ok());
  REQUIRE(w->kids.size() == 1);
  const FormulaNode& s = w->kids[0];
  CHECK(s.kind == Kind::script);
  CHECK(s.kids[0].text == "W");
  CHECK(formula_plain(s.kids[1]) == "i");
  CHECK(formula_plain(s.kids[2]) == "Q");
  CHECK(formula_plain(*formula_parse("d_{model}")) == "d_(model)");
  CHECK(formula_plain(*formula_parse("head_i = \\sum_j w_{ij}v_j")) == "head_i = Σ_j w_(ij)v_j");
  auto u = formula_parse("x_→");  // a script takes one whole UTF-8 character
  REQUIRE(u.ok());
  CHECK(formula_plain(u->kids[0].kids[1]) == "→");
  CHECK(formula_plain(*formula_parse("a\\,b")) == "a b");
}

TEST_CASE("formula markup: bad markup is an error that names the problem") {
  for (const auto& [markup, message] : std::vector<std::pair<const char*, const char*>>{
           {"\\frac{a}", "\\frac needs {numerator}{denominator}"},
           {"{a", "unclosed '{'"},
           {"a}", "stray '}'"},
           {"x^", "missing argument"},
           {"^2", "with nothing before it"},
           {"\\root{2}", "unknown command '\\root'"},
           {"\\sqrt", "\\sqrt needs {radicand}"}}) {
    auto f = formula_parse(markup);
    REQUIRE_FALSE(f.ok());
    const std::string what = std::string(markup) + " -> " + f.error();
    CHECK_MESSAGE(has(f.error(), message), what);
    CHECK(has(f.error(), "formula: "));
  }
}
