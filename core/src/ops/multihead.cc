// Multi-head attention (self and cross):
//   Q = X·W_Q + b_Q, K = C·W_K + b_K, V = C·W_V + b_V        (C = X for self-attention)
//   head_h = Attention(Q[:, h], K[:, h], V[:, h])              (columns [h·d_k, (h+1)·d_k))
//   out = Concat(head_1 … head_H)·W_O + b_O
// Heads are column slices addressed by row stride: nothing is copied or re-laid out.
#include <cfloat>
#include <cmath>
#include <string>

#include "../kernels/dispatch.h"
#include "attnlab/backward.h"
#include "check.h"
#include "multihead_detail.h"
#include "positional_detail.h"

namespace attnlab {

void attention_forward_unchecked(const AttentionArgs& a, const AttentionOutputs& o);  // attention.cc
void attention_backward_unchecked(const AttentionArgs& a, const float* weights, const float* dout,
                                  size_t lddo, const AttentionGrads& g, float* scratch);  // attention.cc

// The argument checks shared with the streaming op (multihead_detail.h).
Status detail::check_multihead_args(const MultiHeadArgs& a) {
  constexpr const char* op = "multiHeadAttention";
  const size_t D = a.d_model;
  ATTNLAB_CHECK(detail::check_positive(op, "tq", a.t_q));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", D));
  ATTNLAB_CHECK(detail::check_positive(op, "heads", a.heads));
  ATTNLAB_CHECK(detail::check_heads_divide(op, D, a.heads));
  const size_t tk = a.context ? a.t_k : a.t_q;
  ATTNLAB_CHECK(detail::check_positive(op, "tk", tk));
  // No buffer's byte count may wrap size_t (32-bit on wasm32). The [heads, tq, tk] weights
  // exist only in the all-intermediates path (check_multihead); the streaming path never holds them,
  // so it needs only the additive mask's [tq, tk] to fit.
  if (a.mask.kind == Mask::Kind::additive) ATTNLAB_CHECK(detail::check_count(op, "tq·tk", {a.t_q, tk}));
  ATTNLAB_CHECK(detail::check_count(op, "tq·dModel", {a.t_q, D}));
  ATTNLAB_CHECK(detail::check_count(op, "tk·dModel", {tk, D}));
  ATTNLAB_CHECK(detail::check_count(op, "dModel·dModel", {D, D}));
  ATTNLAB_CHECK(detail::check_mask(op, a.mask, a.t_q, tk));
  if (!std::isfinite(a.scale) || a.scale < 0.0f)
    return Status::Fail(std::string(op) + ": scale is " + detail::value_str(a.scale) +
                        ", expected a finite number > 0");
  if (a.rope) {
    ATTNLAB_CHECK(detail::check_rope_head_width(op, D / a.heads));
    ATTNLAB_CHECK(detail::check_base(op, "rope base", a.rope_base));
  }
  ATTNLAB_CHECK(detail::check_alibi_self_attention(op, a.alibi, a.context != nullptr));
  ATTNLAB_CHECK(detail::check_not_null(op, "wq", a.w.wq));
  ATTNLAB_CHECK(detail::check_not_null(op, "wk", a.w.wk));
  ATTNLAB_CHECK(detail::check_not_null(op, "wv", a.w.wv));
  return detail::check_not_null(op, "wo", a.w.wo);
}

// The finiteness of x, context, weights and biases, checked after the computation and only when a
// result is not finite (see multihead_detail.h). 16 K weights scanned on every call were 8 %
// of a (16, 64, 4) call.
Status detail::check_multihead_values(const MultiHeadArgs& a) {
  constexpr const char* op = "multiHeadAttention";
  const size_t D = a.d_model, tk = a.context ? a.t_k : a.t_q;
  ATTNLAB_CHECK(detail::check_finite(op, "x", a.x, a.t_q * D));
  if (a.context) ATTNLAB_CHECK(detail::check_finite(op, "context", a.context, tk * D));
  const struct { const char* name; const float* p; size_t n; } params[] = {
      {"wq", a.w.wq, D * D}, {"wk", a.w.wk, D * D}, {"wv", a.w.wv, D * D}, {"wo", a.w.wo, D * D},
      {"bq", a.w.bq, D},     {"bk", a.w.bk, D},     {"bv", a.w.bv, D},     {"bo", a.w.bo, D}};
  for (const auto& p : params)
    if (p.p) ATTNLAB_CHECK(detail::check_finite(op, p.name, p.p, p.n));
  return Status::Ok();
}

Status detail::check_multihead_result(const MultiHeadArgs& a, const char* name, const float* r, size_t n,
                                      const char* hint) {
  const Status overflow = detail::check_no_overflow("multiHeadAttention", name, r, n, hint);
  if (overflow.ok) return overflow;
  ATTNLAB_CHECK(check_multihead_values(a));  // a non-finite input is named as such
  return overflow;
}

float detail::multihead_scale(const MultiHeadArgs& a) {
  return a.scale > 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(a.d_model / a.heads));
}

