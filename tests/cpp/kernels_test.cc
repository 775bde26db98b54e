// Each wasmsimd kernel against its scalar twin, at awkward (prime) sizes that reach every
// remainder path, with guard regions around the output to catch overruns (ggml's test-backend-ops).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../core/src/kernels/kernels.h"
#include "tolerance.h"

namespace k = attnlab::kernels;

namespace {

constexpr float kGuard = 12345.0f;
constexpr size_t kPad = 16;

std::vector<float> random_vec(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Normalised error as in ggml: |a - b| / max(1, |b|).
void expect_close(const float* a, const float* b, size_t n, float tol) {
  for (size_t i = 0; i < n; ++i) {
    const float scale = std::max(1.0f, std::fabs(b[i]));
    ASSERT_LE(std::fabs(a[i] - b[i]) / scale, tol) << "at " << i << ": " << a[i] << " vs " << b[i];
  }
}

struct Guarded {
  std::vector<float> buf;
  explicit Guarded(size_t n) : buf(n + 2 * kPad, kGuard) {}
  float* data() { return buf.data() + kPad; }
  bool intact(size_t n) const {
    for (size_t i = 0; i < kPad; ++i)
      if (buf[i] != kGuard || buf[kPad + n + i] != kGuard) return false;
    return true;
  }
};

const size_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 64};

// The four strided GEMMs of m × n × kk (nn with bias, nt, and both accumulating into C) against their
// scalar twins: every row within tol, the guard words intact, and C's ld padding left alone by the
// accumulating ones. Inputs from random_vec(…, seed … seed + 4).
void expect_gemms_match_scalar(size_t m, size_t n, size_t kk, unsigned seed, float tol) {
  const size_t lda = kk + 3, ldb = n + 5, ldc = n + 2, ldbt = kk + 1;
  auto a = random_vec(m * lda, seed), b = random_vec(kk * ldb, seed + 1), bt = random_vec(n * ldbt, seed + 2);
  auto bias = random_vec(n, seed + 3), c0 = random_vec(m * ldc, seed + 4);
  const auto rows_close = [&](Guarded& got, Guarded& want) {
    for (size_t i = 0; i < m; ++i) expect_close(got.data() + i * ldc, want.data() + i * ldc, n, tol);
    ASSERT_TRUE(got.intact(m * ldc)) << m << "x" << n << "x" << kk;
  };
  Guarded c1(m * ldc), c2(m * ldc);
  k::gemm_nn_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, bias.data(), c1.data(), ldc);
  k::gemm_nn_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, bias.data(), c2.data(), ldc);
  rows_close(c2, c1);
  Guarded d1(m * ldc), d2(m * ldc);
  k::gemm_nt_f32_scalar(m, n, kk, a.data(), lda, bt.data(), ldbt, d1.data(), ldc);
  k::gemm_nt_f32_wasmsimd(m, n, kk, a.data(), lda, bt.data(), ldbt, d2.data(), ldc);
  rows_close(d2, d1);
  Guarded e1(m * ldc), e2(m * ldc), f1(m * ldc), f2(m * ldc);
  for (Guarded* g : {&e1, &e2, &f1, &f2}) std::copy(c0.begin(), c0.end(), g->data());
  k::gemm_nn_acc_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, e1.data(), ldc);
  k::gemm_nn_acc_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, e2.data(), ldc);
  rows_close(e2, e1);
  k::gemm_nt_acc_f32_scalar(m, n, kk, a.data(), lda, bt.data(), ldbt, f1.data(), ldc);
  k::gemm_nt_acc_f32_wasmsimd(m, n, kk, a.data(), lda, bt.data(), ldbt, f2.data(), ldc);
  rows_close(f2, f1);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = n; j < ldc; ++j) {
      ASSERT_EQ(e2.data()[i * ldc + j], c0[i * ldc + j]);
      ASSERT_EQ(f2.data()[i * ldc + j], c0[i * ldc + j]);
    }
}

}  // namespace

TEST(Kernels, GemmNnSimdMatchesScalar) {
  for (size_t m : kSizes)
    for (size_t n : kSizes)
      for (size_t kk : {size_t{1}, size_t{3}, size_t{8}, size_t{19}}) {
        const size_t lda = kk + 2, ldb = n + 3, ldc = n + 1;  // strided, like a head's column slice
        auto a = random_vec(m * lda, 1), b = random_vec(kk * ldb, 2), bias = random_vec(n, 3);
        for (bool with_bias : {false, true}) {
          Guarded c1(m * ldc), c2(m * ldc);
          k::gemm_nn_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, with_bias ? bias.data() : nullptr, c1.data(), ldc);
          k::gemm_nn_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, with_bias ? bias.data() : nullptr, c2.data(), ldc);
          for (size_t i = 0; i < m; ++i) expect_close(c2.data() + i * ldc, c1.data() + i * ldc, n, 1e-5f);
          ASSERT_TRUE(c2.intact(m * ldc)) << "gemm_nn wrote outside C at m=" << m << " n=" << n;
        }
      }
}

TEST(Kernels, GemmNtSimdMatchesScalar) {
  for (size_t m : kSizes)
    for (size_t n : kSizes)
      for (size_t kk : {size_t{1}, size_t{2}, size_t{5}, size_t{8}, size_t{23}}) {
        const size_t lda = kk + 1, ldb = kk + 4, ldc = n + 2;
        auto a = random_vec(m * lda, 4), b = random_vec(n * ldb, 5);
        Guarded c1(m * ldc), c2(m * ldc);
        k::gemm_nt_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, c1.data(), ldc);
        k::gemm_nt_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, c2.data(), ldc);
        for (size_t i = 0; i < m; ++i) expect_close(c2.data() + i * ldc, c1.data() + i * ldc, n, 1e-5f);
        ASSERT_TRUE(c2.intact(m * ldc));
      }
}

