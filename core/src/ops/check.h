// check.h — the argument checks every op shares, so that messages read the same everywhere:
// "<op>: <argument> <what is wrong>, expected <what is expected>". The C++ core owns argument
// validation (it must stay safe when called natively); the JS facade keeps only what it needs to
// build a call. A rule two ops share (heads divide dModel, RoPE widths, ALiBi on self-attention,
// causal and window masks on one sequence) is written once, here.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "../kernels/dispatch.h"
#include "attnlab/ops.h"

// Early-return on the first failed check.
#define ATTNLAB_CHECK(expr)          \
  do {                               \
    ::attnlab::Status s_ = (expr);   \
    if (!s_.ok) return s_;           \
  } while (0)

namespace attnlab::detail {

inline std::string value_str(float x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));  // 0.1f → "0.100000001", 1 → "1"
  return buf;
}

// OK when x[0:n] is finite (or −∞ where allow_neg_inf); else "<op>: <name>[i] is NaN, expected …".
inline Status check_finite(const char* op, const char* name, const float* x, size_t n,
                           bool allow_neg_inf = false) {
  const size_t i = first_non_finite(x, n, allow_neg_inf);
  if (i == n) return Status::Ok();
  return Status::Fail(std::string(op) + ": " + name + "[" + std::to_string(i) + "] is " +
                      value_str(x[i]) + ", expected " +
                      (allow_neg_inf ? "finite values or -Infinity" : "finite values"));
}

// The same for a strided [rows, cols] view; the index reported is the flat row-major one (r·cols + c).
inline Status check_finite_rows(const char* op, const char* name, const float* x, size_t rows,
                                size_t cols, size_t ld) {
  for (size_t r = 0; r < rows; ++r) {
    const size_t c = first_non_finite(x + r * ld, cols, false);
    if (c == cols) continue;
    return Status::Fail(std::string(op) + ": " + name + "[" + std::to_string(r * cols + c) + "] is " +
                        value_str(x[r * ld + c]) + ", expected finite values");
  }
  return Status::Ok();
}

inline Status check_positive(const char* op, const char* name, size_t v) {
  if (v > 0) return Status::Ok();
  return Status::Fail(std::string(op) + ": " + name + " is 0, expected a positive integer");
}

// Multi-head layers split dModel into heads column slices of dModel/heads.
inline Status check_heads_divide(const char* op, size_t d_model, size_t heads) {
  if (d_model % heads == 0) return Status::Ok();
  return Status::Fail(std::string(op) + ": heads = " + std::to_string(heads) + " does not divide dModel = " +
                      std::to_string(d_model) + ", expected dModel to be a multiple of heads");
}

// Positional encodings: a base (10000 in the paper) is finite and > 1. name: "base", "rope base".
inline Status check_base(const char* op, const char* name, float base) {
  if (std::isfinite(base) && base > 1.0f) return Status::Ok();
  return Status::Fail(std::string(op) + ": " + name + " is " + value_str(base) + ", expected a finite number > 1");
}

// Multi-head RoPE rotates (2i, 2i+1) pairs of each head: the head width dModel/heads is even.
inline Status check_rope_head_width(const char* op, size_t head_width) {
  if (head_width % 2 == 0) return Status::Ok();
  return Status::Fail(std::string(op) + ": rope needs an even head width dModel/heads, got " +
                      std::to_string(head_width));
}

// ALiBi's bias −m·|i − j| compares positions of one sequence: self-attention only.
inline Status check_alibi_self_attention(const char* op, bool alibi, bool cross) {
  if (!(alibi && cross)) return Status::Ok();
  return Status::Fail(std::string(op) + ": alibi is defined for self-attention, expected no context with alibi");
}

inline Status check_not_null(const char* op, const char* name, const void* p) {
  if (p) return Status::Ok();
  return Status::Fail(std::string(op) + ": " + name + " is missing");
}

// A mask over a [t_q, t_k] score matrix: causal and window masks need one sequence (t_q = t_k), a
// window is ≥ 0, an additive mask is present and holds finite values or −∞.
inline Status check_mask(const char* op, const Mask& m, size_t t_q, size_t t_k) {
  if (m.needs_square() && t_q != t_k)
    return Status::Fail(std::string(op) + ": a causal or window mask needs tq = tk, got tq = " +
                        std::to_string(t_q) + ", tk = " + std::to_string(t_k));
  if (m.kind == Mask::Kind::window && m.window < 0)
    return Status::Fail(std::string(op) + ": mask.window is " + std::to_string(m.window) +
                        ", expected an integer ≥ 0");
  if (m.kind == Mask::Kind::additive) {
    ATTNLAB_CHECK(check_not_null(op, "mask", m.additive));
    ATTNLAB_CHECK(check_finite(op, "mask", m.additive, t_q * t_k, true));
  }
  return Status::Ok();
}

