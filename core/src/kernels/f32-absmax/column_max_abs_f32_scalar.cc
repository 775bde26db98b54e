// Scalar reference for the column maxima of |x| (the attention overflow bounds: max_i |q[i, d]| per
// column of Q, K and V on every call). Compared as bit patterns: for a float without its sign bit,
// the unsigned integer order is the order of |x|, with ∞ above every finite value and NaN above ∞.
// So the result is exact (a maximum does not round) and the SIMD twin, which does the same with
// u32x4 max, gives the same bits, NaN payloads included.
#include <cstdint>
#include <cstring>

#include "../kernels.h"

namespace attnlab::kernels {

void column_max_abs_f32_scalar(size_t rows, size_t cols, const float* x, size_t ldx, float* colmax) {
  for (size_t c = 0; c < cols; ++c) {
    uint32_t m;
    std::memcpy(&m, colmax + c, sizeof m);
    m &= 0x7fffffffu;
    for (size_t r = 0; r < rows; ++r) {
      uint32_t b;
      std::memcpy(&b, x + r * ldx + c, sizeof b);
      b &= 0x7fffffffu;
      if (b > m) m = b;
    }
    std::memcpy(colmax + c, &m, sizeof m);
  }
}

}  // namespace attnlab::kernels
