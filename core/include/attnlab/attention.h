// attnlab/attention.h — scaled dot-product attention, with every intermediate the lecture draws.
//
//   Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k + M) · V
#pragma once

#include <optional>

#include "attnlab/mask.h"
#include "attnlab/matrix.h"

namespace attnlab {

struct AttentionResult {
  RowMatrixXf scores;   // [t_q, t_k] raw Q·Kᵀ
  RowMatrixXf scaled;   // [t_q, t_k] Q·Kᵀ·scale + M
  RowMatrixXf weights;  // [t_q, t_k] softmax(scaled), rows sum to 1 (0 for a fully masked row)
  RowMatrixXf output;   // [t_q, d_v] weights·V
};

// Q: [t_q, d_k], K: [t_k, d_k], V: [t_k, d_v] (each may be a block of a bigger matrix: read in place
// through its row stride). scale defaults to 1/√d_k. Throws attnlab::Error.
AttentionResult attention(const Eigen::Ref<const RowMatrixXf>& Q, const Eigen::Ref<const RowMatrixXf>& K,
                          const Eigen::Ref<const RowMatrixXf>& V, const Mask& mask = Mask::None(),
                          std::optional<float> scale = std::nullopt);

}  // namespace attnlab
