// The attention op against the lecture's worked examples, its stated properties, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "attnlab/attnlab.h"
#include "../../core/src/kernels/kernels.h"
#include "tolerance.h"

using attnlab::Mask;
using attnlab::RowMatrixXf;
namespace tol = attnlab_test::tol;

namespace {

RowMatrixXf random_matrix(size_t r, size_t c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  RowMatrixXf m(r, c);
  for (size_t i = 0; i < r * c; ++i) m.data()[i] = d(rng);
  return m;
}

}  // namespace

TEST(Attention, NotesIPlayFootball) {
  // The study notes' example: X 3×3, W_Q, W_K, W_V 3×2, d_k = 2.
  RowMatrixXf X{{0.2f, 0.4f, 0.6f}, {0.8f, 0.3f, 0.3f}, {0.1f, 0.2f, 0.5f}};
  RowMatrixXf WQ{{1, 0}, {0, 1}, {1, -1}}, WK{{0.5f, -0.5f}, {1, 0}, {0, 1}}, WV{{1, 1}, {0.5f, -0.5f}, {1, 0}};
  auto r = attnlab::attention(attnlab::matmul(X, WQ), attnlab::matmul(X, WK), attnlab::matmul(X, WV));
  const float w0[] = {0.3233f, 0.3941f, 0.2826f};
  for (int j = 0; j < 3; ++j) EXPECT_CLOSE(r.weights(0, j), w0[j], tol::kPrinted4);
  EXPECT_CLOSE(r.output(0, 0), 1.0137f, tol::kPrinted4);
  EXPECT_CLOSE(r.output(0, 1), 0.2561f, tol::kPrinted4);
  EXPECT_CLOSE(r.scaled(0, 0), r.scores(0, 0) / std::sqrt(2.0f), tol::kRounding);
}

TEST(Attention, RowsSumToOneAndCausalIsLowerTriangular) {
  auto Q = random_matrix(9, 5, 1), K = random_matrix(9, 5, 2), V = random_matrix(9, 3, 3);
  auto r = attnlab::attention(Q, K, V, Mask::Causal());
  for (size_t i = 0; i < 9; ++i) {
    float s = 0;
    for (size_t j = 0; j < 9; ++j) {
      s += r.weights(i, j);
      if (j > i) EXPECT_EQ(r.weights(i, j), 0.0f);
    }
    EXPECT_CLOSE(s, 1.0f, tol::kSum);
  }
}

TEST(Attention, WindowMasks) {
  auto Q = random_matrix(7, 4, 4), K = random_matrix(7, 4, 5), V = random_matrix(7, 4, 6);
  auto sym = attnlab::attention(Q, K, V, Mask::Window(1));
  auto back = attnlab::attention(Q, K, V, Mask::Window(2, true));
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      EXPECT_EQ(sym.weights(i, j) > 0, std::abs(i - j) <= 1) << i << "," << j;
      EXPECT_EQ(back.weights(i, j) > 0, i - j >= 0 && i - j <= 2) << i << "," << j;
    }
}

TEST(Attention, FullyMaskedRowGivesZeros) {
  const float inf = std::numeric_limits<float>::infinity();
  auto Q = random_matrix(2, 3, 7), K = random_matrix(3, 3, 8), V = random_matrix(3, 2, 9);
  std::vector<float> m = {0, -inf, 0, -inf, -inf, -inf};
  auto r = attnlab::attention(Q, K, V, Mask::Additive(m.data()));
  for (int j = 0; j < 3; ++j) EXPECT_EQ(r.weights(1, j), 0.0f);
  EXPECT_EQ(r.output(1, 0), 0.0f);
  EXPECT_EQ(r.output(1, 1), 0.0f);
  EXPECT_CLOSE(r.weights(0, 0) + r.weights(0, 2), 1.0f, tol::kRounding);
}

