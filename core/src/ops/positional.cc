// Positional information: sinusoidal encodings added to the embeddings, RoPE rotations applied to
// q and k, and ALiBi biases added to the scores.
#include <cmath>
#include <string>

#include "attnlab/backward.h"
#include "check.h"
#include "positional_detail.h"

namespace attnlab {

Status sinusoidal_positional_encoding_forward(size_t length, size_t d_model, float base, float* out) {
  constexpr const char* op = "positionalEncoding";
  ATTNLAB_CHECK(detail::check_positive(op, "length", length));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  ATTNLAB_CHECK(detail::check_base(op, "base", base));
  ATTNLAB_CHECK(detail::check_count(op, "length·dModel", {length, d_model}));  // no size_t wrap
  // Angles in double: pos·base^(−2i/D) loses float32 precision quickly for long sequences.
  for (size_t pos = 0; pos < length; ++pos) {
    float* row = out + pos * d_model;
    for (size_t c = 0; c < d_model; ++c) {
      const size_t two_i = c & ~size_t{1};
      const double angle = static_cast<double>(pos) *
                           std::pow(static_cast<double>(base), -static_cast<double>(two_i) / d_model);
      row[c] = static_cast<float>((c & 1) ? std::cos(angle) : std::sin(angle));
    }
  }
  return Status::Ok();
}

namespace {

// Rotates pairs (2i, 2i+1) of one row by direction·pos·base^(−2i/d): +1 is RoPE, −1 its inverse
// (the backward pass: Rᵀ = R(−θ)). Negating sin is exact, so both directions round alike.
void rotate_pairs(float* x, size_t d, float base, size_t pos, float direction) {
  for (size_t i = 0; i + 1 < d; i += 2) {
    const double theta = static_cast<double>(pos) *
                         std::pow(static_cast<double>(base), -static_cast<double>(i) / d);
    const float c = static_cast<float>(std::cos(theta)), s = direction * static_cast<float>(std::sin(theta));
    const float x0 = x[i], x1 = x[i + 1];
    x[i] = x0 * c - x1 * s;
    x[i + 1] = x0 * s + x1 * c;
  }
}

}  // namespace

void detail::rope_rotate_row(float* x, size_t d, float base, size_t pos) { rotate_pairs(x, d, base, pos, 1.0f); }

namespace {

// t rows of dim values rotated in pairs: forward and backward accept the same shapes.
Status check_rope_shape(const char* op, size_t t, size_t d, float base) {
  ATTNLAB_CHECK(detail::check_positive(op, "t", t));
  ATTNLAB_CHECK(detail::check_positive(op, "dim", d));
  if (d % 2 != 0)
    return Status::Fail(std::string(op) + ": dim is " + std::to_string(d) +
                        ", expected an even number (RoPE rotates pairs)");
  ATTNLAB_CHECK(detail::check_base(op, "base", base));
  return detail::check_count(op, "t·dim", {t, d});  // no size_t wrap
}

}  // namespace

Status rope_forward(const float* x, size_t t, size_t d, float base, size_t offset, float* out) {
  constexpr const char* op = "rope";
  ATTNLAB_CHECK(check_rope_shape(op, t, d, base));
  ATTNLAB_CHECK(detail::check_finite(op, "x", x, t * d));
  for (size_t r = 0; r < t; ++r) {
    float* row = out + r * d;
    if (out != x)
      for (size_t c = 0; c < d; ++c) row[c] = x[r * d + c];
    detail::rope_rotate_row(row, d, base, offset + r);
  }
  // A rotation can grow a component by up to √2: x near 3.4e38 overflows.
  return detail::check_no_overflow(op, "output", out, t * d, "|x| < 2.4e38 (a rotation can grow a value by √2)");
}

void detail::rope_unrotate_row(float* x, size_t d, float base, size_t pos) { rotate_pairs(x, d, base, pos, -1.0f); }

// out = R·x per pair, so dx = Rᵀ·dout: the inverse rotation of dout, accumulated.
Status rope_backward(const float* dout, size_t t, size_t d, float base, size_t offset, float* dx) {
  constexpr const char* op = "ropeBackward";
  ATTNLAB_CHECK(check_rope_shape(op, t, d, base));
  ATTNLAB_CHECK(detail::check_not_null(op, "dout", dout));
  ATTNLAB_CHECK(detail::check_not_null(op, "dx", dx));
  for (size_t r = 0; r < t; ++r) {
    const float* dy = dout + r * d;
    float* g = dx + r * d;
    for (size_t i = 0; i < d; i += 2) {
      const double theta = static_cast<double>(offset + r) *
                           std::pow(static_cast<double>(base), -static_cast<double>(i) / d);
      const float c = static_cast<float>(std::cos(theta)), s = static_cast<float>(std::sin(theta));
      g[i] += dy[i] * c + dy[i + 1] * s;
      g[i + 1] += -dy[i] * s + dy[i + 1] * c;
    }
  }
  return Status::Ok();
}

float alibi_slope(size_t head, size_t heads) {
  // Press et al.: for H a power of two, m_h = 2^(−8(h+1)/H). Otherwise the slopes of the closest
  // power of two n < H, then every other slope of the 2n-head sequence.
  size_t n = 1;
  while (n * 2 <= heads) n *= 2;
  if (head < n) return static_cast<float>(std::exp2(-8.0 * (head + 1) / n));
  const size_t j = 2 * (head - n);
  return static_cast<float>(std::exp2(-8.0 * (j + 1) / (2 * n)));
}

Status alibi_slopes(size_t heads, float* slopes) {
  ATTNLAB_CHECK(detail::check_positive("alibi", "heads", heads));
  for (size_t h = 0; h < heads; ++h) slopes[h] = alibi_slope(h, heads);
  return Status::Ok();
}

Status alibi_bias(size_t heads, size_t t_q, size_t t_k, float* bias) {
  constexpr const char* op = "alibi";
  ATTNLAB_CHECK(detail::check_positive(op, "heads", heads));
  ATTNLAB_CHECK(detail::check_positive(op, "tq", t_q));
  ATTNLAB_CHECK(detail::check_positive(op, "tk", t_k));
  ATTNLAB_CHECK(detail::check_count(op, "heads·tq·tk", {heads, t_q, t_k}));  // no size_t wrap
  for (size_t h = 0; h < heads; ++h) {
    const float m = alibi_slope(h, heads);
    for (size_t i = 0; i < t_q; ++i)
      for (size_t j = 0; j < t_k; ++j)
        bias[(h * t_q + i) * t_k + j] = -m * std::fabs(static_cast<float>(i) - static_cast<float>(j));
  }
  return Status::Ok();
}

}  // namespace attnlab