TEST(Kernels, SoftmaxSimdMatchesScalar) {
  for (size_t rows : {size_t{1}, size_t{3}, size_t{7}})
    for (size_t cols : kSizes) {
      auto x = random_vec(rows * cols, 6, -30.0f, 30.0f);
      Guarded y1(rows * cols), y2(rows * cols);
      k::softmax_rows_f32_scalar(rows, cols, x.data(), cols, y1.data(), cols);
      k::softmax_rows_f32_wasmsimd(rows, cols, x.data(), cols, y2.data(), cols);
      expect_close(y2.data(), y1.data(), rows * cols, 2e-6f);
      ASSERT_TRUE(y2.intact(rows * cols));
    }
}

TEST(Kernels, SoftmaxEdgeCasesAgree) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::vector<float>> rows = {
      {1e30f, -1e30f, 0.0f, 5.0f, -inf},        // huge logits stay finite
      {-inf, -inf, -inf, -inf, -inf},            // fully masked: zeros, not NaN
      {-inf, 3.0f, -inf, -inf, -inf},            // one key left: weight 1
      {inf, 1.0f, inf, -inf, 0.0f},              // overflowed scores share the weight
      {-100.0f, -100.0f, -200.0f, -100.0f, -87.0f},
      {1e-40f, -1e-40f, 0.0f, 1e-39f, 0.0f},     // denormals
  };
  for (const auto& r : rows) {
    std::vector<float> y1(r.size()), y2(r.size());
    k::softmax_rows_f32_scalar(1, r.size(), r.data(), r.size(), y1.data(), r.size());
    k::softmax_rows_f32_wasmsimd(1, r.size(), r.data(), r.size(), y2.data(), r.size());
    float sum = 0;
    for (size_t j = 0; j < r.size(); ++j) {
      ASSERT_TRUE(std::isfinite(y1[j]) && std::isfinite(y2[j]));
      EXPECT_NEAR(y1[j], y2[j], 1e-6f);
      if (r[j] == -inf) {
        EXPECT_EQ(y1[j], 0.0f);
        EXPECT_EQ(y2[j], 0.0f);
      }
      sum += y2[j];
    }
    const bool all_masked = r[0] == -inf && r[2] == -inf && r[1] == -inf;
    EXPECT_NEAR(sum, all_masked ? 0.0f : 1.0f, 1e-5f);
  }
}

TEST(Kernels, SoftmaxLongRows) {
  // A very long row (a 16k-token context) still sums to 1 and agrees with the scalar twin.
  const size_t n = 16411;
  auto x = random_vec(n, 7, -5.0f, 5.0f);
  std::vector<float> y1(n), y2(n);
  k::softmax_rows_f32_scalar(1, n, x.data(), n, y1.data(), n);
  k::softmax_rows_f32_wasmsimd(1, n, x.data(), n, y2.data(), n);
  double s = 0;
  for (size_t j = 0; j < n; ++j) s += y2[j];
  EXPECT_NEAR(s, 1.0, 1e-4);
  expect_close(y2.data(), y1.data(), n, 1e-6f);
}

// ---- Packed GEMM (the blocked kernel) at sizes that cross the 6-row, 8-column and 256-deep blocks; C += A·B;
// the online softmax block.
TEST(Kernels, GemmPackedBlocksMatchScalar) {
  for (size_t m : {size_t{5}, size_t{6}, size_t{7}, size_t{37}})
    for (size_t n : {size_t{7}, size_t{8}, size_t{9}, size_t{29}})
      for (size_t kk : {size_t{255}, size_t{256}, size_t{257}, size_t{521}}) {
        const size_t lda = kk + 3, ldb = n + 5, ldc = n + 2, ldbt = kk + 1;
        auto a = random_vec(m * lda, 11), b = random_vec(kk * ldb, 12), bt = random_vec(n * ldbt, 13);
        auto bias = random_vec(n, 14);
        Guarded c1(m * ldc), c2(m * ldc);
        k::gemm_nn_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, bias.data(), c1.data(), ldc);
        k::gemm_nn_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, bias.data(), c2.data(), ldc);
        for (size_t i = 0; i < m; ++i) expect_close(c2.data() + i * ldc, c1.data() + i * ldc, n, 1e-4f);
        ASSERT_TRUE(c2.intact(m * ldc));
        Guarded d1(m * ldc), d2(m * ldc);
        k::gemm_nt_f32_scalar(m, n, kk, a.data(), lda, bt.data(), ldbt, d1.data(), ldc);
        k::gemm_nt_f32_wasmsimd(m, n, kk, a.data(), lda, bt.data(), ldbt, d2.data(), ldc);
        for (size_t i = 0; i < m; ++i) expect_close(d2.data() + i * ldc, d1.data() + i * ldc, n, 1e-4f);
        ASSERT_TRUE(d2.intact(m * ldc));
      }
}

// Large products: past 128 rows A is walked in row blocks against a packed panel of B, and past 256
// columns B comes in several panels; partial strips, blocks and panels at once, strided, every variant.
TEST(Kernels, GemmRowBlocksAndPanelsMatchScalar) {
  for (size_t m : {size_t{129}, size_t{261}})
    for (size_t n : {size_t{9}, size_t{263}})
      for (size_t kk : {size_t{7}, size_t{300}}) expect_gemms_match_scalar(m, n, kk, 61, 1e-4f);
}

