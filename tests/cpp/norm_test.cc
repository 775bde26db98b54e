// layer_norm and rms_norm against float64, and the pointer-level LayerNorm's mean and rstd.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "reference.h"

using namespace attnlab_test;

TEST(Norm, LayerNormMatchesFloat64IncludingALargeOffset) {
  std::mt19937 rng(1);
  for (float offset : {0.0f, 100.0f}) {
    RowMatrixXf x = random_matrix(rng, 4, 13);
    for (size_t i = 0; i < 4 * 13; ++i) x.data()[i] += offset;
    auto g = random_vec(rng, 13), b = random_vec(rng, 13);
    // 1e-5 holds with the two-pass variance; E[x²] − E[x]² in float32 misses by ~1e-3 at offset 100.
    expect_near_all(attnlab::layer_norm(x, g, b, 1e-6f), layer_norm_d(to_d(x), 4, 13, to_d(g), to_d(b), 1e-6), tol::kSum,
                    "layer_norm");
  }
}

TEST(Norm, ConstantRowGivesBetaAndKeepsMeanRstd) {
  RowMatrixXf x = RowMatrixXf::Constant(1, 5, 0.75f), y(1, 5);
  const float beta[] = {1, 2, 3, 4, 5};
  float mean = 0, rstd = 0;
  ASSERT_TRUE(attnlab::layer_norm_forward(x.data(), 1, 5, nullptr, beta, 1e-5f, y.data(), &mean, &rstd).ok);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(y(0, i), beta[i]);
  EXPECT_FLOAT_EQ(mean, 0.75f);
  EXPECT_CLOSE(rstd, 1.0 / std::sqrt(1e-5), tol::kUlps);
}

TEST(Norm, RmsNormMatchesFloat64) {
  std::mt19937 rng(2);
  RowMatrixXf x = random_matrix(rng, 3, 9);
  auto g = random_vec(rng, 9);
  Vec want(27);
  for (size_t r = 0; r < 3; ++r) {
    double ms = 0;
    for (size_t i = 0; i < 9; ++i) ms += double(x(r, i)) * x(r, i);
    for (size_t i = 0; i < 9; ++i) want[r * 9 + i] = x(r, i) / std::sqrt(ms / 9 + 1e-6) * g[i];
  }
  expect_near_all(attnlab::rms_norm(x, g, 1e-6f), want, tol::kRounding, "rms_norm");
}