TEST(Attention, PermutingKeysAndValuesLeavesOutputUnchanged) {
  auto Q = random_matrix(4, 6, 10), K = random_matrix(5, 6, 11), V = random_matrix(5, 3, 12);
  const int perm[] = {3, 0, 4, 1, 2};
  RowMatrixXf Kp(5, 6), Vp(5, 3);
  for (int i = 0; i < 5; ++i) {
    for (int c = 0; c < 6; ++c) Kp(i, c) = K(perm[i], c);
    for (int c = 0; c < 3; ++c) Vp(i, c) = V(perm[i], c);
  }
  auto a = attnlab::attention(Q, K, V), b = attnlab::attention(Q, Kp, Vp);
  for (size_t i = 0; i < 4 * 3; ++i) EXPECT_CLOSE(a.output.data()[i], b.output.data()[i], tol::kSum);
}

TEST(Attention, HugeLogitsStayFinite) {
  RowMatrixXf Q{{1e15f, 0}}, K{{1e15f, 0}, {-1e15f, 0}, {0, 1}}, V{{1, 2}, {3, 4}, {5, 6}};
  auto r = attnlab::attention(Q, K, V, Mask::None(), 1.0f);  // scores ±1e30
  EXPECT_FLOAT_EQ(r.weights(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(r.output(0, 1), 2.0f);
}

TEST(Attention, BadInputThrowsWithNamedArgument) {
  auto Q = random_matrix(2, 3, 1), K = random_matrix(3, 3, 2), V = random_matrix(3, 2, 3);
  EXPECT_THROW(attnlab::attention(Q, K, V, Mask::Causal()), attnlab::Error);  // t_q ≠ t_k
  Q(1, 1) = std::nanf("");
  try {
    attnlab::attention(Q, K, V);
    FAIL() << "expected an error";
  } catch (const attnlab::Error& e) {
    EXPECT_NE(std::string(e.what()).find("q[4] is NaN"), std::string::npos) << e.what();
  }
  EXPECT_THROW(attnlab::attention(K, K, V, Mask::None(), 0.0f), attnlab::Error);
}

// The SIMD softmax runs rows four at a time when the row length is a multiple of 4 (a head's weights
// at tk = 16): every row must be what the one-row path gives, bit for bit, including blocks holding a
// fully masked row (−∞: zeros), an overflowed row (+∞: shared weight) or a partly masked row, in
// place or not, with a leftover of fewer than 4 rows.
TEST(SoftmaxRows, FourRowBlocksEqualRowByRow) {
  namespace k = attnlab::kernels;
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937 gen(29);
  std::uniform_real_distribution<float> u(-30.0f, 30.0f);
  for (size_t rows : {size_t{4}, size_t{7}, size_t{16}, size_t{64}})
    for (size_t cols : {size_t{4}, size_t{16}, size_t{20}, size_t{6}}) {
      std::vector<float> x(rows * cols);
      for (float& v : x) v = u(gen);
      for (size_t j = 0; j < cols; ++j) x[1 * cols + j] = -inf;       // row 1: fully masked
      x[2 * cols + cols - 1] = inf;                                     // row 2: an overflowed score
      for (size_t j = 0; j < cols; j += 2) x[(rows - 1) * cols + j] = -inf;  // last row: partly masked
      std::vector<float> whole(rows * cols), one(rows * cols), inplace = x;
      k::softmax_rows_f32_wasmsimd(rows, cols, x.data(), cols, whole.data(), cols);
      for (size_t i = 0; i < rows; ++i)
        k::softmax_rows_f32_wasmsimd(1, cols, x.data() + i * cols, cols, one.data() + i * cols, cols);
      k::softmax_rows_f32_wasmsimd(rows, cols, inplace.data(), cols, inplace.data(), cols);
      for (size_t i = 0; i < rows * cols; ++i) {
        ASSERT_EQ(whole[i], one[i]) << "rows " << rows << " cols " << cols << " at " << i;
        ASSERT_EQ(inplace[i], one[i]) << "in place, rows " << rows << " cols " << cols << " at " << i;
      }
      for (size_t i = 0; i < rows; ++i) {
        float sum = 0.0f;
        for (size_t j = 0; j < cols; ++j) sum += whole[i * cols + j];
        EXPECT_NEAR(sum, i == 1 ? 0.0f : 1.0f, 1e-5f) << "row " << i;
      }
    }
}