// A packed into row blocks (from 32 columns of C on) and, for one row block (≤ 128 rows) nn, B packed
// in groups of columns read row by row: every row tail, a partial last strip inside a group, several
// groups, panels and reduction blocks, with bias and accumulation.
TEST(Kernels, GemmPackedAAndColumnGroupsMatchScalar) {
  for (size_t m : {size_t{17}, size_t{53}, size_t{128}})
    for (size_t n : {size_t{33}, size_t{71}, size_t{263}})
      for (size_t kk : {size_t{5}, size_t{300}}) {
        expect_gemms_match_scalar(m, n, kk, 71, 1e-5f);
        const size_t lda = kk + 3, ldb = n + 5;
        auto a = random_vec(m * lda, 71), b = random_vec(kk * ldb, 72);  // the helper's A and B
        // From packed B: C = A·B (row blocks of A packed too when n ≥ 32).
        const size_t np = k::packed_b_floats(kk, n);
        std::vector<float> bp(np), want(m * n), got(m * n);
        k::pack_b_nn_f32_wasmsimd(kk, n, b.data(), ldb, bp.data());
        k::gemm_nn_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, nullptr, want.data(), n);
        k::gemm_prepacked_f32_wasmsimd(m, n, kk, a.data(), lda, bp.data(), 8 * kk, false, got.data(), n);
        expect_close(got.data(), want.data(), m * n, 1e-5f);
      }
}

TEST(Kernels, GemmNnAccSimdMatchesScalar) {
  for (size_t m : kSizes)
    for (size_t n : kSizes)
      for (size_t kk : {size_t{1}, size_t{3}, size_t{19}, size_t{263}}) {
        const size_t lda = kk + 2, ldb = n + 3, ldc = n + 1;
        auto a = random_vec(m * lda, 21), b = random_vec(kk * ldb, 22), c0 = random_vec(m * ldc, 23);
        Guarded c1(m * ldc), c2(m * ldc);
        std::copy(c0.begin(), c0.end(), c1.data());
        std::copy(c0.begin(), c0.end(), c2.data());
        k::gemm_nn_acc_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, c1.data(), ldc);
        k::gemm_nn_acc_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, c2.data(), ldc);
        // Entries outside the n columns of each row (the ld padding) must stay as they were.
        for (size_t i = 0; i < m; ++i) {
          expect_close(c2.data() + i * ldc, c1.data() + i * ldc, n, 1e-4f);
          for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c2.data()[i * ldc + j], c0[i * ldc + j]);
        }
        ASSERT_TRUE(c2.intact(m * ldc));
      }
}

TEST(Kernels, GemmNtAccSimdMatchesScalar) {
  for (size_t m : kSizes)
    for (size_t n : kSizes)
      for (size_t kk : {size_t{1}, size_t{3}, size_t{19}, size_t{263}}) {
        const size_t lda = kk + 2, ldb = kk + 3, ldc = n + 1;  // B is [n, k]: C += A·Bᵀ
        auto a = random_vec(m * lda, 41), b = random_vec(n * ldb, 42), c0 = random_vec(m * ldc, 43);
        Guarded c1(m * ldc), c2(m * ldc);
        std::copy(c0.begin(), c0.end(), c1.data());
        std::copy(c0.begin(), c0.end(), c2.data());
        k::gemm_nt_acc_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, c1.data(), ldc);
        k::gemm_nt_acc_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, c2.data(), ldc);
        for (size_t i = 0; i < m; ++i) {
          expect_close(c2.data() + i * ldc, c1.data() + i * ldc, n, 1e-4f);  // as gemm_nn_acc: blocked sums
          for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c2.data()[i * ldc + j], c0[i * ldc + j]);
        }
        ASSERT_TRUE(c2.intact(m * ldc));
      }
}

// The tn kernel tiles C by 4 rows × 8 columns, then 4 columns, then the last n % 4 columns vectorised
// along the rows (or one entry at a time in the last m % 4 rows): m, n up to 33 reach every mix of
// those paths; tight and padded strides; k from 1 up.
const size_t kTnSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 17, 31, 33};

TEST(Kernels, GemmTnAccSimdMatchesScalar) {
  for (size_t m : kTnSizes)
    for (size_t n : kTnSizes)
      for (size_t kk : kTnSizes)
        for (size_t pad : {size_t{0}, size_t{3}}) {
          // A is [k, m], B [k, n], C [m, n]: C += Aᵀ·B, each with its own stride (pad 0: tight).
          const size_t lda = m + pad, ldb = n + 2 * pad, ldc = n + pad / 3;
          const unsigned seed = unsigned(m * 10000 + n * 100 + kk);
          auto a = random_vec(kk * lda, seed), b = random_vec(kk * ldb, seed + 1),
               c0 = random_vec(m * ldc, seed + 2);
          Guarded c1(m * ldc), c2(m * ldc);
          std::copy(c0.begin(), c0.end(), c1.data());
          std::copy(c0.begin(), c0.end(), c2.data());
          k::gemm_tn_acc_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, c1.data(), ldc);
          k::gemm_tn_acc_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, c2.data(), ldc);
          for (size_t i = 0; i < m; ++i) {
            // Same products summed in the same order: equal, not just close.
            for (size_t j = 0; j < n; ++j)
              ASSERT_EQ(c2.data()[i * ldc + j], c1.data()[i * ldc + j])
                  << "m " << m << " n " << n << " k " << kk << " pad " << pad << " at " << i << "," << j;
            for (size_t j = n; j < ldc; ++j) ASSERT_EQ(c2.data()[i * ldc + j], c0[i * ldc + j]);
          }
          ASSERT_TRUE(c2.intact(m * ldc));
          // And the scalar twin is Aᵀ·B: its last entry against a direct sum in double.
          double want = c0[(m - 1) * ldc + n - 1];
          for (size_t p = 0; p < kk; ++p) want += double(a[p * lda + m - 1]) * b[p * ldb + n - 1];
          ASSERT_CLOSE(c1.data()[(m - 1) * ldc + n - 1], want, attnlab_test::tol::kRef);
        }
}

