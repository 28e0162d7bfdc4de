// The strict reader: a byte pass for UTF-8 and one for bracket depth, then nlohmann's SAX parser
// feeding a document builder that refuses a key its object already has. SAX reports syntax errors
// through a callback rather than an exception, so nothing needs catching on the normal path.
#include "base/json.h"

#include <algorithm>

#include "base/utf8.h"

namespace attnviz {

namespace {

using Json = nlohmann::json;

// True when no array or object nests deeper than `limit` (brackets inside strings do not count).
// Malformed text is left for the parser to reject.
bool nesting_within(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// nlohmann's message without its "[json.exception.parse_error.101] " id, which means nothing to a reader.
std::string reason_of(const Json::exception& ex) {
  std::string out = ex.what();
  if (const size_t cut = out.find("] "); cut != std::string::npos) out.erase(0, cut + 2);
  return out;
}

// Builds the document as nlohmann's own DOM parser does, but stops at a duplicate key (where
// nlohmann would overwrite) and keeps the path to it. Stopping is returning false.
class StrictBuilder final : public Json::json_sax_t {
 public:
  Json root;
  bool duplicate = false;  // stopped at a duplicate key: duplicate_path and duplicate_key say where
  std::vector<JsonStep> duplicate_path;
  std::string duplicate_key;
  std::string reason;  // set when the parser reported a syntax error

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t&) override { return put(v); }
  bool string(string_t& v) override { return put(std::move(v)); }
  bool binary(binary_t& v) override { return put(Json::binary(std::move(v))); }  // not in JSON text
  bool start_object(std::size_t) override { return open(Json::object()); }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    Open& top = open_.back();
    if (!top.value->contains(k)) {
      top.key = std::move(k);
      return true;
    }
    duplicate = true;
    duplicate_key = std::move(k);
    for (size_t i = 0; i + 1 < open_.size(); ++i) {
      const Open& o = open_[i];
      if (o.value->is_array()) duplicate_path.emplace_back(o.value->size() - 1);  // the child is the last element
      else duplicate_path.emplace_back(o.key);
    }
    return false;
  }

  bool parse_error(std::size_t, const std::string&, const Json::exception& ex) override {
    reason = reason_of(ex);
    return false;
  }

 private:
  struct Open {
    Json* value;      // an array or object still being filled
    std::string key;  // in an object: the member whose value comes next
  };
  std::vector<Open> open_;  // outermost first

  // Values live in their parent from the start, so an open container's address stays valid: its
  // parent is not touched again until the container closes.
  Json* place(Json&& v) {
    if (open_.empty()) {
      root = std::move(v);
      return &root;
    }
    Open& top = open_.back();
    if (top.value->is_array()) {
      top.value->push_back(std::move(v));
      return &top.value->back();
    }
    return &((*top.value)[top.key] = std::move(v));
  }
  bool put(Json v) {
    place(std::move(v));
    return true;
  }
  bool open(Json v) {
    open_.push_back({place(std::move(v)), {}});
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }
};

// 'model.added_tokens[3]': keys joined by dots, indexes in brackets.
std::string path_text(const std::vector<JsonStep>& path) {
  std::string out;
  for (const JsonStep& step : path) {
    if (const auto* k = std::get_if<std::string>(&step)) out += (out.empty() ? "" : ".") + *k;
    else out += "[" + std::to_string(std::get<size_t>(step)) + "]";
  }
  return json_quote(out);
}

}  // namespace

Result<Json> json_parse_strict(std::string_view text, std::string_view what, int max_depth, JsonError* error) {
  JsonError e;
  const std::string name(what);
  if (const size_t bad = utf8_invalid_at(text); bad != std::string_view::npos) {
    e.fault = JsonFault::invalid_utf8;
    e.offset = bad;
    e.message = name + " is not valid UTF-8 (bad byte at offset " + std::to_string(bad) + ")";
  } else if (!nesting_within(text, max_depth)) {
    e.fault = JsonFault::too_deep;
    e.message = name + " is nested deeper than " + std::to_string(max_depth) + " levels";
  } else {
    StrictBuilder b;
    bool parsed = false;
    try {
      parsed = Json::sax_parse(text.begin(), text.end(), &b, Json::input_format_t::json, /*strict=*/true,
                               /*ignore_comments=*/false);
    } catch (const Json::exception& ex) {  // SAX reports through parse_error; this is only a backstop
      b.reason = reason_of(ex);
    }
    if (parsed) return std::move(b.root);
    if (b.duplicate) {
      e.fault = JsonFault::duplicate_key;
      e.path = std::move(b.duplicate_path);
      e.key = std::move(b.duplicate_key);
      e.message = name + " has duplicate key " + json_quote(e.key) + (e.path.empty() ? "" : " in " + path_text(e.path));
    } else {
      e.fault = JsonFault::syntax;
      e.reason = std::move(b.reason);
      e.message = name + " is not valid JSON";
    }
  }
  Error out = make_error(e.message);
  if (error) *error = std::move(e);
  return out;
}

std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 200; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > 200) out += "...";
  return out + "'";
}

std::string json_unknown_key(std::string_view key, JsonKeys known) {
  std::string list;
  for (const std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  return "unknown key " + json_quote(key) + " (known: " + list + ")";
}

Status json_keys_known(const nlohmann::json& obj, JsonKeys known) {
  if (!obj.is_object()) return Ok{};
  for (const auto& item : obj.items())
    if (std::find(known.begin(), known.end(), item.key()) == known.end())
      return make_error(json_unknown_key(item.key(), known));
  return Ok{};
}

}  // namespace attnviz
