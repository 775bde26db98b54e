// attnlab/embedding.h — token embedding and the tied output head, and attention as kernel regression.
//
//   embed(ids)   = rows ids of W_E [vocab, D]            (e_iᵀ·W_E = W_E[i, :])
//   output head  logits = h·W_Eᵀ (+ b), probs = softmax(logits / temperature)
#pragma once

#include <vector>

#include <string>

#include "attnlab/detail/eigen_ref.h"
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

// ---- Header-only adapters over the pointer-level ops (ops.h).

inline RowMatrixXf embed(const Eigen::Ref<const RowMatrixXf>& table, const std::vector<int>& ids) {
  using namespace detail;
  RowMatrixXf out = zeros(ids.size(), cols(table));
  throw_if_error(embedding_forward(ContiguousRows(table).data(), rows(table), cols(table), ids.data(), ids.size(),
                                   out.data()));
  return out;
}

inline OutputHeadResult output_head(const Eigen::Ref<const RowMatrixXf>& h, const Eigen::Ref<const RowMatrixXf>& table,
                                    const std::vector<float>& bias, float temperature) {
  using namespace detail;
  need_shape("output_head", "h", h, rows(h), cols(table));
  OutputHeadResult r{zeros(rows(h), rows(table)), zeros(rows(h), rows(table))};
  throw_if_error(output_head_forward(ContiguousRows(h).data(), rows(h), ContiguousRows(table).data(), rows(table),
                                     cols(table), optional_values("output_head", "bias", bias, rows(table)),
                                     temperature, r.logits.data(), r.probs.data()));
  return r;
}

inline KernelRegressionResult kernel_regression(const Eigen::Ref<const RowMatrixXf>& xs, const std::vector<float>& ys,
                                                const Eigen::Ref<const RowMatrixXf>& queries, float bandwidth,
                                                RegressionKernel kernel) {
  using namespace detail;
  if (ys.size() != rows(xs))
    throw Error("kernel_regression: ys has " + std::to_string(ys.size()) + " values, expected one per row of xs (" +
                std::to_string(xs.rows()) + ")");
  need_shape("kernel_regression", "queries", queries, rows(queries), cols(xs));
  KernelRegressionResult r{zeros(rows(queries), rows(xs)), zeros(rows(queries), rows(xs)),
                           std::vector<float>(rows(queries))};
  throw_if_error(kernel_regression_forward(ContiguousRows(xs).data(), ys.data(), rows(xs),
                                           ContiguousRows(queries).data(), rows(queries), cols(xs), kernel,
                                           bandwidth, r.scores.data(), r.weights.data(), r.predictions.data()));
  return r;
}

}  // namespace attnlab
