// The two ends of the Transformer, with tied weights (Press & Wolf):
//   embedding:    e_i = one-hot(i)ᵀ·W_E = W_E[i, :]                    (a row lookup)
//   output head:  logits = h·W_Eᵀ (+ b),  probs = softmax(logits / temperature)
#include <cmath>
#include <cstring>
#include <string>

#include "../kernels/dispatch.h"
#include "blocks_detail.h"
#include "check.h"

namespace attnlab {

Status embedding_forward(const float* table, size_t vocab, size_t d_model, const int* ids, size_t n,
                         float* out) {
  constexpr const char* op = "embedding";
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  ATTNLAB_CHECK(detail::check_positive(op, "ids.length", n));
  ATTNLAB_CHECK(detail::check_not_null(op, "ids", ids));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", out));
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab)
      return Status::Fail(std::string(op) + ": ids[" + std::to_string(i) + "] is " + std::to_string(ids[i]) +
                          ", expected an integer in [0, vocab = " + std::to_string(vocab) + ")");
  ATTNLAB_CHECK(detail::check_param(op, "table", table, vocab * d_model, true));
  for (size_t i = 0; i < n; ++i)
    std::memcpy(out + i * d_model, table + static_cast<size_t>(ids[i]) * d_model, d_model * sizeof(float));
  return Status::Ok();
}

Status output_head_forward(const float* h, size_t rows, const float* table, size_t vocab,
                           size_t d_model, const float* bias, float temperature, float* logits,
                           float* probs) {
  constexpr const char* op = "outputHead";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  if (!(std::isfinite(temperature) && temperature > 0.0f))
    return Status::Fail(std::string(op) + ": temperature is " + detail::value_str(temperature) +
                        ", expected a finite number > 0");
  ATTNLAB_CHECK(detail::check_param(op, "h", h, rows * d_model, true));
  ATTNLAB_CHECK(detail::check_param(op, "table", table, vocab * d_model, true));
  ATTNLAB_CHECK(detail::check_param(op, "bias", bias, vocab, false));
  if (!logits || !probs) return Status::Fail(std::string(op) + ": an output buffer is missing");
  // logits [rows, vocab] = h [rows, D] · W_Eᵀ: the table [vocab, D] is already the "nt" layout.
  kernels::gemm_nt_f32(rows, vocab, d_model, h, d_model, table, d_model, logits, vocab);
  if (bias)
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < vocab; ++j) logits[r * vocab + j] += bias[j];
  // Logits from finite inputs can still overflow float32 (NaN from +∞ and −∞ terms).
  ATTNLAB_CHECK(detail::check_no_overflow(op, "logits", logits, rows * vocab,
                                          "h·tableᵀ within float32 range (|h|·|table row| < 3.4e38)"));
  // softmax((l − max)/T): subtracting the row max before dividing keeps the largest entry at 0 for
  // any temperature, so a tiny T gives the argmax one-hot, never a row of −∞ (zeros) or 0·∞ = NaN.
  for (size_t r = 0; r < rows; ++r) {
    const float* lr = logits + r * vocab;
    float mx = lr[0];
    for (size_t j = 1; j < vocab; ++j) mx = lr[j] > mx ? lr[j] : mx;
    for (size_t j = 0; j < vocab; ++j) probs[r * vocab + j] = (lr[j] - mx) / temperature;
  }
  kernels::softmax_rows_f32(rows, vocab, probs, vocab, probs, vocab);
  return Status::Ok();
}

}  // namespace attnlab