MultiHeadWeightBounds multi_head_weight_bounds(const MultiHeadWeights& w, size_t d_model) {
  MultiHeadWeightBounds b;
  b.wo = w.wo;
  b.bo = w.bo;
  b.d_model = d_model;
  if (!w.wo) return b;  // matches no call (check_multihead_args refuses a missing wo)
  b.wo_abs_max = detail::max_abs(w.wo, d_model, d_model, d_model);
  if (w.bo) b.bo_abs_max = detail::max_abs(w.bo, 1, d_model, 1);
  return b;
}

void detail::linear_rows(const float* x, size_t rows, size_t n_in, size_t n_out, const float* w,
                         WeightLayout layout, const float* b, float* y) {
  if (layout == WeightLayout::in_out) return kernels::gemm_nn_f32(rows, n_out, n_in, x, n_in, w, n_out, b, y, n_out);
  // The nt kernel has no bias: y starts as b (or 0) and the product is added to it, which is the nn
  // kernel's own order (its accumulators start at the bias).
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < n_out; ++j) y[r * n_out + j] = b ? b[j] : 0.0f;
  kernels::gemm_nt_acc_f32(rows, n_out, n_in, x, n_in, w, n_in, y, n_out);
}

Status detail::check_multihead_bounds(const MultiHeadArgs& a, const float* q, const float* k,
                                      const float* v, float* scratch, WeightLayout wo_layout) {
  constexpr const char* op = "multiHeadAttention";
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;
  // First of all, a projection that overflowed float32 is refused (a non-finite input shows there
  // too and is then reported as such: check_multihead_result). The maxima below see every value of
  // q, k and v and are NaN or +∞ when one is not finite, so these scans run only then, or before a
  // refusal (whose message must be theirs when some value is not finite): the same first message.
  const auto projections_finite = [&]() -> Status {
    ATTNLAB_CHECK(check_multihead_result(a, "q", q, tq * D, "x·wq + bq within float32 range"));
    ATTNLAB_CHECK(check_multihead_result(a, "k", k, tk * D, "context·wk + bk within float32 range"));
    return check_multihead_result(a, "v", v, tk * D, "context·wv + bv within float32 range");
  };
  const float scale = multihead_scale(a);
  const double mask = mask_bound(a.mask, tq, tk);
  for (size_t h = 0; h < H; ++h) {
    const float slope = a.alibi ? alibi_slope(h, H) : 0.0f;
    const double r = score_bound_sum(q + h * dk, D, tq, k + h * dk, D, tk, dk);
    if (!std::isfinite(r)) ATTNLAB_CHECK(projections_finite());  // a non-finite q or k: refused there
    const Status st = check_score_bound(op, static_cast<long>(h), r, dk, scale, mask + alibi_bound(slope, tq, tk),
                                        bias_terms(a.mask, slope));
    if (!st.ok) {
      ATTNLAB_CHECK(projections_finite());
      return st;
    }
  }
  const float vmax_all = max_abs(v, D, tk, D);
  if (!std::isfinite(vmax_all)) ATTNLAB_CHECK(projections_finite());  // a non-finite v: refused there
  // q, k and v are finite from here on.
  ATTNLAB_CHECK(check_values_bound(op, vmax_all, tk));
  // Output column c: |Σ_d heads[i, d]·wo[d, c] + bo[c]| ≤ Σ_d max|v[:, d]|·|wo[d, c]| + |bo[c]|, up to
  // the rounding of the heads (t_k terms) and of that sum (D + 1 terms).
  const double margin = (1.0 + rounding_margin(tk)) * (1.0 + rounding_margin(D + 1));
  // First from the maxima alone: every column's bound is at most (D·max|v|·max|wo| + max|bo|)·margin
  // (computed in double, where its rounding and that of the exact sum are far below a factor 2), so
  // at most FLT_MAX/2 proves every column within range without the per-column sums.
  // max|wo| and max|bo| come from the caller's precomputed bounds when they describe these weights.
  const MultiHeadWeightBounds* given = a.weight_bounds;
  const MultiHeadWeightBounds wb = given && given->wo == a.w.wo && given->bo == a.w.bo && given->d_model == D
                                       ? *given : multi_head_weight_bounds(a.w, D);
  const double quick = (static_cast<double>(D) * static_cast<double>(vmax_all) * static_cast<double>(wb.wo_abs_max) +
                        static_cast<double>(wb.bo_abs_max)) * margin;
  if (quick <= FLT_MAX / 2) return Status::Ok();  // false for NaN: a non-finite wo or bo goes on
  // Otherwise the exact bound, per column, summed in double (a float·float product is exact there)
  // over 16 columns at a time, reading wo row by row (stored out_in: column c is row c, summed whole).
  float* vmax = scratch;
  for (size_t d = 0; d < D; ++d) vmax[d] = 0.0f;
  kernels::column_max_abs_f32(tk, D, v, D, vmax);
  double worst = 0.0;
  bool over = false;
  constexpr size_t kCols = 16;
  for (size_t c0 = 0; c0 < D; c0 += kCols) {
    const size_t n = D - c0 < kCols ? D - c0 : kCols;
    double acc[kCols] = {};
    if (wo_layout == WeightLayout::out_in)
      for (size_t c = 0; c < n; ++c) {
        const float* w = a.w.wo + (c0 + c) * D;
        for (size_t d = 0; d < D; ++d) acc[c] += static_cast<double>(vmax[d]) * std::fabs(static_cast<double>(w[d]));
      }
    else
      for (size_t d = 0; d < D; ++d) {
        const double vm = vmax[d];
        const float* w = a.w.wo + d * D + c0;
        for (size_t c = 0; c < n; ++c) acc[c] += vm * std::fabs(static_cast<double>(w[c]));
      }
    for (size_t c = 0; c < n; ++c) {
      const double b = (acc[c] + (a.w.bo ? std::fabs(static_cast<double>(a.w.bo[c0 + c])) : 0.0)) * margin;
      if (!(b <= FLT_MAX)) {  // also NaN: a non-finite wo or bo
        over = true;
        worst = std::isnan(b) || b > worst ? b : worst;
      }
    }
  }
  if (!over) return Status::Ok();
  ATTNLAB_CHECK(check_multihead_values(a));  // a NaN or ±∞ in wo or bo is named as such
  return Status::Fail(std::string(op) + ": output heads·wo + bo can exceed float32 range (bound " +
                      bound_str(worst) + "), expected |v|·|wo| + |bo| within 3.4e38");
}

