// float64 references for the block tests, straight from the formulas (independent of the ops), and
// seeded random weights.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "tolerance.h"

namespace attnlab_test {

using attnlab::RowMatrixXf;
using Vec = std::vector<double>;


// ---- float64 references, straight from the formulas ------------------------------------------------
// A matrix (or a block of one) as float64, row after row.
inline Vec to_d(const Eigen::Ref<const RowMatrixXf>& m) {
  Vec v;
  v.reserve(m.size());
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) v.push_back(m(i, j));
  return v;
}
inline Vec to_d(const std::vector<float>& v) { return Vec(v.begin(), v.end()); }

inline Vec matmul_d(const Vec& a, const Vec& b, size_t m, size_t k, size_t n, const Vec& bias = {}) {
  Vec c(m * n);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double s = bias.empty() ? 0.0 : bias[j];
      for (size_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}
inline Vec add_d(const Vec& a, const Vec& b) {
  Vec c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}
inline Vec layer_norm_d(const Vec& x, size_t rows, size_t dim, const Vec& g, const Vec& b, double eps) {
  Vec y(x.size());
  for (size_t r = 0; r < rows; ++r) {
    double mu = 0, var = 0;
    for (size_t i = 0; i < dim; ++i) mu += x[r * dim + i];
    mu /= dim;
    for (size_t i = 0; i < dim; ++i) var += (x[r * dim + i] - mu) * (x[r * dim + i] - mu);
    var /= dim;
    for (size_t i = 0; i < dim; ++i)
      y[r * dim + i] = (x[r * dim + i] - mu) / std::sqrt(var + eps) * (g.empty() ? 1.0 : g[i]) + (b.empty() ? 0.0 : b[i]);
  }
  return y;
}
inline double gelu_d(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
inline double gelu_tanh_d(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
// Multi-head attention: Q = xW_Q + b, K, V from ctx; head h = columns [h·dk, (h+1)·dk); causal optional.
inline Vec mha_d(const Vec& x, size_t t, const Vec& ctx, size_t tk, size_t D, size_t H,
          const attnlab::OwnedMultiHeadWeights& w, bool causal) {
  const Vec q = matmul_d(x, to_d(w.wq), t, D, D, to_d(w.bq)), k = matmul_d(ctx, to_d(w.wk), tk, D, D, to_d(w.bk)),
            v = matmul_d(ctx, to_d(w.wv), tk, D, D, to_d(w.bv));
  const size_t dk = D / H;
  Vec heads(t * D);
  for (size_t h = 0; h < H; ++h)
    for (size_t i = 0; i < t; ++i) {
      Vec s(tk);
      double m = -INFINITY;
      for (size_t j = 0; j < tk; ++j) {
        double d = 0;
        for (size_t p = 0; p < dk; ++p) d += q[i * D + h * dk + p] * k[j * D + h * dk + p];
        s[j] = (causal && j > i) ? -INFINITY : d / std::sqrt(double(dk));
        m = std::max(m, s[j]);
      }
      double z = 0;
      for (double& e : s) z += (e = std::exp(e - m));
      for (size_t p = 0; p < dk; ++p) {
        double o = 0;
        for (size_t j = 0; j < tk; ++j) o += s[j] / z * v[j * D + h * dk + p];
        heads[i * D + h * dk + p] = o;
      }
    }
  return matmul_d(heads, to_d(w.wo), t, D, D, to_d(w.bo));
}
inline Vec ffn_d(const Vec& x, size_t t, size_t D, size_t F, const attnlab::OwnedFeedForwardWeights& p, attnlab::Activation act) {
  Vec h = matmul_d(x, to_d(p.w1), t, D, F, to_d(p.b1));
  for (double& v : h) v = act == attnlab::Activation::relu ? std::max(v, 0.0) : act == attnlab::Activation::gelu ? gelu_d(v) : gelu_tanh_d(v);
  return matmul_d(h, to_d(p.w2), t, F, D, to_d(p.b2));
}

// A matrix against its float64 reference, element by element (tolerance.h).
inline void expect_near_all(const RowMatrixXf& got, const Vec& want, Tol tol, const char* what) {
  expect_close_all(std::vector<float>(got.data(), got.data() + got.size()), want, tol, what);
}

inline RowMatrixXf random_matrix(std::mt19937& rng, size_t r, size_t c, float scale = 1.0f) {
  std::normal_distribution<float> n(0.0f, scale);
  RowMatrixXf m(r, c);
  for (size_t i = 0; i < r * c; ++i) m.data()[i] = n(rng);
  return m;
}
inline std::vector<float> random_vec(std::mt19937& rng, size_t n, float scale = 0.3f) {
  const RowMatrixXf m = random_matrix(rng, 1, n, scale);
  return std::vector<float>(m.data(), m.data() + m.size());
}
inline attnlab::OwnedMultiHeadWeights random_attention(std::mt19937& rng, size_t D) {
  return {random_matrix(rng, D, D, 0.3f), random_matrix(rng, D, D, 0.3f), random_matrix(rng, D, D, 0.3f),
          random_matrix(rng, D, D, 0.3f), random_vec(rng, D), random_vec(rng, D), random_vec(rng, D), random_vec(rng, D)};
}
inline attnlab::OwnedLayerNormWeights random_ln(std::mt19937& rng, size_t D) {
  auto g = random_vec(rng, D, 0.1f);
  for (float& v : g) v += 1.0f;
  return {g, random_vec(rng, D, 0.1f)};
}
inline attnlab::OwnedFeedForwardWeights random_ffn(std::mt19937& rng, size_t D, size_t F) {
  return {random_matrix(rng, D, F, 0.3f), random_matrix(rng, F, D, 0.3f), random_vec(rng, F), random_vec(rng, D)};
}

}  // namespace attnlab_test
