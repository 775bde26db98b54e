// Scalar reference for the finiteness scan (argument checks and overflow checks run it on every
// input and result, so it has a SIMD twin).
#include <cmath>
#include <limits>

#include "../kernels.h"

namespace attnlab::kernels {

size_t first_non_finite_f32_scalar(const float* x, size_t n, bool allow_neg_inf) {
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) continue;
    if (allow_neg_inf && x[i] == -std::numeric_limits<float>::infinity()) continue;
    return i;
  }
  return n;
}

}  // namespace attnlab::kernels
