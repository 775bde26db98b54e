// Streaming multi-head attention (the throughput mode): softmax(scale·Q_h·K_hᵀ + M)·V_h per head
// without ever holding the [t_q, t_k] weights. For a block of Br queries, keys and values stream past
// in blocks of Bc:
//   S = Q_blk·K_blkᵀ                    [Br, Bc]
//   S = scale·S + M; online softmax     running max m and sum l per query; O rescaled by exp(m − m')
//   O += S·V_blk                        [Br, d_k]
// and at the end head_h = O / l. Each head's K and V are packed once for the GEMM micro-kernel
// (kernels.h): packing them per query block instead cost ~10 % at T = 2048.
// Memory: O((t_q + t_k)·D) plus a workspace of O(Br·Bc + t_k·d_k). A sequence within one [Br, Bc]
// tile (t_q ≤ Br, t_k ≤ Bc) computes each head's weights whole in that tile instead, with the plain
// softmax: the all-intermediates op's output bit for bit, faster at these sizes.
//
// The backward (FlashAttention-2) keeps no weights either: the forward saves each query's
// lse = m + log l, and the backward recomputes every tile's probabilities as exp(S − lse) over the
// same blocks (the same visible_keys), so its memory is O((t_q + t_k)·D) plus two [Br, Bc] tiles.
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cmath>
#include <limits>

#include "../kernels/dispatch.h"
#include "attnlab/backward.h"
#include "check.h"
#include "multihead_detail.h"

namespace attnlab {

void attention_forward_unchecked(const AttentionArgs& a, const AttentionOutputs& o);  // attention.cc

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
// q: [t_q, d_k] (ldq), k, v: [t_k, d_k] (ldk, ldv). ws: multi_head_streaming_workspace_floats() floats:
// the [Br, Bc] tile, O, m, l, then K and V packed.
// lse: [t_q] or nullptr, each query's log Σ_j exp(scaled score) = m + log l (−∞ when it sees no key).
// Returns false when a score is NaN (float32 overflow in q·k, +∞ and −∞ terms), which the online
// softmax cannot take; the caller's bounds (check_multihead_bounds) already exclude it.
bool attention_head_streaming(const float* q, size_t ldq, const float* k, size_t ldk,
                              const float* v, size_t ldv, size_t tq, size_t tk, size_t dk,
                              float scale, const Mask& mask, float alibi_slope, float* ws,
                              float* out, size_t ldo, float* lse) {
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
  const float vmax = detail::max_abs(v, ldv, tk, dk);
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
      // (ldexp is a library call in WebAssembly: only when there is a power of two to undo)
      const float inv = l[r] > 0.0f ? (e ? std::ldexp(1.0f / l[r], e) : 1.0f / l[r]) : 0.0f;
      float* dst = out + (i0 + r) * ldo;
      for (size_t c = 0; c < dk; ++c) dst[c] = o[r * dk + c] * inv;
    }
    // l counts the probabilities before the 2^-e above, so lse is the unscaled one.
    if (lse)
      for (size_t r = 0; r < br; ++r) lse[i0 + r] = l[r] > 0.0f ? m[r] + std::log(l[r]) : kNegInf;
  }
  return true;
}

// One head's backward, FlashAttention-2 style. q, k, v: the head's column slices of Q (after RoPE), K,
// V as the forward used them, o: its output slice of the heads, dO: the gradient of that slice; all
// with row stride ld (= D). lse: [t_q] the forward's. dq [t_q, d_k], dk [t_k, d_k], dv [t_k, d_k]
// (row stride ld) accumulate. ws: two [Br, Bc] tiles and delta [Br]. For each query block:
//   delta = rowsum(dO ∘ O)   (= Σ_j P_ij·dP_ij, the softmax backward's row term, without P's whole row)
// and for each key block the mask leaves it (the forward's visible_keys):
//   P = exp(scale·Q·Kᵀ + M − lse);  dV += Pᵀ·dO;  dP = dO·Vᵀ;  dS = P∘(dP − delta)·scale;
//   dQ += dS·K;  dK += dSᵀ·Q.
// K and V are read in place: packing them once per head, as the forward does, measured no gain here
// (T = 4096, D = 64, H = 4). Returns false when a score is NaN (as the forward; its bounds exclude it).
bool attention_head_backward_streaming(const float* q, const float* k, const float* v, const float* o,
                                       const float* dO, size_t ld, const float* lse, size_t tq,
                                       size_t tk, size_t dk, float scale, const Mask& mask,
                                       float alibi_slope, float* dq, float* dkk, float* dv, float* ws) {
  float* p = ws;               // [Br, Bc] scores, then probabilities
  float* dp = p + kBr * kBc;   // [Br, Bc] dP, then dS
  float* delta = dp + kBr * kBc;  // [Br]
  for (size_t i0 = 0; i0 < tq; i0 += kBr) {
    const size_t br = std::min(kBr, tq - i0);
    for (size_t r = 0; r < br; ++r) {
      const float* oi = o + (i0 + r) * ld;
      const float* gi = dO + (i0 + r) * ld;
      float acc = 0.0f;
      for (size_t c = 0; c < dk; ++c) acc += gi[c] * oi[c];
      delta[r] = acc;
    }
    size_t lo, hi;
    visible_keys(mask, i0, i0 + br, tk, &lo, &hi);
    for (size_t j0 = lo; j0 < hi; j0 += kBc) {
      const size_t bc = std::min(kBc, hi - j0);
      kernels::gemm_nt_f32(br, bc, dk, q + i0 * ld, ld, k + j0 * ld, ld, p, kBc);
      if (kernels::scale_mask_f32(br, bc, p, kBc, scale, mask, alibi_slope, i0, j0, tk, p, kBc)) return false;
      kernels::exp_minus_lse_f32(br, bc, p, kBc, lse + i0);
      kernels::gemm_tn_acc_f32(bc, dk, br, p, kBc, dO + i0 * ld, ld, dv + j0 * ld, ld);
      kernels::gemm_nt_f32(br, bc, dk, dO + i0 * ld, ld, v + j0 * ld, ld, dp, kBc);
      kernels::softmax_grad_f32(br, bc, p, kBc, dp, kBc, delta, scale);
      kernels::gemm_nn_acc_f32(br, dk, bc, dp, kBc, k + j0 * ld, ld, dq + i0 * ld, ld);
      kernels::gemm_tn_acc_f32(bc, dk, br, dp, kBc, q + i0 * ld, ld, dkk + j0 * ld, ld);
    }
  }
  return true;
}

}  // namespace

