// attnlab/attention.h — scaled dot-product attention, with every intermediate the lecture draws.
//
//   Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k + M) · V
#pragma once

#include <optional>

#include "attnlab/mask.h"
#include "attnlab/matrix.h"

namespace attnlab {

struct AttentionResult {
  Matrix scores;   // [t_q, t_k] raw Q·Kᵀ
  Matrix scaled;   // [t_q, t_k] Q·Kᵀ·scale + M
  Matrix weights;  // [t_q, t_k] softmax(scaled), rows sum to 1 (0 for a fully masked row)
  Matrix output;   // [t_q, d_v] weights·V
};

// Q: [t_q, d_k], K: [t_k, d_k], V: [t_k, d_v]. scale defaults to 1/√d_k. Throws attnlab::Error.
AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Mask& mask = Mask::None(),
                          std::optional<float> scale = std::nullopt);

}  // namespace attnlab
