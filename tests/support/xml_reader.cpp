// The tests' strict XML reader: a recursive descent over the document, one character at a time,
// with the line number kept for messages. Not a general XML library: no DTDs, no namespaces
// resolution, no CDATA (our SVGs never write them, so meeting one is an error too).
#include "support/xml_reader.h"

#include "base/utf8.h"

namespace attnviz {

namespace {

class XmlParser {
 public:
  explicit XmlParser(std::string_view s) : s_(s) {}

  Result<XmlElement> document() {
    if (!utf8_is_valid(s_)) return fail("the document is not valid UTF-8");
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") advance(3);
    if (Status st = misc(); !st) return make_error(st.error());
    if (peek() != '<') return fail("expected the root element");
    auto root = element();
    if (!root) return root;
    if (Status st = misc(); !st) return make_error(st.error());
    if (pos_ != s_.size()) return fail("content after the root element");
    return root;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;

  Error fail(const std::string& what) const { return make_error("line " + std::to_string(line_) + ": " + what); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  bool starts(std::string_view t) const { return s_.substr(pos_, t.size()) == t; }
  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < s_.size(); ++i, ++pos_)
      if (s_[pos_] == '\n') ++line_;
  }
  static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  void skip_space() {
    while (space(peek())) advance();
  }
  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || static_cast<unsigned char>(c) >= 0x80;
  }
  static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

  Result<std::string> name() {
    if (!name_start(peek())) return fail("expected a name");
    const size_t start = pos_;
    while (name_char(peek())) advance();
    return std::string(s_.substr(start, pos_ - start));
  }

  // Comments, processing instructions and white space between elements.
  Status misc() {
    for (;;) {
      skip_space();
      if (starts("<!--")) {
        const size_t end = s_.find("-->", pos_ + 4);
        if (end == std::string_view::npos) return fail("unclosed comment");
        advance(end + 3 - pos_);
      } else if (starts("<?")) {
        const size_t end = s_.find("?>", pos_ + 2);
        if (end == std::string_view::npos) return fail("unclosed processing instruction");
        advance(end + 2 - pos_);
      } else if (starts("<!")) {
        return fail("DOCTYPE and CDATA are not accepted");
      } else {
        return Ok{};
      }
    }
  }

  // At '&': one reference, appended decoded.
  Status reference(std::string& out) {
    const size_t end = s_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12) return fail("'&' that starts no reference");
    const std::string_view ref = s_.substr(pos_ + 1, end - pos_ - 1);
    if (ref == "amp") out += '&';
    else if (ref == "lt") out += '<';
    else if (ref == "gt") out += '>';
    else if (ref == "quot") out += '"';
    else if (ref == "apos") out += '\'';
    else if (ref.size() > 1 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return fail("empty character reference");
      unsigned cp = 0;
      for (char c : digits) {
        int d = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0 || cp > 0x10FFFF) return fail("bad character reference '&" + std::string(ref) + ";'");
        cp = cp * (hex ? 16 : 10) + static_cast<unsigned>(d);
      }
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return fail("character reference out of range");
      utf8_append(out, static_cast<char32_t>(cp));
    } else {
      return fail("unknown entity '&" + std::string(ref) + ";'");
    }
    advance(end + 1 - pos_);
    return Ok{};
  }

  Result<XmlElement> element() {
    advance();  // '<'
    XmlElement e;
    auto n = name();
    if (!n) return make_error(n.error());
    e.name = *n;
    for (;;) {
      const bool had_space = space(peek());
      skip_space();
      if (starts("/>")) {
        advance(2);
        return e;
      }
      if (peek() == '>') {
        advance();
        break;
      }
      if (!had_space) return fail("expected white space, '>' or '/>' in <" + e.name + ">");
      auto key = name();
      if (!key) return make_error(key.error());
      if (e.attribute(*key)) return fail("duplicate attribute '" + *key + "' in <" + e.name + ">");
      skip_space();
      if (peek() != '=') return fail("expected '=' after attribute '" + *key + "'");
      advance();
      skip_space();
      const char quote = peek();
      if (quote != '"' && quote != '\'') return fail("attribute '" + *key + "' is not quoted");
      advance();
      std::string value;
      while (peek() != quote) {
        if (pos_ >= s_.size()) return fail("unclosed attribute '" + *key + "'");
        if (peek() == '<') return fail("'<' inside attribute '" + *key + "'");
        if (peek() == '&') {
          if (Status st = reference(value); !st) return make_error(st.error());
        } else {
          value += peek();
          advance();
        }
      }
      advance();
      e.attributes.emplace_back(*key, std::move(value));
    }
    // Content up to the matching end tag.
    for (;;) {
      if (pos_ >= s_.size()) return fail("<" + e.name + "> is never closed");
      if (starts("</")) {
        advance(2);
        auto end = name();
        if (!end) return make_error(end.error());
        if (*end != e.name) return fail("</" + *end + "> closes <" + e.name + ">");
        skip_space();
        if (peek() != '>') return fail("expected '>' after </" + *end);
        advance();
        return e;
      }
      if (starts("<!--") || starts("<?") || starts("<!")) {
        if (Status st = misc(); !st) return make_error(st.error());
        continue;
      }
      if (peek() == '<') {
        auto child = element();
        if (!child) return child;
        e.children.push_back(std::move(*child));
      } else if (peek() == '&') {
        if (Status st = reference(e.text); !st) return make_error(st.error());
      } else if (peek() == '>' && pos_ >= 2 && s_.substr(pos_ - 2, 2) == "]]") {
        return fail("']]>' in character data");
      } else {
        e.text += peek();
        advance();
      }
    }
  }
};

}  // namespace

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

Result<XmlElement> xml_parse(std::string_view document) { return XmlParser(document).document(); }

std::string xml_all_text(const XmlElement& e) {
  std::string out = e.text;
  for (const XmlElement& c : e.children) out += xml_all_text(c);
  return out;
}

void xml_find_all(const XmlElement& root, std::string_view name, std::vector<const XmlElement*>& out) {
  if (root.name == name) out.push_back(&root);
  for (const XmlElement& c : root.children) xml_find_all(c, name, out);
}

}  // namespace attnviz
