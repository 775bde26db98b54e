// Position-wise feed-forward network, the same two-layer MLP applied to every token:
//   pre = x·W1 + b1  [rows, d_ff]  →  activated = act(pre)  →  out = activated·W2 + b2  [rows, D]
// (Messages still call the activated values "hidden", as the JS facade's users read them.)
#include <cstring>

#include "../kernels/dispatch.h"
#include "blocks_detail.h"
#include "check.h"

namespace attnlab {

namespace detail {

void feed_forward_rows(const float* x, size_t rows, size_t d_model, size_t d_ff,
                       const FeedForwardWeights& w, Activation act, const FeedForwardOutputs& o) {
  float* pre = o.pre ? o.pre : o.activated;
  kernels::gemm_nn_f32(rows, d_ff, d_model, x, d_model, w.w1, d_ff, w.b1, pre, d_ff);
  if (o.pre) std::memcpy(o.activated, o.pre, rows * d_ff * sizeof(float));
  activation_inplace(act, o.activated, rows * d_ff);
  kernels::gemm_nn_f32(rows, d_model, d_ff, o.activated, d_ff, w.w2, d_model, w.b2, o.out, d_model);
}

}  // namespace detail

Status feed_forward_forward(const float* x, size_t rows, size_t d_model, size_t d_ff,
                            const FeedForwardWeights& w, Activation act, const FeedForwardOutputs& o) {
  constexpr const char* op = "feedForward";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  ATTNLAB_CHECK(detail::check_positive(op, "dFF", d_ff));
  ATTNLAB_CHECK(detail::check_param(op, "x", x, rows * d_model, true));
  ATTNLAB_CHECK(detail::check_param(op, "w1", w.w1, d_model * d_ff, true));
  ATTNLAB_CHECK(detail::check_param(op, "b1", w.b1, d_ff, false));
  ATTNLAB_CHECK(detail::check_param(op, "w2", w.w2, d_ff * d_model, true));
  ATTNLAB_CHECK(detail::check_param(op, "b2", w.b2, d_model, false));
  if (!o.activated || !o.out) return Status::Fail(std::string(op) + ": an output buffer is missing");
  detail::feed_forward_rows(x, rows, d_model, d_ff, w, act, o);
  // Finite inputs can overflow float32 in x·W1 or activated·W2 (Inf, then NaN from GELU).
  if (o.pre) ATTNLAB_CHECK(detail::check_no_overflow(op, "pre", o.pre, rows * d_ff, "x·w1 + b1 within float32 range"));
  ATTNLAB_CHECK(detail::check_no_overflow(op, "hidden", o.activated, rows * d_ff, "x·w1 + b1 within float32 range"));
  return detail::check_no_overflow(op, "output", o.out, rows * d_model, "hidden·w2 + b2 within float32 range");
}

}  // namespace attnlab
