// A small strict XML reader for the tests that check exported SVGs: elements, attributes, text,
// the five named entities and numeric character references, comments and processing
// instructions. Anything else (a DOCTYPE, an unknown entity, a stray '<' or '&', mismatched or
// unclosed tags, duplicate attributes, invalid UTF-8, a second root) is an error naming the line.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace attnviz {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in document order, decoded
  std::vector<XmlElement> children;
  std::string text;  // the element's own character data (not its children's), decoded

  const std::string* attribute(std::string_view key) const;
};

Result<XmlElement> xml_parse(std::string_view document);

// The element's text with all its descendants' text, in document order.
std::string xml_all_text(const XmlElement& e);

// Every element named `name` in the tree, depth first.
void xml_find_all(const XmlElement& root, std::string_view name, std::vector<const XmlElement*>& out);

}  // namespace attnviz
