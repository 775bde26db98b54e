// Scalar reference for the Gaussian kernel's score, −‖a_i − b_j‖²; defines what the wasmsimd twin
// computes.
#include "../kernels.h"

namespace attnlab::kernels {

void neg_sq_dist_nt_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                               const float* b, size_t ldb, float* s, size_t lds) {
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (size_t p = 0; p < k; ++p) {
        const float d = a[i * lda + p] - b[j * ldb + p];
        acc += d * d;
      }
      s[i * lds + j] = -acc;
    }
}

}  // namespace attnlab::kernels
