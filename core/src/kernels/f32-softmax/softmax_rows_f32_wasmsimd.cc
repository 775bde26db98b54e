// SIMD128 softmax: vector max, a vectorised exp (Cephes-style range reduction + degree-6 polynomial,
// ≤ 2 ulp on the range softmax uses), vector sum and scale.
#include <cmath>
#include <limits>

#include "../kernels.h"
#include "../simd128.h"

namespace attnlab::kernels {

namespace {

// exp(x) for x ≤ 0 (softmax arguments after max subtraction). x < −87.3 (including −inf) gives 0.
inline v128_t exp_nonpositive_f32x4(v128_t x) {
  const v128_t lo = wasm_f32x4_splat(-87.33654f);
  const v128_t underflow = wasm_f32x4_lt(x, lo);
  x = wasm_f32x4_max(x, lo);  // also maps −inf to lo, so no NaN below
  const v128_t fx = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
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
  // 2^fx built in the exponent field; fx ∈ [−126, 0] here, so the biased exponent stays normal.
  const v128_t n = wasm_i32x4_trunc_sat_f32x4(fx);
  const v128_t pow2 = wasm_i32x4_shl(wasm_i32x4_add(n, wasm_i32x4_splat(127)), 23);
  const v128_t e = wasm_f32x4_mul(y, pow2);
  return wasm_v128_andnot(e, underflow);
}

inline float hmax_f32x4(v128_t v) {
  const float a = wasm_f32x4_extract_lane(v, 0), b = wasm_f32x4_extract_lane(v, 1);
  const float c = wasm_f32x4_extract_lane(v, 2), d = wasm_f32x4_extract_lane(v, 3);
  const float ab = a > b ? a : b, cd = c > d ? c : d;
  return ab > cd ? ab : cd;
}

inline float hsum_f32x4(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

inline float exp_nonpositive_f32(float x) {
  return wasm_f32x4_extract_lane(exp_nonpositive_f32x4(wasm_f32x4_splat(x)), 0);
}

}  // namespace

void softmax_rows_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float* y,
                               size_t ldy) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t c4 = cols & ~size_t{3};
  for (size_t i = 0; i < rows; ++i) {
    const float* xi = x + i * ldx;
    float* yi = y + i * ldy;
    v128_t vmax = wasm_f32x4_splat(kNegInf);
    // pmax (not max): NaN-free inputs are validated upstream, and pmax is one instruction on x86.
    for (size_t j = 0; j < c4; j += 4) vmax = wasm_f32x4_pmax(vmax, wasm_v128_load(xi + j));
    float mx = hmax_f32x4(vmax);
    for (size_t j = c4; j < cols; ++j) mx = xi[j] > mx ? xi[j] : mx;
    if (mx == kNegInf) {
      for (size_t j = 0; j < cols; ++j) yi[j] = 0.0f;
      continue;
    }
    if (mx == std::numeric_limits<float>::infinity()) {  // overflowed scores: share among the +inf
      float count = 0.0f;
      for (size_t j = 0; j < cols; ++j) count += xi[j] == mx ? 1.0f : 0.0f;
      for (size_t j = 0; j < cols; ++j) yi[j] = xi[j] == mx ? 1.0f / count : 0.0f;
      continue;
    }
    const v128_t vmx = wasm_f32x4_splat(mx);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < c4; j += 4) {
      const v128_t e = exp_nonpositive_f32x4(wasm_f32x4_sub(wasm_v128_load(xi + j), vmx));
      wasm_v128_store(yi + j, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = hsum_f32x4(vsum);
    for (size_t j = c4; j < cols; ++j) {
      const float e = exp_nonpositive_f32(xi[j] - mx);
      yi[j] = e;
      sum += e;
    }
    const float inv = 1.0f / sum;
    const v128_t vinv = wasm_f32x4_splat(inv);
    for (size_t j = 0; j < c4; j += 4) wasm_v128_store(yi + j, wasm_f32x4_mul(wasm_v128_load(yi + j), vinv));
    for (size_t j = c4; j < cols; ++j) yi[j] *= inv;
  }
}

}  // namespace attnlab::kernels
