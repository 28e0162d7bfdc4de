// The translation model's file: one safetensors holding its three models — the encoder
// ("encoder."), the decoder's self-attention parts ("decoder_self.", attention-only layers) and the
// rest of the decoder ("decoder.": cross-attention with the FFN, tables, output) —, each written by
// model_to_tensors with its metadata keys under the same prefix, and the architecture as
// "attnviz.translate" JSON. Reading checks that the three agree with the architecture; a tensor or a
// key under no known prefix is an error that names it.
#pragma once
#include <string>

#include "demos/translate_model.h"
#include "io/safetensors.h"

namespace attnviz {

inline constexpr const char* kTranslateKey = "attnviz.translate";

TensorFile translate_to_tensors(const TranslateModel& model);
Result<TranslateModel> translate_from_tensors(const TensorFile& file);
Status translate_save(const std::string& path, const TranslateModel& model);
Result<TranslateModel> translate_load(const std::string& path);

}  // namespace attnviz
