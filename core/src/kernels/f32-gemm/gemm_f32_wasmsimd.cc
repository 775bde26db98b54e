// SIMD128 GEMM kernels. Register-blocked: a 4×8 tile of C lives in eight v128 accumulators while the
// reduction streams one row of B (two vectors) and splats four values of A, so every loaded vector
// feeds four multiply-adds. Leftover rows and columns fall to 1×8, ×4 and scalar tails.
#include "../kernels.h"
#include "../simd128.h"

namespace attnlab::kernels {

namespace {

// C[0:R, 0:8] = A[0:R, :] · B[:, 0:8] (+ bias), R in 1..4.
template <int R>
inline void gemm_nn_tile_rx8(size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                             const float* bias, float* c, size_t ldc) {
  v128_t acc0[R], acc1[R];
  const v128_t init0 = bias ? wasm_v128_load(bias) : wasm_f32x4_splat(0.0f);
  const v128_t init1 = bias ? wasm_v128_load(bias + 4) : wasm_f32x4_splat(0.0f);
  for (int r = 0; r < R; ++r) {
    acc0[r] = init0;
    acc1[r] = init1;
  }
  for (size_t p = 0; p < k; ++p) {
    const v128_t b0 = wasm_v128_load(b + p * ldb);
    const v128_t b1 = wasm_v128_load(b + p * ldb + 4);
    for (int r = 0; r < R; ++r) {
      const v128_t ar = wasm_f32x4_splat(a[r * lda + p]);
      acc0[r] = wasm_f32x4_add(acc0[r], wasm_f32x4_mul(ar, b0));
      acc1[r] = wasm_f32x4_add(acc1[r], wasm_f32x4_mul(ar, b1));
    }
  }
  for (int r = 0; r < R; ++r) {
    wasm_v128_store(c + r * ldc, acc0[r]);
    wasm_v128_store(c + r * ldc + 4, acc1[r]);
  }
}

// C[0:R, 0:4] tile, R in 1..4.
template <int R>
inline void gemm_nn_tile_rx4(size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                             const float* bias, float* c, size_t ldc) {
  v128_t acc[R];
  const v128_t init = bias ? wasm_v128_load(bias) : wasm_f32x4_splat(0.0f);
  for (int r = 0; r < R; ++r) acc[r] = init;
  for (size_t p = 0; p < k; ++p) {
    const v128_t b0 = wasm_v128_load(b + p * ldb);
    for (int r = 0; r < R; ++r)
      acc[r] = wasm_f32x4_add(acc[r], wasm_f32x4_mul(wasm_f32x4_splat(a[r * lda + p]), b0));
  }
  for (int r = 0; r < R; ++r) wasm_v128_store(c + r * ldc, acc[r]);
}

// Leftover columns (n % 4), scalar.
inline void gemm_nn_tail_cols(size_t m, size_t j0, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, const float* bias, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i)
    for (size_t j = j0; j < n; ++j) {
      float acc = bias ? bias[j] : 0.0f;
      for (size_t p = 0; p < k; ++p) acc += a[i * lda + p] * b[p * ldb + j];
      c[i * ldc + j] = acc;
    }
}

template <int R>
inline void gemm_nn_rows(size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                         const float* bias, float* c, size_t ldc) {
  size_t j = 0;
  for (; j + 8 <= n; j += 8)
    gemm_nn_tile_rx8<R>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  for (; j + 4 <= n; j += 4)
    gemm_nn_tile_rx4<R>(k, a, lda, b + j, ldb, bias ? bias + j : nullptr, c + j, ldc);
  if (j < n) gemm_nn_tail_cols(R, j, n, k, a, lda, b, ldb, bias, c, ldc);
}

inline float hsum_f32x4(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

}  // namespace

void gemm_nn_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                          size_t ldb, const float* bias, float* c, size_t ldc) {
  size_t i = 0;
  for (; i + 4 <= m; i += 4) gemm_nn_rows<4>(n, k, a + i * lda, lda, b, ldb, bias, c + i * ldc, ldc);
  switch (m - i) {
    case 3: gemm_nn_rows<3>(n, k, a + i * lda, lda, b, ldb, bias, c + i * ldc, ldc); break;
    case 2: gemm_nn_rows<2>(n, k, a + i * lda, lda, b, ldb, bias, c + i * ldc, ldc); break;
    case 1: gemm_nn_rows<1>(n, k, a + i * lda, lda, b, ldb, bias, c + i * ldc, ldc); break;
    default: break;
  }
}

