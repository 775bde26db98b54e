// attnlab/norm.h — Add & Norm's normalisations and the feed-forward activations, Matrix level.
//
//   LayerNorm(x) = (x − μ)/√(σ² + eps)·γ + β   per row (torch.nn.LayerNorm, biased σ²)
//   RMSNorm(x)   = x/√(mean(x²) + eps)·γ
#pragma once

#include <vector>

#include "attnlab/detail/eigen_ref.h"
#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

// x: [rows, dim]; gamma, beta: [dim] or empty (γ = 1, β = 0). Throws attnlab::Error.
RowMatrixXf layer_norm(const Eigen::Ref<const RowMatrixXf>& x, const std::vector<float>& gamma = {},
                       const std::vector<float>& beta = {}, float eps = 1e-5f);
RowMatrixXf rms_norm(const Eigen::Ref<const RowMatrixXf>& x, const std::vector<float>& gamma = {}, float eps = 1e-6f);
// Element-wise GELU (exact or tanh) or ReLU.
RowMatrixXf activation(const Eigen::Ref<const RowMatrixXf>& x, Activation kind);

// ---- Header-only adapters over the pointer-level ops (ops.h).

inline RowMatrixXf layer_norm(const Eigen::Ref<const RowMatrixXf>& x, const std::vector<float>& gamma,
                              const std::vector<float>& beta, float eps) {
  using namespace detail;
  RowMatrixXf y = zeros(rows(x), cols(x));
  throw_if_error(layer_norm_forward(ContiguousRows(x).data(), rows(x), cols(x),
                                    optional_values("layerNorm", "gamma", gamma, cols(x)),
                                    optional_values("layerNorm", "beta", beta, cols(x)), eps, y.data()));
  return y;
}

inline RowMatrixXf rms_norm(const Eigen::Ref<const RowMatrixXf>& x, const std::vector<float>& gamma, float eps) {
  using namespace detail;
  RowMatrixXf y = zeros(rows(x), cols(x));
  throw_if_error(rms_norm_forward(ContiguousRows(x).data(), rows(x), cols(x),
                                  optional_values("rmsNorm", "gamma", gamma, cols(x)), eps, y.data()));
  return y;
}

inline RowMatrixXf activation(const Eigen::Ref<const RowMatrixXf>& x, Activation kind) {
  using namespace detail;
  RowMatrixXf y = zeros(rows(x), cols(x));
  throw_if_error(activation_forward(kind, ContiguousRows(x).data(), rows(x) * cols(x), y.data()));
  return y;
}

}  // namespace attnlab
