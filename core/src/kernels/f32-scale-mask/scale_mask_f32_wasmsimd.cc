// SIMD128 scale + mask + ALiBi over a tile of scores. A causal or window mask leaves each row one
// visible range of keys [lo, hi): lanes outside it are selected to −∞ by column index, so no per-key
// branch on the mask kind. The same float operations in the same order as the scalar twin (no FMA
// in SIMD128), so the two agree bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "../kernels.h"
#include "../simd128.h"

namespace attnlab::kernels {

namespace {

// The tile columns [*lo, *hi) that row i can see under a causal or window mask; all for the others.
void visible_columns(const Mask& mask, size_t i, size_t j0, size_t cols, size_t* lo, size_t* hi) {
  *lo = 0;
  *hi = cols;
  if (mask.kind != Mask::Kind::causal && mask.kind != Mask::Kind::window) return;
  const int64_t ii = static_cast<int64_t>(i), w = mask.window;
  int64_t first = 0, last = ii;  // keys j with first ≤ j ≤ last
  if (mask.kind == Mask::Kind::window) {
    first = ii - w;
    if (!mask.causal) last = ii + w;
  }
  const int64_t n = static_cast<int64_t>(cols), base = static_cast<int64_t>(j0);
  *lo = static_cast<size_t>(std::clamp<int64_t>(first - base, 0, n));
  *hi = static_cast<size_t>(std::clamp<int64_t>(last - base + 1, static_cast<int64_t>(*lo), n));
}

}  // namespace

bool scale_mask_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float scale,
                             const Mask& mask, float alibi_slope, size_t i0, size_t j0, size_t t_k,
                             float* y, size_t ldy) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const bool plain = mask.kind == Mask::Kind::none && alibi_slope == 0.0f;
  const bool additive = mask.kind == Mask::Kind::additive;
  // slope·|i − j| is +0 when the slope is 0, and v − (+0) = v for every v (−0 too): skipped then.
  const bool alibi = alibi_slope != 0.0f;
  const size_t c4 = cols & ~size_t{3};
  const v128_t vscale = wasm_f32x4_splat(scale), vneginf = wasm_f32x4_splat(kNegInf);
  const v128_t vslope = wasm_f32x4_splat(alibi_slope), vzero = wasm_f32x4_splat(0.0f);
  const v128_t lane = wasm_i32x4_make(0, 1, 2, 3);
  v128_t vnan = wasm_i32x4_splat(0);
  uint32_t nan = 0;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    float* yr = y + r * ldy;
    const size_t i = i0 + r;
    if (plain) {
      for (size_t c = 0; c < c4; c += 4) {
        const v128_t v = wasm_f32x4_mul(wasm_v128_load(xr + c), vscale);
        wasm_v128_store(yr + c, v);
        vnan = wasm_v128_or(vnan, wasm_f32x4_ne(v, v));
      }
      for (size_t c = c4; c < cols; ++c) {
        const float v = xr[c] * scale;
        yr[c] = v;
        nan |= static_cast<uint32_t>(v != v);
      }
      continue;
    }
    const float* ar = additive ? mask.additive + i * t_k + j0 : nullptr;
    size_t lo, hi;
    visible_columns(mask, i, j0, cols, &lo, &hi);
    const v128_t vlo = wasm_i32x4_splat(static_cast<int32_t>(lo));
    const v128_t vhi = wasm_i32x4_splat(static_cast<int32_t>(hi));
    const v128_t vi = wasm_f32x4_splat(static_cast<float>(i));
    for (size_t c = 0; c < c4; c += 4) {
      const v128_t xv = wasm_v128_load(xr + c);
      vnan = wasm_v128_or(vnan, wasm_f32x4_ne(xv, xv));
      const v128_t mv = additive ? wasm_v128_load(ar + c) : vzero;
      v128_t yv = wasm_f32x4_add(wasm_f32x4_mul(xv, vscale), mv);
      if (alibi) {
        const v128_t j = wasm_i32x4_add(wasm_i32x4_splat(static_cast<int32_t>(j0 + c)), lane);
        const v128_t dist = wasm_f32x4_abs(wasm_f32x4_sub(vi, wasm_f32x4_convert_u32x4(j)));
        yv = wasm_f32x4_sub(yv, wasm_f32x4_mul(vslope, dist));
      }
      v128_t masked;
      if (additive) {
        masked = wasm_f32x4_eq(mv, vneginf);  // assigned −∞, so a +∞ score cannot give NaN
      } else {
        const v128_t col = wasm_i32x4_add(wasm_i32x4_splat(static_cast<int32_t>(c)), lane);
        masked = wasm_v128_not(wasm_v128_and(wasm_i32x4_ge(col, vlo), wasm_i32x4_lt(col, vhi)));
      }
      yv = wasm_v128_bitselect(vneginf, yv, masked);
      vnan = wasm_v128_or(vnan, wasm_f32x4_ne(yv, yv));
      wasm_v128_store(yr + c, yv);
    }
    for (size_t c = c4; c < cols; ++c) {
      nan |= static_cast<uint32_t>(xr[c] != xr[c]);
      const bool visible = additive ? ar[c] != kNegInf : (c >= lo && c < hi);
      if (!visible) {
        yr[c] = kNegInf;
        continue;
      }
      float v = xr[c] * scale + (additive ? ar[c] : 0.0f);
      if (alibi) v -= alibi_slope * std::fabs(static_cast<float>(i) - static_cast<float>(j0 + c));
      yr[c] = v;
      nan |= static_cast<uint32_t>(v != v);
    }
  }
  return nan != 0 || wasm_v128_any_true(vnan);
}

}  // namespace attnlab::kernels
