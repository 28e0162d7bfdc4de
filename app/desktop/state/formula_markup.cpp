#include "state/formula_markup.h"

#include <algorithm>
#include <cctype>

namespace attnviz {

namespace {

struct Parser {
  std::string_view s;
  size_t i = 0;
  std::string error;

  bool fail(const std::string& what) {
    if (error.empty()) error = what + " at byte " + std::to_string(i) + " of '" + std::string(s) + "'";
    return false;
  }

  // One UTF-8 character as text.
  FormulaNode character() {
    size_t n = 1;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0) n = 4;
    else if (c >= 0xE0) n = 3;
    else if (c >= 0xC0) n = 2;
    n = std::min(n, s.size() - i);
    FormulaNode t{FormulaNode::Kind::text, std::string(s.substr(i, n)), {}};
    i += n;
    return t;
  }

  // {group} or one atom.
  bool argument(FormulaNode& out) {
    if (i >= s.size()) return fail("missing argument");
    if (s[i] == '{') {
      ++i;
      out = row('}');
      if (!error.empty()) return false;
      if (i >= s.size() || s[i] != '}') return fail("unclosed '{'");
      ++i;
      return true;
    }
    if (s[i] == '}' || s[i] == '^' || s[i] == '_') return fail("missing argument");
    return atom(out);
  }

  bool atom(FormulaNode& out) {
    if (s[i] == '\\') {
      size_t j = i + 1;
      while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
      const std::string_view name = s.substr(i + 1, j - i - 1);
      if (name.empty() && j < s.size() && s[j] == ',') {
        i = j + 1;
        out = FormulaNode{FormulaNode::Kind::space, "", {}};
        return true;
      }
      i = j;
      if (name == "frac") {
        FormulaNode num, den;
        if (!argument(num) || !argument(den)) {
          error.clear();
          return fail("\\frac needs {numerator}{denominator}");
        }
        out = FormulaNode{FormulaNode::Kind::frac, "", {std::move(num), std::move(den)}};
        return true;
      }
      if (name == "sqrt") {
        FormulaNode arg;
        if (!argument(arg)) {
          error.clear();
          return fail("\\sqrt needs {radicand}");
        }
        out = FormulaNode{FormulaNode::Kind::sqrt, "", {std::move(arg)}};
        return true;
      }
      if (name == "sum") {
        out = FormulaNode{FormulaNode::Kind::sum, "Σ", {}};
        return true;
      }
      return fail("unknown command '\\" + std::string(name) + "'");
    }
    out = character();
    return true;
  }

  // Atoms, each with its scripts, until `end` or the end of the text.
  FormulaNode row(char end) {
    FormulaNode r{FormulaNode::Kind::row, "", {}};
    while (i < s.size() && s[i] != end && error.empty()) {
      if (s[i] == '}') {
        fail("stray '}'");
        break;
      }
      FormulaNode base;
      if (s[i] == '^' || s[i] == '_') {
        fail("'" + std::string(1, s[i]) + "' with nothing before it");
        break;
      }
      if (!(s[i] == '{' ? argument(base) : atom(base))) break;  // a {group} is one atom
      FormulaNode sub{FormulaNode::Kind::row, "", {}}, sup{FormulaNode::Kind::row, "", {}};
      bool scripted = false;
      while (i < s.size() && (s[i] == '^' || s[i] == '_') && error.empty()) {
        const bool is_sup = s[i] == '^';
        ++i;
        FormulaNode arg;
        if (!argument(arg)) break;
        (is_sup ? sup : sub) = std::move(arg);
        scripted = true;
      }
      if (scripted) r.kids.push_back(FormulaNode{FormulaNode::Kind::script, "", {std::move(base), std::move(sub), std::move(sup)}});
      else r.kids.push_back(std::move(base));
    }
    return r;
  }
};

}  // namespace

bool formula_empty_row(const FormulaNode& n) { return n.kind == FormulaNode::Kind::row && n.kids.empty(); }

Result<FormulaNode> formula_parse(std::string_view markup) {
  Parser p;
  p.s = markup;
  FormulaNode r = p.row('\0');
  if (p.error.empty() && p.i < markup.size()) p.fail("stray '}'");
  if (!p.error.empty()) return make_error("formula: " + p.error);
  return r;
}

std::string formula_plain(const FormulaNode& n) {
  auto group = [](const FormulaNode& k) {
    const std::string t = formula_plain(k);
    return k.kind == FormulaNode::Kind::row && k.kids.size() > 1 ? "(" + t + ")" : t;
  };
  switch (n.kind) {
    case FormulaNode::Kind::text: return n.text;
    case FormulaNode::Kind::space: return " ";
    case FormulaNode::Kind::sum: return "Σ";
    case FormulaNode::Kind::row: {
      std::string out;
      for (const FormulaNode& k : n.kids) out += formula_plain(k);
      return out;
    }
    case FormulaNode::Kind::script: {
      std::string out = formula_plain(n.kids[0]);
      if (!formula_empty_row(n.kids[1])) out += "_" + group(n.kids[1]);
      if (!formula_empty_row(n.kids[2])) out += "^" + group(n.kids[2]);
      return out;
    }
    case FormulaNode::Kind::frac: return group(n.kids[0]) + "/" + group(n.kids[1]);
    case FormulaNode::Kind::sqrt: return "√" + group(n.kids[0]);
  }
  return {};
}

}  // namespace attnviz
