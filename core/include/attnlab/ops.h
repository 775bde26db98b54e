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
// Attention (attention_forward, both multi-head ops, the blocks) refuses before computing any input
// whose scores, values or output projection could overflow float32, by bounds that do not depend on
// the order of summation (core/src/ops/check.h; docs/hardening.md), so every path refuses alike.
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
  // The score f(q_i, k_j) before scaling: q·k (the lecture's attention) or −‖q − k‖² (the Gaussian
  // kernel of Nadaraya-Watson regression; see kernel_regression_forward).
  enum class Score { dot, neg_sq_dist } score = Score::dot;
};
struct AttentionOutputs {
  float* scores = nullptr;
  float* scaled = nullptr;
  float* weights = nullptr;
  float* out = nullptr; size_t ldo = 0;
};
Status attention_forward(const AttentionArgs& a, const AttentionOutputs& o);

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
// What the overflow bounds need to know of fixed weights, computed once by a holder of the weights
// (a layer) instead of on every call. Every call bounds its output projection Concat(heads)·W_O + b_O
// by the maxima of V, W_O and b_O, which needs max|wo| (dModel² values read); given these, a call
// reads none of W_O for that. They only decide the common case: when they cannot show the output
// within float32 range, the call computes the exact per-column bound (docs/hardening.md) as without
// them, so refusals and messages are the same with or without them.
//   MultiHeadWeightBounds wb = multi_head_weight_bounds(weights, d_model);  // once, after (re)setting them
//   MultiHeadArgs a{…, weights, …};  a.weight_bounds = &wb;               // on every call
// They belong to the arrays they were computed from: wo, bo and d_model are recorded, and a call
// whose a.w.wo, a.w.bo or a.d_model differ ignores them and computes its own. Recompute them after
// writing new values into the same arrays: stale bounds cannot make a call return NaN or ±∞ (its
// results are still checked), but they can let through a call the exact bound would refuse — it then
// returns finite numbers, or fails after computing with the result check's message ("output[i] is
// Infinity after a float32 overflow, …").
// Unchecked: wo may be nullptr (the bounds then never apply); NaN or ±∞ in wo or bo are recorded and
// the call names them as without bounds.
struct MultiHeadWeightBounds {
  const float* wo = nullptr;  // the W_O [D, D] and b_O [D] (or nullptr) they describe
  const float* bo = nullptr;
  size_t d_model = 0;
  float wo_abs_max = 0.0f;    // max |wo[d, c]| (NaN or +∞ when wo holds a NaN or ±∞)
  float bo_abs_max = 0.0f;    // max |bo[c]|, 0 without bo
};
MultiHeadWeightBounds multi_head_weight_bounds(const MultiHeadWeights& w, size_t d_model);

struct MultiHeadArgs {
  const float* x; size_t t_q;
  const float* context; size_t t_k;
  size_t d_model, heads;
  MultiHeadWeights w;
  Mask mask;
  float scale = 0.0f;
  bool rope = false; float rope_base = 10000.0f;
  bool alibi = false;
  // Bounds of w precomputed by multi_head_weight_bounds(w, d_model), or nullptr: computed per call.
  const MultiHeadWeightBounds* weight_bounds = nullptr;
};
struct MultiHeadOutputs {
  float *q, *k, *v;          // [t_q, D], [t_k, D], [t_k, D] (q, k after RoPE when rope is on)
  float* scores = nullptr;   // [H, t_q, t_k] raw per-head Q_h·K_hᵀ (nullptr: not kept)
  float* weights;            // [H, t_q, t_k]
  float* heads;              // [t_q, D] concatenated head outputs, before W_O
  float* out;                // [t_q, D]
};
Status multi_head_attention_forward(const MultiHeadArgs& a, const MultiHeadOutputs& o);

