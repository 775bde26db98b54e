// attnlab/ffn.h — the position-wise feed-forward network, Matrix level:
//   FFN(x) = act(x·W1 + b1)·W2 + b2,  W1 [D, d_ff], W2 [d_ff, D]  (d_ff = 4·D in the notebook)
#pragma once

#include <vector>

#include "attnlab/detail/eigen_ref.h"
#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

struct FeedForwardResult {
  RowMatrixXf pre;        // [rows, d_ff] x·W1 + b1
  RowMatrixXf activated;  // [rows, d_ff] act(pre)
  RowMatrixXf output;     // [rows, D]
};

class FeedForward {
 public:
  // W1: [D, d_ff], W2: [d_ff, D]; b1 [d_ff], b2 [D] or empty.
  FeedForward(RowMatrixXf w1, RowMatrixXf w2, std::vector<float> b1 = {}, std::vector<float> b2 = {},
              Activation act = Activation::relu);
  FeedForwardResult operator()(const Eigen::Ref<const RowMatrixXf>& x) const;  // x: [rows, D]

 private:
  RowMatrixXf w1_, w2_;
  std::vector<float> b1_, b2_;
  Activation act_;
};

// ---- Header-only adapter over feed_forward_forward (ops.h).

inline FeedForward::FeedForward(RowMatrixXf w1, RowMatrixXf w2, std::vector<float> b1, std::vector<float> b2,
                                Activation act)
    : w1_(std::move(w1)), w2_(std::move(w2)), b1_(std::move(b1)), b2_(std::move(b2)), act_(act) {
  using namespace detail;
  need_shape("FeedForward", "w2", w2_, cols(w1_), rows(w1_));
  optional_values("FeedForward", "b1", b1_, cols(w1_));
  optional_values("FeedForward", "b2", b2_, rows(w1_));
}

inline FeedForwardResult FeedForward::operator()(const Eigen::Ref<const RowMatrixXf>& x) const {
  using namespace detail;
  const size_t D = rows(w1_), F = cols(w1_), n = rows(x);
  need_shape("FeedForward", "x", x, n, D);
  FeedForwardResult r{zeros(n, F), zeros(n, F), zeros(n, D)};
  FeedForwardWeights w{w1_.data(), b1_.empty() ? nullptr : b1_.data(), w2_.data(),
                       b2_.empty() ? nullptr : b2_.data()};
  throw_if_error(feed_forward_forward(ContiguousRows(x).data(), n, D, F, w, act_,
                                      {r.pre.data(), r.activated.data(), r.output.data()}));
  return r;
}

}  // namespace attnlab