// ---- Sizes that wrap, results that overflow ------------------------------------------------------
// Refuses sizes whose element count times sizeof(float) wraps size_t. On WebAssembly size_t is 32 bits,
// so tq·tk·heads can wrap for sizes each below the JS facade's 2^24; pointer arithmetic past such a
// product would address the wrong memory. `expr` names the product: "tq·tk".
inline Status check_count(const char* op, const char* expr, std::initializer_list<size_t> dims) {
  size_t n = sizeof(float);
  for (size_t d : dims)
    if (__builtin_mul_overflow(n, d, &n))
      return Status::Fail(std::string(op) + ": " + expr + " is too large (" + expr +
                          "·4 bytes overflows size_t), expected sizes whose product fits in memory");
  return Status::Ok();
}

// After the computation: the inputs were checked finite, so a NaN or ±∞ in a result means float32
// overflowed inside the op (a dot product or a sum beyond ±3.4e38). Refuse rather than hand back
// non-finite numbers. `hint` says what to keep small.
inline Status check_no_overflow(const char* op, const char* name, const float* x, size_t n,
                                const char* hint) {
  const size_t i = first_non_finite(x, n, false);
  if (i == n) return Status::Ok();
  return Status::Fail(std::string(op) + ": " + name + "[" + std::to_string(i) + "] is " +
                      value_str(x[i]) + " after a float32 overflow, expected " + hint);
}
// ---- Float32 overflow in attention, decided before computing ------------------------------------
// Whether q·kᵀ overflows float32 depends on the order in which a kernel sums the products (the full
// and the streaming multi-head paths sum in different orders), so checking the computed scores would
// let the same call pass or fail depending on the path. Instead every attention path refuses, before
// computing, the inputs whose results *could* overflow, by bounds computed in double from maxima
// (no summation order involved) with a margin for float32 rounding. Both multi-head paths, attention
// and the blocks call these same functions, so they refuse exactly the same inputs.

// Relative error bound of a float32 sum of n products, γ(n + 2) = (n + 2)·u / (1 − (n + 2)·u) with
// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, §3.1); 1 once that is not small.
inline double rounding_margin(size_t n) {
  const double nu = (static_cast<double>(n) + 2.0) * 0x1p-24;
  return nu < 0.5 ? nu / (1.0 - nu) : 1.0;
}

// Column maxima of |x| for x [rows, cols] (row stride ld), in chunks of kMaxChunk columns on the stack
// (the ops never allocate): f(c0, m, n) gets m[0:n] = max_r |x[r, c0 + j]| for j < n. The kernel
// compares bit patterns, so each maximum is exact (order-independent) and a NaN or ±∞ shows in it.
inline constexpr size_t kMaxChunk = 64;
template <class F>
inline void for_column_max_abs(const float* x, size_t ld, size_t rows, size_t cols, F&& f) {
  float m[kMaxChunk];
  for (size_t c0 = 0; c0 < cols; c0 += kMaxChunk) {
    const size_t n = cols - c0 < kMaxChunk ? cols - c0 : kMaxChunk;
    for (size_t j = 0; j < n; ++j) m[j] = 0.0f;
    kernels::column_max_abs_f32(rows, n, x + c0, ld, m);
    f(c0, static_cast<const float*>(m), n);
  }
}

// max |x| over the whole [rows, cols] view (NaN when x holds a NaN, else +∞ when it holds ±∞).
inline float max_abs(const float* x, size_t ld, size_t rows, size_t cols) {
  float all = 0.0f;
  for_column_max_abs(x, ld, rows, cols, [&](size_t, const float* m, size_t n) {
    kernels::column_max_abs_f32(n, 1, m, 1, &all);  // the chunk's maxima as one column
  });
  return all;
}

// What a mask and ALiBi add to a scaled score, at most: the largest |finite entry| of an additive
// mask (−∞ removes a key and adds nothing) plus slope·(largest |i − j|).
inline double mask_bound(const Mask& m, size_t t_q, size_t t_k) {
  double b = 0.0;
  if (m.kind == Mask::Kind::additive && m.additive)
    for (size_t i = 0; i < t_q * t_k; ++i)
      if (std::isfinite(m.additive[i])) b = std::fmax(b, std::fabs(static_cast<double>(m.additive[i])));
  return b;
}
inline double alibi_bound(float alibi_slope, size_t t_q, size_t t_k) {
  const size_t far = (t_q > t_k ? t_q : t_k) - 1;
  return static_cast<double>(alibi_slope) * static_cast<double>(far) * (1.0 + 0x1p-23);
}
inline double bias_bound(const Mask& m, size_t t_q, size_t t_k, float alibi_slope) {
  return mask_bound(m, t_q, t_k) + alibi_bound(alibi_slope, t_q, t_k);
}
// The terms bias_bound counted, for the message.
inline const char* bias_terms(const Mask& m, float alibi_slope) {
  const bool add = m.kind == Mask::Kind::additive, alibi = alibi_slope > 0.0f;
  return add && alibi ? " + |mask| + ALiBi" : add ? " + |mask|" : alibi ? " + ALiBi" : "";
}

