// The rest of the Transformer (issue 3), native: LayerNorm/RMSNorm, activations, FFN, encoder and
// decoder layers, embedding + tied head, kernel regression — each against a float64 reference written
// here from the formulas (independent of the ops), plus bad input with exact messages.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"

using attnlab::Matrix;
using Vec = std::vector<double>;

namespace {

// ---- float64 references, straight from the formulas ------------------------------------------------
Vec to_d(const Matrix& m) { return Vec(m.values().begin(), m.values().end()); }
Vec to_d(const std::vector<float>& v) { return Vec(v.begin(), v.end()); }

Vec matmul_d(const Vec& a, const Vec& b, size_t m, size_t k, size_t n, const Vec& bias = {}) {
  Vec c(m * n);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double s = bias.empty() ? 0.0 : bias[j];
      for (size_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}
Vec add_d(const Vec& a, const Vec& b) {
  Vec c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}
Vec layer_norm_d(const Vec& x, size_t rows, size_t dim, const Vec& g, const Vec& b, double eps) {
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
double gelu_d(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh_d(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
// Multi-head attention: Q = xW_Q + b, K, V from ctx; head h = columns [h·dk, (h+1)·dk); causal optional.
Vec mha_d(const Vec& x, size_t t, const Vec& ctx, size_t tk, size_t D, size_t H,
          const attnlab::AttentionLayerWeights& w, bool causal) {
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
Vec ffn_d(const Vec& x, size_t t, size_t D, size_t F, const attnlab::FeedForwardParams& p, attnlab::Activation act) {
  Vec h = matmul_d(x, to_d(p.w1), t, D, F, to_d(p.b1));
  for (double& v : h) v = act == attnlab::Activation::relu ? std::max(v, 0.0) : act == attnlab::Activation::gelu ? gelu_d(v) : gelu_tanh_d(v);
  return matmul_d(h, to_d(p.w2), t, F, D, to_d(p.b2));
}

// |got − want| ≤ tol·max(|want|, 1): float32 against float64 on O(1) values.
void expect_near_all(const Matrix& got, const Vec& want, double tol, const char* what) {
  ASSERT_EQ(got.values().size(), want.size()) << what;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::fabs(got.values()[i] - want[i]) / std::max(std::fabs(want[i]), 1.0));
  EXPECT_LE(worst, tol) << what;
}

Matrix random_matrix(std::mt19937& rng, size_t r, size_t c, float scale = 1.0f) {
  std::normal_distribution<float> n(0.0f, scale);
  Matrix m(r, c);
  for (size_t i = 0; i < r * c; ++i) m.data()[i] = n(rng);
  return m;
}
std::vector<float> random_vec(std::mt19937& rng, size_t n, float scale = 0.3f) {
  return random_matrix(rng, 1, n, scale).values();
}
attnlab::AttentionLayerWeights random_attention(std::mt19937& rng, size_t D) {
  return {random_matrix(rng, D, D, 0.3f), random_matrix(rng, D, D, 0.3f), random_matrix(rng, D, D, 0.3f),
          random_matrix(rng, D, D, 0.3f), random_vec(rng, D), random_vec(rng, D), random_vec(rng, D), random_vec(rng, D)};
}
attnlab::LayerNormParams random_ln(std::mt19937& rng, size_t D) {
  auto g = random_vec(rng, D, 0.1f);
  for (float& v : g) v += 1.0f;
  return {g, random_vec(rng, D, 0.1f)};
}
attnlab::FeedForwardParams random_ffn(std::mt19937& rng, size_t D, size_t F) {
  return {random_matrix(rng, D, F, 0.3f), random_matrix(rng, F, D, 0.3f), random_vec(rng, F), random_vec(rng, D)};
}

}  // namespace

TEST(Norm, LayerNormMatchesFloat64IncludingALargeOffset) {
  std::mt19937 rng(1);
  for (float offset : {0.0f, 100.0f}) {
    Matrix x = random_matrix(rng, 4, 13);
    for (size_t i = 0; i < 4 * 13; ++i) x.data()[i] += offset;
    auto g = random_vec(rng, 13), b = random_vec(rng, 13);
    // 1e-5 holds with the two-pass variance; E[x²] − E[x]² in float32 misses by ~1e-3 at offset 100.
    expect_near_all(attnlab::layer_norm(x, g, b, 1e-6f), layer_norm_d(to_d(x), 4, 13, to_d(g), to_d(b), 1e-6), 1e-5,
                    "layer_norm");
  }
}

TEST(Norm, ConstantRowGivesBetaAndKeepsMeanRstd) {
  Matrix x(1, 5, 0.75f), y(1, 5);
  const float beta[] = {1, 2, 3, 4, 5};
  float mean = 0, rstd = 0;
  ASSERT_TRUE(attnlab::layer_norm_forward(x.data(), 1, 5, nullptr, beta, 1e-5f, y.data(), &mean, &rstd).ok);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(y(0, i), beta[i]);
  EXPECT_FLOAT_EQ(mean, 0.75f);
  EXPECT_NEAR(rstd, 1.0 / std::sqrt(1e-5), 1e-2);
}

TEST(Norm, RmsNormMatchesFloat64) {
  std::mt19937 rng(2);
  Matrix x = random_matrix(rng, 3, 9);
  auto g = random_vec(rng, 9);
  Vec want(27);
  for (size_t r = 0; r < 3; ++r) {
    double ms = 0;
    for (size_t i = 0; i < 9; ++i) ms += double(x(r, i)) * x(r, i);
    for (size_t i = 0; i < 9; ++i) want[r * 9 + i] = x(r, i) / std::sqrt(ms / 9 + 1e-6) * g[i];
  }
  expect_near_all(attnlab::rms_norm(x, g, 1e-6f), want, 1e-6, "rms_norm");
}

TEST(Activation, GeluBothFormsAndRelu) {
  Matrix x(1, 9, std::vector<float>{-6, -3, -1, -0.25f, 0, 1e-4f, 0.5f, 1, 4});
  Vec erf_form, tanh_form, relu;
  for (float v : x.values()) erf_form.push_back(gelu_d(v)), tanh_form.push_back(gelu_tanh_d(v)), relu.push_back(std::max(v, 0.0f));
  expect_near_all(attnlab::activation(x, attnlab::Activation::gelu), erf_form, 1e-6, "gelu");
  expect_near_all(attnlab::activation(x, attnlab::Activation::gelu_tanh), tanh_form, 1e-6, "gelu_tanh");
  expect_near_all(attnlab::activation(x, attnlab::Activation::relu), relu, 0, "relu");
}

TEST(FeedForward, MatchesFloat64AndKeepsPreActivation) {
  std::mt19937 rng(3);
  const size_t D = 6, F = 24;
  auto p = random_ffn(rng, D, F);
  Matrix x = random_matrix(rng, 5, D);
  attnlab::FeedForward ffn(p.w1, p.w2, p.b1, p.b2, attnlab::Activation::gelu);
  auto r = ffn(x);
  expect_near_all(r.pre, matmul_d(to_d(x), to_d(p.w1), 5, D, F, to_d(p.b1)), 1e-5, "pre");
  expect_near_all(r.output, ffn_d(to_d(x), 5, D, F, p, attnlab::Activation::gelu), 1e-5, "output");
}

class EncoderLayer : public ::testing::TestWithParam<std::tuple<attnlab::NormPlacement, attnlab::Activation, bool>> {};

TEST_P(EncoderLayer, MatchesFloat64Composition) {
  const auto [norm, act, causal] = GetParam();
  std::mt19937 rng(4);
  const size_t t = 7, D = 12, H = 3, F = 20;
  attnlab::EncoderLayerWeights w{random_attention(rng, D), random_ln(rng, D), random_ln(rng, D), random_ffn(rng, D, F)};
  Matrix x = random_matrix(rng, t, D);
  auto r = attnlab::encoder_layer(x, w, {H, norm, act, 1e-5f}, causal ? attnlab::Mask::Causal() : attnlab::Mask::None());
  const Vec xd = to_d(x);
  auto ln = [&](const Vec& v, const attnlab::LayerNormParams& p) { return layer_norm_d(v, t, D, to_d(p.gamma), to_d(p.beta), 1e-5); };
  Vec out;
  if (norm == attnlab::NormPlacement::post) {
    const Vec y = ln(add_d(xd, mha_d(xd, t, xd, t, D, H, w.attn, causal)), w.ln1);
    out = ln(add_d(y, ffn_d(y, t, D, F, w.ffn, act)), w.ln2);
  } else {
    const Vec n1 = ln(xd, w.ln1);
    const Vec y = add_d(xd, mha_d(n1, t, n1, t, D, H, w.attn, causal));
    out = add_d(y, ffn_d(ln(y, w.ln2), t, D, F, w.ffn, act));
  }
  expect_near_all(r.output, out, 2e-5, "encoder output");
  ASSERT_EQ(r.attn.weights.size(), H);
  if (causal) EXPECT_EQ(r.attn.weights[1](0, 1), 0.0f);  // no peeking ahead
}

INSTANTIATE_TEST_SUITE_P(
    Blocks, EncoderLayer,
    ::testing::Combine(::testing::Values(attnlab::NormPlacement::post, attnlab::NormPlacement::pre),
                       ::testing::Values(attnlab::Activation::relu, attnlab::Activation::gelu),
                       ::testing::Bool()));

TEST(DecoderLayer, MatchesFloat64CompositionPreAndPost) {
  std::mt19937 rng(5);
  const size_t t = 5, tm = 3, D = 8, H = 2, F = 16;
  attnlab::DecoderLayerWeights w{random_attention(rng, D), random_attention(rng, D), random_ln(rng, D),
                                 random_ln(rng, D), random_ln(rng, D), random_ffn(rng, D, F)};
  Matrix x = random_matrix(rng, t, D), mem = random_matrix(rng, tm, D);
  const Vec xd = to_d(x), md = to_d(mem);
  auto ln = [&](const Vec& v, const attnlab::LayerNormParams& p) { return layer_norm_d(v, t, D, to_d(p.gamma), to_d(p.beta), 1e-5); };
  for (auto norm : {attnlab::NormPlacement::post, attnlab::NormPlacement::pre}) {
    auto r = attnlab::decoder_layer(x, mem, w, {H, norm, attnlab::Activation::gelu, 1e-5f});
    Vec out;
    if (norm == attnlab::NormPlacement::post) {
      const Vec y1 = ln(add_d(xd, mha_d(xd, t, xd, t, D, H, w.self_attn, true)), w.ln1);
      const Vec y2 = ln(add_d(y1, mha_d(y1, t, md, tm, D, H, w.cross_attn, false)), w.ln2);
      out = ln(add_d(y2, ffn_d(y2, t, D, F, w.ffn, attnlab::Activation::gelu)), w.ln3);
    } else {
      const Vec n1 = ln(xd, w.ln1);
      const Vec y1 = add_d(xd, mha_d(n1, t, n1, t, D, H, w.self_attn, true));
      const Vec y2 = add_d(y1, mha_d(ln(y1, w.ln2), t, md, tm, D, H, w.cross_attn, false));
      out = add_d(y2, ffn_d(ln(y2, w.ln3), t, D, F, w.ffn, attnlab::Activation::gelu));
    }
    expect_near_all(r.output, out, 2e-5, "decoder output");
    ASSERT_EQ(r.cross_attn.weights.size(), H);
    EXPECT_EQ(r.cross_attn.weights[0].cols(), tm);  // queries from the decoder, keys from memory
    EXPECT_EQ(r.cross_attn.k.rows(), tm);
  }
}

TEST(Embedding, LookupAndTiedHead) {
  std::mt19937 rng(6);
  const size_t V = 11, D = 6;
  Matrix table = random_matrix(rng, V, D);
  const std::vector<int> ids{3, 0, 10, 3};
  Matrix e = attnlab::embed(table, ids);
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
      EXPECT_NEAR(r.logits(i, v), logit[v], 1e-5 * std::max(1.0, std::fabs(logit[v])));
      EXPECT_NEAR(r.probs(i, v), std::exp(logit[v] / 0.5 - m) / z, 1e-6);
    }
  }
}

TEST(KernelRegression, GaussianAndDotMatchFloat64) {
  std::mt19937 rng(7);
  for (auto kernel : {attnlab::RegressionKernel::gaussian, attnlab::RegressionKernel::dot})
    for (size_t dim : {1u, 3u}) {
      const size_t n = 17, nq = 5;
      const float bw = 0.7f;
      Matrix xs = random_matrix(rng, n, dim, 2.0f), qs = random_matrix(rng, nq, dim, 2.0f);
      auto ys = random_vec(rng, n, 1.0f);
      auto r = attnlab::kernel_regression(xs, ys, qs, bw, kernel);
      for (size_t q = 0; q < nq; ++q) {
        Vec f(n);
        double m = -INFINITY, z = 0, pred = 0;
        for (size_t i = 0; i < n; ++i) {
          for (size_t d = 0; d < dim; ++d) {
            const double a = qs(q, d), b = xs(i, d);
            f[i] += kernel == attnlab::RegressionKernel::gaussian ? -(a - b) * (a - b) : a * b;
          }
          m = std::max(m, f[i] / bw);
        }
        for (size_t i = 0; i < n; ++i) z += std::exp(f[i] / bw - m);
        for (size_t i = 0; i < n; ++i) {
          const double wi = std::exp(f[i] / bw - m) / z;
          pred += wi * ys[i];
          EXPECT_NEAR(r.weights(q, i), wi, 2e-6);
        }
        EXPECT_NEAR(r.predictions[q], pred, 1e-5);
      }
    }
}

TEST(Blocks, BadInputIsAStatusWithAClearMessage) {
  std::vector<float> x(8, 1.0f), y(8), w(64, 0.1f);
  EXPECT_EQ(attnlab::layer_norm_forward(x.data(), 2, 4, nullptr, nullptr, 0.0f, y.data()).message,
            "layerNorm: eps is 0, expected a finite number > 0");
  x[5] = NAN;
  EXPECT_EQ(attnlab::rms_norm_forward(x.data(), 2, 4, nullptr, 1e-6f, y.data()).message,
            "rmsNorm: x[5] is NaN, expected finite values");
  x[5] = 1.0f;
  EXPECT_EQ(attnlab::feed_forward_forward(x.data(), 2, 4, 8, {w.data(), nullptr, nullptr}, attnlab::Activation::relu,
                                          {nullptr, y.data(), y.data()})
                .message,
            "feedForward: w2 is missing");
  const int ids[] = {0, 3};
  EXPECT_EQ(attnlab::embedding_forward(w.data(), 3, 4, ids, 2, y.data()).message,
            "embedding: ids[1] is 3, expected an integer in [0, vocab = 3)");
  EXPECT_EQ(attnlab::kernel_regression_forward(x.data(), x.data(), 2, x.data(), 1, 1,
                                               attnlab::RegressionKernel::gaussian, -1.0f, nullptr, y.data(), y.data())
                .message,
            "kernelRegression: bandwidth is -1, expected a finite number > 0");

  // An encoder block: a missing weight, a NaN LayerNorm gain, a missing output buffer.
  std::vector<float> buf(16 * 64);
  attnlab::EncoderBlockArgs a{};
  a.x = x.data(), a.t = 2, a.d_model = 4, a.heads = 2, a.d_ff = 8;
  a.w.attn = {w.data(), w.data(), nullptr, w.data()};
  a.w.ffn = {w.data(), nullptr, w.data(), nullptr};
  attnlab::EncoderBlockOut o{};
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message, "encoderBlock: weights.wv is missing");
  a.w.attn.wv = w.data();
  std::vector<float> gamma{1, NAN, 1, 1};
  a.w.ln2.gamma = gamma.data();
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message,
            "encoderBlock: weights.ln2Gamma[1] is NaN, expected finite values");
  a.w.ln2.gamma = nullptr;
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message, "encoderBlock: an output buffer is missing");
  a.heads = 3;
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message,
            "encoderBlock: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads");
}

TEST(Blocks, MatrixApiThrowsOnShapeMismatch) {
  std::mt19937 rng(8);
  attnlab::EncoderLayerWeights w{random_attention(rng, 4), {}, {}, random_ffn(rng, 4, 8)};
  EXPECT_THROW(attnlab::encoder_layer(Matrix(3, 5), w, {2}), attnlab::Error);
  w.attn.bq.resize(3);
  EXPECT_THROW(attnlab::encoder_layer(Matrix(3, 4), w, {2}), attnlab::Error);
  EXPECT_THROW(attnlab::embed(Matrix(3, 4), {0, 7}), attnlab::Error);
}