// C = A · Bᵀ: each C entry is a dot product of a row of A and a row of B. A 2×4 block of dot products
// keeps eight accumulators busy; the four lanes of each are summed once at the end.
void gemm_nt_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                          size_t ldb, float* c, size_t ldc) {
  const size_t k4 = k & ~size_t{3};
  size_t i = 0;
  for (; i < m; i += 2) {
    const size_t rows = (m - i >= 2) ? 2 : 1;
    const float* a0 = a + i * lda;
    const float* a1 = rows == 2 ? a0 + lda : a0;  // duplicate row 0 when m is odd; not stored
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float* b0 = b + j * ldb;
      const float* b1 = b0 + ldb;
      const float* b2 = b1 + ldb;
      const float* b3 = b2 + ldb;
      v128_t s00 = wasm_f32x4_splat(0.f), s01 = s00, s02 = s00, s03 = s00;
      v128_t s10 = s00, s11 = s00, s12 = s00, s13 = s00;
      for (size_t p = 0; p < k4; p += 4) {
        const v128_t x0 = wasm_v128_load(a0 + p), x1 = wasm_v128_load(a1 + p);
        const v128_t y0 = wasm_v128_load(b0 + p), y1 = wasm_v128_load(b1 + p);
        const v128_t y2 = wasm_v128_load(b2 + p), y3 = wasm_v128_load(b3 + p);
        s00 = wasm_f32x4_add(s00, wasm_f32x4_mul(x0, y0));
        s01 = wasm_f32x4_add(s01, wasm_f32x4_mul(x0, y1));
        s02 = wasm_f32x4_add(s02, wasm_f32x4_mul(x0, y2));
        s03 = wasm_f32x4_add(s03, wasm_f32x4_mul(x0, y3));
        s10 = wasm_f32x4_add(s10, wasm_f32x4_mul(x1, y0));
        s11 = wasm_f32x4_add(s11, wasm_f32x4_mul(x1, y1));
        s12 = wasm_f32x4_add(s12, wasm_f32x4_mul(x1, y2));
        s13 = wasm_f32x4_add(s13, wasm_f32x4_mul(x1, y3));
      }
      float r0[4] = {hsum_f32x4(s00), hsum_f32x4(s01), hsum_f32x4(s02), hsum_f32x4(s03)};
      float r1[4] = {hsum_f32x4(s10), hsum_f32x4(s11), hsum_f32x4(s12), hsum_f32x4(s13)};
      for (size_t p = k4; p < k; ++p) {
        const float x0 = a0[p], x1 = a1[p];
        r0[0] += x0 * b0[p]; r0[1] += x0 * b1[p]; r0[2] += x0 * b2[p]; r0[3] += x0 * b3[p];
        r1[0] += x1 * b0[p]; r1[1] += x1 * b1[p]; r1[2] += x1 * b2[p]; r1[3] += x1 * b3[p];
      }
      for (int q = 0; q < 4; ++q) c[i * ldc + j + q] = r0[q];
      if (rows == 2)
        for (int q = 0; q < 4; ++q) c[(i + 1) * ldc + j + q] = r1[q];
    }
    for (; j < n; ++j) {
      const float* bj = b + j * ldb;
      for (size_t r = 0; r < rows; ++r) {
        const float* ar = a0 + r * lda;
        v128_t s = wasm_f32x4_splat(0.f);
        for (size_t p = 0; p < k4; p += 4)
          s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_v128_load(ar + p), wasm_v128_load(bj + p)));
        float acc = hsum_f32x4(s);
        for (size_t p = k4; p < k; ++p) acc += ar[p] * bj[p];
        c[(i + r) * ldc + j] = acc;
      }
    }
  }
}

}  // namespace attnlab::kernels
