// Position-wise feed-forward network, the same two-layer MLP applied to every token:
//   pre = x·W1 + b1  [rows, d_ff]  →  activated = act(pre)  →  out = activated·W2 + b2  [rows, D]
// (Messages still call the activated values "hidden", as the JS facade's users read them.)
#include <cstring>

#include "../kernels/dispatch.h"
#include "attnlab/backward.h"
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

// Backward, from the output down (R = rows, F = d_ff):
//   db2 += Σ_rows dout                 dW2 += activatedᵀ·dout   [F, D]
//   dact  = dout·W2ᵀ        [R, F]     dpre  = act'(pre)·dact   (in scratch)
//   db1 += Σ_rows dpre                 dW1 += xᵀ·dpre           [D, F]
//   dx   += dpre·W1ᵀ        [R, D]
// The weight gradients run on the "tn" GEMM kernel, dx's dpre·W1ᵀ on the accumulating "nt" one; the
// bias sums are plain loops along contiguous rows.
Status feed_forward_backward(const float* x, size_t rows, size_t d_model, size_t d_ff,
                             const FeedForwardWeights& w, Activation act, const float* pre,
                             const float* activated, const float* dout, float* dx,
                             const FeedForwardGrads& g, float* scratch) {
  constexpr const char* op = "feedForwardBackward";
  const size_t R = rows, D = d_model, F = d_ff;
  ATTNLAB_CHECK(detail::check_backward(op, R, D, {{"x", x}, {"weights.w1", w.w1}, {"weights.w2", w.w2},
                                                  {"pre", pre}, {"activated", activated}, {"dout", dout},
                                                  {"scratch", scratch}}));
  ATTNLAB_CHECK(detail::check_positive(op, "dFF", F));
  ATTNLAB_CHECK(detail::check_count(op, "rows·dFF", {R, F}));
  ATTNLAB_CHECK(detail::check_count(op, "dModel·dFF", {D, F}));

  if (g.db2 && w.b2)
    for (size_t r = 0; r < R; ++r)
      for (size_t j = 0; j < D; ++j) g.db2[j] += dout[r * D + j];
  if (g.dw2) kernels::gemm_tn_acc_f32(F, D, R, activated, F, dout, D, g.dw2, D);  // dW2 += activatedᵀ·dout
  kernels::gemm_nt_f32(R, F, D, dout, D, w.w2, D, scratch, F);  // dact = dout·W2ᵀ (W2 is [F, D])
  detail::activation_backward_rows(act, pre, R * F, scratch, scratch, false);  // dpre, in place
  if (g.db1 && w.b1)
    for (size_t r = 0; r < R; ++r)
      for (size_t f = 0; f < F; ++f) g.db1[f] += scratch[r * F + f];
  if (g.dw1) kernels::gemm_tn_acc_f32(D, F, R, x, D, scratch, F, g.dw1, F);  // dW1 += xᵀ·dpre
  if (dx) kernels::gemm_nt_acc_f32(R, D, F, scratch, F, w.w1, F, dx, D);  // dx += dpre·W1ᵀ (W1 is [D, F])
  return Status::Ok();
}

}  // namespace attnlab
