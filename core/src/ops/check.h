// check.h — the argument checks every op shares, so that messages read the same everywhere:
// "<op>: <argument> <what is wrong>, expected <what is expected>".
#pragma once

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

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

// ---- issue 7 (hardening): sizes that wrap, results that overflow -------------------------------
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
// A nested op's failure reported under the caller's name, so a JS user sees the function they called:
// "multiHeadAttention: q[0] is …" → "encoderBlock: self-attention q[0] is …".
inline Status renamed(Status s, const char* op, const char* what) {
  if (s.ok) return s;
  const size_t colon = s.message.find(": ");
  const std::string rest = colon == std::string::npos ? s.message : s.message.substr(colon + 2);
  return Status::Fail(std::string(op) + ": " + what + " " + rest);
}
// ---- end of issue 7 section

}  // namespace attnlab::detail
