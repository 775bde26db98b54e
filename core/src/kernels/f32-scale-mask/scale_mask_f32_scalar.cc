// Scalar reference for the pass between the scores and the softmax: scale, mask, ALiBi. It defines
// what the wasmsimd twin computes, element by element through Mask::bias.
#include <cmath>
#include <cstdint>
#include <limits>

#include "../kernels.h"

namespace attnlab::kernels {

bool scale_mask_f32_scalar(size_t rows, size_t cols, const float* x, size_t ldx, float scale,
                           const Mask& mask, float alibi_slope, size_t i0, size_t j0, size_t t_k,
                           float* y, size_t ldy) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const bool plain = mask.kind == Mask::Kind::none && alibi_slope == 0.0f;
  uint32_t nan = 0;  // branch-free, so the loops stay simple
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    float* yr = y + r * ldy;
    const size_t i = i0 + r;
    if (plain) {  // scale > 0 and finite: x·scale is NaN exactly when x is
      for (size_t c = 0; c < cols; ++c) {
        const float v = xr[c] * scale;
        yr[c] = v;
        nan |= static_cast<uint32_t>(v != v);
      }
      continue;
    }
    for (size_t c = 0; c < cols; ++c) {
      const size_t j = j0 + c;
      nan |= static_cast<uint32_t>(xr[c] != xr[c]);
      const float m = mask.bias(i, j, t_k);
      if (m == kNegInf) {
        yr[c] = kNegInf;
        continue;
      }
      const float dist = std::fabs(static_cast<float>(i) - static_cast<float>(j));
      yr[c] = xr[c] * scale + m - alibi_slope * dist;
      nan |= static_cast<uint32_t>(yr[c] != yr[c]);
    }
  }
  return nan != 0;
}

}  // namespace attnlab::kernels
