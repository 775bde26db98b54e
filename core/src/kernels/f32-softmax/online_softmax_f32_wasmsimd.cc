// SIMD128 online softmax block: scale + clamp + running max in one pass, exp + sum in a second, then
// the rescale of the output rows that earlier key blocks accumulated.
#include <cfloat>
#include <limits>

#include "../kernels.h"
#include "../simd128_math.h"

namespace attnlab::kernels {

namespace {

// exp(x) for x ≤ 0 (−∞ included), ≤ 3 ulp: the streaming attention's exp, ~2/3 of this kernel's time.
// XNNPACK's "rr2_p5" scheme (as its f32-raddstoreexpminusmax softmax kernels): n = round(x·log2 e)
// by a magic bias that also carries the exponent bias 127, so 2^n is the magic sum's bits shifted left
// by 23 (no integer add); x − n·ln2 in two steps; a degree-5 polynomial; exp = s + (t·s)·p.
// Underflow without a compare: x is clamped at −127·ln2, where n = −127 and the shift leaves +0 for
// 2^n, so every x below ≈ −87.7 (−∞, the masked keys) gives exactly +0.
// simd::exp_nonpositive_f32x4 (degree 6, ≤ 2 ulp, a compare and a select for underflow) has 15 live
// constants in its loop, and V8 then keeps the running sum on the stack (a store and a reload per
// vector in the chain from one vector to the next). This one has 11, and the sum stays in a register.
// Measured alone in Node 20 (wasm, the exp-and-sum pass of a [48, 128] tile, paired rounds):
// 1.6-1.7x faster for the whole block.
inline v128_t exp_nonpositive_p5_f32x4(v128_t x) {
  const v128_t magic = wasm_f32x4_splat(0x1.8000FEp23f);  // 1.5·2^23 + 127
  x = wasm_f32x4_pmax(wasm_f32x4_splat(-0x1.601E68p6f), x);  // −127·ln2 (−88.0297); pmax: x is never NaN
  v128_t n = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(0x1.715476p0f)), magic);
  const v128_t s = wasm_i32x4_shl(n, 23);  // 2^n, n ∈ [−127, 0]: +0 at n = −127
  n = wasm_f32x4_sub(n, magic);
  v128_t t = wasm_f32x4_add(wasm_f32x4_mul(n, wasm_f32x4_splat(-0x1.62E400p-1f)), x);
  t = wasm_f32x4_add(wasm_f32x4_mul(n, wasm_f32x4_splat(-0x1.7F7D1Cp-20f)), t);
  v128_t p = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(0x1.0F9F9Cp-7f), t), wasm_f32x4_splat(0x1.573A1Ap-5f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(0x1.555A80p-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(0x1.FFFDC6p-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, t), wasm_f32x4_splat(0x1.FFFFF6p-1f));
  t = wasm_f32x4_mul(t, s);
  return wasm_f32x4_add(wasm_f32x4_mul(t, p), s);
}

inline float exp_nonpositive_p5_f32(float x) {
  return wasm_f32x4_extract_lane(exp_nonpositive_p5_f32x4(wasm_f32x4_splat(x)), 0);
}

}  // namespace

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
    const float c = exp_nonpositive_p5_f32(m[i] - mx);
    const v128_t vmx = wasm_f32x4_splat(mx);
    v128_t vsum = wasm_f32x4_splat(0.0f);
    for (size_t j = 0; j < c4; j += 4) {
      const v128_t e = exp_nonpositive_p5_f32x4(wasm_f32x4_sub(wasm_v128_load(si + j), vmx));
      wasm_v128_store(si + j, e);
      vsum = wasm_f32x4_add(vsum, e);
    }
    float sum = simd::hsum_f32x4(vsum);
    for (size_t j = c4; j < cols; ++j) {
      si[j] = exp_nonpositive_p5_f32(si[j] - mx);
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
