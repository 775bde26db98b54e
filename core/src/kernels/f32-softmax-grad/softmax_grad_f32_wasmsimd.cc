// SIMD128 twins of softmax_grad_f32_scalar.cc. exp_minus_lse uses the softmax's vectorised exp
// (simd128_math.h, ≤ 2 ulp from std::exp); softmax_grad does the scalar twin's float operations in the
// same order (no FMA in SIMD128), so the two agree bit for bit.
#include <cfloat>
#include <limits>

#include "../kernels.h"
#include "../simd128_math.h"

namespace attnlab::kernels {

void exp_minus_lse_f32_wasmsimd(size_t rows, size_t cols, float* s, size_t lds, const float* lse) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t c4 = cols & ~size_t{3};
  const v128_t vbig = wasm_f32x4_splat(FLT_MAX), vzero = wasm_f32x4_splat(0.0f);
  for (size_t i = 0; i < rows; ++i) {
    float* si = s + i * lds;
    if (lse[i] == kNegInf) {
      for (size_t j = 0; j < cols; ++j) si[j] = 0.0f;
      continue;
    }
    const v128_t vl = wasm_f32x4_splat(lse[i]);
    for (size_t j = 0; j < c4; j += 4) {
      // pmin: scores are never NaN (scale_mask reports them first); −∞ stays −∞ and gives 0.
      const v128_t x = wasm_f32x4_sub(wasm_f32x4_pmin(wasm_v128_load(si + j), vbig), vl);
      wasm_v128_store(si + j, simd::exp_nonpositive_f32x4(wasm_f32x4_pmin(x, vzero)));
    }
    for (size_t j = c4; j < cols; ++j) {
      const float x = (si[j] < FLT_MAX ? si[j] : FLT_MAX) - lse[i];
      si[j] = simd::exp_nonpositive_f32(x < 0.0f ? x : 0.0f);
    }
  }
}

void softmax_grad_f32_wasmsimd(size_t rows, size_t cols, const float* p, size_t ldp, float* dp,
                               size_t lddp, const float* delta, float scale) {
  const size_t c4 = cols & ~size_t{3};
  const v128_t vs = wasm_f32x4_splat(scale);
  for (size_t i = 0; i < rows; ++i) {
    const float* pi = p + i * ldp;
    float* di = dp + i * lddp;
    const v128_t vd = wasm_f32x4_splat(delta[i]);
    for (size_t j = 0; j < c4; j += 4) {
      const v128_t g = wasm_f32x4_mul(wasm_v128_load(pi + j), wasm_f32x4_sub(wasm_v128_load(di + j), vd));
      wasm_v128_store(di + j, wasm_f32x4_mul(g, vs));
    }
    for (size_t j = c4; j < cols; ++j) di[j] = (pi[j] * (di[j] - delta[i])) * scale;
  }
}

}  // namespace attnlab::kernels
