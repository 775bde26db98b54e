// Scaled dot-product attention, step by step as the lecture draws it:
//   scores = Q·Kᵀ → scaled = scores·scale + M → weights = softmax(scaled) → out = weights·V
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "../kernels/dispatch.h"
#include "attnlab/backward.h"
#include "check.h"

namespace attnlab {

size_t first_non_finite(const float* x, size_t n, bool allow_neg_inf) {
  // Every check of an input or a result goes through here, so it is a SIMD kernel.
  return kernels::first_non_finite_f32(x, n, allow_neg_inf);
}

bool uses_simd128() { return kernels::kUsesSimd128; }

namespace {

// The sizes and row strides of an attention call and of its output (or output-gradient) rows, named
// `out_ld` in messages: forward and backward check them alike. No buffer's byte count may wrap size_t
// (32-bit on wasm32).
Status check_attention_shape(const char* op, const AttentionArgs& a, size_t out_ld, const char* out_ld_name) {
  ATTNLAB_CHECK(detail::check_positive(op, "tq", a.t_q));
  ATTNLAB_CHECK(detail::check_positive(op, "tk", a.t_k));
  ATTNLAB_CHECK(detail::check_positive(op, "dk", a.d_k));
  ATTNLAB_CHECK(detail::check_positive(op, "dv", a.d_v));
  const struct { const char* name; size_t ld, width; const char* width_name; } strides[] = {
      {"ldq", a.ldq, a.d_k, "dk"}, {"ldk", a.ldk, a.d_k, "dk"}, {"ldv", a.ldv, a.d_v, "dv"},
      {out_ld_name, out_ld, a.d_v, "dv"}};
  for (const auto& st : strides)
    if (st.ld < st.width)
      return Status::Fail(std::string(op) + ": " + st.name + " is " + std::to_string(st.ld) +
                          ", expected a row stride ≥ " + st.width_name + " = " + std::to_string(st.width));
  ATTNLAB_CHECK(detail::check_count(op, "tq·tk", {a.t_q, a.t_k}));
  ATTNLAB_CHECK(detail::check_count(op, "tq·ldq", {a.t_q, a.ldq}));
  ATTNLAB_CHECK(detail::check_count(op, "tk·ldk", {a.t_k, a.ldk}));
  ATTNLAB_CHECK(detail::check_count(op, "tk·ldv", {a.t_k, a.ldv}));
  return detail::check_count(op, (std::string("tq·") + out_ld_name).c_str(), {a.t_q, out_ld});
}

Status check_attention(const AttentionArgs& a, const AttentionOutputs& o) {
  constexpr const char* op = "attention";
  ATTNLAB_CHECK(check_attention_shape(op, a, o.ldo, "ldo"));
  ATTNLAB_CHECK(detail::check_not_null(op, "weights buffer", o.weights));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", o.out));
  if (!(std::isfinite(a.scale) && a.scale > 0.0f))
    return Status::Fail(std::string(op) + ": scale is " + detail::value_str(a.scale) +
                        ", expected a finite number > 0");
  ATTNLAB_CHECK(detail::check_mask(op, a.mask, a.t_q, a.t_k));
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
void attention_forward_unchecked(const AttentionArgs& a, const AttentionOutputs& o) {
  const size_t tq = a.t_q, tk = a.t_k;
  // scores = Q·Kᵀ  [t_q, t_k]; written straight into weights when the caller does not keep them.
  float* s = o.scores ? o.scores : o.weights;
  if (a.score == AttentionArgs::Score::neg_sq_dist)
    kernels::neg_sq_dist_nt_f32(tq, tk, a.d_k, a.q, a.ldq, a.k, a.ldk, s, tk);
  else
    kernels::gemm_nt_f32(tq, tk, a.d_k, a.q, a.ldq, a.k, a.ldk, s, tk);
  // scaled = scale·scores + M (+ ALiBi) (kernels.h: a −∞ mask entry is assigned, not added).
  // A NaN score can only come from float32 overflow (+∞ and −∞ terms in q·k), even where a mask
  // removes the entry afterwards; the SIMD softmax assumes NaN-free input and would hide it. The
  // dot-product callers refuse such inputs before computing (check_score_bound); as a second line the
  // scaling pass reports any NaN and the results are poisoned, which the checked callers then refuse
  // with a message.
  const bool nan = kernels::scale_mask_f32(tq, tk, s, tk, a.scale, a.mask, a.alibi_slope, 0, 0, tk,
                                           o.weights, tk);
  if (o.scaled) std::memcpy(o.scaled, o.weights, tq * tk * sizeof(float));
  if (nan) {
    for (size_t i = 0; i < tq * tk; ++i) o.weights[i] = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i < tq; ++i)
      for (size_t c = 0; c < a.d_v; ++c) o.out[i * o.ldo + c] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  // weights = softmax(scaled), row by row; a row with every key masked becomes zeros.
  kernels::softmax_rows_f32(tq, tk, o.weights, tk, o.weights, tk);
  // out = weights·V  [t_q, d_v]
  kernels::gemm_nn_f32(tq, a.d_v, tk, o.weights, tk, a.v, a.ldv, nullptr, o.out, o.ldo);
}

Status attention_forward(const AttentionArgs& a, const AttentionOutputs& o) {
  ATTNLAB_CHECK(check_attention(a, o));
  // Scores or outputs that could overflow float32 are refused before computing (check.h), by the same
  // bounds as multi-head attention.
  ATTNLAB_CHECK(detail::check_score_bound("attention", -1, a.q, a.ldq, a.t_q, a.k, a.ldk, a.t_k, a.d_k,
                                          a.scale, detail::bias_bound(a.mask, a.t_q, a.t_k, a.alibi_slope),
                                          detail::bias_terms(a.mask, a.alibi_slope)));
  ATTNLAB_CHECK(detail::check_values_bound("attention", a.v, a.ldv, a.t_k, a.d_v));
  attention_forward_unchecked(a, o);
  // Defensive: with the bounds above these cannot fire; a NaN or ±∞ result is never handed back.
  ATTNLAB_CHECK(detail::check_no_overflow("attention", "weights", o.weights, a.t_q * a.t_k,
                                          "q·kᵀ within float32 range (|q|·|k| < 3.4e38)"));
  for (size_t i = 0; i < a.t_q; ++i)
    ATTNLAB_CHECK(detail::check_no_overflow("attention", "output", o.out + i * o.ldo, a.d_v,
                                            "values v within float32 range"));
  return Status::Ok();
}

// ---- Backward: softmax rows, then attention ---------------------------------------------------------

// dx (+= or =, see overwrite) y·(dy − Σ y·dy) per row. A masked entry has y = 0 and a fully masked
// row is all zeros, so both get 0. In place when dx == dy (then overwrite must be true).
void softmax_rows_backward_unchecked(const float* y, size_t rows, size_t cols, const float* dy,
                                     float* dx, bool overwrite) {
  for (size_t i = 0; i < rows; ++i) {
    const float* yi = y + i * cols;
    const float* dyi = dy + i * cols;
    float* dxi = dx + i * cols;
    float dot = 0.0f;
    for (size_t j = 0; j < cols; ++j) dot += yi[j] * dyi[j];
    for (size_t j = 0; j < cols; ++j) {
      const float g = yi[j] * (dyi[j] - dot);
      dxi[j] = overwrite ? g : dxi[j] + g;
    }
  }
}

Status softmax_rows_backward(const float* weights, size_t rows, size_t cols, const float* dweights,
                             float* dscaled) {
  constexpr const char* op = "softmaxBackward";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "cols", cols));
  ATTNLAB_CHECK(detail::check_count(op, "rows·cols", {rows, cols}));
  ATTNLAB_CHECK(detail::check_not_null(op, "weights", weights));
  ATTNLAB_CHECK(detail::check_not_null(op, "dweights", dweights));
  ATTNLAB_CHECK(detail::check_not_null(op, "dscaled", dscaled));
  softmax_rows_backward_unchecked(weights, rows, cols, dweights, dscaled, dscaled == dweights);
  return Status::Ok();
}

// Unchecked, shared with multi-head attention: scratch [t_q, t_k].
//   dweights = dout·Vᵀ;  dV += weightsᵀ·dout;  dscaled = softmax'(dweights);
//   dscores = scale·dscaled (mask and ALiBi are constants);  dQ += dscores·K;  dK += dscoresᵀ·Q.
void attention_backward_unchecked(const AttentionArgs& a, const float* weights, const float* dout,
                                  size_t lddo, const AttentionGrads& g, float* scratch) {
  const size_t tq = a.t_q, tk = a.t_k;
  kernels::gemm_nt_f32(tq, tk, a.d_v, dout, lddo, a.v, a.ldv, scratch, tk);
  if (g.dv) kernels::gemm_tn_acc_f32(tk, a.d_v, tq, weights, tk, dout, lddo, g.dv, a.ldv);
  if (!g.dq && !g.dk) return;
  softmax_rows_backward_unchecked(weights, tq, tk, scratch, scratch, true);
  for (size_t i = 0; i < tq * tk; ++i) scratch[i] *= a.scale;
  if (g.dq) kernels::gemm_nn_acc_f32(tq, a.d_k, tk, scratch, tk, a.k, a.ldk, g.dq, a.ldq);
  if (g.dk) kernels::gemm_tn_acc_f32(tk, a.d_k, tq, scratch, tk, a.q, a.ldq, g.dk, a.ldk);
}

Status attention_backward(const AttentionArgs& a, const float* weights, const float* dout, size_t lddo,
                          const AttentionGrads& g, float* scratch) {
  constexpr const char* op = "attentionBackward";
  ATTNLAB_CHECK(check_attention_shape(op, a, lddo, "lddo"));
  if (a.score != AttentionArgs::Score::dot)
    return Status::Fail(std::string(op) + ": score is neg_sq_dist, expected dot (the only score with a backward pass)");
  if (!(std::isfinite(a.scale) && a.scale > 0.0f))
    return Status::Fail(std::string(op) + ": scale is " + detail::value_str(a.scale) +
                        ", expected a finite number > 0");
  const struct { const char* name; const void* p; } needed[] = {
      {"q", a.q}, {"k", a.k}, {"v", a.v}, {"weights", weights}, {"dout", dout}, {"scratch", scratch}};
  for (const auto& n : needed) ATTNLAB_CHECK(detail::check_not_null(op, n.name, n.p));
  attention_backward_unchecked(a, weights, dout, lddo, g, scratch);
  return Status::Ok();
}

Status weighted_sum_forward(const float* weights, const float* v, size_t t_q, size_t t_k,
                            size_t d_v, float* out) {
  constexpr const char* op = "weightedSum";
  ATTNLAB_CHECK(detail::check_positive(op, "tq", t_q));
  ATTNLAB_CHECK(detail::check_positive(op, "tk", t_k));
  ATTNLAB_CHECK(detail::check_positive(op, "dv", d_v));
  ATTNLAB_CHECK(detail::check_count(op, "tq·tk", {t_q, t_k}));  // no size_t wrap
  ATTNLAB_CHECK(detail::check_count(op, "tk·dv", {t_k, d_v}));
  ATTNLAB_CHECK(detail::check_count(op, "tq·dv", {t_q, d_v}));
  ATTNLAB_CHECK(detail::check_finite(op, "weights", weights, t_q * t_k));
  ATTNLAB_CHECK(detail::check_finite(op, "v", v, t_k * d_v));
  kernels::gemm_nn_f32(t_q, d_v, t_k, weights, t_k, v, d_v, nullptr, out, d_v);
  return detail::check_no_overflow(op, "output", out, t_q * d_v,
                                   "weights·v within float32 range (|output| < 3.4e38)");
}

}  // namespace attnlab
