// multihead_detail.h — the parts of multi-head attention that the all-intermediates op
// (multihead.cc) and the streaming op (attention_streaming.cc) share.
#pragma once

#include "attnlab/ops.h"

namespace attnlab::detail {

// Every argument check of multiHeadAttention except the output buffers.
Status check_multihead_args(const MultiHeadArgs& a);

// Q = X·W_Q + b_Q [t_q, D], K = C·W_K + b_K and V = C·W_V + b_V [t_k, D] (C = context or X), then
// RoPE on each head of Q and K when a.rope. Unchecked.
void multihead_project(const MultiHeadArgs& a, float* q, float* k, float* v);

}  // namespace attnlab::detail
