// attnlab/embedding.h — token embedding and the tied output head, and attention as kernel regression.
//
//   embed(ids)   = rows ids of W_E [vocab, D]            (e_iᵀ·W_E = W_E[i, :])
//   output head  logits = h·W_Eᵀ (+ b), probs = softmax(logits / temperature)
#pragma once

#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

Matrix embed(const Matrix& table, const std::vector<int>& ids);  // [ids.size(), D]

struct OutputHeadResult { Matrix logits, probs; };  // [rows, vocab]
OutputHeadResult output_head(const Matrix& h, const Matrix& table, const std::vector<float>& bias = {},
                             float temperature = 1.0f);

// Nadaraya-Watson: xs [n, dim] (keys), ys [n] (values), queries [n_q, dim].
struct KernelRegressionResult { Matrix scores, weights; std::vector<float> predictions; };
KernelRegressionResult kernel_regression(const Matrix& xs, const std::vector<float>& ys,
                                         const Matrix& queries, float bandwidth = 1.0f,
                                         RegressionKernel kernel = RegressionKernel::gaussian);

}  // namespace attnlab
