// embed and the tied output head against float64.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "reference.h"

using namespace attnlab_test;

TEST(Embedding, LookupAndTiedHead) {
  std::mt19937 rng(6);
  const size_t V = 11, D = 6;
  RowMatrixXf table = random_matrix(rng, V, D);
  const std::vector<int> ids{3, 0, 10, 3};
  RowMatrixXf e = attnlab::embed(table, ids);
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = 0; j < D; ++j) EXPECT_EQ(e(i, j), table(ids[i], j));
  auto bias = random_vec(rng, V);
  auto r = attnlab::output_head(e, table, bias, 0.5f);
  for (size_t i = 0; i < ids.size(); ++i) {
    Vec logit(V);
    double m = -INFINITY, z = 0;
    for (size_t v = 0; v < V; ++v) {
      for (size_t j = 0; j < D; ++j) logit[v] += double(e(i, j)) * table(v, j);
      logit[v] += bias[v];
      m = std::max(m, logit[v] / 0.5);
    }
    for (size_t v = 0; v < V; ++v) z += std::exp(logit[v] / 0.5 - m);
    for (size_t v = 0; v < V; ++v) {
      EXPECT_CLOSE(r.logits(i, v), logit[v], tol::kSum);
      EXPECT_CLOSE(r.probs(i, v), std::exp(logit[v] / 0.5 - m) / z, tol::kRounding);
    }
  }
}