// ---- Streaming multi-head attention: the throughput mode, output only ----------------------------
// The same result as multi_head_attention_forward (every option: masks, cross-attention, RoPE, ALiBi),
// and the same refusals with the same messages: scores, values or outputs that could overflow float32
// are refused by both before computing, by bounds that do not depend on summation order. It works
// without the [H, t_q, t_k] weights: per head, queries go in blocks and keys stream past them in
// blocks with an online softmax (running max m and sum l per query, flash-attention style), so
// memory is O((t_q + t_k)·D) and T = 8192 runs. Causal and window masks skip key blocks they remove.
//   q: [t_q, D] scratch (Q, then overwritten by the concatenated heads unless heads is given), k, v:
//   [t_k, D] scratch, workspace: multi_head_streaming_workspace_floats(t_k, D, H) floats (each head's K
//   and V packed once, plus query/key block tiles; SIZE_MAX when that count overflows size_t),
//   out: [t_q, D].
// For training (multi_head_attention_backward_streaming, backward.h), two optional outputs keep what
// the backward needs in O(t_q·(D + H)) instead of the [H, t_q, t_k] weights:
//   lse: [H, t_q] each head's per-query log Σ_j exp(scaled score) (−∞ for a query that sees no key);
//   heads: [t_q, D] the concatenated head outputs, so that q keeps Q (after RoPE).
struct MultiHeadStreamingOutputs {
  float *q, *k, *v;
  float* workspace;
  float* out;
  float* lse = nullptr;    // [H, t_q] or nullptr: not kept
  float* heads = nullptr;  // [t_q, D] or nullptr: the heads go over q
};
size_t multi_head_streaming_workspace_floats(size_t t_k, size_t d_model, size_t heads);
Status multi_head_attention_forward_streaming(const MultiHeadArgs& a, const MultiHeadStreamingOutputs& o);

// ---- Positional encodings -----------------------------------------------------------------------
// Sinusoidal (Vaswani et al.), interleaved: PE[pos, 2i] = sin(pos / base^(2i/D)),
// PE[pos, 2i+1] = cos(pos / base^(2i/D)). out: [length, D].
Status sinusoidal_positional_encoding_forward(size_t length, size_t d_model, float base, float* out);

// RoPE: rotate pairs (2i, 2i+1) of each row of x [t, d] (d even) by angle (offset + row)·base^(−2i/d).
// In place when x == out.
Status rope_forward(const float* x, size_t t, size_t d, float base, size_t offset, float* out);

// ALiBi slopes for H heads (Press et al.: geometric 2^(−8/H·(h+1)) for H a power of two, the paper's
// interleaving otherwise) and the bias −m_h·|i − j| for every head: bias [H, t_q, t_k].
Status alibi_slopes(size_t heads, float* slopes);
float alibi_slope(size_t head, size_t heads);  // one head's slope, for 0 ≤ head < heads
Status alibi_bias(size_t heads, size_t t_q, size_t t_k, float* bias);

// ---- Add & Norm, feed-forward, blocks, embedding, output head, kernel regression ------------------
// Messages use the JS facade's argument names (weights.wq, ln1Gamma, …): the widgets show them as is.

// LayerNorm over the last dimension, as torch.nn.LayerNorm: y = (x − μ)/√(σ² + eps)·γ + β with the
// biased variance σ², computed in two passes (μ first, then Σ(x − μ)²) so that a large common offset
// does not cancel the variance away. x, out: [rows, dim] (in place when x == out); gamma, beta: [dim]
// or nullptr (γ = 1, β = 0). mean, rstd: [rows] or nullptr, kept for a backward pass (llm.c-style).
Status layer_norm_forward(const float* x, size_t rows, size_t dim, const float* gamma,
                          const float* beta, float eps, float* out, float* mean = nullptr,
                          float* rstd = nullptr);

// RMSNorm (Zhang & Sennrich): y = x / √(mean(x²) + eps)·γ. gamma: [dim] or nullptr.
// rstd: [rows] or nullptr, 1/√(mean(x²) + eps) kept for a backward pass.
Status rms_norm_forward(const float* x, size_t rows, size_t dim, const float* gamma, float eps,
                        float* out, float* rstd = nullptr);

