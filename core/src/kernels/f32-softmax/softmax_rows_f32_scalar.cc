// Scalar reference softmax: max subtraction keeps exp() in range for logits up to ±1e30 (and the
// difference of two such logits stays finite unless one is infinite, handled explicitly).
#include <cmath>
#include <limits>

#include "../kernels.h"

namespace attnlab::kernels {

void softmax_rows_f32_scalar(size_t rows, size_t cols, const float* x, size_t ldx, float* y,
                             size_t ldy) {
  for (size_t i = 0; i < rows; ++i) {
    const float* xi = x + i * ldx;
    float* yi = y + i * ldy;
    float mx = -std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < cols; ++j) mx = xi[j] > mx ? xi[j] : mx;
    if (mx == -std::numeric_limits<float>::infinity()) {  // every key masked: attend to nothing
      for (size_t j = 0; j < cols; ++j) yi[j] = 0.0f;
      continue;
    }
    if (mx == std::numeric_limits<float>::infinity()) {  // overflowed scores: share among the +inf
      float count = 0.0f;
      for (size_t j = 0; j < cols; ++j) count += xi[j] == mx ? 1.0f : 0.0f;
      for (size_t j = 0; j < cols; ++j) yi[j] = xi[j] == mx ? 1.0f / count : 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (size_t j = 0; j < cols; ++j) {
      const float e = std::exp(xi[j] - mx);  // exp(−inf) = 0 exactly
      yi[j] = e;
      sum += e;
    }
    const float inv = 1.0f / sum;  // sum ≥ 1: the max entry contributes exp(0)
    for (size_t j = 0; j < cols; ++j) yi[j] *= inv;
  }
}

}  // namespace attnlab::kernels
