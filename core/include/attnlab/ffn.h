// attnlab/ffn.h — the position-wise feed-forward network, Matrix level:
//   FFN(x) = act(x·W1 + b1)·W2 + b2,  W1 [D, d_ff], W2 [d_ff, D]  (d_ff = 4·D in the notebook)
#pragma once

#include <vector>

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

}  // namespace attnlab
