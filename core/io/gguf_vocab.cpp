// A GGUF file's token table or output head kept in its encoding (model/vocab_table.h): rows decoded
// from the mapped file when read, as TensorTaker::run decodes them at opening, over both cores.
#include <cmath>

#include "io/gguf_detail.h"

namespace attnviz::gguf {

namespace {

class GgufRows final : public EncodedRows {
 public:
  GgufRows(std::shared_ptr<const GgufMapped> file, const GgufTensorInfo& tensor, int64_t rows, int64_t cols)
      : file_(std::move(file)), tensor_(tensor), rows_(rows), cols_(cols) {
    const GgmlTypeInfo* info = ggml_type_info(static_cast<uint32_t>(tensor.type));
    row_bytes_ = cols / info->block_values * info->block_bytes;
  }
  int64_t rows() const override { return rows_; }
  int64_t cols() const override { return cols_; }
  const std::string& name() const override { return tensor_.name; }

  Status decode(int64_t first, int64_t n, float* out) const override {
    if (first < 0 || n < 0 || first + n > rows_) return make_error("rows outside tensor '" + tensor_.name + "'");
    const uint8_t* bytes = file_->tensor_bytes(tensor_).data();
    int64_t bad = -1;  // the first row holding a value that is not finite
#pragma omp parallel for schedule(static) if (n >= 64)
    for (int64_t r = 0; r < n; ++r) {
      float* dst = out + r * cols_;
      ggml_dequantize(tensor_.type, bytes + (first + r) * row_bytes_, dst, cols_);
      for (int64_t c = 0; c < cols_; ++c)
        if (!std::isfinite(dst[c])) {
#pragma omp critical(gguf_rows_bad)
          if (bad < 0 || first + r < bad) bad = first + r;
          break;
        }
    }
    if (bad >= 0) return make_error("tensor '" + tensor_.name + "' row " + std::to_string(bad) + " contains NaN or infinite values");
    return Ok{};
  }

 private:
  std::shared_ptr<const GgufMapped> file_;
  GgufTensorInfo tensor_;
  int64_t rows_, cols_, row_bytes_ = 0;
};

}  // namespace

std::shared_ptr<const EncodedRows> encoded_rows_make(std::shared_ptr<const GgufMapped> file, const GgufTensorInfo& tensor,
                                                     int64_t rows, int64_t cols) {
  return std::make_shared<const GgufRows>(std::move(file), tensor, rows, cols);
}

}  // namespace attnviz::gguf
