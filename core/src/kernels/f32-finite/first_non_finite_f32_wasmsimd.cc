// SIMD128 finiteness scan: a float is NaN or ±∞ exactly when its bits without the sign are
// ≥ 0x7f800000 (exponent all ones). Per 4 values: load, and, unsigned max — 64 values per branch.
// Only a block that holds a non-finite value (or −∞, when allowed) is searched value by value.
// Measured in Node 20: ~10x the scalar loop, which matters because a (16, 64, 4) multi-head call
// checks 16 K weights on every slider move.
#include "../kernels.h"
#include "../simd128.h"

namespace attnlab::kernels {

size_t first_non_finite_f32_wasmsimd(const float* x, size_t n, bool allow_neg_inf) {
  const v128_t abs_bits = wasm_i32x4_splat(0x7fffffff), inf_bits = wasm_i32x4_splat(0x7f800000);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    v128_t m0 = wasm_i32x4_splat(0), m1 = m0, m2 = m0, m3 = m0;
    for (size_t j = i; j < i + 64; j += 16) {
      m0 = wasm_u32x4_max(m0, wasm_v128_and(wasm_v128_load(x + j), abs_bits));
      m1 = wasm_u32x4_max(m1, wasm_v128_and(wasm_v128_load(x + j + 4), abs_bits));
      m2 = wasm_u32x4_max(m2, wasm_v128_and(wasm_v128_load(x + j + 8), abs_bits));
      m3 = wasm_u32x4_max(m3, wasm_v128_and(wasm_v128_load(x + j + 12), abs_bits));
    }
    const v128_t m = wasm_u32x4_max(wasm_u32x4_max(m0, m1), wasm_u32x4_max(m2, m3));
    if (!wasm_v128_any_true(wasm_u32x4_ge(m, inf_bits))) continue;
    const size_t hit = first_non_finite_f32_scalar(x + i, 64, allow_neg_inf);
    if (hit < 64) return i + hit;  // else only −∞ values, allowed: go on
  }
  return i + first_non_finite_f32_scalar(x + i, n - i, allow_neg_inf);
}

}  // namespace attnlab::kernels
