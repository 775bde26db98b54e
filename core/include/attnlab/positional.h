// attnlab/positional.h — where a token is: sinusoidal encodings, RoPE, ALiBi.
#pragma once

#include <vector>

#include "attnlab/detail/eigen_ref.h"
#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

// [length, D]: PE[pos, 2i] = sin(pos / base^(2i/D)), PE[pos, 2i+1] = cos(pos / base^(2i/D)).
RowMatrixXf sinusoidal_positional_encoding(size_t length, size_t d_model, float base = 10000.0f);

// x [t, d] with each row rotated by RoPE for positions offset, offset+1, …
RowMatrixXf rope(const Eigen::Ref<const RowMatrixXf>& x, float base = 10000.0f, size_t offset = 0);

// Per-head ALiBi slopes m_h, and the bias −m_h·|i − j| as H matrices [t_q, t_k].
std::vector<float> alibi_slopes(size_t heads);
std::vector<RowMatrixXf> alibi_bias(size_t heads, size_t t_q, size_t t_k);

// ---- Header-only adapters over the pointer-level ops (ops.h).

inline RowMatrixXf sinusoidal_positional_encoding(size_t length, size_t d_model, float base) {
  RowMatrixXf pe = detail::zeros(length, d_model);
  throw_if_error(sinusoidal_positional_encoding_forward(length, d_model, base, pe.data()));
  return pe;
}

inline RowMatrixXf rope(const Eigen::Ref<const RowMatrixXf>& x, float base, size_t offset) {
  using namespace detail;
  RowMatrixXf out = zeros(rows(x), cols(x));
  throw_if_error(rope_forward(ContiguousRows(x).data(), rows(x), cols(x), base, offset, out.data()));
  return out;
}

inline std::vector<float> alibi_slopes(size_t heads) {
  std::vector<float> s(heads);
  throw_if_error(alibi_slopes(heads, s.data()));
  return s;
}

inline std::vector<RowMatrixXf> alibi_bias(size_t heads, size_t t_q, size_t t_k) {
  size_t n = 0;  // a product that wraps is left to the op to refuse, before it writes anything
  const bool wraps = __builtin_mul_overflow(heads, t_q, &n) || __builtin_mul_overflow(n, t_k, &n);
  std::vector<float> b(wraps ? 0 : n);
  throw_if_error(alibi_bias(heads, t_q, t_k, b.data()));
  return detail::split_heads(b, heads, t_q, t_k);
}

}  // namespace attnlab
