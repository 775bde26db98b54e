// attnlab/backward.h — the backward passes of the pointer-level ops (ops.h), llm.c-style: each
// <op>_backward sits beside its <op>_forward in the same core/src/ops/*.cc file.
//
// Conventions, for every function here:
//   - the arguments are the forward's inputs, the values the forward kept for the backward pass (LayerNorm's
//     mean and rstd, the activation's input `pre`, …) and the upstream gradient d<output>;
//   - gradients ACCUMULATE: d<input> += …, d<param> += … (zero them once per step; a tensor used twice,
//     such as a residual stream, then gets the sum of both uses for free);
//   - a gradient pointer may be nullptr when that gradient is not wanted (where the comment says so);
//   - no allocation: a function that needs scratch takes it as an argument, with its size stated;
//   - a Status with "<op>Backward: <argument> …, expected …" on bad sizes or missing buffers. Values are
//     not re-checked for finiteness (the forward checked them; a training step checks its loss and
//     gradient norm).
// Shapes use the letters of ops.h: rows = tokens, dim = D = d_model, d_ff = the feed-forward width.
#pragma once

#include <cstddef>

#include "attnlab/ops.h"
#include "attnlab/status.h"

namespace attnlab {

// ---- Norms, activations, feed-forward, residual (core/src/ops/norm.cc, ffn.cc, block.cc) -----------

// LayerNorm. x: [rows, dim]; gamma: [dim] or nullptr (γ = 1); mean, rstd: [rows] as layer_norm_forward
// returned them; dout: [rows, dim]. dx: [rows, dim] (+=); dgamma, dbeta: [dim] (+=) or nullptr.
Status layer_norm_backward(const float* x, size_t rows, size_t dim, const float* gamma,
                           const float* mean, const float* rstd, const float* dout, float* dx,
                           float* dgamma, float* dbeta);

// RMSNorm. x: [rows, dim]; gamma: [dim] or nullptr; rstd: [rows] = 1/√(mean(x²) + eps) as
// rms_norm_forward returned it; dout: [rows, dim]. dx: [rows, dim] (+=); dgamma: [dim] (+=) or nullptr.
Status rms_norm_backward(const float* x, size_t rows, size_t dim, const float* gamma,
                         const float* rstd, const float* dout, float* dx, float* dgamma);

// Element-wise activation (GELU exact, GELU tanh, ReLU; ReLU'(0) = 0 as in PyTorch).
// pre: [n] the activation's input; dout: [n]. dpre: [n] (+=).
Status activation_backward(Activation kind, const float* pre, size_t n, const float* dout, float* dpre);

// Feed-forward: pre = x·W1 + b1, activated = act(pre), out = activated·W2 + b2.
// x: [rows, D]; w as in the forward; pre, activated: [rows, d_ff] as the forward kept them;
// dout: [rows, D]. dx: [rows, D] (+=) or nullptr; g.dw1 [D, d_ff], g.db1 [d_ff], g.dw2 [d_ff, D],
// g.db2 [D] (+=), each nullptr when not wanted (db1/db2 ignored when the forward had no bias).
// scratch: [rows, d_ff] floats, overwritten (holds d pre on return).
struct FeedForwardGrads {
  float* dw1 = nullptr; float* db1 = nullptr;
  float* dw2 = nullptr; float* db2 = nullptr;
};
Status feed_forward_backward(const float* x, size_t rows, size_t d_model, size_t d_ff,
                             const FeedForwardWeights& w, Activation act, const float* pre,
                             const float* activated, const float* dout, float* dx,
                             const FeedForwardGrads& g, float* scratch);

// Residual connection out = a + b: da += dout, db += dout. dout, da, db: [n]; da or db may be nullptr.
Status residual_backward(const float* dout, size_t n, float* da, float* db);

// ---- Attention side: softmax, attention, multi-head, RoPE, embedding, tied head, loss ---------------
// (core/src/ops/attention.cc, multihead.cc, positional.cc, embedding.cc)

// Row-wise softmax y = softmax(x): dx[i, j] += y[i, j]·(dy[i, j] − Σ_k y[i, k]·dy[i, k]).
// weights (y), dweights (dy), dscaled (dx): [rows, cols] contiguous. Masked entries (y = 0) and fully
// masked rows (all zeros) get zero gradient. dscaled may equal dweights (in place, then overwritten
// rather than accumulated).
Status softmax_rows_backward(const float* weights, size_t rows, size_t cols, const float* dweights,
                             float* dscaled);

// Scaled dot-product attention (Score::dot), the forward's AttentionArgs a and its weights
// [t_q, t_k] (contiguous). dout: [t_q, d_v] with row stride lddo. Accumulates dq [t_q, d_k],
// dk [t_k, d_k], dv [t_k, d_v] with the row strides of q, k, v (a.ldq, a.ldk, a.ldv); each nullptr
// when not wanted. The mask and the ALiBi bias are constants (no gradient); a fully masked row has
// zero weights, so its query gets zero gradient. scratch: [t_q, t_k] floats, overwritten.
struct AttentionGrads {
  float* dq = nullptr;
  float* dk = nullptr;
  float* dv = nullptr;
};
Status attention_backward(const AttentionArgs& a, const float* weights, const float* dout, size_t lddo,
                          const AttentionGrads& g, float* scratch);

// Multi-head attention (self or cross, biases, masks, RoPE, ALiBi), from the forward's
// MultiHeadArgs a and the buffers it filled: saved.q, saved.k (after RoPE), saved.v, saved.weights
// [H, t_q, t_k] and saved.heads [t_q, D] (saved.scores and saved.out are not read). dout: [t_q, D].
// Accumulates dx [t_q, D] (self-attention: all three projections' share), dcontext [t_k, D] (cross:
// keys' and values' share), dwq, dwk, dwv, dwo [D, D], dbq, dbk, dbv, dbo [D]; each nullptr when not
// wanted (bias gradients are computed whether or not the forward had biases).
// workspace: multi_head_backward_workspace_floats(t_q, t_k, D) floats, overwritten.
struct MultiHeadGrads {
  float* dx = nullptr;
  float* dcontext = nullptr;
  float *dwq = nullptr, *dwk = nullptr, *dwv = nullptr, *dwo = nullptr;
  float *dbq = nullptr, *dbk = nullptr, *dbv = nullptr, *dbo = nullptr;
};
size_t multi_head_backward_workspace_floats(size_t t_q, size_t t_k, size_t d_model);  // SIZE_MAX: overflow
Status multi_head_attention_backward(const MultiHeadArgs& a, const MultiHeadOutputs& saved,
                                    const float* dout, const MultiHeadGrads& g, float* workspace);

// Streaming multi-head attention (core/src/ops/attention_streaming.cc), FlashAttention-2 style: the
// same gradients as multi_head_attention_backward (every option) without the [H, t_q, t_k] weights.
// saved: the buffers multi_head_attention_forward_streaming filled with lse and heads given:
// saved.q (Q after RoPE, kept because heads was given), saved.k, saved.v, saved.lse [H, t_q],
// saved.heads [t_q, D] (saved.workspace and saved.out are not read). Per head, query blocks meet the
// key blocks the mask leaves (the forward's blocks), and each tile's scores are recomputed:
//   P = exp(scale·Q·Kᵀ + M − lse);  dV += Pᵀ·dO;  dP = dO·Vᵀ;  dS = P∘(dP − rowsum(dO∘O))·scale;
//   dQ += dS·K;  dK += dSᵀ·Q
// then RoPE and the projections as the all-intermediates backward. dout, g: as there.
// workspace: multi_head_streaming_backward_workspace_floats(t_q, t_k, D) floats, overwritten:
// O((t_q + t_k)·D) plus two block tiles, whatever H.
size_t multi_head_streaming_backward_workspace_floats(size_t t_q, size_t t_k, size_t d_model);  // SIZE_MAX: overflow
Status multi_head_attention_backward_streaming(const MultiHeadArgs& a, const MultiHeadStreamingOutputs& saved,
                                              const float* dout, const MultiHeadGrads& g, float* workspace);

// RoPE (rope_forward): a rotation, so dx += R(−θ)·dout. dout, dx: [t, d]; same base and offset.
Status rope_backward(const float* dout, size_t t, size_t d, float base, size_t offset, float* dx);

// Token embedding: scatter-add, dtable[ids[i], :] += dout[i, :]. ids: [n]; dout: [n, D];
// dtable: [vocab, D].
Status embedding_backward(const int* ids, size_t n, size_t vocab, size_t d_model, const float* dout,
                          float* dtable);

// Tied output head, logits = h·W_Eᵀ + b (output_head_forward's logits; the temperature only shapes the
// displayed probs). dlogits: [rows, vocab]. dh [rows, D] += dlogits·W_E; dtable [vocab, D] +=
// dlogitsᵀ·h; dbias [vocab] += Σ_rows dlogits; each nullptr when not wanted.
Status output_head_backward(const float* h, size_t rows, const float* table, size_t vocab,
                            size_t d_model, const float* dlogits, float* dh, float* dtable,
                            float* dbias);

// Softmax cross-entropy (softmax_cross_entropy_forward in ops.h): probs as that forward returned them.
// dlogits [rows, vocab] += dloss/rows·(probs − one-hot(targets)); dloss is usually 1.
Status softmax_cross_entropy_backward(const float* probs, size_t rows, size_t vocab, const int* targets,
                                      float dloss, float* dlogits);

}  // namespace attnlab
