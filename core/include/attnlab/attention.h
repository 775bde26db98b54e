// attnlab/attention.h — scaled dot-product attention, with every intermediate the lecture draws.
//
//   Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k + M) · V
#pragma once

#include <optional>

#include <cmath>
#include <string>

#include "attnlab/detail/eigen_ref.h"
#include "attnlab/mask.h"
#include "attnlab/matrix.h"
#include "attnlab/ops.h"

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

// ---- The Matrix level is a header-only adapter over the pointer-level op (ops.h): it checks the
// shapes, allocates the results and throws on a bad Status; the maths is in the op and its kernels.

inline AttentionResult attention(const Eigen::Ref<const RowMatrixXf>& Q, const Eigen::Ref<const RowMatrixXf>& K,
                                 const Eigen::Ref<const RowMatrixXf>& V, const Mask& mask,
                                 std::optional<float> scale) {
  using namespace detail;
  if (Q.cols() != K.cols())
    throw Error("attention: Q has " + std::to_string(Q.cols()) + " columns and K has " +
                std::to_string(K.cols()) + ", expected the same d_k");
  if (K.rows() != V.rows())
    throw Error("attention: K has " + std::to_string(K.rows()) + " rows and V has " +
                std::to_string(V.rows()) + ", expected the same t_k");
  const size_t tq = rows(Q), tk = rows(K), dk = cols(Q), dv = cols(V);
  AttentionResult r{zeros(tq, tk), zeros(tq, tk), zeros(tq, tk), zeros(tq, dv)};
  const float s = scale ? *scale : 1.0f / std::sqrt(static_cast<float>(dk));
  AttentionArgs a{Q.data(), stride(Q), K.data(), stride(K), V.data(), stride(V), tq, tk, dk, dv, s, mask};
  AttentionOutputs o{r.scores.data(), r.scaled.data(), r.weights.data(), r.output.data(), dv};
  throw_if_error(attention_forward(a, o));
  return r;
}

}  // namespace attnlab
