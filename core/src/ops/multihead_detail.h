// multihead_detail.h — the parts of multi-head attention that the all-intermediates op
// (multihead.cc) and the streaming op (attention_streaming.cc) share.
#pragma once

#include "attnlab/backward.h"
#include "attnlab/ops.h"

namespace attnlab::detail {

// How a projection's W is stored. in_out: [n_in, n_out], x·W (the public ops' layout, the one training
// differentiates). out_in: transposed, [n_out, n_in]: each output is the dot product of x with one
// contiguous row, read as "nt" (a one-row product streams the rows in eight parts, as the tied head
// does: ~1.4x the bandwidth of the nn walk on GPT-2's W_O and MLP W_out). An inference-only model
// keeps W_O and W_out this way.
enum class WeightLayout { in_out, out_in };

// y [rows, n_out] = x [rows, n_in]·W + b (b [n_out] or nullptr), W stored as `layout` says. Either
// way each output is b[j] first, then + x[p]·W[p, j] for p = 0, 1, … in order: the two layouts give
// the same floats, bit for bit. Unchecked.
void linear_rows(const float* x, size_t rows, size_t n_in, size_t n_out, const float* w, WeightLayout layout,
                 const float* b, float* y);

// Every argument check of multiHeadAttention except the output buffers and the values' finiteness.
Status check_multihead_args(const MultiHeadArgs& a);

// x, context, weights and biases hold finite values. Run lazily: NaN and ±∞ propagate through
// X·W + b (NaN·w = NaN, ±∞·w = ±∞ or NaN, and every input value reaches some entry of q, k, v or the
// output), so finite results prove finite inputs. The ops check their results (which they must anyway,
// for float32 overflow) and run this scan only when a result is not finite, to name the culprit: the
// same messages as checking first, without scanning dModel² weights per call.
Status check_multihead_values(const MultiHeadArgs& a);

// OK when result r[0:n] is finite; else the input error (check_multihead_values) or, with finite
// inputs, "multiHeadAttention: <name>[i] is … after a float32 overflow, expected <hint>".
Status check_multihead_result(const MultiHeadArgs& a, const char* name, const float* r, size_t n,
                              const char* hint);

// The scale both paths use: a.scale, or 1/√d_k when a.scale ≤ 0.
float multihead_scale(const MultiHeadArgs& a);

// Everything that decides float32 overflow, after the projections and before any head is computed,
// in this order (the first failure's message): q, k, v finite (else the input error or the
// projection overflow; scanned only when a maximum below is not finite or before a refusal); each head's
// scores within float32 range (check_score_bound); weights·v (check_values_bound); the output
// Concat(heads)·W_O + b_O (each column bounded by Σ_d max|v[:, d]|·|wo[d, c]| + |bo[c]|, since a head
// is a convex combination of v's rows). Bounds from maxima, independent of summation order: both
// paths call this and so refuse exactly the same inputs. The output bound is first taken from
// D·max|v|·max|wo| + max|bo| (max|wo| and max|bo| from a.weight_bounds when they describe a.w, else
// read here); only when that exceeds FLT_MAX/2 are the per-column sums computed, which then decide.
// scratch: d_model floats (the output buffer).
// wo_layout: how a.w.wo is stored (the per-column sums read it either way).
Status check_multihead_bounds(const MultiHeadArgs& a, const float* q, const float* k, const float* v,
                              float* scratch, WeightLayout wo_layout = WeightLayout::in_out);

// multi_head_attention_forward with a.w.wo stored as wo_layout (the same checks, refusals, messages and
// floats; out_in: an inference-only model's W_O, layer.cc).
Status multi_head_attention_forward(const MultiHeadArgs& a, const MultiHeadOutputs& o, WeightLayout wo_layout);

// Q = X·W_Q + b_Q [t_q, D], K = C·W_K + b_K and V = C·W_V + b_V [t_k, D] (C = context or X), then
// RoPE on each head of Q and K when a.rope. Unchecked.
void multihead_project(const MultiHeadArgs& a, float* q, float* k, float* v);

// ---- Shared by the two backward passes (multihead.cc, attention_streaming.cc) ----
// The forward's argument rules (check_multihead_args) with messages under the backward's name `op`.
Status check_multihead_backward_args(const char* op, const MultiHeadArgs& a);

// c[0:n] += column sums of y [rows, n].
void add_column_sums(const float* y, size_t rows, size_t n, float* c);

// The backward of one projection Y = X·W + b, X [rows, D], W [D, D]: dW += Xᵀ·dY, db += Σ dY,
// dX += dY·Wᵀ (through tmp [rows, D]); dx, dw, db each nullptr when not wanted.
void projection_backward(const float* x, size_t rows, size_t D, const float* w, const float* dy,
                         float* dx, float* dw, float* db, float* tmp);

// After the heads' backward: dq [t_q, D] and dk [t_k, D] rotated back when RoPE is on, then the
// three projections' gradients (into g.dx, g.dcontext, g.dw*, g.db*); tmp: [max(t_q, t_k), D].
void multihead_qkv_backward(const MultiHeadArgs& a, float* dq, float* dk, const float* dv,
                            const MultiHeadGrads& g, float* tmp);

}  // namespace attnlab::detail
