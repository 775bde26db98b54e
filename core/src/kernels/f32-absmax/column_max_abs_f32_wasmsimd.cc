// SIMD128 column maxima of |x|: the row is the vector, so each row adds one u32x4 max per 4 columns
// of the running maxima (kept in registers for 16 columns at a time), on the bit patterns with the
// sign cleared — exact, and the same bits as the scalar twin (NaN above ∞ above every finite value).
// Replaces a column-at-a-time strided loop (std::fmax, scalar) in the attention overflow bounds: at
// (T 16, dModel 64, 4 heads) those bounds took longer than all four heads' attention.
#include "../kernels.h"
#include "../simd128.h"

namespace attnlab::kernels {

void column_max_abs_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float* colmax) {
  const v128_t abs_bits = wasm_i32x4_splat(0x7fffffff);
  size_t c = 0;
  for (; c + 16 <= cols; c += 16) {
    v128_t m0 = wasm_v128_and(wasm_v128_load(colmax + c), abs_bits);
    v128_t m1 = wasm_v128_and(wasm_v128_load(colmax + c + 4), abs_bits);
    v128_t m2 = wasm_v128_and(wasm_v128_load(colmax + c + 8), abs_bits);
    v128_t m3 = wasm_v128_and(wasm_v128_load(colmax + c + 12), abs_bits);
    const float* p = x + c;
    for (size_t r = 0; r < rows; ++r, p += ldx) {
      m0 = wasm_u32x4_max(m0, wasm_v128_and(wasm_v128_load(p), abs_bits));
      m1 = wasm_u32x4_max(m1, wasm_v128_and(wasm_v128_load(p + 4), abs_bits));
      m2 = wasm_u32x4_max(m2, wasm_v128_and(wasm_v128_load(p + 8), abs_bits));
      m3 = wasm_u32x4_max(m3, wasm_v128_and(wasm_v128_load(p + 12), abs_bits));
    }
    wasm_v128_store(colmax + c, m0);
    wasm_v128_store(colmax + c + 4, m1);
    wasm_v128_store(colmax + c + 8, m2);
    wasm_v128_store(colmax + c + 12, m3);
  }
  for (; c + 4 <= cols; c += 4) {
    v128_t m = wasm_v128_and(wasm_v128_load(colmax + c), abs_bits);
    const float* p = x + c;
    for (size_t r = 0; r < rows; ++r, p += ldx) m = wasm_u32x4_max(m, wasm_v128_and(wasm_v128_load(p), abs_bits));
    wasm_v128_store(colmax + c, m);
  }
  if (c < cols) column_max_abs_f32_scalar(rows, cols - c, x + c, ldx, colmax + c);
}

}  // namespace attnlab::kernels