// Element-wise activations: GELU exact x·Φ(x) (erf), its tanh approximation, ReLU.
enum class Activation { relu, gelu, gelu_tanh };
Status activation_forward(Activation kind, const float* x, size_t n, float* out);  // in place ok

// Position-wise feed-forward: pre = x·W1 + b1, activated = act(pre), out = activated·W2 + b2.
// x: [rows, D]; W1: [D, d_ff]; W2: [d_ff, D]; b1: [d_ff], b2: [D] or nullptr.
struct FeedForwardWeights {
  const float* w1; const float* b1 = nullptr;
  const float* w2; const float* b2 = nullptr;
};
struct FeedForwardOutputs {
  float* pre = nullptr;  // [rows, d_ff] x·W1 + b1, before the activation (nullptr: not kept)
  float* activated;      // [rows, d_ff] act(pre)
  float* out;            // [rows, D]
};
Status feed_forward_forward(const float* x, size_t rows, size_t d_model, size_t d_ff,
                            const FeedForwardWeights& w, Activation act, const FeedForwardOutputs& o);

// One Transformer encoder layer (torch.nn.TransformerEncoderLayer, dropout 0):
//   post-LN (the paper):  y = LN1(x + MHA(x));        out = LN2(y + FFN(y))
//   pre-LN (GPT):         y = x + MHA(LN1(x));        out = y + FFN(LN2(y))
// Every intermediate is an output (all required): the widgets show each step.
enum class NormPlacement { post, pre };
struct LayerNormWeights { const float* gamma = nullptr; const float* beta = nullptr; };  // [D]
struct EncoderBlockWeights {
  MultiHeadWeights attn;
  LayerNormWeights ln1, ln2;
  FeedForwardWeights ffn;
};
struct EncoderBlockArgs {
  const float* x; size_t t;              // x: [t, D]
  size_t d_model, heads, d_ff;
  NormPlacement norm = NormPlacement::post;
  Activation activation = Activation::relu;
  Mask mask;
  float eps = 1e-5f;
  EncoderBlockWeights w;
};
struct EncoderBlockOutputs {
  MultiHeadOutputs attn;    // q, k, v [t, D], weights [H, t, t], heads [t, D], out (= attnOut) [t, D]
  float* residual1;         // [t, D] x + attnOut
  float* norm1;             // [t, D] LN1(residual1) (post) | LN1(x) (pre)
  FeedForwardOutputs ffn;   // pre, activated [t, d_ff], out [t, D]
  float* residual2;         // [t, D] norm1 + ffnOut (post) | residual1 + ffnOut (pre)
  float* norm2;             // [t, D] LN2(residual2) (post) | LN2(residual1) (pre)
  float* out;               // [t, D] norm2 (post) | residual2 (pre)
};
Status encoder_block_forward(const EncoderBlockArgs& a, const EncoderBlockOutputs& o);

// One decoder layer (torch.nn.TransformerDecoderLayer, dropout 0): masked self-attention, then
// cross-attention (Q from the decoder stream, K and V from the encoder output `memory`), then FFN,
// each with Add & Norm. Pre-LN normalises the decoder stream only; memory enters as is.
struct DecoderBlockWeights {
  MultiHeadWeights self_attn, cross_attn;
  LayerNormWeights ln1, ln2, ln3;
  FeedForwardWeights ffn;
};
struct DecoderBlockArgs {
  const float* x; size_t t;              // x: [t, D]
  const float* memory; size_t t_m;       // memory: [t_m, D]
  size_t d_model, heads, d_ff;
  NormPlacement norm = NormPlacement::post;
  Activation activation = Activation::relu;
  Mask mask = Mask::Causal();            // self-attention mask
  float eps = 1e-5f;
  DecoderBlockWeights w;
};
struct DecoderBlockOutputs {
  MultiHeadOutputs self_attn;  // weights [H, t, t]
  float *residual1, *norm1; // [t, D]
  MultiHeadOutputs cross_attn;  // q [t, D], k, v [t_m, D], weights [H, t, t_m]
  float *residual2, *norm2; // [t, D]
  FeedForwardOutputs ffn;
  float *residual3, *norm3; // [t, D]
  float* out;               // [t, D]
};
Status decoder_block_forward(const DecoderBlockArgs& a, const DecoderBlockOutputs& o);

