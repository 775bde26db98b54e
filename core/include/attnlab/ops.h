// attnlab/ops.h — the pointer-level operations, llm.c-style: plain functions, pointer + sizes in,
// every intermediate an explicit output, no allocation, no hidden state, no exceptions.
//
// The bindings (core/bindings/embind.cc) call these directly on WASM heap buffers. C++ users normally
// want the Matrix-level API in attention.h / multihead.h / positional.h, which allocates and throws.
//
// Dimension letters, the lecture's: t_q, t_k = query / key sequence lengths, d_k = query/key width,
// d_v = value width, D = d_model, H = heads. Layouts are row-major; ld* arguments are row strides in
// floats. A projection maps a row vector x to x·W, so W is [in, out] (Q = X·W_Q).
//
// Each op validates its arguments (sizes, finiteness, option combinations) and returns a Status whose
// message names the op, the argument and what was expected. On failure the outputs are unspecified.
#pragma once

#include <cstddef>

#include "attnlab/mask.h"
#include "attnlab/status.h"

namespace attnlab {

// ---- Scaled dot-product attention ---------------------------------------------------------------
// Q: [t_q, d_k] (row stride ldq), K: [t_k, d_k] (ldk), V: [t_k, d_v] (ldv).
// scale: usually 1/√d_k; 1 shows what happens without scaling.
// alibi_slope: 0, or m > 0 to add the ALiBi bias −m·|i − j| to the scaled scores.
// Outputs (all [t_q, t_k] contiguous except out):
//   scores   raw Q·Kᵀ                        (nullptr: not kept)
//   scaled   scale·Q·Kᵀ + mask (+ ALiBi)     (nullptr: not kept)
//   weights  softmax(scaled) per row         (required; a fully masked row gives zeros)
//   out      weights·V, [t_q, d_v] with row stride ldo
struct AttentionArgs {
  const float* q; size_t ldq;
  const float* k; size_t ldk;
  const float* v; size_t ldv;
  size_t t_q, t_k, d_k, d_v;
  float scale;
  Mask mask;
  float alibi_slope = 0.0f;
};
struct AttentionOut {
  float* scores = nullptr;
  float* scaled = nullptr;
  float* weights = nullptr;
  float* out = nullptr; size_t ldo = 0;
};
Status attention_forward(const AttentionArgs& a, const AttentionOut& o);

// out[t_q, d_v] = A[t_q, t_k] · V[t_k, d_v]: attention as a weighted sum (the deck's convex
// combination), for weights the caller already has.
Status weighted_sum_forward(const float* weights, const float* v, size_t t_q, size_t t_k,
                            size_t d_v, float* out);

// ---- Multi-head attention -----------------------------------------------------------------------
// x: [t_q, D]; context: [t_k, D] for cross-attention (keys/values from another sequence) or nullptr
// for self-attention (context = x, t_k = t_q). W_Q, W_K, W_V, W_O: [D, D]; b_*: [D] or nullptr.
// Head h uses columns [h·d_k, (h+1)·d_k) of Q, K, V, with d_k = D / H.
// rope: rotate each head's q/k pairs by position before the scores (RoPE); alibi: add the per-head
// ALiBi bias (self-attention only). scale ≤ 0 means the default 1/√d_k.
struct MultiHeadWeights {
  const float *wq, *wk, *wv, *wo;                           // [D, D]
  const float *bq = nullptr, *bk = nullptr, *bv = nullptr, *bo = nullptr;  // [D]
};
struct MultiHeadArgs {
  const float* x; size_t t_q;
  const float* context; size_t t_k;
  size_t d_model, heads;
  MultiHeadWeights w;
  Mask mask;
  float scale = 0.0f;
  bool rope = false; float rope_base = 10000.0f;
  bool alibi = false;
};
struct MultiHeadOut {
  float *q, *k, *v;          // [t_q, D], [t_k, D], [t_k, D] (q, k after RoPE when rope is on)
  float* scores = nullptr;   // [H, t_q, t_k] raw per-head Q_h·K_hᵀ (nullptr: not kept)
  float* weights;            // [H, t_q, t_k]
  float* heads;              // [t_q, D] concatenated head outputs, before W_O
  float* out;                // [t_q, D]
};
Status multihead_attention_forward(const MultiHeadArgs& a, const MultiHeadOut& o);

// ---- Positional encodings -----------------------------------------------------------------------
// Sinusoidal (Vaswani et al.), interleaved: PE[pos, 2i] = sin(pos / base^(2i/D)),
// PE[pos, 2i+1] = cos(pos / base^(2i/D)). out: [length, D].
Status sinusoidal_encoding(size_t length, size_t d_model, float base, float* out);

// RoPE: rotate pairs (2i, 2i+1) of each row of x [t, d] (d even) by angle (offset + row)·base^(−2i/d).
// In place when x == out.
Status rope_rotate(const float* x, size_t t, size_t d, float base, size_t offset, float* out);

// ALiBi slopes for H heads (Press et al.: geometric 2^(−8/H·(h+1)) for H a power of two, the paper's
// interleaving otherwise) and the bias −m_h·|i − j| for every head: bias [H, t_q, t_k].
Status alibi_slopes(size_t heads, float* slopes);
float alibi_slope(size_t head, size_t heads);  // one head's slope, for 0 ≤ head < heads
Status alibi_bias(size_t heads, size_t t_q, size_t t_k, float* bias);

// ---- Shared checks --------------------------------------------------------------------------------
// The first non-finite value of x[0:n] (NaN or ±∞); allow_neg_inf accepts −∞ (masks).
// Returns n when all are acceptable.
size_t first_non_finite(const float* x, size_t n, bool allow_neg_inf = false);

}  // namespace attnlab
