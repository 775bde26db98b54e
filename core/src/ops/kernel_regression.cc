// Nadaraya-Watson kernel regression is attention with another score function f(Q, K) (the Slidev
// deck's example): queries are Q, the training inputs x_i are K, their targets y_i are V.
//   gaussian:  f(x, x_i) = −‖x − x_i‖²      dot:  f(x, x_i) = x·x_i
//   weights = softmax(f / bandwidth),  prediction = Σ_i weights_i·y_i
// It runs attention_forward_unchecked itself, only the score differs.
#include <cmath>
#include <string>

#include "check.h"

namespace attnlab {

void attention_forward_unchecked(const AttentionArgs& a, const AttentionOutputs& o);  // attention.cc

Status kernel_regression_forward(const float* xs, const float* ys, size_t n, const float* queries,
                                 size_t n_q, size_t dim, RegressionKernel kernel, float bandwidth,
                                 float* scores, float* weights, float* predictions) {
  constexpr const char* op = "kernelRegression";
  ATTNLAB_CHECK(detail::check_positive(op, "xs.length", n));
  ATTNLAB_CHECK(detail::check_positive(op, "queries.length", n_q));
  ATTNLAB_CHECK(detail::check_positive(op, "dim", dim));
  if (!(std::isfinite(bandwidth) && bandwidth > 0.0f))
    return Status::Fail(std::string(op) + ": bandwidth is " + detail::value_str(bandwidth) +
                        ", expected a finite number > 0");
  ATTNLAB_CHECK(detail::check_not_null(op, "xs", xs));
  ATTNLAB_CHECK(detail::check_not_null(op, "ys", ys));
  ATTNLAB_CHECK(detail::check_not_null(op, "queries", queries));
  ATTNLAB_CHECK(detail::check_finite(op, "xs", xs, n * dim));
  ATTNLAB_CHECK(detail::check_finite(op, "ys", ys, n));
  ATTNLAB_CHECK(detail::check_finite(op, "queries", queries, n_q * dim));
  if (!weights || !predictions) return Status::Fail(std::string(op) + ": an output buffer is missing");

  AttentionArgs a{queries, dim, xs, dim, ys, 1, n_q, n, dim, 1, 1.0f / bandwidth, Mask::None()};
  a.score = kernel == RegressionKernel::gaussian ? AttentionArgs::Score::neg_sq_dist
                                                 : AttentionArgs::Score::dot;
  AttentionOutputs o;
  o.scores = scores;
  o.weights = weights;
  o.out = predictions;
  o.ldo = 1;
  attention_forward_unchecked(a, o);
  // x·x_i can overflow float32 (NaN from +∞ and −∞ terms): refuse rather than return NaN.
  ATTNLAB_CHECK(detail::check_no_overflow(op, "weights", weights, n_q * n, "queries·xsᵀ within float32 range"));
  return detail::check_no_overflow(op, "predictions", predictions, n_q, "ys within float32 range");
}

}  // namespace attnlab
