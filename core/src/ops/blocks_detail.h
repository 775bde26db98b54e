// blocks_detail.h — unchecked internals shared by norm.cc, ffn.cc, block.cc and embedding.cc: the
// blocks check their arguments once, up front, then call these on buffers they know are valid.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <utility>

#include "attnlab/ops.h"

namespace attnlab::detail {

// out[rows, dim] = LayerNorm(x); gamma/beta may be nullptr; mean/rstd [rows] may be nullptr.
void layer_norm_rows(const float* x, size_t rows, size_t dim, const float* gamma, const float* beta,
                     float eps, float* out, float* mean, float* rstd);
void activation_inplace(Activation kind, float* x, size_t n);
// dpre (+)= act'(pre)·dout over [n]; in place (dout == dpre) when accumulate is false.
void activation_backward_rows(Activation kind, const float* pre, size_t n, const float* dout,
                              float* dpre, bool accumulate);
// pre may be nullptr (then activated holds x·W1 + b1 before the activation is applied in place).
void feed_forward_rows(const float* x, size_t rows, size_t d_model, size_t d_ff,
                       const FeedForwardWeights& w, Activation act, const FeedForwardOutputs& o);
// output_head_forward after its argument checks (logits overflow and the softmax included; probs
// nullptr: the logits only).
Status output_head_rows(const float* h, size_t rows, const float* table, size_t vocab, size_t d_model,
                        const float* bias, float temperature, float* logits, float* probs);
// out[n] = a[n] + b[n]: the residual connection.
inline void add_f32(size_t n, const float* a, const float* b, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// Checks an optional ([n] or nullptr) or required parameter: "<op>: <name> is missing" / "…[i] is NaN".
Status check_param(const char* op, const char* name, const float* p, size_t n, bool required);
// eps of a norm: a finite number > 0.
Status check_eps(const char* op, float eps);
// The checks the backward passes share: rows, dim > 0 with rows·dim fitting, and required buffers
// ("<op>: <name> is missing").
Status check_backward(const char* op, size_t rows, size_t dim,
                      std::initializer_list<std::pair<const char*, const void*>> required);

}  // namespace attnlab::detail
