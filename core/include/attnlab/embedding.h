// attnlab/embedding.h — token embedding and the tied output head, and attention as kernel regression.
//
//   embed(ids)   = rows ids of W_E [vocab, D]            (e_iᵀ·W_E = W_E[i, :])
//   output head  logits = h·W_Eᵀ (+ b), probs = softmax(logits / temperature)
#pragma once

#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

RowMatrixXf embed(const Eigen::Ref<const RowMatrixXf>& table, const std::vector<int>& ids);  // [ids.size(), D]

struct OutputHeadResult { RowMatrixXf logits, probs; };  // [rows, vocab]
// h: [rows, D], table: [vocab, D].
OutputHeadResult output_head(const Eigen::Ref<const RowMatrixXf>& h, const Eigen::Ref<const RowMatrixXf>& table,
                             const std::vector<float>& bias = {}, float temperature = 1.0f);

// Nadaraya-Watson: xs [n, dim] (keys), ys [n] (values), queries [n_q, dim].
struct KernelRegressionResult { RowMatrixXf scores, weights; std::vector<float> predictions; };  // [n_q, n] ×2, [n_q]
KernelRegressionResult kernel_regression(const Eigen::Ref<const RowMatrixXf>& xs, const std::vector<float>& ys,
                                         const Eigen::Ref<const RowMatrixXf>& queries, float bandwidth = 1.0f,
                                         RegressionKernel kernel = RegressionKernel::gaussian);

}  // namespace attnlab