namespace {

Status check_multihead(const MultiHeadArgs& a, const MultiHeadOutputs& o) {
  constexpr const char* op = "multiHeadAttention";
  const size_t tk = a.context ? a.t_k : a.t_q;
  ATTNLAB_CHECK(detail::check_count(op, "heads·tq·tk", {a.heads, a.t_q, tk}));  // the weights buffer
  ATTNLAB_CHECK(detail::check_multihead_args(a));
  if (!o.q || !o.k || !o.v || !o.weights || !o.heads || !o.out)
    return Status::Fail(std::string(op) + ": an output buffer is missing");
  return Status::Ok();
}

}  // namespace

// Q = X·W_Q + b_Q [t_q, D], K = C·W_K + b_K, V = C·W_V + b_V [t_k, D]; RoPE on Q and K when asked.
void detail::multihead_project(const MultiHeadArgs& a, float* q, float* k, float* v) {
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const float* ctx = a.context ? a.context : a.x;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;
  kernels::gemm_nn_f32(tq, D, D, a.x, D, a.w.wq, D, a.w.bq, q, D);
  kernels::gemm_nn_f32(tk, D, D, ctx, D, a.w.wk, D, a.w.bk, k, D);
  kernels::gemm_nn_f32(tk, D, D, ctx, D, a.w.wv, D, a.w.bv, v, D);
  if (a.rope) {
    // Each head rotates its own (2i, 2i+1) pairs by the row's position.
    for (size_t t = 0; t < tq; ++t)
      for (size_t h = 0; h < H; ++h) detail::rope_rotate_row(q + t * D + h * dk, dk, a.rope_base, t);
    for (size_t t = 0; t < tk; ++t)
      for (size_t h = 0; h < H; ++h) detail::rope_rotate_row(k + t * D + h * dk, dk, a.rope_base, t);
  }
}

