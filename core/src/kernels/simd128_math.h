// simd128_math.h — small f32x4 helpers shared by the SIMD128 kernels (softmax, GEMM, streaming
// attention): horizontal sum/max and the vectorised exp. Header-only so each kernel inlines them.
#pragma once

#include "simd128.h"

namespace attnlab::kernels::simd {

inline float hsum_f32x4(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

// Branch-free (shuffles + pmax): the scalar compare chain it replaces mispredicted on every softmax
// row. Exact whatever the order; inputs are never NaN (pmax).
inline float hmax_f32x4(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// exp(x) for x ≤ 0 (softmax arguments after max subtraction): Cephes-style range reduction + degree-6
// polynomial, ≤ 2 ulp on that range. x < −87.3 (including −inf) gives exactly 0.
inline v128_t exp_nonpositive_f32x4(v128_t x) {
  const v128_t lo = wasm_f32x4_splat(-87.33654f);
  const v128_t underflow = wasm_f32x4_lt(x, lo);
  // pmax(lo, x) = lo < x ? x : lo: also maps −inf to lo, so no NaN below. pmax, not max: one x86
  // instruction (f32x4.max's NaN and −0 rules cost V8 six), and callers never pass NaN.
  x = wasm_f32x4_pmax(lo, x);
  // n = round(x·log2 e) with the "magic bias" trick (as XNNPACK): adding 1.5·2^23 rounds to the
  // nearest integer (ties to even, like f32x4.nearest) and leaves n in the low mantissa bits, so no
  // f32x4.nearest and no i32x4.trunc_sat (several x86 instructions in V8) are needed.
  const v128_t magic = wasm_f32x4_splat(12582912.0f);  // 1.5·2^23
  const v128_t v = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)), magic);
  const v128_t fx = wasm_f32x4_sub(v, magic);
  // r = x − fx·ln2, with ln2 split in two so r stays exact.
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(fx, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(fx, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
  const v128_t r2 = wasm_f32x4_mul(r, r);
  const v128_t y = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(p, r2), r), wasm_f32x4_splat(1.0f));
  // 2^n built in the exponent field: v's bits are bits(1.5·2^23) + n, and shifting left by 23 drops
  // the magic's own bits; n ∈ [−126, 0] here, so the biased exponent n + 127 stays normal.
  const v128_t pow2 = wasm_i32x4_shl(wasm_i32x4_add(v, wasm_i32x4_splat(127)), 23);
  const v128_t e = wasm_f32x4_mul(y, pow2);
  return wasm_v128_andnot(e, underflow);
}

inline float exp_nonpositive_f32(float x) {
  return wasm_f32x4_extract_lane(exp_nonpositive_f32x4(wasm_f32x4_splat(x)), 0);
}

}  // namespace attnlab::kernels::simd
