#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/attnlab.h"

using attnlab::Matrix;

TEST(MultiHead, NotesTheCatSatHeadOne) {
  // The notes' two-head example, d_model 4, d_k 2. W_K of head 2 was lost in the OCR; attnlab uses
  // [[0.2,0.3],[0.4,0.5],[0.6,0.7],[0.8,0.9]] (matches the surviving K_sat,2 = [0.6, 0.8]).
  Matrix X{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}};
  Matrix WQ{{0.1f, 0.2f, 0.9f, 0.8f}, {0.3f, 0.4f, 0.7f, 0.6f}, {0.5f, 0.6f, 0.5f, 0.4f}, {0.7f, 0.8f, 0.3f, 0.2f}};
  Matrix WK{{0.8f, 0.7f, 0.2f, 0.3f}, {0.6f, 0.5f, 0.4f, 0.5f}, {0.4f, 0.3f, 0.6f, 0.7f}, {0.2f, 0.1f, 0.8f, 0.9f}};
  Matrix WV{{0.1f, 0.1f, 0.5f, 0.5f}, {0.2f, 0.2f, 0.6f, 0.6f}, {0.3f, 0.3f, 0.7f, 0.7f}, {0.4f, 0.4f, 0.8f, 0.8f}};
  Matrix WO{{0.1f, 0.2f, 0.3f, 0.4f}, {0.5f, 0.6f, 0.7f, 0.8f}, {0.9f, 1.0f, 1.1f, 1.2f}, {1.3f, 1.4f, 1.5f, 1.6f}};
  attnlab::MultiHeadAttention mha(2, WQ, WK, WV, WO);
  auto r = mha(X);
  // The notes: Q_the,1 = [0.6, 0.8], K_the,1 = [1.2, 1.0], Q_sat,2 = [1.6, 1.4], V_cat,2 = [1.4, 1.4].
  EXPECT_NEAR(r.q(0, 0), 0.6f, 1e-6f);
  EXPECT_NEAR(r.q(0, 1), 0.8f, 1e-6f);
  EXPECT_NEAR(r.k(0, 0), 1.2f, 1e-6f);
  EXPECT_NEAR(r.q(2, 2), 1.6f, 1e-6f);
  EXPECT_NEAR(r.v(1, 3), 1.4f, 1e-6f);
  // Head 1 scaled scores for "the": [1.52, 0.96, 1.8] / √2 → softmax.
  const float s[] = {1.52f / std::sqrt(2.f), 0.96f / std::sqrt(2.f), 1.8f / std::sqrt(2.f)};
  const float z = std::exp(s[0]) + std::exp(s[1]) + std::exp(s[2]);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(r.weights[0](0, j), std::exp(s[j]) / z, 1e-6f);
  // Output = Concat(heads)·W_O.
  for (size_t i = 0; i < 3; ++i)
    for (size_t c = 0; c < 4; ++c) {
      float acc = 0;
      for (size_t p = 0; p < 4; ++p) acc += r.heads(i, p) * WO(p, c);
      EXPECT_NEAR(r.output(i, c), acc, 1e-5f);
    }
}

TEST(MultiHead, HeadsMustDivideDModel) {
  Matrix W(6, 6, 0.1f);
  attnlab::MultiHeadAttention mha(4, W, W, W, W);
  try {
    mha(Matrix(2, 6, 1.0f));
    FAIL();
  } catch (const attnlab::Error& e) {
    EXPECT_NE(std::string(e.what()).find("heads = 4 does not divide dModel = 6"), std::string::npos);
  }
}