size_t multi_head_streaming_workspace_floats(size_t t_k, size_t d_model, size_t heads) {
  const uint64_t dk = heads ? d_model / heads : d_model, tk = t_k;
  // The tile, O, m, l (attention_head_streaming), then K and V packed (kernels::packed_b_floats, in
  // 64 bits and rounded up to whole strips both ways, so one bound covers both).
  const uint64_t n = uint64_t{kBr} * (kBc + dk + 2) + 2 * ((tk + 7) / 8 * 8) * ((dk + 7) / 8 * 8);
  return n > SIZE_MAX / sizeof(float) ? SIZE_MAX : static_cast<size_t>(n);  // (wasm32: size_t is 32 bits)
}

Status multi_head_attention_forward_streaming(const MultiHeadArgs& a, const MultiHeadStreamingOutputs& o) {
  constexpr const char* op = "multiHeadAttention";
  ATTNLAB_CHECK(detail::check_multihead_args(a));
  if (!o.q || !o.k || !o.v || !o.workspace || !o.out)
    return Status::Fail(std::string(op) + ": an output buffer is missing");
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;
  if (o.lse) ATTNLAB_CHECK(detail::check_count(op, "heads·tq", {H, tq}));

  detail::multihead_project(a, o.q, o.k, o.v);
  // The same refusals as the all-intermediates path, decided before computing by the same bounds
  // (multihead_detail.h), so the two paths accept and refuse the same inputs.
  ATTNLAB_CHECK(detail::check_multihead_bounds(a, o.q, o.k, o.v, o.out));
  const float scale = detail::multihead_scale(a);
  // Without o.heads, head h reads Q's columns [h·d_k, (h+1)·d_k) block by block and writes its result
  // over them: each query block's Q slice is dead once that block is done, so q ends as Concat(heads).
  float* heads = o.heads ? o.heads : o.q;
  const auto nan_weights = [&](size_t h) {
    return Status::Fail(std::string(op) + ": weights of head " + std::to_string(h) +
                        " are NaN after a float32 overflow, expected q·kᵀ within float32 range "
                        "(|q|·|k| < 3.4e38)");
  };
  // A sequence within one [Br, Bc] tile (the interactive sizes) would stream as one block: each head's
  // [t_q, t_k] weights fit where the tile goes, so they are computed whole there with the plain
  // softmax, as multi_head_attention_forward does (the same kernels in the same order: its output
  // bit for bit, and the same memory as streaming). Streaming's online softmax and final O / l cost
  // more than the work itself at these sizes. lse (training) is the streaming loop's.
  if (!o.lse && tq <= kBr && tk <= kBc) {
    for (size_t h = 0; h < H; ++h) {
      const AttentionArgs ha{o.q + h * dk, D, o.k + h * dk, D, o.v + h * dk, D, tq, tk, dk, dk, scale,
                             a.mask, a.alibi ? alibi_slope(h, H) : 0.0f};
      AttentionOutputs ho;
      ho.weights = o.workspace;
      ho.out = heads + h * dk;  // over Q's slice when heads = q: the scores are taken before it is written
      ho.ldo = D;
      attention_forward_unchecked(ha, ho);
      if (std::isnan(o.workspace[0])) return nan_weights(h);  // a NaN score poisons every weight
    }
  } else {
    for (size_t h = 0; h < H; ++h)
      if (!attention_head_streaming(o.q + h * dk, D, o.k + h * dk, D, o.v + h * dk, D, tq, tk, dk, scale,
                                    a.mask, a.alibi ? alibi_slope(h, H) : 0.0f, o.workspace,
                                    heads + h * dk, D, o.lse ? o.lse + h * tq : nullptr))
        return nan_weights(h);
  }
  // out = Concat(heads)·W_O + b_O
  kernels::gemm_nn_f32(tq, D, D, heads, D, a.w.wo, D, a.w.bo, o.out, D);
  // Defensive: after check_multihead_bounds this cannot fire; a NaN or ±∞ is never handed back.
  ATTNLAB_CHECK(detail::check_multihead_result(a, "output", o.out, tq * D,
                                               "x·wq, q·kᵀ and heads·wo within float32 range"));
  return Status::Ok();
}

