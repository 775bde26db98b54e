// activation (ReLU, GELU both forms) and the feed-forward against float64.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "reference.h"

using namespace attnlab_test;

TEST(Activation, GeluBothFormsAndRelu) {
  RowMatrixXf x{{-6, -3, -1, -0.25f, 0, 1e-4f, 0.5f, 1, 4}};
  Vec erf_form, tanh_form, relu;
  for (float v : x.reshaped()) erf_form.push_back(gelu_d(v)), tanh_form.push_back(gelu_tanh_d(v)), relu.push_back(std::max(v, 0.0f));
  expect_near_all(attnlab::activation(x, attnlab::Activation::gelu), erf_form, tol::kRounding, "gelu");
  expect_near_all(attnlab::activation(x, attnlab::Activation::gelu_tanh), tanh_form, tol::kRounding, "gelu_tanh");
  expect_near_all(attnlab::activation(x, attnlab::Activation::relu), relu, tol::kExact, "relu");
}

TEST(FeedForward, MatchesFloat64AndKeepsPreActivation) {
  std::mt19937 rng(3);
  const size_t D = 6, F = 24;
  auto p = random_ffn(rng, D, F);
  RowMatrixXf x = random_matrix(rng, 5, D);
  attnlab::FeedForward ffn(p.w1, p.w2, p.b1, p.b2, attnlab::Activation::gelu);
  auto r = ffn(x);
  expect_near_all(r.pre, matmul_d(to_d(x), to_d(p.w1), 5, D, F, to_d(p.b1)), tol::kSum, "pre");
  expect_near_all(r.output, ffn_d(to_d(x), 5, D, F, p, attnlab::Activation::gelu), tol::kSum, "output");
}
