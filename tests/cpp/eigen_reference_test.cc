// The core against an independent implementation written with Eigen (double precision, plain
// matrix algebra as the lecture writes it), at random and awkward sizes, every mask kind.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attnlab/ops.h"
#include "tolerance.h"

namespace {

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::vector<float> randn(size_t n, std::mt19937& rng, float s = 1.0f) {
  std::normal_distribution<float> d(0.0f, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

MatD as_mat(const float* p, size_t r, size_t c) {
  MatD m(r, c);
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < c; ++j) m(i, j) = p[i * c + j];
  return m;
}

// softmax(Q·Kᵀ·scale + M)·V in double; a fully masked row gives zeros.
MatD reference_attention(const MatD& Q, const MatD& K, const MatD& V, double scale, const attnlab::Mask& mask, MatD* weights) {
  MatD S = Q * K.transpose() * scale;
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < S.cols(); ++j) {
      S(i, j) += mask.bias(i, j, S.cols());
      mx = std::max(mx, S(i, j));
    }
    if (std::isinf(mx)) {
      S.row(i).setZero();
      continue;
    }
    S.row(i) = (S.row(i).array() - mx).exp();
    S.row(i) /= S.row(i).sum();
  }
  if (weights) *weights = S;
  return S * V;
}

void expect_near_rel(const float* got, const MatD& want, const char* what) {
  for (Eigen::Index i = 0; i < want.rows(); ++i)
    for (Eigen::Index j = 0; j < want.cols(); ++j) {
      const double w = want(i, j), g = got[i * want.cols() + j];
      ASSERT_CLOSE(g, w, attnlab_test::tol::kRef) << what << " at (" << i << ", " << j << ")";
    }
}

}  // namespace

TEST(EigenReference, AttentionAllMasks) {
  std::mt19937 rng(7);
  const attnlab::Mask masks[] = {attnlab::Mask::None(), attnlab::Mask::Causal(), attnlab::Mask::Window(2),
                                 attnlab::Mask::Window(1, true)};
  for (size_t t : {1, 2, 5, 13, 37})
    for (size_t dk : {1, 3, 8, 17})
      for (const auto& mask : masks) {
        const size_t dv = dk + 2;
        auto q = randn(t * dk, rng), k = randn(t * dk, rng), v = randn(t * dv, rng);
        std::vector<float> w(t * t), out(t * dv);
        const float scale = 1.0f / std::sqrt(float(dk));
        attnlab::AttentionArgs a{q.data(), dk, k.data(), dk, v.data(), dv, t, t, dk, dv, scale, mask};
        attnlab::AttentionOutputs o{nullptr, nullptr, w.data(), out.data(), dv};
        ASSERT_TRUE(attnlab::attention_forward(a, o).ok);
        MatD W;
        const MatD ref = reference_attention(as_mat(q.data(), t, dk), as_mat(k.data(), t, dk), as_mat(v.data(), t, dv), scale, mask, &W);
        expect_near_rel(w.data(), W, "weights");
        expect_near_rel(out.data(), ref, "output");
      }
}

TEST(EigenReference, MultiHeadSelfAndCross) {
  std::mt19937 rng(11);
  struct Shape { size_t tq, tk, D, H; bool cross, bias; };
  for (const Shape s : {Shape{3, 3, 4, 2, false, false}, Shape{7, 7, 12, 3, false, true}, Shape{5, 9, 16, 4, true, true},
                        Shape{1, 6, 6, 6, true, false}, Shape{16, 16, 64, 4, false, true}}) {
    const size_t D = s.D, dk = D / s.H;
    auto x = randn(s.tq * D, rng), ctx = randn(s.tk * D, rng);
    const float ws = 1.0f / std::sqrt(float(D));
    auto wq = randn(D * D, rng, ws), wk = randn(D * D, rng, ws), wv = randn(D * D, rng, ws), wo = randn(D * D, rng, ws);
    auto bq = randn(D, rng), bk = randn(D, rng), bv = randn(D, rng), bo = randn(D, rng);
    const size_t tk = s.cross ? s.tk : s.tq;
    std::vector<float> q(s.tq * D), k(tk * D), v(tk * D), w(s.H * s.tq * tk), heads(s.tq * D), out(s.tq * D);
    attnlab::MultiHeadArgs a{x.data(), s.tq, s.cross ? ctx.data() : nullptr, tk, D, s.H,
                             {wq.data(), wk.data(), wv.data(), wo.data(), s.bias ? bq.data() : nullptr,
                              s.bias ? bk.data() : nullptr, s.bias ? bv.data() : nullptr, s.bias ? bo.data() : nullptr},
                             attnlab::Mask::None()};
    attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), nullptr, w.data(), heads.data(), out.data()};
    ASSERT_TRUE(attnlab::multi_head_attention_forward(a, o).ok);

    const MatD X = as_mat(x.data(), s.tq, D), C = s.cross ? as_mat(ctx.data(), tk, D) : X;
    auto bias_row = [&](const std::vector<float>& b) { return s.bias ? as_mat(b.data(), 1, D) : MatD::Zero(1, D); };
    const MatD Q = (X * as_mat(wq.data(), D, D)).rowwise() + bias_row(bq).row(0);
    const MatD K = (C * as_mat(wk.data(), D, D)).rowwise() + bias_row(bk).row(0);
    const MatD V = (C * as_mat(wv.data(), D, D)).rowwise() + bias_row(bv).row(0);
    MatD concat(s.tq, D);
    for (size_t h = 0; h < s.H; ++h)
      concat.middleCols(h * dk, dk) = reference_attention(Q.middleCols(h * dk, dk), K.middleCols(h * dk, dk),
                                                          V.middleCols(h * dk, dk), 1.0 / std::sqrt(double(dk)),
                                                          attnlab::Mask::None(), nullptr);
    const MatD Out = (concat * as_mat(wo.data(), D, D)).rowwise() + bias_row(bo).row(0);
    expect_near_rel(q.data(), Q, "q");
    expect_near_rel(heads.data(), concat, "heads");
    expect_near_rel(out.data(), Out, "output");
  }
}
