// SIMD128 softmax: vector max, the vectorised exp of simd128_math.h, vector sum and scale.
#include <cmath>
#include <limits>

#include "../kernels.h"
#include "../simd128_math.h"

namespace attnlab::kernels {

using simd::exp_nonpositive_f32;
using simd::exp_nonpositive_f32x4;
using simd::hmax_f32x4;
using simd::hsum_f32x4;

void softmax_rows_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float* y,
                               size_t ldy) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t c4 = cols & ~size_t{3};
  for (size_t i = 0; i < rows; ++i) {
    const float* xi = x + i * ldx;
    float* yi = y + i * ldy;
    v128_t vmax = wasm_f32x4_splat(kNegInf);
    // pmax (not max): NaN-free inputs are validated upstream, and pmax is one instruction on x86.
    for (size_t j = 0; j < c4; j += 4) vmax = wasm_f32x4_pmax(vmax, wasm_v128_load(xi + j));
    float mx = hmax_f32x4(vmax);
    for (size_t j = c4; j < cols; ++j) mx = xi[j] > mx ? xi[j] : mx;
    if (mx == kNegInf) {
      for (size_t j = 0; j < cols; ++j) yi[j] = 0.0f;
      continue;
    }
    if (mx == std::numeric_limits<float>::infinity()) {  // overflowed scores: share among the +inf
      float count = 0.0f;
      for (size_t j = 0; j < cols; ++j) count += xi[j] == mx ? 1.0f : 0.0f;
      for (size_t j = 0; j < cols; ++j) yi[j] = xi[j] == mx ? 1.0f / count : 0.0f;
      continue;
    }
    const v128_t vmx = wasm_f32x4_splat(mx);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < c4; j += 4) {
      const v128_t e = exp_nonpositive_f32x4(wasm_f32x4_sub(wasm_v128_load(xi + j), vmx));
      wasm_v128_store(yi + j, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = hsum_f32x4(vsum);
    for (size_t j = c4; j < cols; ++j) {
      const float e = exp_nonpositive_f32(xi[j] - mx);
      yi[j] = e;
      sum += e;
    }
    const float inv = 1.0f / sum;
    const v128_t vinv = wasm_f32x4_splat(inv);
    for (size_t j = 0; j < c4; j += 4) wasm_v128_store(yi + j, wasm_f32x4_mul(wasm_v128_load(yi + j), vinv));
    for (size_t j = c4; j < cols; ++j) yi[j] *= inv;
  }
}

}  // namespace attnlab::kernels
