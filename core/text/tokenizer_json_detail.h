// What tokenizer_json.cpp and tokenizer_json_sections.cpp share, and nothing else includes: the
// strict reader's small helpers (every message "tokenizer.json: <where>: <what>") and the readers of
// the four pipeline sections, each filling its part of a PipelineSpec.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "text/pipeline_tokenizer.h"

namespace attnviz::tokenizer_json_detail {

using Json = nlohmann::json;
using Keys = std::initializer_list<std::string_view>;

Error fail(const std::string& where, const std::string& what);
std::string at_index(const std::string& where, const char* key, size_t i);  // "where.key[i]"
// Every key of `obj` must be one of `known`: a key we do not read could change the ids.
Status keys_known(const Json& obj, const std::string& where, Keys known);
Result<std::string> type_of(const Json& obj, const std::string& where);  // obj must be an object with a "type"
Error unsupported_type(const std::string& where, const std::string& type, const char* supported);
// Members of a given kind; absent or null gives the fallback where there is one.
Result<bool> bool_at(const Json& obj, const char* key, bool fallback, const std::string& where);
Result<std::string> string_at(const Json& obj, const char* key, const std::string& where);
Result<int> int_at(const Json& obj, const char* key, int fallback, const std::string& where);  // >= 0
const Json& array_at(const Json& obj, const char* key, bool& ok);  // an empty list and ok = false if not a list

// The sections; `where` is the path to the value read ("normalizer", "pre_tokenizer.pretokenizers[1]").
Status read_normalizer(const Json& j, const std::string& where, std::vector<PipelineNormalize>& out);
Status read_pre_tokenizer(const Json& j, const std::string& where, std::vector<PipelinePreTokenize>& out);
// `framed` says whether a post-processor before this one already added special tokens.
Status read_post_processor(const Json& j, const std::string& where, PipelineSpec& spec, bool& framed);
Status read_decoder(const Json& j, const std::string& where, std::vector<PipelineDecode>& out);

}  // namespace attnviz::tokenizer_json_detail
