// attnlab/multihead.h — multi-head attention, self and cross.
//
//   head_h = Attention(X·W_Q[:, h], C·W_K[:, h], C·W_V[:, h]),  out = Concat(head_1 … head_H)·W_O
#pragma once

#include <optional>
#include <vector>

#include "attnlab/mask.h"
#include "attnlab/matrix.h"

namespace attnlab {

struct MultiHeadResult {
  RowMatrixXf q, k, v;                // [t_q, D], [t_k, D], [t_k, D]
  std::vector<RowMatrixXf> weights;   // H × [t_q, t_k]
  RowMatrixXf heads;                  // [t_q, D] concatenated head outputs
  RowMatrixXf output;                 // [t_q, D]
};

class MultiHeadAttention {
 public:
  // W_Q, W_K, W_V, W_O: [D, D]; biases [D] or empty.
  MultiHeadAttention(size_t heads, RowMatrixXf wq, RowMatrixXf wk, RowMatrixXf wv, RowMatrixXf wo);
  void set_biases(std::vector<float> bq, std::vector<float> bk, std::vector<float> bv, std::vector<float> bo);

  size_t heads() const { return heads_; }
  size_t d_model() const { return wq_.rows(); }

  // Self-attention: x [t, D].
  MultiHeadResult operator()(const Eigen::Ref<const RowMatrixXf>& x, const Mask& mask = Mask::None()) const;
  // Cross-attention: queries from x [t_q, D], keys and values from context [t_k, D].
  MultiHeadResult operator()(const Eigen::Ref<const RowMatrixXf>& x, const Eigen::Ref<const RowMatrixXf>& context,
                             const Mask& mask = Mask::None()) const;

 private:
  MultiHeadResult run(const Eigen::Ref<const RowMatrixXf>& x, const Eigen::Ref<const RowMatrixXf>* context, const Mask& mask) const;
  size_t heads_;
  RowMatrixXf wq_, wk_, wv_, wo_;
  std::vector<float> bq_, bk_, bv_, bo_;
};

}  // namespace attnlab
