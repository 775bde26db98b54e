// attnlab/multihead.h — multi-head attention, self and cross.
//
//   head_h = Attention(X·W_Q[:, h], C·W_K[:, h], C·W_V[:, h]),  out = Concat(head_1 … head_H)·W_O
#pragma once

#include <optional>
#include <vector>

#include <string>

#include "attnlab/detail/eigen_ref.h"
#include "attnlab/mask.h"
#include "attnlab/matrix.h"
#include "attnlab/ops.h"

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

// ---- Header-only adapter over multi_head_attention_forward (ops.h).

inline MultiHeadAttention::MultiHeadAttention(size_t heads, RowMatrixXf wq, RowMatrixXf wk, RowMatrixXf wv,
                                              RowMatrixXf wo)
    : heads_(heads), wq_(std::move(wq)), wk_(std::move(wk)), wv_(std::move(wv)), wo_(std::move(wo)) {
  const Eigen::Index D = wq_.rows();
  for (const RowMatrixXf* w : {&wq_, &wk_, &wv_, &wo_})
    if (w->rows() != D || w->cols() != D)
      throw Error("MultiHeadAttention: weights are " + detail::shape(*w) + ", expected [dModel, dModel] = [" +
                  std::to_string(D) + ", " + std::to_string(D) + "]");
}

inline void MultiHeadAttention::set_biases(std::vector<float> bq, std::vector<float> bk, std::vector<float> bv,
                                           std::vector<float> bo) {
  for (const auto* b : {&bq, &bk, &bv, &bo})
    if (!b->empty() && b->size() != d_model())
      throw Error("MultiHeadAttention: a bias has " + std::to_string(b->size()) + " values, expected dModel = " +
                  std::to_string(d_model()));
  bq_ = std::move(bq), bk_ = std::move(bk), bv_ = std::move(bv), bo_ = std::move(bo);
}

inline MultiHeadResult MultiHeadAttention::operator()(const Eigen::Ref<const RowMatrixXf>& x, const Mask& mask) const {
  return run(x, nullptr, mask);
}
inline MultiHeadResult MultiHeadAttention::operator()(const Eigen::Ref<const RowMatrixXf>& x,
                                                      const Eigen::Ref<const RowMatrixXf>& context,
                                                      const Mask& mask) const {
  return run(x, &context, mask);
}

inline MultiHeadResult MultiHeadAttention::run(const Eigen::Ref<const RowMatrixXf>& x,
                                               const Eigen::Ref<const RowMatrixXf>* context, const Mask& mask) const {
  using namespace detail;
  const size_t D = d_model();
  if (cols(x) != D || (context && cols(*context) != D))
    throw Error("MultiHeadAttention: inputs need dModel = " + std::to_string(D) + " columns");
  const size_t tq = rows(x), tk = context ? rows(*context) : tq;
  const ContiguousRows xs(x), cs(context ? *context : x);
  auto opt = [](const std::vector<float>& b) { return b.empty() ? nullptr : b.data(); };
  MultiHeadArgs a{xs.data(), tq, context ? cs.data() : nullptr, tk, D, heads_,
                  {wq_.data(), wk_.data(), wv_.data(), wo_.data(), opt(bq_), opt(bk_), opt(bv_), opt(bo_)},
                  mask};
  MultiHeadResult r{zeros(tq, D), zeros(tk, D), zeros(tk, D), {}, zeros(tq, D), zeros(tq, D)};
  const size_t H = heads_ ? heads_ : 1;
  std::vector<float> weights(H * tq * tk);
  MultiHeadOutputs o{r.q.data(), r.k.data(), r.v.data(), nullptr, weights.data(), r.heads.data(), r.output.data()};
  throw_if_error(multi_head_attention_forward(a, o));
  r.weights = split_heads(weights, heads_, tq, tk);
  return r;
}

}  // namespace attnlab
