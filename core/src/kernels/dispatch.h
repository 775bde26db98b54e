// dispatch.h — picks each kernel's implementation once, at compile time.
// ATTNLAB_HAVE_SIMD128 is set by CMake when the wasmsimd kernels are compiled: in the WebAssembly build
// (-msimd128) and in native builds that map wasm_simd128.h onto SSE through SIMDe.
#pragma once

#include "kernels.h"

namespace attnlab::kernels {

#if defined(ATTNLAB_HAVE_SIMD128)
inline constexpr bool kUsesSimd128 = true;
#define ATTNLAB_KERNEL(name) name##_wasmsimd
#else
inline constexpr bool kUsesSimd128 = false;
#define ATTNLAB_KERNEL(name) name##_scalar
#endif

inline void gemm_nn_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, const float* bias, float* c, size_t ldc) {
  ATTNLAB_KERNEL(gemm_nn_f32)(m, n, k, a, lda, b, ldb, bias, c, ldc);
}
inline void gemm_nn_acc_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  ATTNLAB_KERNEL(gemm_nn_acc_f32)(m, n, k, a, lda, b, ldb, c, ldc);
}
inline void gemv_nn3_f32(size_t n, size_t k, const float* x, const float* const b[3], size_t ldb,
                         const float* const bias[3], float* const y[3]) {
  ATTNLAB_KERNEL(gemv_nn3_f32)(n, k, x, b, ldb, bias, y);
}
inline void gemm_nt_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, float* c, size_t ldc) {
  ATTNLAB_KERNEL(gemm_nt_f32)(m, n, k, a, lda, b, ldb, c, ldc);
}
inline void gemm_nt_acc_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  ATTNLAB_KERNEL(gemm_nt_acc_f32)(m, n, k, a, lda, b, ldb, c, ldc);
}
inline void gemm_tn_acc_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  ATTNLAB_KERNEL(gemm_tn_acc_f32)(m, n, k, a, lda, b, ldb, c, ldc);
}
inline void pack_b_nt_f32(size_t n, size_t k, const float* b, size_t ldb, float* bp) {
  ATTNLAB_KERNEL(pack_b_nt_f32)(n, k, b, ldb, bp);
}
inline void pack_b_nn_f32(size_t k, size_t n, const float* b, size_t ldb, float* bp) {
  ATTNLAB_KERNEL(pack_b_nn_f32)(k, n, b, ldb, bp);
}
inline void gemm_prepacked_f32(size_t m, size_t n, size_t k, const float* a, size_t lda,
                               const float* bp, size_t strip_stride, bool accumulate, float* c,
                               size_t ldc) {
  ATTNLAB_KERNEL(gemm_prepacked_f32)(m, n, k, a, lda, bp, strip_stride, accumulate, c, ldc);
}
inline void softmax_rows_f32(size_t rows, size_t cols, const float* x, size_t ldx, float* y,
                             size_t ldy) {
  ATTNLAB_KERNEL(softmax_rows_f32)(rows, cols, x, ldx, y, ldy);
}
inline void online_softmax_block_f32(size_t rows, size_t cols, float scale, float* s, size_t lds,
                                     float* m, float* l, float* o, size_t ldo, size_t d) {
  ATTNLAB_KERNEL(online_softmax_block_f32)(rows, cols, scale, s, lds, m, l, o, ldo, d);
}

inline void exp_minus_lse_f32(size_t rows, size_t cols, float* s, size_t lds, const float* lse) {
  ATTNLAB_KERNEL(exp_minus_lse_f32)(rows, cols, s, lds, lse);
}
inline void softmax_grad_f32(size_t rows, size_t cols, const float* p, size_t ldp, float* dp,
                             size_t lddp, const float* delta, float scale) {
  ATTNLAB_KERNEL(softmax_grad_f32)(rows, cols, p, ldp, dp, lddp, delta, scale);
}

inline bool scale_mask_f32(size_t rows, size_t cols, const float* x, size_t ldx, float scale,
                           const Mask& mask, float alibi_slope, size_t i0, size_t j0, size_t t_k,
                           float* y, size_t ldy) {
  return ATTNLAB_KERNEL(scale_mask_f32)(rows, cols, x, ldx, scale, mask, alibi_slope, i0, j0, t_k, y, ldy);
}
inline void neg_sq_dist_nt_f32(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                               size_t ldb, float* s, size_t lds) {
  ATTNLAB_KERNEL(neg_sq_dist_nt_f32)(m, n, k, a, lda, b, ldb, s, lds);
}

inline void column_max_abs_f32(size_t rows, size_t cols, const float* x, size_t ldx, float* colmax) {
  ATTNLAB_KERNEL(column_max_abs_f32)(rows, cols, x, ldx, colmax);
}

inline size_t first_non_finite_f32(const float* x, size_t n, bool allow_neg_inf) {
  return ATTNLAB_KERNEL(first_non_finite_f32)(x, n, allow_neg_inf);
}

#undef ATTNLAB_KERNEL

}  // namespace attnlab::kernels
