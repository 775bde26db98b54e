// Streaming multi-head attention (the throughput mode): softmax(scale·Q_h·K_hᵀ + M)·V_h per head
// without ever holding the [t_q, t_k] weights. For a block of Br queries, keys and values stream past
// in blocks of Bc:
//   S = Q_blk·K_blkᵀ                    [Br, Bc]
//   S = scale·S + M; online softmax     running max m and sum l per query; O rescaled by exp(m − m')
//   O += S·V_blk                        [Br, d_k]
// and at the end head_h = O / l. Each head's K and V are packed once for the GEMM micro-kernel
// (kernels.h): packing them per query block instead cost ~10 % at T = 2048.
// Memory: O((t_q + t_k)·D) plus a workspace of O(Br·Bc + t_k·d_k).
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cmath>
#include <limits>

#include "../kernels/dispatch.h"
#include "check.h"
#include "multihead_detail.h"

namespace attnlab {

namespace {

// Block sizes: an S tile [Br, Bc] is 24 KB, so it stays in L1 between the two GEMMs that use it.
constexpr size_t kBr = 48;   // queries per block (a multiple of the GEMM's 4 rows)
constexpr size_t kBc = 128;  // keys per block

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Keys [lo, hi) that query rows [i0, i1) can see under the mask; the rest are skipped, not computed.
void visible_keys(const Mask& mask, size_t i0, size_t i1, size_t tk, size_t* lo, size_t* hi) {
  *lo = 0;
  *hi = tk;
  if (mask.kind == Mask::Kind::causal) {
    *hi = std::min(tk, i1);
  } else if (mask.kind == Mask::Kind::window) {
    const size_t w = static_cast<size_t>(mask.window);
    *lo = i0 > w ? (i0 - w) / 8 * 8 : 0;  // from a packed strip's first key (the mask hides the extra)
    *hi = std::min(tk, mask.causal ? i1 : i1 + w);
  }
}

// One head: out[t_q, d_k] (row stride ldo) = softmax(scale·q·kᵀ + mask − slope·|i − j|)·v.
// q: [t_q, d_k] (ldq), k, v: [t_k, d_k] (ldk, ldv). ws: multihead_streaming_workspace_floats() floats:
// the [Br, Bc] tile, O, m, l, then K and V packed.
// Returns false when a score is NaN (float32 overflow in q·k, +∞ and −∞ terms), which the online
// softmax cannot take; the caller's bounds (check_multihead_bounds) already exclude it.
bool attention_head_streaming(const float* q, size_t ldq, const float* k, size_t ldk,
                              const float* v, size_t ldv, size_t tq, size_t tk, size_t dk,
                              float scale, const Mask& mask, float alibi_slope, float* ws,
                              float* out, size_t ldo) {
  float* s = ws;                // [Br, Bc] scores, then probabilities
  float* o = s + kBr * kBc;     // [Br, d_k] unnormalised output
  float* m = o + kBr * dk;      // [Br] running max
  float* l = m + kBr;           // [Br] running sum
  float* kp = l + kBr;          // K packed as op(B) = Kᵀ: strips of 8 keys, each [d_k, 8]
  float* vp = kp + kernels::packed_b_floats(dk, tk);  // V packed: strips of 8 columns, each [t_k, 8]
  // One query block (short sequences) reads K and V in place: packing them would not be repaid.
  const bool prepack = tq > kBr;
  if (prepack) {
    kernels::pack_b_nt_f32(tk, dk, k, ldk, kp);
    kernels::pack_b_nn_f32(tk, dk, v, ldv, vp);
  }
  // O sums p·v over the keys before dividing by l (p ≤ 1, l ≤ t_k), so it can reach t_k·max|v| where
  // the result (≤ max|v|, a convex combination) is finite: with huge values the probabilities are
  // multiplied by 2^-e before the V product and the final 1/l by 2^e (exact powers of two), so O
  // stays below FLT_MAX/2 and this path overflows exactly when the all-intermediates one does
  // (never, after check_values_bound).
  float vmax = 0.0f;
  for (size_t j = 0; j < tk; ++j)
    for (size_t c = 0; c < dk; ++c) vmax = std::fmax(vmax, std::fabs(v[j * ldv + c]));
  const double o_bound = static_cast<double>(vmax) * static_cast<double>(tk) * 2.0 * (1.0 + detail::rounding_margin(tk));
  const int e = o_bound > FLT_MAX ? std::ilogb(o_bound / FLT_MAX) + 1 : 0;
  const float p_scale = std::ldexp(1.0f, -e);
  for (size_t i0 = 0; i0 < tq; i0 += kBr) {
    const size_t br = std::min(kBr, tq - i0);
    std::fill(o, o + br * dk, 0.0f);
    std::fill(m, m + br, kNegInf);
    std::fill(l, l + br, 0.0f);
    size_t lo, hi;
    visible_keys(mask, i0, i0 + br, tk, &lo, &hi);
    for (size_t j0 = lo; j0 < hi; j0 += kBc) {
      const size_t bc = std::min(kBc, hi - j0);
      // j0 is a multiple of 8 (visible_keys), so the block starts at a strip of the packed K.
      if (prepack)
        kernels::gemm_prepacked_f32(br, bc, dk, q + i0 * ldq, ldq, kp + j0 * dk, 8 * dk, false, s, kBc);
      else
        kernels::gemm_nt_f32(br, bc, dk, q + i0 * ldq, ldq, k + j0 * ldk, ldk, s, kBc);
      // scaled = scale·S + M (+ ALiBi), the same kernel as attention.cc; a NaN (see above) stops here.
      if (kernels::scale_mask_f32(br, bc, s, kBc, scale, mask, alibi_slope, i0, j0, tk, s, kBc)) return false;
      kernels::online_softmax_block_f32(br, bc, 1.0f, s, kBc, m, l, o, dk, dk);
      if (e)
        for (size_t r = 0; r < br; ++r)
          for (size_t c = 0; c < bc; ++c) s[r * kBc + c] *= p_scale;
      if (prepack)
        kernels::gemm_prepacked_f32(br, dk, bc, s, kBc, vp + 8 * j0, 8 * tk, true, o, dk);
      else
        kernels::gemm_nn_acc_f32(br, dk, bc, s, kBc, v + j0 * ldv, ldv, o, dk);
    }
    // head = O / l; a query that sees no key (l = 0) gets 0, as the all-intermediates path.
    for (size_t r = 0; r < br; ++r) {
      const float inv = l[r] > 0.0f ? std::ldexp(1.0f / l[r], e) : 0.0f;
      float* dst = out + (i0 + r) * ldo;
      for (size_t c = 0; c < dk; ++c) dst[c] = o[r * dk + c] * inv;
    }
  }
  return true;
}

}  // namespace

size_t multihead_streaming_workspace_floats(size_t t_k, size_t d_model, size_t heads) {
  const uint64_t dk = heads ? d_model / heads : d_model, tk = t_k;
  // The tile, O, m, l (attention_head_streaming), then K and V packed (kernels::packed_b_floats, in
  // 64 bits and rounded up to whole strips both ways, so one bound covers both).
  const uint64_t n = uint64_t{kBr} * (kBc + dk + 2) + 2 * ((tk + 7) / 8 * 8) * ((dk + 7) / 8 * 8);
  return n > SIZE_MAX / sizeof(float) ? SIZE_MAX : static_cast<size_t>(n);  // (wasm32: size_t is 32 bits)
}

Status multihead_attention_forward_streaming(const MultiHeadArgs& a, const MultiHeadStreamingOutputs& o) {
  constexpr const char* op = "multiHeadAttention";
  ATTNLAB_CHECK(detail::check_multihead_args(a));
  if (!o.q || !o.k || !o.v || !o.workspace || !o.out)
    return Status::Fail(std::string(op) + ": an output buffer is missing");
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;

  detail::multihead_project(a, o.q, o.k, o.v);
  // The same refusals as the all-intermediates path, decided before computing by the same bounds
  // (multihead_detail.h), so the two paths accept and refuse the same inputs.
  ATTNLAB_CHECK(detail::check_multihead_bounds(a, o.q, o.k, o.v, o.out));
  const float scale = detail::multihead_scale(a);
  for (size_t h = 0; h < H; ++h)
    // Head h reads Q's columns [h·d_k, (h+1)·d_k) block by block and writes its result over them:
    // each query block's Q slice is dead once that block is done, so q ends as Concat(heads).
    if (!attention_head_streaming(o.q + h * dk, D, o.k + h * dk, D, o.v + h * dk, D, tq, tk, dk, scale,
                                  a.mask, a.alibi ? alibi_slope(h, H) : 0.0f, o.workspace,
                                  o.q + h * dk, D))
      return Status::Fail(std::string(op) + ": weights of head " + std::to_string(h) +
                          " are NaN after a float32 overflow, expected q·kᵀ within float32 range "
                          "(|q|·|k| < 3.4e38)");
  // out = Concat(heads)·W_O + b_O
  kernels::gemm_nn_f32(tq, D, D, o.q, D, a.w.wo, D, a.w.bo, o.out, D);
  // Defensive: after check_multihead_bounds this cannot fire; a NaN or ±∞ is never handed back.
  ATTNLAB_CHECK(detail::check_multihead_result(a, "output", o.out, tq * D,
                                               "x·wq, q·kᵀ and heads·wo within float32 range"));
  return Status::Ok();
}

}  // namespace attnlab