Status multi_head_attention_forward(const MultiHeadArgs& a, const MultiHeadOutputs& o) {
  return detail::multi_head_attention_forward(a, o, detail::WeightLayout::in_out);
}

Status detail::multi_head_attention_forward(const MultiHeadArgs& a, const MultiHeadOutputs& o, WeightLayout wo_layout) {
  ATTNLAB_CHECK(check_multihead(a, o));
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;

  // Projections: Q [t_q, D], K [t_k, D], V [t_k, D]; then every overflow refused before computing.
  detail::multihead_project(a, o.q, o.k, o.v);
  ATTNLAB_CHECK(detail::check_multihead_bounds(a, o.q, o.k, o.v, o.out, wo_layout));

  const float scale = detail::multihead_scale(a);
  for (size_t h = 0; h < H; ++h) {
    AttentionArgs ha{o.q + h * dk, D, o.k + h * dk, D, o.v + h * dk, D, tq, tk, dk, dk, scale, a.mask,
                     a.alibi ? alibi_slope(h, H) : 0.0f};
    AttentionOutputs ho;
    ho.scores = o.scores ? o.scores + h * tq * tk : nullptr;
    ho.weights = o.weights + h * tq * tk;
    ho.out = o.heads + h * dk;  // head h writes its column slice of the concatenation
    ho.ldo = D;
    attention_forward_unchecked(ha, ho);
  }
  // out = Concat(heads)·W_O + b_O
  detail::linear_rows(o.heads, tq, D, D, a.w.wo, wo_layout, a.w.bo, o.out);
  // Defensive: after check_multihead_bounds these cannot fire; a NaN or ±∞ is never handed back.
  // The output alone is scanned first: a NaN weight makes its row of the heads NaN and a NaN or ±∞
  // head its row of the output (the products skip no term), so a finite output proves the weights
  // (≤ 1 or NaN) and the heads finite. Otherwise all three are checked in order: the first's message.
  if (first_non_finite(o.out, tq * D) == tq * D) return Status::Ok();
  const struct { const char* name; const float* p; size_t n; const char* hint; } results[] = {
      {"weights", o.weights, H * tq * tk, "q·kᵀ within float32 range (|q|·|k| < 3.4e38)"},
      {"heads", o.heads, tq * D, "v within float32 range"},
      {"output", o.out, tq * D, "heads·wo + bo within float32 range"}};
  for (const auto& r : results) ATTNLAB_CHECK(detail::check_multihead_result(a, r.name, r.p, r.n, r.hint));
  return Status::Ok();
}

// ---- Backward ------------------------------------------------------------------------------------
// workspace: dheads [max(t_q, t_k), D] (then the projections' scratch) | dq [t_q, D] | dk [t_k, D] |
// dv [t_k, D] | one head's dweights [t_q, t_k].
size_t multi_head_backward_workspace_floats(size_t t_q, size_t t_k, size_t d_model) {
  size_t b = 0, c = 0, n = 0;
  const size_t rows = t_q > t_k ? t_q : t_k;
  if (t_q > SIZE_MAX / 4 || t_k > SIZE_MAX / 4 || __builtin_mul_overflow(rows + t_q + 2 * t_k, d_model, &b) ||
      __builtin_mul_overflow(t_q, t_k, &c) || __builtin_add_overflow(b, c, &n) ||
      n > SIZE_MAX / sizeof(float))
    return SIZE_MAX;
  return n;
}

void detail::add_column_sums(const float* y, size_t rows, size_t n, float* c) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < n; ++j) c[j] += y[r * n + j];
}

void detail::projection_backward(const float* x, size_t rows, size_t D, const float* w, const float* dy,
                                 float* dx, float* dw, float* db, float* tmp) {
  if (dw) kernels::gemm_tn_acc_f32(D, D, rows, x, D, dy, D, dw, D);
  if (db) add_column_sums(dy, rows, D, db);
  if (dx) {
    kernels::gemm_nt_f32(rows, D, D, dy, D, w, D, tmp, D);
    for (size_t i = 0; i < rows * D; ++i) dx[i] += tmp[i];
  }
}

