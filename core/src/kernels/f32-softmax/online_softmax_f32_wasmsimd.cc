// SIMD128 online softmax block: scale + clamp + running max in one pass, exp + sum in a second, then
// the rescale of the output rows that earlier key blocks accumulated.
#include <cfloat>
#include <limits>

#include "../kernels.h"
#include "../simd128_math.h"

namespace attnlab::kernels {

void online_softmax_block_f32_wasmsimd(size_t rows, size_t cols, float scale, float* s, size_t lds,
                                       float* m, float* l, float* o, size_t ldo, size_t d) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t c4 = cols & ~size_t{3}, d4 = d & ~size_t{3};
  const v128_t vscale = wasm_f32x4_splat(scale), vbig = wasm_f32x4_splat(FLT_MAX);
  for (size_t i = 0; i < rows; ++i) {
    float* si = s + i * lds;
    v128_t vmax = wasm_f32x4_splat(kNegInf);
    for (size_t j = 0; j < c4; j += 4) {
      // pmin/pmax: scores are never NaN (inputs are checked), and each is one x86 instruction.
      const v128_t x = wasm_f32x4_pmin(wasm_f32x4_mul(wasm_v128_load(si + j), vscale), vbig);
      wasm_v128_store(si + j, x);
      vmax = wasm_f32x4_pmax(vmax, x);
    }
    float mx = simd::hmax_f32x4(vmax);
    for (size_t j = c4; j < cols; ++j) {
      const float x = si[j] * scale;
      si[j] = x < FLT_MAX ? x : FLT_MAX;
      mx = si[j] > mx ? si[j] : mx;
    }
    mx = m[i] > mx ? m[i] : mx;
    if (mx == kNegInf) {
      for (size_t j = 0; j < cols; ++j) si[j] = 0.0f;
      continue;
    }
    const float c = simd::exp_nonpositive_f32(m[i] - mx);
    const v128_t vmx = wasm_f32x4_splat(mx);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < c4; j += 4) {
      const v128_t e = simd::exp_nonpositive_f32x4(wasm_f32x4_sub(wasm_v128_load(si + j), vmx));
      wasm_v128_store(si + j, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = simd::hsum_f32x4(vsum);
    for (size_t j = c4; j < cols; ++j) {
      si[j] = simd::exp_nonpositive_f32(si[j] - mx);
      sum += si[j];
    }
    l[i] = l[i] * c + sum;
    m[i] = mx;
    if (c != 1.0f) {
      float* oi = o + i * ldo;
      const v128_t vc = wasm_f32x4_splat(c);
      for (size_t q = 0; q < d4; q += 4) wasm_v128_store(oi + q, wasm_f32x4_mul(wasm_v128_load(oi + q), vc));
      for (size_t q = d4; q < d; ++q) oi[q] *= c;
    }
  }
}

}  // namespace attnlab::kernels
