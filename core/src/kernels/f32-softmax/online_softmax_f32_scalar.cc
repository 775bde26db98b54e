// Scalar reference for one block of the online (streaming) softmax; defines what the wasmsimd twin
// computes.
#include <cfloat>
#include <cmath>
#include <limits>

#include "../kernels.h"

namespace attnlab::kernels {

void online_softmax_block_f32_scalar(size_t rows, size_t cols, float scale, float* s, size_t lds,
                                     float* m, float* l, float* o, size_t ldo, size_t d) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < rows; ++i) {
    float* si = s + i * lds;
    float mx = m[i];
    for (size_t j = 0; j < cols; ++j) {
      si[j] = std::fmin(si[j] * scale, FLT_MAX);  // an overflowed +∞ score becomes the largest float
      mx = si[j] > mx ? si[j] : mx;
    }
    if (mx == kNegInf) {  // every key so far masked: nothing to attend to yet
      for (size_t j = 0; j < cols; ++j) si[j] = 0.0f;
      continue;
    }
    const float c = std::exp(m[i] - mx);  // rescales what earlier blocks summed; exp(−∞) = 0
    float sum = 0.0f;
    for (size_t j = 0; j < cols; ++j) {
      si[j] = std::exp(si[j] - mx);
      sum += si[j];
    }
    l[i] = l[i] * c + sum;
    m[i] = mx;
    if (c != 1.0f)
      for (size_t q = 0; q < d; ++q) o[i * ldo + q] *= c;
  }
}

}  // namespace attnlab::kernels
