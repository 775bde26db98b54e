#include <gtest/gtest.h>

#include <cmath>

#include "attnlab/attnlab.h"
#include "tolerance.h"

namespace tol = attnlab_test::tol;

TEST(Positional, SinusoidalFormula) {
  auto pe = attnlab::sinusoidal_positional_encoding(6, 5, 10000.0f);
  for (size_t pos = 0; pos < 6; ++pos)
    for (size_t c = 0; c < 5; ++c) {
      const double angle = pos / std::pow(10000.0, double(c / 2 * 2) / 5);
      EXPECT_CLOSE(pe(pos, c), c % 2 ? std::cos(angle) : std::sin(angle), tol::kRounding);
    }
}

TEST(Positional, RopeDotProductDependsOnlyOnOffset) {
  // q·k after RoPE depends on the positions only through their difference.
  attnlab::RowMatrixXf q{{0.3f, -1.2f, 0.5f, 2.0f}}, k{{1.1f, 0.4f, -0.7f, 0.2f}};
  auto dot = [](const attnlab::RowMatrixXf& a, const attnlab::RowMatrixXf& b) {
    float s = 0;
    for (Eigen::Index i = 0; i < a.cols(); ++i) s += a(0, i) * b(0, i);
    return s;
  };
  const float d1 = dot(attnlab::rope(q, 10000.f, 5), attnlab::rope(k, 10000.f, 2));
  const float d2 = dot(attnlab::rope(q, 10000.f, 13), attnlab::rope(k, 10000.f, 10));
  EXPECT_CLOSE(d1, d2, tol::kSum);
}

TEST(Positional, AlibiSlopes) {
  auto s8 = attnlab::alibi_slopes(8);
  for (int h = 0; h < 8; ++h) EXPECT_FLOAT_EQ(s8[h], std::exp2(-(h + 1.0f)));
  auto s6 = attnlab::alibi_slopes(6);  // 2^-2, 2^-4, 2^-6, 2^-8 (4 heads), then 2^-1, 2^-3 (every other of 8 heads)
  EXPECT_FLOAT_EQ(s6[0], 0.25f);
  EXPECT_FLOAT_EQ(s6[4], 0.5f);
  EXPECT_FLOAT_EQ(s6[5], 0.125f);
}
