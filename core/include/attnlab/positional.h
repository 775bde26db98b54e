// attnlab/positional.h — where a token is: sinusoidal encodings, RoPE, ALiBi.
#pragma once

#include <vector>

#include "attnlab/matrix.h"

namespace attnlab {

// [length, D]: PE[pos, 2i] = sin(pos / base^(2i/D)), PE[pos, 2i+1] = cos(pos / base^(2i/D)).
RowMatrixXf sinusoidal_positional_encoding(size_t length, size_t d_model, float base = 10000.0f);

// x [t, d] with each row rotated by RoPE for positions offset, offset+1, …
RowMatrixXf rope(const Eigen::Ref<const RowMatrixXf>& x, float base = 10000.0f, size_t offset = 0);

// Per-head ALiBi slopes m_h, and the bias −m_h·|i − j| as H matrices [t_q, t_k].
std::vector<float> alibi_slopes(size_t heads);
std::vector<RowMatrixXf> alibi_bias(size_t heads, size_t t_q, size_t t_k);

}  // namespace attnlab