// A long reduction (k past the forward kernels' 256-deep blocks) at the backward's shapes.
TEST(Kernels, GemmTnAccSimdMatchesScalarLongK) {
  for (size_t m : {size_t{16}, size_t{23}, size_t{32}})
    for (size_t n : {size_t{16}, size_t{31}, size_t{32}}) {
      const size_t kk = 263, lda = m + 1, ldb = n + 5, ldc = n + 2;
      auto a = random_vec(kk * lda, 31), b = random_vec(kk * ldb, 32), c0 = random_vec(m * ldc, 33);
      Guarded c1(m * ldc), c2(m * ldc);
      std::copy(c0.begin(), c0.end(), c1.data());
      std::copy(c0.begin(), c0.end(), c2.data());
      k::gemm_tn_acc_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, c1.data(), ldc);
      k::gemm_tn_acc_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, c2.data(), ldc);
      for (size_t i = 0; i < m * ldc; ++i) ASSERT_EQ(c2.data()[i], c1.data()[i]) << "at " << i;
      ASSERT_TRUE(c2.intact(m * ldc));
    }
}

TEST(Kernels, OnlineSoftmaxSimdMatchesScalar) {
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t rows : {size_t{1}, size_t{5}})
    for (size_t cols : kSizes)
      for (size_t d : {size_t{1}, size_t{7}, size_t{16}}) {
        auto s0 = random_vec(rows * cols, 31, -20.0f, 20.0f);
        if (cols > 2) s0[1] = -inf;  // a masked key
        auto o0 = random_vec(rows * d, 32);
        std::vector<float> m1(rows), l1(rows), m2, l2;
        for (size_t i = 0; i < rows; ++i) {  // row 0 starts fresh; the others continue a stream
          m1[i] = i == 0 ? -inf : 3.0f * float(i) - 5.0f;
          l1[i] = i == 0 ? 0.0f : 2.5f;
        }
        m2 = m1, l2 = l1;
        Guarded sa(rows * cols), sb(rows * cols), oa(rows * d), ob(rows * d);
        std::copy(s0.begin(), s0.end(), sa.data());
        std::copy(s0.begin(), s0.end(), sb.data());
        std::copy(o0.begin(), o0.end(), oa.data());
        std::copy(o0.begin(), o0.end(), ob.data());
        k::online_softmax_block_f32_scalar(rows, cols, 0.7f, sa.data(), cols, m1.data(), l1.data(), oa.data(), d, d);
        k::online_softmax_block_f32_wasmsimd(rows, cols, 0.7f, sb.data(), cols, m2.data(), l2.data(), ob.data(), d, d);
        expect_close(sb.data(), sa.data(), rows * cols, 1e-5f);
        expect_close(ob.data(), oa.data(), rows * d, 1e-5f);
        for (size_t i = 0; i < rows; ++i) {
          EXPECT_EQ(m1[i], m2[i]);
          EXPECT_NEAR(l2[i], l1[i], 1e-5f * l1[i]);
        }
        ASSERT_TRUE(sb.intact(rows * cols) && ob.intact(rows * d));
      }
}

TEST(Kernels, OnlineSoftmaxStreamsLikeOneSoftmax) {
  // Feeding a row in blocks, then dividing by l, gives the plain softmax (float64 reference).
  const size_t n = 301, block = 64;
  auto x = random_vec(n, 41, -30.0f, 30.0f);
  x[7] = -std::numeric_limits<float>::infinity();
  double mx = -1e300, z = 0;
  for (float v : x) mx = std::max(mx, double(v));
  for (float v : x) z += std::exp(double(v) - mx);
  for (auto fn : {k::online_softmax_block_f32_scalar, k::online_softmax_block_f32_wasmsimd}) {
    float m = -std::numeric_limits<float>::infinity(), l = 0.0f, o = 0.0f;
    std::vector<float> p(x);
    for (size_t j0 = 0; j0 < n; j0 += block) {
      const size_t bc = std::min(block, n - j0);
      fn(1, bc, 1.0f, p.data() + j0, bc, &m, &l, &o, 1, 1);
    }
    EXPECT_NEAR(double(l) * std::exp(double(m) - mx), z, 1e-5 * z);
  }
}

// The SIMD finiteness scan (first_non_finite) behind every argument and overflow check. Every length up to 70 (all
// remainders of the 64-wide block) and some beyond, a bad value at every position, NaN / ±∞ / −∞.
TEST(Kernels, FirstNonFiniteSimdMatchesScalar) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float bads[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf};
  for (size_t n = 0; n <= 200; n += (n < 70 ? 1 : 13)) {
    std::vector<float> x = random_vec(n, 100 + static_cast<unsigned>(n), -1e30f, 1e30f);
    for (bool allow : {false, true}) {
      EXPECT_EQ(k::first_non_finite_f32_wasmsimd(x.data(), n, allow), n);
      EXPECT_EQ(k::first_non_finite_f32_scalar(x.data(), n, allow), n);
    }
    for (size_t at = 0; at < n; ++at)
      for (float bad : bads) {
        std::vector<float> y = x;
        y[at] = bad;
        if (at + 3 < n) y[at + 3] = bads[0];  // a later NaN must not be reported first
        for (bool allow : {false, true}) {
          const size_t want = k::first_non_finite_f32_scalar(y.data(), n, allow);
          ASSERT_EQ(k::first_non_finite_f32_wasmsimd(y.data(), n, allow), want)
              << "n = " << n << ", bad at " << at << " = " << bad << ", allow −∞ = " << allow;
          ASSERT_EQ(want, (allow && bad == -kInf) ? (at + 3 < n ? at + 3 : n) : at);
        }
      }
  }
  // Denormals, FLT_MAX and −0 are finite.
  std::vector<float> edge = {1e-45f, -1e-45f, 3.4028235e38f, -3.4028235e38f, -0.0f, 0.0f, 1e-38f, 5.0f,
                             1e-45f, -1e-45f, 3.4028235e38f, -3.4028235e38f, -0.0f, 0.0f, 1e-38f, 5.0f, 1.0f};
  EXPECT_EQ(k::first_non_finite_f32_wasmsimd(edge.data(), edge.size(), false), edge.size());
}

