// SIMD128 −‖a_i − b_j‖²: four keys j at a time, one per lane, each lane summing over p in the same
// order as the scalar twin, so the two agree bit for bit. (Kernel regression's points have a few
// coordinates, so vectorising across keys, not across p, is also the faster way round.)
#include "../kernels.h"
#include "../simd128.h"

namespace attnlab::kernels {

void neg_sq_dist_nt_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                 const float* b, size_t ldb, float* s, size_t lds) {
  const size_t n4 = n & ~size_t{3};
  for (size_t i = 0; i < m; ++i) {
    const float* ai = a + i * lda;
    float* si = s + i * lds;
    for (size_t j = 0; j < n4; j += 4) {
      const float *b0 = b + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
      v128_t acc = wasm_f32x4_splat(0.0f);
      for (size_t p = 0; p < k; ++p) {
        const v128_t d = wasm_f32x4_sub(wasm_f32x4_splat(ai[p]), wasm_f32x4_make(b0[p], b1[p], b2[p], b3[p]));
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(d, d));
      }
      wasm_v128_store(si + j, wasm_f32x4_neg(acc));
    }
    for (size_t j = n4; j < n; ++j) {
      float acc = 0.0f;
      for (size_t p = 0; p < k; ++p) {
        const float d = ai[p] - b[j * ldb + p];
        acc += d * d;
      }
      si[j] = -acc;
    }
  }
}

}  // namespace attnlab::kernels
