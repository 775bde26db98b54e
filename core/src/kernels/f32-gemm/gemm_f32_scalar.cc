// Scalar references for the GEMM kernels: the plain triple loop, written for clarity.
// They define what the wasmsimd twins must compute.
#include "../kernels.h"

namespace attnlab::kernels {

void gemm_nn_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, const float* bias, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    for (size_t j = 0; j < n; ++j) ci[j] = bias ? bias[j] : 0.0f;
    // i-p-j order: streams rows of B, the cache-friendly order for row-major B.
    for (size_t p = 0; p < k; ++p) {
      const float aip = a[i * lda + p];
      const float* bp = b + p * ldb;
      for (size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

void gemm_nn_acc_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    for (size_t p = 0; p < k; ++p) {
      const float aip = a[i * lda + p];
      const float* bp = b + p * ldb;
      for (size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

// C (=|+=) A·Bᵀ: each entry a dot product of a row of A and a row of B, summed in p order, then
// stored or added (the "acc" twin adds the finished sum).
namespace {
template <bool kAccumulate>
void gemm_nt_rows(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b, size_t ldb,
                  float* c, size_t ldc) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (size_t p = 0; p < k; ++p) acc += a[i * lda + p] * b[j * ldb + p];
      if (kAccumulate) c[i * ldc + j] += acc;
      else c[i * ldc + j] = acc;
    }
  }
}
}  // namespace

void gemm_nt_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, float* c, size_t ldc) {
  gemm_nt_rows<false>(m, n, k, a, lda, b, ldb, c, ldc);
}

void gemm_nt_acc_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  gemm_nt_rows<true>(m, n, k, a, lda, b, ldb, c, ldc);
}

void gemm_tn_acc_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc) {
  // i-p-j: row i of C gathers column i of A against the rows of B, summed in p order.
  for (size_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    for (size_t p = 0; p < k; ++p) {
      const float api = a[p * lda + i];
      const float* bp = b + p * ldb;
      for (size_t j = 0; j < n; ++j) ci[j] += api * bp[j];
    }
  }
}

void pack_b_nt_f32_scalar(size_t n, size_t k, const float* b, size_t ldb, float* bp) {
  for (size_t j = 0; j < (n + 7) / 8 * 8; ++j)
    for (size_t p = 0; p < k; ++p) bp[j / 8 * 8 * k + p * 8 + j % 8] = j < n ? b[j * ldb + p] : 0.0f;
}

void pack_b_nn_f32_scalar(size_t k, size_t n, const float* b, size_t ldb, float* bp) {
  for (size_t j = 0; j < (n + 7) / 8 * 8; ++j)
    for (size_t p = 0; p < k; ++p) bp[j / 8 * 8 * k + p * 8 + j % 8] = j < n ? b[p * ldb + j] : 0.0f;
}

void gemm_prepacked_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                               const float* bp, size_t strip_stride, bool accumulate, float* c,
                               size_t ldc) {
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      const float* strip = bp + j / 8 * strip_stride;
      float acc = 0.0f;
      for (size_t p = 0; p < k; ++p) acc += a[i * lda + p] * strip[p * 8 + j % 8];
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc : acc;
    }
}

void gemv_nn3_f32_scalar(size_t n, size_t k, const float* x, const float* const b[3], size_t ldb,
                         const float* const bias[3], float* const y[3]) {
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < n; ++j) y[i][j] = bias[i] ? bias[i][j] : 0.0f;
  for (size_t p = 0; p < k; ++p)
    for (size_t i = 0; i < 3; ++i) {
      const float* row = b[i] + p * ldb;
      for (size_t j = 0; j < n; ++j) y[i][j] += x[p] * row[j];
    }
}

}  // namespace attnlab::kernels