// Token embedding as a lookup: out[i, :] = W_E[ids[i], :] (= one-hot(ids[i])·W_E).
// table: [vocab, D]; ids: [n] in [0, vocab); out: [n, D].
Status embedding_forward(const float* table, size_t vocab, size_t d_model, const int* ids, size_t n,
                         float* out);

// Tied output head (Press & Wolf): logits = h·W_Eᵀ (+ bias), probs = softmax(logits / temperature).
// h: [rows, D]; table: [vocab, D]; bias: [vocab] or nullptr; logits, probs: [rows, vocab].
Status output_head_forward(const float* h, size_t rows, const float* table, size_t vocab,
                           size_t d_model, const float* bias, float temperature, float* logits,
                           float* probs);

// Softmax cross-entropy over the vocabulary, the mean over rows of −log softmax(logits[r])[targets[r]].
// logits: [rows, vocab]; targets: [rows] in [0, vocab). probs: [rows, vocab] softmax(logits), kept for
// the backward pass; loss: one float (computed with log-sum-exp in double). row_losses: [rows] or
// nullptr, each row's −log softmax[target] (then a row's loss past float32 is refused too).
Status softmax_cross_entropy_forward(const float* logits, size_t rows, size_t vocab, const int* targets,
                                     float* probs, float* loss, float* row_losses = nullptr);

// Nadaraya-Watson kernel regression, run by the attention code with another score f(Q, K):
// queries = Q [n_q, dim], xs = K [n, dim], ys = V [n, 1];
//   gaussian: scores = −‖x − x_i‖²     dot: scores = x·x_i
//   weights = softmax(scores / bandwidth) [n_q, n];  predictions = weights·ys [n_q]
enum class RegressionKernel { gaussian, dot };
Status kernel_regression_forward(const float* xs, const float* ys, size_t n, const float* queries,
                                 size_t n_q, size_t dim, RegressionKernel kernel, float bandwidth,
                                 float* scores, float* weights, float* predictions);

// ---- Shared checks --------------------------------------------------------------------------------
// The first non-finite value of x[0:n] (NaN or ±∞); allow_neg_inf accepts −∞ (masks).
// Returns n when all are acceptable.
size_t first_non_finite(const float* x, size_t n, bool allow_neg_inf = false);

// Whether this build runs the SIMD128 kernels (the WebAssembly build, and native builds through SIMDe)
// or their scalar twins. The bindings report it; nothing else needs the kernel headers.
bool uses_simd128();

// ---- Deprecated names (removed in 0.3) -------------------------------------------------------------
// One suffix per meaning: …Weights learned parameters, …Args a call's inputs, …Outputs result buffers.
// The old names below still compile for one release; new code uses the names on the right.
using AttentionOut = AttentionOutputs;                    // deprecated
using MultiHeadOut = MultiHeadOutputs;                    // deprecated
using MultiHeadStreamingOut = MultiHeadStreamingOutputs;  // deprecated
using FeedForwardOut = FeedForwardOutputs;                // deprecated (its hidden is now activated)
using EncoderBlockOut = EncoderBlockOutputs;              // deprecated
using DecoderBlockOut = DecoderBlockOutputs;              // deprecated
// deprecated: sinusoidal_positional_encoding_forward
inline Status sinusoidal_encoding(size_t length, size_t d_model, float base, float* out) {
  return sinusoidal_positional_encoding_forward(length, d_model, base, out);
}

}  // namespace attnlab
