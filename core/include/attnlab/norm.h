// attnlab/norm.h — Add & Norm's normalisations and the feed-forward activations, Matrix level.
//
//   LayerNorm(x) = (x − μ)/√(σ² + eps)·γ + β   per row (torch.nn.LayerNorm, biased σ²)
//   RMSNorm(x)   = x/√(mean(x²) + eps)·γ
#pragma once

#include <vector>

#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

// x: [rows, dim]; gamma, beta: [dim] or empty (γ = 1, β = 0). Throws attnlab::Error.
RowMatrixXf layer_norm(const Eigen::Ref<const RowMatrixXf>& x, const std::vector<float>& gamma = {},
                       const std::vector<float>& beta = {}, float eps = 1e-5f);
RowMatrixXf rms_norm(const Eigen::Ref<const RowMatrixXf>& x, const std::vector<float>& gamma = {}, float eps = 1e-6f);
// Element-wise GELU (exact or tanh) or ReLU.
RowMatrixXf activation(const Eigen::Ref<const RowMatrixXf>& x, Activation kind);

}  // namespace attnlab
