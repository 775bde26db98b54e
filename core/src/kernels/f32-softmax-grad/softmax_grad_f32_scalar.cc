// Scalar references for the streaming attention's backward tiles (FlashAttention-2 style): the
// probabilities recomputed from the saved log-sum-exp, and the softmax gradient. They define what the
// wasmsimd twins compute.
#include <cfloat>
#include <cmath>
#include <limits>

#include "../kernels.h"

namespace attnlab::kernels {

void exp_minus_lse_f32_scalar(size_t rows, size_t cols, float* s, size_t lds, const float* lse) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < rows; ++i) {
    float* si = s + i * lds;
    if (lse[i] == kNegInf) {  // a query that saw no key: zero probabilities (not exp(−∞ + ∞) = NaN)
      for (size_t j = 0; j < cols; ++j) si[j] = 0.0f;
      continue;
    }
    for (size_t j = 0; j < cols; ++j) {
      // As the online softmax: an overflowed +∞ score is the largest float. s ≤ lse up to the rounding
      // of lse = m + log l, so the argument is clamped to 0 (p ≤ 1).
      const float x = std::fmin(si[j], FLT_MAX) - lse[i];
      si[j] = std::exp(std::fmin(x, 0.0f));
    }
  }
}

void softmax_grad_f32_scalar(size_t rows, size_t cols, const float* p, size_t ldp, float* dp,
                             size_t lddp, const float* delta, float scale) {
  for (size_t i = 0; i < rows; ++i) {
    const float* pi = p + i * ldp;
    float* di = dp + i * lddp;
    for (size_t j = 0; j < cols; ++j) di[j] = (pi[j] * (di[j] - delta[i])) * scale;
  }
}

}  // namespace attnlab::kernels