// B packed once (the streaming attention's K and V) and the GEMM over packed strips, against
// the scalar twins and against the unpacked GEMMs, at sizes that leave partial strips and k blocks.
TEST(Kernels, PackedBAndPrepackedGemmMatch) {
  for (const auto [m, n, k] : {std::array<size_t, 3>{1, 1, 1}, {5, 13, 7}, {48, 128, 64}, {7, 9, 300}, {4, 8, 257}, {300, 17, 70}}) {
    const auto a = random_vec(m * k, 1 + m), bnk = random_vec(n * k, 2 + n), bkn = random_vec(k * n, 3 + k);
    const size_t np = k::packed_b_floats(k, n);
    std::vector<float> p1(np, kGuard), p2(np, kGuard), p3(np, kGuard), p4(np, kGuard);
    k::pack_b_nt_f32_scalar(n, k, bnk.data(), k, p1.data());
    k::pack_b_nt_f32_wasmsimd(n, k, bnk.data(), k, p2.data());
    k::pack_b_nn_f32_scalar(k, n, bkn.data(), n, p3.data());
    k::pack_b_nn_f32_wasmsimd(k, n, bkn.data(), n, p4.data());
    ASSERT_EQ(p1, p2) << m << "x" << n << "x" << k;
    ASSERT_EQ(p3, p4);
    // C = A·Bᵀ from the packed K equals gemm_nt; C += A·B from the packed V equals gemm_nn_acc.
    std::vector<float> want(m * n), got(m * n), got_s(m * n);
    k::gemm_nt_f32_scalar(m, n, k, a.data(), k, bnk.data(), k, want.data(), n);
    k::gemm_prepacked_f32_wasmsimd(m, n, k, a.data(), k, p2.data(), 8 * k, false, got.data(), n);
    k::gemm_prepacked_f32_scalar(m, n, k, a.data(), k, p1.data(), 8 * k, false, got_s.data(), n);
    expect_close(got.data(), want.data(), m * n, 1e-5f);
    expect_close(got_s.data(), want.data(), m * n, 1e-5f);
    std::vector<float> acc = random_vec(m * n, 9), want2 = acc, got2 = acc;
    k::gemm_nn_acc_f32_scalar(m, n, k, a.data(), k, bkn.data(), n, want2.data(), n);
    k::gemm_prepacked_f32_wasmsimd(m, n, k, a.data(), k, p4.data(), 8 * k, true, got2.data(), n);
    expect_close(got2.data(), want2.data(), m * n, 1e-5f);
    // A row block [r0, r0 + kb) of the packed B (what the streaming op reads for a key block).
    if (k > 8) {
      const size_t r0 = 8, kb = k - 8;
      std::vector<float> want3(m * n), got3(m * n);
      k::gemm_nn_f32_scalar(m, n, kb, a.data(), k, bkn.data() + r0 * n, n, nullptr, want3.data(), n);
      k::gemm_prepacked_f32_wasmsimd(m, n, kb, a.data(), k, p4.data() + 8 * r0, 8 * k, false, got3.data(), n);
      expect_close(got3.data(), want3.data(), m * n, 1e-5f);
    }
  }
}

// Bit-for-bit: the scale/mask pass and the squared-distance score do the same float operations in the
// same order in both twins, so results (−0 and −∞ included) are identical, not just close.
namespace {

bool same_bits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

}  // namespace

// A decoded token's products (one row of A: gemv_nn_rows, gemv_nt_rows) against the same row inside
// a product of many rows (the prefill's packed path), bit for bit: generate() checks its decode against
// the forward, so the one-row kernels must sum in the blocked kernels' order. Row blocks of four rows
// of B (nn) and groups of eight and four rows (nt) with every tail, k past a reduction block.
// The three side-by-side one-row products (a decoded token's q, k, v) against the scalar twin and
// against gemm_nn_f32 on each matrix alone, bit for bit; with and without biases, every column tail.
TEST(Kernels, ThreeOneRowProductsEqualEachAlone) {
  for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{13}, size_t{64}, size_t{263}})
    for (size_t kk : {size_t{1}, size_t{5}, size_t{300}}) {
      const size_t ldb = n + 3;
      const auto x = random_vec(kk, 91);
      std::vector<std::vector<float>> b, bias;
      for (unsigned i = 0; i < 3; ++i) {
        b.push_back(random_vec(kk * ldb, 92 + i));
        bias.push_back(random_vec(n, 95 + i));
      }
      for (bool with_bias : {false, true}) {
        std::vector<Guarded> got, ref;
        for (int i = 0; i < 3; ++i) got.emplace_back(n), ref.emplace_back(n);
        const float* const bs[3] = {b[0].data(), b[1].data(), b[2].data()};
        const float* const bi[3] = {with_bias ? bias[0].data() : nullptr, bias[1].data(), with_bias ? bias[2].data() : nullptr};
        float* const ys[3] = {got[0].data(), got[1].data(), got[2].data()};
        float* const rs[3] = {ref[0].data(), ref[1].data(), ref[2].data()};
        k::gemv_nn3_f32_wasmsimd(n, kk, x.data(), bs, ldb, bi, ys);
        k::gemv_nn3_f32_scalar(n, kk, x.data(), bs, ldb, bi, rs);
        for (int i = 0; i < 3; ++i) {
          std::vector<float> alone(n);
          k::gemm_nn_f32_wasmsimd(1, n, kk, x.data(), kk, bs[i], ldb, bi[i], alone.data(), n);
          ASSERT_TRUE(same_bits(got[i].data(), alone.data(), n)) << n << "x" << kk << " matrix " << i;
          ASSERT_TRUE(same_bits(ref[i].data(), alone.data(), n)) << "scalar " << n << "x" << kk << " matrix " << i;
          ASSERT_TRUE(got[i].intact(n));
        }
      }
    }
}

