// The streaming backward's tile kernels (core/src/kernels/f32-softmax-grad/): each wasmsimd twin
// against its scalar reference at awkward sizes, strided, with guard regions around the tile; and
// exp_minus_lse against float64 softmax (rows sum to 1 when lse is the row's log-sum-exp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../core/src/kernels/kernels.h"
#include "tolerance.h"

namespace attnlab_test {
namespace {

namespace k = attnlab::kernels;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kGuard = 12345.0f;

std::vector<float> uniform(size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A [rows, cols] tile with row stride cols + 3, whose padding (and a row of guard after it) holds
// kGuard: a kernel that writes outside its tile changes a guard.
struct Tile {
  size_t rows, cols, ld;
  std::vector<float> buf;
  Tile(size_t r, size_t c) : rows(r), cols(c), ld(c + 3), buf((r + 1) * (c + 3), kGuard) {}
  float& at(size_t i, size_t j) { return buf[i * ld + j]; }
  float* data() { return buf.data(); }
  std::vector<float> values() const {
    std::vector<float> v;
    for (size_t i = 0; i < rows; ++i)
      for (size_t j = 0; j < cols; ++j) v.push_back(buf[i * ld + j]);
    return v;
  }
  bool guards_intact() const {
    for (size_t i = 0; i < buf.size(); ++i)
      if ((i / ld >= rows || i % ld >= cols) && buf[i] != kGuard) return false;
    return true;
  }
};

const size_t kRows[] = {1, 3, 5};
const size_t kCols[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 17, 31, 64, 129};

// Scaled, masked scores: some −∞ (masked keys), row 1 (when present) all −∞ with lse = −∞; lse of the
// other rows a little above their max, as a real log-sum-exp.
void fill_scores(Tile& t, std::vector<float>& lse, unsigned seed) {
  const auto v = uniform(t.rows * t.cols, seed, -30.0f, 30.0f);
  lse.assign(t.rows, 0.0f);
  for (size_t i = 0; i < t.rows; ++i) {
    float mx = kNegInf;
    for (size_t j = 0; j < t.cols; ++j) {
      t.at(i, j) = (i == 1 || (i + j) % 4 == 3) ? kNegInf : v[i * t.cols + j];
      mx = std::max(mx, t.at(i, j));
    }
    lse[i] = mx == kNegInf ? kNegInf : mx + 0.5f;
  }
}

TEST(SoftmaxGradKernels, ExpMinusLseSimdMatchesScalar) {
  unsigned seed = 1;
  for (size_t rows : kRows)
    for (size_t cols : kCols) {
      Tile a(rows, cols), b(rows, cols);
      std::vector<float> lse;
      fill_scores(a, lse, ++seed);
      b.buf = a.buf;
      k::exp_minus_lse_f32_scalar(rows, cols, a.data(), a.ld, lse.data());
      k::exp_minus_lse_f32_wasmsimd(rows, cols, b.data(), b.ld, lse.data());
      const std::string what = std::to_string(rows) + "x" + std::to_string(cols);
      // Probabilities in [0, 1]; the SIMD exp is within 2 ulp of std::exp (simd128_math.h).
      expect_close_all(b.values(), a.values(), tol::kRounding, what);
      ASSERT_TRUE(a.guards_intact() && b.guards_intact()) << what;
      for (size_t j = 0; rows > 1 && j < cols; ++j) EXPECT_EQ(b.at(1, j), 0.0f) << "row with lse = -inf";
    }
}

TEST(SoftmaxGradKernels, ExpMinusLseIsTheSoftmax) {
  const size_t n = 301;
  auto x = uniform(n, 7, -20.0f, 20.0f);
  x[5] = kNegInf;
  double mx = -INFINITY, z = 0;
  for (float v : x) mx = std::max(mx, double(v));
  for (float v : x) z += std::exp(double(v) - mx);
  const float lse = static_cast<float>(mx + std::log(z));
  for (auto fn : {k::exp_minus_lse_f32_scalar, k::exp_minus_lse_f32_wasmsimd}) {
    std::vector<float> p = x;
    fn(1, n, p.data(), n, &lse);
    std::vector<double> want(n);
    for (size_t j = 0; j < n; ++j) want[j] = std::exp(double(x[j]) - mx) / z;
    // exp of S − lse with |S|, |lse| ≤ 30: the rounding of lse (≈ 2e-6 at 30) enters every p.
    expect_close_all(p, want, tol::kRef, "softmax from lse");
    EXPECT_EQ(p[5], 0.0f);
  }
}

TEST(SoftmaxGradKernels, SoftmaxGradSimdMatchesScalarBitForBit) {
  unsigned seed = 100;
  for (size_t rows : kRows)
    for (size_t cols : kCols) {
      Tile p(rows, cols), da(rows, cols), db(rows, cols);
      const auto pv = uniform(rows * cols, ++seed, 0.0f, 1.0f), dv = uniform(rows * cols, ++seed, -2.0f, 2.0f);
      for (size_t i = 0; i < rows; ++i)
        for (size_t j = 0; j < cols; ++j) {
          p.at(i, j) = (i + j) % 4 == 3 ? 0.0f : pv[i * cols + j];  // masked keys have p = 0
          da.at(i, j) = db.at(i, j) = dv[i * cols + j];
        }
      const auto delta = uniform(rows, ++seed, -1.0f, 1.0f);
      k::softmax_grad_f32_scalar(rows, cols, p.data(), p.ld, da.data(), da.ld, delta.data(), 0.37f);
      k::softmax_grad_f32_wasmsimd(rows, cols, p.data(), p.ld, db.data(), db.ld, delta.data(), 0.37f);
      const std::string what = std::to_string(rows) + "x" + std::to_string(cols);
      // The same float operations in the same order (no FMA in SIMD128).
      expect_close_all(db.values(), da.values(), tol::kExact, what);
      ASSERT_TRUE(da.guards_intact() && db.guards_intact()) << what;
      for (size_t i = 0; i < rows; ++i)  // against the formula, in double
        for (size_t j = 0; j < cols; ++j) {
          const double want = double(p.at(i, j)) * (double(dv[i * cols + j]) - delta[i]) * 0.37;
          EXPECT_CLOSE(da.at(i, j), want, tol::kRounding);
        }
    }
}

}  // namespace
}  // namespace attnlab_test
