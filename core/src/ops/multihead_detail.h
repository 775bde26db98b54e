// multihead_detail.h — the parts of multi-head attention that the all-intermediates op
// (multihead.cc) and the streaming op (attention_streaming.cc) share.
#pragma once

#include "attnlab/ops.h"

namespace attnlab::detail {

// Every argument check of multiHeadAttention except the output buffers and the values' finiteness.
Status check_multihead_args(const MultiHeadArgs& a);

// issue 6: x, context, weights and biases hold finite values. Run lazily: NaN and ±∞ propagate through
// X·W + b (NaN·w = NaN, ±∞·w = ±∞ or NaN, and every input value reaches some entry of q, k, v or the
// output), so finite results prove finite inputs. The ops check their results (which they must anyway,
// for float32 overflow) and run this scan only when a result is not finite, to name the culprit: the
// same messages as checking first, without scanning dModel² weights per call.
Status check_multihead_values(const MultiHeadArgs& a);

// OK when result r[0:n] is finite; else the input error (check_multihead_values) or, with finite
// inputs, "multiHeadAttention: <name>[i] is … after a float32 overflow, expected <hint>".
Status check_multihead_result(const MultiHeadArgs& a, const char* name, const float* r, size_t n,
                              const char* hint);

// Q = X·W_Q + b_Q [t_q, D], K = C·W_K + b_K and V = C·W_V + b_V [t_k, D] (C = context or X), then
// RoPE on each head of Q and K when a.rope. Unchecked.
void multihead_project(const MultiHeadArgs& a, float* q, float* k, float* v);

}  // namespace attnlab::detail