TEST(Kernels, OneRowProductsEqualTheirRowInABlockedProduct) {
  for (size_t m : {size_t{17}, size_t{64}})
    for (size_t n : {size_t{9}, size_t{13}, size_t{263}})
      for (size_t kk : {size_t{7}, size_t{300}}) {
        const size_t lda = kk + 3, ldb = n + 5, ldbt = kk + 1, row = 5;
        const auto a = random_vec(m * lda, 81), b = random_vec(kk * ldb, 82), bt = random_vec(n * ldbt, 83);
        const auto bias = random_vec(n, 84), c0 = random_vec(m * n, 85);
        for (const float* bi : {static_cast<const float*>(nullptr), bias.data()}) {
          std::vector<float> full(m * n);
          Guarded one(n);
          k::gemm_nn_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, bi, full.data(), n);
          k::gemm_nn_f32_wasmsimd(1, n, kk, a.data() + row * lda, lda, b.data(), ldb, bi, one.data(), n);
          ASSERT_TRUE(same_bits(one.data(), full.data() + row * n, n)) << "nn " << m << "x" << n << "x" << kk;
          ASSERT_TRUE(one.intact(n));
        }
        std::vector<float> full(m * n), fa = c0;
        Guarded one(n), oa(n);
        k::gemm_nt_f32_wasmsimd(m, n, kk, a.data(), lda, bt.data(), ldbt, full.data(), n);
        k::gemm_nt_f32_wasmsimd(1, n, kk, a.data() + row * lda, lda, bt.data(), ldbt, one.data(), n);
        ASSERT_TRUE(same_bits(one.data(), full.data() + row * n, n)) << "nt " << m << "x" << n << "x" << kk;
        ASSERT_TRUE(one.intact(n));
        // Accumulating nn: C += A·B from the same C.
        std::copy(c0.begin() + row * n, c0.begin() + (row + 1) * n, oa.data());
        k::gemm_nn_acc_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, fa.data(), n);
        k::gemm_nn_acc_f32_wasmsimd(1, n, kk, a.data() + row * lda, lda, b.data(), ldb, oa.data(), n);
        ASSERT_TRUE(same_bits(oa.data(), fa.data() + row * n, n)) << "nn acc " << m << "x" << n << "x" << kk;
        ASSERT_TRUE(oa.intact(n));
      }
}


// Up to 16 rows, nn reads B's full strips in place (its own micro-kernel, walking A and B by
// pointer; a partial strip packed): each row equals the same row of a 40-row product (B packed, A too
// from 32 columns) bit for bit, with and without bias, accumulating, strided, with a partial last
// strip and two reduction blocks (k 300).
TEST(Kernels, FewRowsInPlaceEqualTheirRowsInAPackedProduct) {
  const size_t big = 40;
  for (size_t m : {size_t{2}, size_t{3}, size_t{4}, size_t{7}, size_t{16}})
    for (size_t n : {size_t{8}, size_t{13}, size_t{64}, size_t{75}})
      for (size_t kk : {size_t{1}, size_t{64}, size_t{300}}) {
        const size_t lda = kk + 3, ldb = n + 5, row0 = 11;
        const auto a = random_vec(big * lda, 91), b = random_vec(kk * ldb, 92);
        const auto bias = random_vec(n, 93), c0 = random_vec(big * n, 94);
        for (const float* bi : {static_cast<const float*>(nullptr), bias.data()}) {
          std::vector<float> full(big * n);
          Guarded few(m * n);
          k::gemm_nn_f32_wasmsimd(big, n, kk, a.data(), lda, b.data(), ldb, bi, full.data(), n);
          k::gemm_nn_f32_wasmsimd(m, n, kk, a.data() + row0 * lda, lda, b.data(), ldb, bi, few.data(), n);
          ASSERT_TRUE(same_bits(few.data(), full.data() + row0 * n, m * n)) << "nn " << m << "x" << n << "x" << kk;
          ASSERT_TRUE(few.intact(m * n));
        }
        std::vector<float> fa = c0;
        Guarded fewa(m * n);
        std::copy(c0.begin() + row0 * n, c0.begin() + (row0 + m) * n, fewa.data());
        k::gemm_nn_acc_f32_wasmsimd(big, n, kk, a.data(), lda, b.data(), ldb, fa.data(), n);
        k::gemm_nn_acc_f32_wasmsimd(m, n, kk, a.data() + row0 * lda, lda, b.data(), ldb, fewa.data(), n);
        ASSERT_TRUE(same_bits(fewa.data(), fa.data() + row0 * n, m * n)) << "nn acc " << m << "x" << n << "x" << kk;
        ASSERT_TRUE(fewa.intact(m * n));
      }
}

