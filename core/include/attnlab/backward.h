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

}  // namespace attnlab