// ---- Backward ------------------------------------------------------------------------------------
// workspace: dheads [max(t_q, t_k), D] (then the projections' scratch) | dq [t_q, D] | dk [t_k, D] |
// dv [t_k, D] | the P and dP tiles [Br, Bc] | delta [Br]. 64-bit count: on wasm32 it may not fit.
size_t multi_head_streaming_backward_workspace_floats(size_t t_q, size_t t_k, size_t d_model) {
  const uint64_t tq = t_q, tk = t_k, rows = t_q > t_k ? tq : tk;
  uint64_t lines = 0, n = 0;
  if (__builtin_add_overflow(rows + tq, 2 * tk, &lines) || tq > UINT64_MAX / 8 || tk > UINT64_MAX / 8 ||
      __builtin_mul_overflow(lines, uint64_t{d_model}, &n) ||
      __builtin_add_overflow(n, uint64_t{2 * kBr * kBc + kBr}, &n) || n > SIZE_MAX / sizeof(float))
    return SIZE_MAX;
  return static_cast<size_t>(n);
}

Status multi_head_attention_backward_streaming(const MultiHeadArgs& a, const MultiHeadStreamingOutputs& saved,
                                              const float* dout, const MultiHeadGrads& g, float* workspace) {
  constexpr const char* op = "multiHeadAttentionStreamingBackward";
  ATTNLAB_CHECK(detail::check_multihead_backward_args(op, a));  // the forward's rules, under this name
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;
  ATTNLAB_CHECK(detail::check_count(op, "heads·tq", {H, tq}));  // the saved lse
  if (multi_head_streaming_backward_workspace_floats(tq, tk, D) == SIZE_MAX)
    return Status::Fail(std::string(op) + ": workspace is too large, expected sizes whose product fits in memory");
  const struct { const char* name; const void* p; } needed[] = {
      {"saved.q", saved.q},     {"saved.k", saved.k},         {"saved.v", saved.v},
      {"saved.lse", saved.lse}, {"saved.heads", saved.heads}, {"dout", dout},
      {"workspace", workspace}};
  for (const auto& n : needed) ATTNLAB_CHECK(detail::check_not_null(op, n.name, n.p));
  if (saved.heads == saved.q)  // the forward then wrote the heads over Q, which the backward needs
    return Status::Fail(std::string(op) + ": saved.heads is saved.q, expected a separate [tq, dModel] "
                        "buffer (the forward keeps Q in q only when heads is given)");

  float* dheads = workspace;                      // [max(t_q, t_k), D]
  float* dq = dheads + (tq > tk ? tq : tk) * D;   // [t_q, D]
  float* dkk = dq + tq * D;                       // [t_k, D]
  float* dv = dkk + tk * D;                       // [t_k, D]
  float* tiles = dv + tk * D;                     // 2·[Br, Bc] + [Br]

  // out = heads·W_O + b_O
  if (g.dwo) kernels::gemm_tn_acc_f32(D, D, tq, saved.heads, D, dout, D, g.dwo, D);
  if (g.dbo) detail::add_column_sums(dout, tq, D, g.dbo);
  kernels::gemm_nt_f32(tq, D, D, dout, D, a.w.wo, D, dheads, D);

  // Each head's attention, into its column slices of dQ, dK, dV.
  for (size_t i = 0; i < (tq + 2 * tk) * D; ++i) dq[i] = 0.0f;  // dq, dk, dv are contiguous
  const float scale = detail::multihead_scale(a);
  for (size_t h = 0; h < H; ++h)
    if (!attention_head_backward_streaming(saved.q + h * dk, saved.k + h * dk, saved.v + h * dk,
                                           saved.heads + h * dk, dheads + h * dk, D, saved.lse + h * tq,
                                           tq, tk, dk, scale, a.mask, a.alibi ? alibi_slope(h, H) : 0.0f,
                                           dq + h * dk, dkk + h * dk, dv + h * dk, tiles))
      return Status::Fail(std::string(op) + ": weights of head " + std::to_string(h) +
                          " are NaN after a float32 overflow, expected q·kᵀ within float32 range "
                          "(|q|·|k| < 3.4e38)");
  // RoPE and the projections; dheads is free again and serves as their scratch.
  detail::multihead_qkv_backward(a, dq, dkk, dv, g, dheads);
  return Status::Ok();
}

}  // namespace attnlab