// The pass between scores and softmax (both attention paths), every mask kind, with and without ALiBi,
// on tiles placed anywhere in the [t_q, t_k] scores (the streaming op's key blocks), strided.
TEST(Kernels, ScaleMaskSimdMatchesScalar) {
  const float inf = std::numeric_limits<float>::infinity();
  const size_t tq = 37, tk = 41;
  auto additive = random_vec(tq * tk, 11, -3.0f, 3.0f);
  for (size_t i = 0; i < additive.size(); i += 3) additive[i] = -inf;  // removed keys
  const attnlab::Mask masks[] = {attnlab::Mask::None(), attnlab::Mask::Causal(), attnlab::Mask::Window(0),
                                 attnlab::Mask::Window(3), attnlab::Mask::Window(5, true),
                                 attnlab::Mask::Additive(additive.data())};
  const std::array<size_t, 4> tiles[] = {{0, 0, tq, tk}, {0, 0, 1, 1}, {5, 8, 13, 17}, {30, 32, 7, 9}, {2, 24, 31, 17}};
  for (const auto& mask : masks)
    for (float slope : {0.0f, 0.25f})
      for (float scale : {1.0f, 0.35355339f})
        for (const auto& [i0, j0, rows, cols] : tiles) {
          const size_t ldx = cols + 3, ldy = cols + 1;
          auto x = random_vec(rows * ldx, 12 + rows, -4.0f, 4.0f);
          x[0] = -0.0f;  // −0·scale + 0 is +0, −0·scale alone is −0: the twins must agree on which
          if (rows * ldx > 5) x[5] = inf;  // an overflowed score: −∞ where masked, never NaN
          Guarded y1(rows * ldy), y2(rows * ldy);
          const bool n1 = k::scale_mask_f32_scalar(rows, cols, x.data(), ldx, scale, mask, slope, i0, j0, tk, y1.data(), ldy);
          const bool n2 = k::scale_mask_f32_wasmsimd(rows, cols, x.data(), ldx, scale, mask, slope, i0, j0, tk, y2.data(), ldy);
          EXPECT_EQ(n1, n2);
          for (size_t r = 0; r < rows; ++r)
            ASSERT_TRUE(same_bits(y2.data() + r * ldy, y1.data() + r * ldy, cols))
                << "mask " << static_cast<int>(mask.kind) << " w " << mask.window << " slope " << slope << " tile ("
                << i0 << ", " << j0 << ") [" << rows << ", " << cols << "] row " << r;
          ASSERT_TRUE(y2.intact(rows * ldy));
          // In place (the streaming op scales its score tile where it lies).
          auto z1 = x, z2 = x;
          k::scale_mask_f32_scalar(rows, cols, z1.data(), ldx, scale, mask, slope, i0, j0, tk, z1.data(), ldx);
          k::scale_mask_f32_wasmsimd(rows, cols, z2.data(), ldx, scale, mask, slope, i0, j0, tk, z2.data(), ldx);
          ASSERT_TRUE(same_bits(z1.data(), z2.data(), z1.size()));
        }
}

TEST(Kernels, ScaleMaskReportsNaNAndMasksAsTheLectureDoes) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // 3 queries × 6 keys, causal: row i keeps keys j ≤ i; a masked +∞ score becomes −∞, not NaN.
  std::vector<float> x = {1, inf, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6};
  for (auto fn : {k::scale_mask_f32_scalar, k::scale_mask_f32_wasmsimd}) {
    std::vector<float> y(x.size());
    EXPECT_FALSE(fn(3, 6, x.data(), 6, 0.5f, attnlab::Mask::Causal(), 0.0f, 0, 0, 6, y.data(), 6));
    EXPECT_EQ(y[0], 0.5f);
    EXPECT_EQ(y[1], -inf);
    EXPECT_EQ(y[7], 1.0f);
    EXPECT_EQ(y[8], -inf);
    EXPECT_EQ(y[14], 1.5f);
    // ALiBi: −m·|i − j| added to the kept scores.
    EXPECT_FALSE(fn(3, 6, x.data(), 6, 0.5f, attnlab::Mask::Causal(), 0.5f, 0, 0, 6, y.data(), 6));
    EXPECT_EQ(y[12], 0.5f - 1.0f);
    // A NaN score is reported whether or not the mask removes it, a NaN from +∞ + (−∞) too.
    auto xn = x;
    xn[17] = nan;
    EXPECT_TRUE(fn(3, 6, xn.data(), 6, 0.5f, attnlab::Mask::Causal(), 0.0f, 0, 0, 6, y.data(), 6));
    EXPECT_TRUE(fn(3, 6, xn.data(), 6, 0.5f, attnlab::Mask::None(), 0.0f, 0, 0, 6, y.data(), 6));
    std::vector<float> add(18, 0.0f);
    add[1] = -3.4e38f;
    EXPECT_FALSE(fn(3, 6, x.data(), 6, 0.5f, attnlab::Mask::Additive(add.data()), 0.0f, 0, 0, 6, y.data(), 6));
    EXPECT_EQ(y[1], inf);  // +∞ + finite stays +∞ (the softmax shares the weight among the +∞)
  }
}

