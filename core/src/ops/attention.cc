// Scaled dot-product attention, step by step as the lecture draws it:
//   scores = Q·Kᵀ → scaled = scores·scale + M → weights = softmax(scaled) → out = weights·V
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "../kernels/dispatch.h"
#include "check.h"

namespace attnlab {

size_t first_non_finite(const float* x, size_t n, bool allow_neg_inf) {
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (std::isfinite(v)) continue;
    if (allow_neg_inf && v == -std::numeric_limits<float>::infinity()) continue;
    return i;
  }
  return n;
}

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Status check_attention(const AttentionArgs& a, const AttentionOut& o) {
  constexpr const char* op = "attention";
  ATTNLAB_CHECK(detail::check_positive(op, "tq", a.t_q));
  ATTNLAB_CHECK(detail::check_positive(op, "tk", a.t_k));
  ATTNLAB_CHECK(detail::check_positive(op, "dk", a.d_k));
  ATTNLAB_CHECK(detail::check_positive(op, "dv", a.d_v));
  ATTNLAB_CHECK(detail::check_not_null(op, "weights buffer", o.weights));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", o.out));
  if (!(std::isfinite(a.scale) && a.scale > 0.0f))
    return Status::Fail(std::string(op) + ": scale is " + detail::value_str(a.scale) +
                        ", expected a finite number > 0");
  if (a.mask.needs_square() && a.t_q != a.t_k)
    return Status::Fail(std::string(op) + ": a causal or window mask needs tq = tk, got tq = " +
                        std::to_string(a.t_q) + ", tk = " + std::to_string(a.t_k));
  if (a.mask.kind == Mask::Kind::window && a.mask.window < 0)
    return Status::Fail(std::string(op) + ": mask.window is " + std::to_string(a.mask.window) +
                        ", expected an integer ≥ 0");
  if (a.mask.kind == Mask::Kind::additive) {
    ATTNLAB_CHECK(detail::check_not_null(op, "mask", a.mask.additive));
    ATTNLAB_CHECK(detail::check_finite(op, "mask", a.mask.additive, a.t_q * a.t_k, true));
  }
  if (!(std::isfinite(a.alibi_slope) && a.alibi_slope >= 0.0f))
    return Status::Fail(std::string(op) + ": alibi slope is " + detail::value_str(a.alibi_slope) +
                        ", expected a finite number ≥ 0");
  ATTNLAB_CHECK(detail::check_finite_rows(op, "q", a.q, a.t_q, a.d_k, a.ldq));
  ATTNLAB_CHECK(detail::check_finite_rows(op, "k", a.k, a.t_k, a.d_k, a.ldk));
  ATTNLAB_CHECK(detail::check_finite_rows(op, "v", a.v, a.t_k, a.d_v, a.ldv));
  return Status::Ok();
}

}  // namespace

// The unchecked core, shared by attention_forward and the multi-head loop (which checks once).
void attention_forward_unchecked(const AttentionArgs& a, const AttentionOut& o) {
  const size_t tq = a.t_q, tk = a.t_k;
  // scores = Q·Kᵀ  [t_q, t_k]; written straight into weights when the caller does not keep them.
  float* s = o.scores ? o.scores : o.weights;
  kernels::gemm_nt_f32(tq, tk, a.d_k, a.q, a.ldq, a.k, a.ldk, s, tk);
  // scaled = scale·scores + M (+ ALiBi). A −∞ mask entry is assigned, not added, so an overflowed
  // +∞ score cannot turn a masked entry into NaN.
  const bool plain = a.mask.kind == Mask::Kind::none && a.alibi_slope == 0.0f;
  for (size_t i = 0; i < tq; ++i) {
    const float* si = s + i * tk;
    float* wi = o.weights + i * tk;
    if (plain) {
      for (size_t j = 0; j < tk; ++j) wi[j] = si[j] * a.scale;
      continue;
    }
    for (size_t j = 0; j < tk; ++j) {
      const float m = a.mask.bias(i, j, tk);
      if (m == kNegInf) {
        wi[j] = kNegInf;
        continue;
      }
      const float dist = std::fabs(static_cast<float>(i) - static_cast<float>(j));
      wi[j] = si[j] * a.scale + m - a.alibi_slope * dist;
    }
  }
  if (o.scaled) std::memcpy(o.scaled, o.weights, tq * tk * sizeof(float));
  // weights = softmax(scaled), row by row; a row with every key masked becomes zeros.
  kernels::softmax_rows_f32(tq, tk, o.weights, tk, o.weights, tk);
  // out = weights·V  [t_q, d_v]
  kernels::gemm_nn_f32(tq, a.d_v, tk, o.weights, tk, a.v, a.ldv, nullptr, o.out, o.ldo);
}

Status attention_forward(const AttentionArgs& a, const AttentionOut& o) {
  ATTNLAB_CHECK(check_attention(a, o));
  attention_forward_unchecked(a, o);
  return Status::Ok();
}

Status weighted_sum_forward(const float* weights, const float* v, size_t t_q, size_t t_k,
                            size_t d_v, float* out) {
  constexpr const char* op = "weightedSum";
  ATTNLAB_CHECK(detail::check_positive(op, "tq", t_q));
  ATTNLAB_CHECK(detail::check_positive(op, "tk", t_k));
  ATTNLAB_CHECK(detail::check_positive(op, "dv", d_v));
  ATTNLAB_CHECK(detail::check_finite(op, "weights", weights, t_q * t_k));
  ATTNLAB_CHECK(detail::check_finite(op, "v", v, t_k * d_v));
  kernels::gemm_nn_f32(t_q, d_v, t_k, weights, t_k, v, d_v, nullptr, out, d_v);
  return Status::Ok();
}

}  // namespace attnlab