inline std::string bound_str(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  std::string r = buf;
  const size_t plus = r.find("e+");
  if (plus != std::string::npos) r.erase(plus + 1, 1);  // 1.2e+45 → 1.2e45, as the other messages
  return r;
}

// Scores of one head: |q_i·k_j| ≤ R = Σ_d max_i|q[i, d]|·max_j|k[j, d]| for every pair (i, j),
// masked or not (raw scores are returned). score_bound_sum computes R, summed over d in order in
// double, where each float·float product is exact (so R is finite for finite q, k, and NaN or +∞
// when either holds a NaN or ±∞).
inline double score_bound_sum(const float* q, size_t ldq, size_t t_q, const float* k, size_t ldk,
                              size_t t_k, size_t d_k) {
  double r = 0.0;
  for_column_max_abs(q, ldq, t_q, d_k, [&](size_t c0, const float* qm, size_t n) {
    float km[kMaxChunk] = {};
    kernels::column_max_abs_f32(t_k, n, k + c0, ldk, km);
    for (size_t d = 0; d < n; ++d) r += static_cast<double>(qm[d]) * static_cast<double>(km[d]);
  });
  return r;
}
// Refused when the raw scores R or the scaled ones R·scale + bias (bias_bound) could exceed FLT_MAX
// after float32 rounding. head: the head's index, named in the message, or −1 (single-head attention).
inline Status check_score_bound(const char* op, long head, double r, size_t d_k, float scale, double bias,
                                const char* terms) {
  const double raw = r * (1.0 + rounding_margin(d_k));
  const double scaled = raw * static_cast<double>(scale) * (1.0 + 0x1p-23) + bias;
  if (raw <= FLT_MAX && scaled <= FLT_MAX) return Status::Ok();
  const bool raw_worse = raw > FLT_MAX;  // the raw scores already: name them, whatever the scale
  return Status::Fail(std::string(op) + ": scores q·kᵀ" + (raw_worse ? "" : "·scale") +
                      (head >= 0 ? " of head " + std::to_string(head) : std::string()) +
                      " can exceed float32 range (bound " + bound_str(raw_worse ? raw : scaled) +
                      "), expected |q|·|k|" + (raw_worse ? "" : "·scale") +
                      (raw_worse ? "" : terms) + " within 3.4e38");
}
// Both, for q and k that are finite (checked before).
inline Status check_score_bound(const char* op, long head, const float* q, size_t ldq, size_t t_q,
                                const float* k, size_t ldk, size_t t_k, size_t d_k, float scale,
                                double bias, const char* terms) {
  return check_score_bound(op, head, score_bound_sum(q, ldq, t_q, k, ldk, t_k, d_k), d_k, scale, bias, terms);
}

// weights·v is a convex combination of v's rows, so |out| ≤ max|v| up to rounding. Refused when
// max|v| (vmax, finite) is within that rounding of FLT_MAX (t_k terms).
inline Status check_values_bound(const char* op, float vmax, size_t t_k) {
  const double bound = static_cast<double>(vmax) * (1.0 + rounding_margin(t_k));
  if (bound <= FLT_MAX) return Status::Ok();
  return Status::Fail(std::string(op) + ": weights·v can exceed float32 range (bound " + bound_str(bound) +
                      "), expected |v| within " + bound_str(FLT_MAX / (1.0 + rounding_margin(t_k))));
}
// The same for v [t_k, d_v] (ldv), finite.
inline Status check_values_bound(const char* op, const float* v, size_t ldv, size_t t_k, size_t d_v) {
  return check_values_bound(op, max_abs(v, ldv, t_k, d_v), t_k);
}

// A nested op's failure reported under the caller's name, so a JS user sees the function they called:
// "multiHeadAttention: q[0] is …" → "encoderBlock: self-attention q[0] is …".
inline Status renamed(Status s, const char* op, const char* what) {
  if (s.ok) return s;
  const size_t colon = s.message.find(": ");
  const std::string rest = colon == std::string::npos ? s.message : s.message.substr(colon + 2);
  return Status::Fail(std::string(op) + ": " + what + " " + rest);
}

}  // namespace attnlab::detail