Status detail::check_multihead_backward_args(const char* op, const MultiHeadArgs& a) {
  Status st = check_multihead_args(a);
  if (!st.ok) {
    const std::string fwd = "multiHeadAttention:";
    if (st.message.rfind(fwd, 0) == 0) st.message = op + st.message.substr(fwd.size() - 1);
  }
  return st;
}

void detail::multihead_qkv_backward(const MultiHeadArgs& a, float* dq, float* dk, const float* dv,
                                    const MultiHeadGrads& g, float* tmp) {
  const size_t D = a.d_model, H = a.heads, dh = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;
  // RoPE rotated q and k after the projections: rotate their gradients back.
  if (a.rope) {
    for (size_t t = 0; t < tq; ++t)
      for (size_t h = 0; h < H; ++h) detail::rope_unrotate_row(dq + t * D + h * dh, dh, a.rope_base, t);
    for (size_t t = 0; t < tk; ++t)
      for (size_t h = 0; h < H; ++h) detail::rope_unrotate_row(dk + t * D + h * dh, dh, a.rope_base, t);
  }
  const float* ctx = a.context ? a.context : a.x;
  float* dctx = a.context ? g.dcontext : g.dx;
  projection_backward(a.x, tq, D, a.w.wq, dq, g.dx, g.dwq, g.dbq, tmp);
  projection_backward(ctx, tk, D, a.w.wk, dk, dctx, g.dwk, g.dbk, tmp);
  projection_backward(ctx, tk, D, a.w.wv, dv, dctx, g.dwv, g.dbv, tmp);
}

Status multi_head_attention_backward(const MultiHeadArgs& a, const MultiHeadOutputs& saved,
                                    const float* dout, const MultiHeadGrads& g, float* workspace) {
  constexpr const char* op = "multiHeadAttentionBackward";
  ATTNLAB_CHECK(detail::check_multihead_backward_args(op, a));  // the forward's rules, under this name
  const size_t D = a.d_model, H = a.heads, dk = D / H;
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q;
  ATTNLAB_CHECK(detail::check_count(op, "heads·tq·tk", {H, tq, tk}));
  if (multi_head_backward_workspace_floats(tq, tk, D) == SIZE_MAX)
    return Status::Fail(std::string(op) + ": workspace is too large, expected sizes whose product fits in memory");
  const struct { const char* name; const void* p; } needed[] = {
      {"saved.q", saved.q},         {"saved.k", saved.k},         {"saved.v", saved.v},
      {"saved.weights", saved.weights}, {"saved.heads", saved.heads}, {"dout", dout},
      {"workspace", workspace}};
  for (const auto& n : needed) ATTNLAB_CHECK(detail::check_not_null(op, n.name, n.p));

  float* dheads = workspace;          // [max(t_q, t_k), D]
  float* dq = dheads + (tq > tk ? tq : tk) * D;  // [t_q, D]
  float* dkk = dq + tq * D;           // [t_k, D]
  float* dv = dkk + tk * D;           // [t_k, D]
  float* scratch = dv + tk * D;       // [t_q, t_k]

  // out = heads·W_O + b_O
  if (g.dwo) kernels::gemm_tn_acc_f32(D, D, tq, saved.heads, D, dout, D, g.dwo, D);
  if (g.dbo) detail::add_column_sums(dout, tq, D, g.dbo);
  kernels::gemm_nt_f32(tq, D, D, dout, D, a.w.wo, D, dheads, D);

  // Each head's attention, into its column slices of dQ, dK, dV.
  for (size_t i = 0; i < (tq + 2 * tk) * D; ++i) dq[i] = 0.0f;  // dq, dk, dv are contiguous
  const float scale = detail::multihead_scale(a);
  for (size_t h = 0; h < H; ++h) {
    AttentionArgs ha{saved.q + h * dk, D, saved.k + h * dk, D, saved.v + h * dk, D, tq, tk, dk, dk, scale,
                     a.mask, a.alibi ? alibi_slope(h, H) : 0.0f};
    AttentionGrads hg{dq + h * dk, dkk + h * dk, dv + h * dk};
    attention_backward_unchecked(ha, saved.weights + h * tq * tk, dheads + h * dk, D, hg, scratch);
  }
  // RoPE and the projections; dheads is free again and serves as their scratch.
  detail::multihead_qkv_backward(a, dq, dkk, dv, g, dheads);
  return Status::Ok();
}

}  // namespace attnlab