TEST(Kernels, NegSqDistSimdMatchesScalar) {
  for (size_t m : kSizes)
    for (size_t n : kSizes)
      for (size_t kk : {size_t{1}, size_t{2}, size_t{3}, size_t{8}, size_t{19}}) {
        const size_t lda = kk + 1, ldb = kk + 2, lds = n + 3;
        auto a = random_vec(m * lda, 21, -5.0f, 5.0f), b = random_vec(n * ldb, 22, -5.0f, 5.0f);
        Guarded s1(m * lds), s2(m * lds);
        k::neg_sq_dist_nt_f32_scalar(m, n, kk, a.data(), lda, b.data(), ldb, s1.data(), lds);
        k::neg_sq_dist_nt_f32_wasmsimd(m, n, kk, a.data(), lda, b.data(), ldb, s2.data(), lds);
        for (size_t i = 0; i < m; ++i)
          ASSERT_TRUE(same_bits(s2.data() + i * lds, s1.data() + i * lds, n)) << m << "x" << n << "x" << kk;
        ASSERT_TRUE(s2.intact(m * lds));
      }
  // −‖a − b‖² by hand: a = (1, 2), b = (4, 6): −(9 + 16) = −25; the point itself: −0.
  const float a[] = {1, 2}, b[] = {4, 6, 1, 2, 0, 0, 1, 1, 3, 2};
  for (auto fn : {k::neg_sq_dist_nt_f32_scalar, k::neg_sq_dist_nt_f32_wasmsimd}) {
    float s[5];
    fn(1, 5, 2, a, 2, b, 2, s, 5);
    EXPECT_EQ(s[0], -25.0f);
    EXPECT_EQ(s[1], 0.0f);
    EXPECT_EQ(s[2], -5.0f);
    EXPECT_EQ(s[3], -1.0f);
    EXPECT_EQ(s[4], -4.0f);
  }
}

// The column maxima of |x| (attention overflow bounds): the SIMD twin gives the same bits as the scalar
// reference (compared as bit patterns, so NaN payloads too), at strided views of every width that
// reaches the 16-, 4- and 1-column paths, accumulating into maxima that start non-zero (and negative:
// their absolute value counts). Finite values are the exact maxima; a NaN shows as NaN, a ±∞ as +∞.
TEST(Kernels, ColumnMaxAbsSimdMatchesScalar) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (size_t rows : kSizes)
    for (size_t cols : {size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{15}, size_t{16}, size_t{17},
                        size_t{20}, size_t{33}, size_t{67}})
      for (int special = 0; special < 4; ++special) {
        const size_t ld = cols + 3;
        auto x = random_vec(rows * ld, 40 + rows * 7 + cols, -3.0f, 3.0f);
        // special 1: a NaN, 2: a −∞ and a +∞, 3: a NaN and a +∞ in the same column.
        const size_t r1 = rows / 2, c1 = cols / 3, r2 = rows - 1;
        if (special == 1) x[r1 * ld + c1] = -nan;
        if (special == 2) { x[r1 * ld + c1] = -inf; x[r2 * ld + cols - 1] = inf; }
        if (special == 3) { x[r1 * ld + c1] = inf; x[r2 * ld + c1] = nan; }
        const auto init = random_vec(cols, 7 + cols, -0.5f, 0.5f);
        Guarded ref(cols), simd(cols);
        std::copy(init.begin(), init.end(), ref.data());
        std::copy(init.begin(), init.end(), simd.data());
        k::column_max_abs_f32_scalar(rows, cols, x.data(), ld, ref.data());
        k::column_max_abs_f32_wasmsimd(rows, cols, x.data(), ld, simd.data());
        ASSERT_TRUE(ref.intact(cols) && simd.intact(cols)) << rows << "x" << cols;
        ASSERT_EQ(std::memcmp(ref.data(), simd.data(), cols * sizeof(float)), 0) << rows << "x" << cols << " special " << special;
        for (size_t c = 0; c < cols; ++c) {
          float want = std::fabs(init[c]);
          bool has_nan = false;
          for (size_t r = 0; r < rows; ++r) {
            has_nan |= std::isnan(x[r * ld + c]);
            want = std::fmax(want, std::fabs(x[r * ld + c]));
          }
          if (has_nan) EXPECT_TRUE(std::isnan(ref.data()[c])) << c;
          else EXPECT_EQ(ref.data()[c], want) << rows << "x" << cols << " column " << c;
        }
      }
}

// nt with a weight-sized B (≥ 1 MB) and 16-128 rows of A runs as its transpose, B's rows read in place
// (gemm_nt_swapped). Each entry is still its own sum over p in order, starting at 0 or at C: the same
// floats, bit for bit, as one row at a time (the one-row path, which never takes that branch).
TEST(Kernels, GemmNtWeightSizedMatchesRowByRowBitForBit) {
  for (size_t m : {size_t{16}, size_t{17}, size_t{63}, size_t{64}, size_t{128}})
    for (const auto& [n, kk] : {std::pair<size_t, size_t>{1031, 263}, {517, 771}, {4099, 64}}) {
      SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(kk));
      const size_t lda = kk + 3, ldb = kk + 1, ldc = n + 2;
      auto a = random_vec(m * lda, 61), b = random_vec(n * ldb, 62), c0 = random_vec(m * ldc, 63);
      for (const bool acc : {false, true}) {
        Guarded got(m * ldc), want(m * ldc);
        std::copy(c0.begin(), c0.end(), got.data());
        std::copy(c0.begin(), c0.end(), want.data());
        const auto nt = acc ? k::gemm_nt_acc_f32_wasmsimd : k::gemm_nt_f32_wasmsimd;
        nt(m, n, kk, a.data(), lda, b.data(), ldb, got.data(), ldc);
        for (size_t i = 0; i < m; ++i) nt(1, n, kk, a.data() + i * lda, lda, b.data(), ldb, want.data() + i * ldc, ldc);
        for (size_t i = 0; i < m; ++i) {
          ASSERT_EQ(std::memcmp(got.data() + i * ldc, want.data() + i * ldc, 4 * n), 0) << "row " << i << (acc ? " (acc)" : "");
          for (size_t j = n; j < ldc; ++j) ASSERT_EQ(got.data()[i * ldc + j], c0[i * ldc + j]);
        }
        ASSERT_TRUE(got.intact(m * ldc));
      }
    }
}
