// Backward passes of the MLP / norm side (attnlab/backward.h) against central finite differences of
// float64 forwards written from the formulas (independent of the ops), and the optimizer
// (attnlab/optimizer.h) against torch.optim.AdamW / clip_grad_norm_ (tests/golden/adamw.json,
// tests/golden/generate_adamw.py).
//
// Each gradient check: a scalar loss L = Σ dout ⊙ f(inputs) with a random upstream gradient dout; the
// float32 backward's d(input) must match (L(x + h) − L(x − h)) / 2h computed in double at the same
// float32 point. The largest relative error per gradient is printed ("[grad] …") for the record.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "attnlab/backward.h"
#include "attnlab/ops.h"
#include "attnlab/optimizer.h"
#include "golden_json.h"
#include "reference.h"
#include "tolerance.h"

namespace {

using attnlab::Activation;
using attnlab_test::Json;
using attnlab_test::Vec;
namespace tol = attnlab_test::tol;
using Floats = std::vector<float>;

Floats randn(std::mt19937& rng, size_t n, float scale = 1.0f, float offset = 0.0f) {
  std::normal_distribution<float> d(0.0f, scale);
  Floats v(n);
  for (float& x : v) x = offset + d(rng);
  return v;
}
Vec dbl(const Floats& v) { return Vec(v.begin(), v.end()); }

// Central differences of loss(x) over every element of x, in double.
Vec finite_diff(const std::function<double(const Vec&)>& loss, Vec x) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i], h = 1e-5 * std::max(1.0, std::fabs(x0));
    x[i] = x0 + h;
    const double up = loss(x);
    x[i] = x0 - h;
    const double down = loss(x);
    x[i] = x0;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}
double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Compares a backward's gradient with the finite differences; prints the largest relative error
// |got − fd| / max(|fd|, 1e-3·max|fd|) (the floor keeps near-zero entries from dominating).
void expect_grad(const Floats& got, const Vec& fd, const std::string& what) {
  double scale = 0, worst = 0;
  for (double v : fd) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < fd.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - fd[i]) / std::max(std::fabs(fd[i]), 1e-3 * scale));
  std::printf("[grad] %-28s max rel err %.2e (n = %zu)\n", what.c_str(), worst, fd.size());
  attnlab_test::expect_close_all(got, fd, tol::kGrad, what);
}

// ---- LayerNorm ---------------------------------------------------------------------------------------
void check_layer_norm(size_t rows, size_t dim, bool affine, float offset, unsigned seed) {
  std::mt19937 rng(seed);
  const Floats x = randn(rng, rows * dim, 1.0f, offset), dout = randn(rng, rows * dim);
  Floats gamma = randn(rng, dim, 0.3f, 1.0f), beta = randn(rng, dim, 0.3f);
  const float eps = 1e-5f;
  Floats y(rows * dim), mean(rows), rstd(rows);
  ASSERT_TRUE(attnlab::layer_norm_forward(x.data(), rows, dim, affine ? gamma.data() : nullptr,
                                          affine ? beta.data() : nullptr, eps, y.data(), mean.data(), rstd.data()).ok);
  Floats dx(rows * dim), dg(dim), db(dim);
  ASSERT_TRUE(attnlab::layer_norm_backward(x.data(), rows, dim, affine ? gamma.data() : nullptr, mean.data(),
                                           rstd.data(), dout.data(), dx.data(), dg.data(), db.data()).ok);
  const Vec xd = dbl(x), gd = affine ? dbl(gamma) : Vec(), bd = affine ? dbl(beta) : Vec(), dd = dbl(dout);
  auto L = [&](const Vec& xx, const Vec& gg, const Vec& bb) {
    return dot(dd, attnlab_test::layer_norm_d(xx, rows, dim, gg, bb, eps));
  };
  const std::string tag = "layerNorm " + std::to_string(rows) + "x" + std::to_string(dim) + (affine ? "" : " no-affine");
  expect_grad(dx, finite_diff([&](const Vec& v) { return L(v, gd, bd); }, xd), tag + " dx");
  if (!affine) return;
  expect_grad(dg, finite_diff([&](const Vec& v) { return L(xd, v, bd); }, gd), tag + " dgamma");
  expect_grad(db, finite_diff([&](const Vec& v) { return L(xd, gd, v); }, bd), tag + " dbeta");
}

TEST(GradMlp, LayerNormMatchesFiniteDifferences) {
  check_layer_norm(3, 7, true, 0.0f, 1);
  check_layer_norm(2, 16, false, 0.0f, 2);
  check_layer_norm(1, 5, true, 3.0f, 3);  // an offset the mean removes
}

// ---- RMSNorm -----------------------------------------------------------------------------------------
Vec rms_norm_d(const Vec& x, size_t rows, size_t dim, const Vec& g, double eps) {
  Vec y(x.size());
  for (size_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (size_t i = 0; i < dim; ++i) ms += x[r * dim + i] * x[r * dim + i];
    const double rs = 1 / std::sqrt(ms / dim + eps);
    for (size_t i = 0; i < dim; ++i) y[r * dim + i] = x[r * dim + i] * rs * (g.empty() ? 1.0 : g[i]);
  }
  return y;
}

void check_rms_norm(size_t rows, size_t dim, bool affine, unsigned seed) {
  std::mt19937 rng(seed);
  const Floats x = randn(rng, rows * dim), dout = randn(rng, rows * dim), gamma = randn(rng, dim, 0.3f, 1.0f);
  const float eps = 1e-6f;
  const float* g = affine ? gamma.data() : nullptr;
  Floats y(rows * dim), rstd(rows), dx(rows * dim), dg(dim);
  ASSERT_TRUE(attnlab::rms_norm_forward(x.data(), rows, dim, g, eps, y.data(), rstd.data()).ok);
  ASSERT_TRUE(attnlab::rms_norm_backward(x.data(), rows, dim, g, rstd.data(), dout.data(), dx.data(), dg.data()).ok);
  const Vec xd = dbl(x), gd = affine ? dbl(gamma) : Vec(), dd = dbl(dout);
  const std::string tag = "rmsNorm " + std::to_string(rows) + "x" + std::to_string(dim) + (affine ? "" : " no-gamma");
  expect_grad(dx, finite_diff([&](const Vec& v) { return dot(dd, rms_norm_d(v, rows, dim, gd, eps)); }, xd), tag + " dx");
  if (affine)
    expect_grad(dg, finite_diff([&](const Vec& v) { return dot(dd, rms_norm_d(xd, rows, dim, v, eps)); }, gd), tag + " dgamma");
}

TEST(GradMlp, RmsNormMatchesFiniteDifferences) {
  check_rms_norm(3, 7, true, 4);
  check_rms_norm(2, 9, false, 5);
}

// ---- Activations -------------------------------------------------------------------------------------
double act_d(Activation a, double v) {
  return a == Activation::relu ? std::max(v, 0.0) : a == Activation::gelu ? attnlab_test::gelu_d(v) : attnlab_test::gelu_tanh_d(v);
}
const char* act_name(Activation a) {
  return a == Activation::relu ? "relu" : a == Activation::gelu ? "gelu" : "geluTanh";
}

TEST(GradMlp, ActivationsMatchFiniteDifferences) {
  for (Activation a : {Activation::gelu, Activation::gelu_tanh, Activation::relu}) {
    std::mt19937 rng(6);
    Floats pre = randn(rng, 41, 2.0f);
    for (float& v : pre)
      if (std::fabs(v) < 1e-3f) v = 0.5f;  // ReLU's kink: finite differences are meaningless there
    const Floats dout = randn(rng, pre.size());
    Floats dpre(pre.size());
    ASSERT_TRUE(attnlab::activation_backward(a, pre.data(), pre.size(), dout.data(), dpre.data()).ok);
    const Vec dd = dbl(dout);
    auto L = [&](const Vec& v) {
      double s = 0;
      for (size_t i = 0; i < v.size(); ++i) s += dd[i] * act_d(a, v[i]);
      return s;
    };
    expect_grad(dpre, finite_diff(L, dbl(pre)), std::string(act_name(a)) + " dpre");
  }
}

// Far out on either side the derivatives are 0 and 1, finite even where x³ or x² overflow float32.
TEST(GradMlp, ActivationDerivativesStayFiniteFarOut) {
  const Floats pre{-3e38f, -1e13f, -50.0f, 50.0f, 1e13f, 3e38f}, ones(pre.size(), 1.0f);
  for (Activation a : {Activation::gelu, Activation::gelu_tanh, Activation::relu}) {
    Floats d(pre.size());
    ASSERT_TRUE(attnlab::activation_backward(a, pre.data(), pre.size(), ones.data(), d.data()).ok);
    for (size_t i = 0; i < pre.size(); ++i)
      EXPECT_EQ(d[i], pre[i] < 0 ? 0.0f : 1.0f) << act_name(a) << "'(" << pre[i] << ")";
  }
}

// ---- Feed-forward ------------------------------------------------------------------------------------
void check_ffn(Activation act, bool biases, unsigned seed) {
  const size_t R = 3, D = 5, F = 7;
  std::mt19937 rng(seed);
  const Floats x = randn(rng, R * D), w1 = randn(rng, D * F, 0.5f), b1 = randn(rng, F, 0.3f),
               w2 = randn(rng, F * D, 0.5f), b2 = randn(rng, D, 0.3f), dout = randn(rng, R * D);
  attnlab::FeedForwardWeights w{w1.data(), biases ? b1.data() : nullptr, w2.data(), biases ? b2.data() : nullptr};
  Floats pre(R * F), activated(R * F), out(R * D);
  ASSERT_TRUE(attnlab::feed_forward_forward(x.data(), R, D, F, w, act, {pre.data(), activated.data(), out.data()}).ok);
  Floats dx(R * D), dw1(D * F), db1(F), dw2(F * D), db2(D), scratch(R * F);
  ASSERT_TRUE(attnlab::feed_forward_backward(x.data(), R, D, F, w, act, pre.data(), activated.data(), dout.data(),
                                             dx.data(), {dw1.data(), db1.data(), dw2.data(), db2.data()}, scratch.data()).ok);
  const Vec dd = dbl(dout);
  auto L = [&](const Vec& xx, const Vec& W1, const Vec& B1, const Vec& W2, const Vec& B2) {
    Vec h = attnlab_test::matmul_d(xx, W1, R, D, F, biases ? B1 : Vec());
    for (double& v : h) v = act_d(act, v);
    return dot(dd, attnlab_test::matmul_d(h, W2, R, F, D, biases ? B2 : Vec()));
  };
  const Vec X = dbl(x), W1 = dbl(w1), B1 = dbl(b1), W2 = dbl(w2), B2 = dbl(b2);
  const std::string tag = std::string("feedForward ") + act_name(act) + (biases ? "" : " no-bias");
  expect_grad(dx, finite_diff([&](const Vec& v) { return L(v, W1, B1, W2, B2); }, X), tag + " dx");
  expect_grad(dw1, finite_diff([&](const Vec& v) { return L(X, v, B1, W2, B2); }, W1), tag + " dw1");
  expect_grad(dw2, finite_diff([&](const Vec& v) { return L(X, W1, B1, v, B2); }, W2), tag + " dw2");
  if (biases) {
    expect_grad(db1, finite_diff([&](const Vec& v) { return L(X, W1, v, W2, B2); }, B1), tag + " db1");
    expect_grad(db2, finite_diff([&](const Vec& v) { return L(X, W1, B1, W2, v); }, B2), tag + " db2");
  } else {
    for (float v : db1) EXPECT_EQ(v, 0.0f) << "db1 untouched without b1";
    for (float v : db2) EXPECT_EQ(v, 0.0f) << "db2 untouched without b2";
  }
}

TEST(GradMlp, FeedForwardMatchesFiniteDifferences) {
  check_ffn(Activation::gelu, true, 7);
  check_ffn(Activation::gelu_tanh, true, 8);
  check_ffn(Activation::relu, true, 9);
  check_ffn(Activation::gelu, false, 10);
}

// ---- Residual ----------------------------------------------------------------------------------------
TEST(GradMlp, ResidualPassesTheGradientToBothBranches) {
  std::mt19937 rng(11);
  const Floats a = randn(rng, 10), b = randn(rng, 10), dout = randn(rng, 10);
  Floats da(10), db(10);
  ASSERT_TRUE(attnlab::residual_backward(dout.data(), 10, da.data(), db.data()).ok);
  const Vec dd = dbl(dout), A = dbl(a), B = dbl(b);
  expect_grad(da, finite_diff([&](const Vec& v) { return dot(dd, attnlab_test::add_d(v, B)); }, A), "residual da");
  expect_grad(db, finite_diff([&](const Vec& v) { return dot(dd, attnlab_test::add_d(A, v)); }, B), "residual db");
}

// ---- Composed: a pre-LN MLP sub-layer, out = x + FFN(LN(x)) ------------------------------------------
// The pieces chain as a model will chain them: the residual hands dout to x and to the FFN, the FFN's
// dx flows into LayerNorm's, and LayerNorm adds its share onto the residual's in dx.
TEST(GradMlp, PreLnMlpSubLayerMatchesFiniteDifferences) {
  const size_t R = 3, D = 6, F = 10;
  std::mt19937 rng(13);
  const Floats x = randn(rng, R * D, 1.0f, 0.5f), gamma = randn(rng, D, 0.2f, 1.0f), beta = randn(rng, D, 0.2f),
               w1 = randn(rng, D * F, 0.4f), b1 = randn(rng, F, 0.2f), w2 = randn(rng, F * D, 0.4f),
               b2 = randn(rng, D, 0.2f), dout = randn(rng, R * D);
  const float eps = 1e-5f;
  Floats ln(R * D), mean(R), rstd(R), pre(R * F), act(R * F), ffn(R * D);
  attnlab::FeedForwardWeights w{w1.data(), b1.data(), w2.data(), b2.data()};
  ASSERT_TRUE(attnlab::layer_norm_forward(x.data(), R, D, gamma.data(), beta.data(), eps, ln.data(), mean.data(), rstd.data()).ok);
  ASSERT_TRUE(attnlab::feed_forward_forward(ln.data(), R, D, F, w, Activation::gelu, {pre.data(), act.data(), ffn.data()}).ok);
  Floats dx(R * D), dffn(R * D), dln(R * D), dgamma(D), dbeta(D), dw1(D * F), db1(F), dw2(F * D), db2(D), scratch(R * F);
  ASSERT_TRUE(attnlab::residual_backward(dout.data(), R * D, dx.data(), dffn.data()).ok);
  ASSERT_TRUE(attnlab::feed_forward_backward(ln.data(), R, D, F, w, Activation::gelu, pre.data(), act.data(), dffn.data(),
                                             dln.data(), {dw1.data(), db1.data(), dw2.data(), db2.data()}, scratch.data()).ok);
  ASSERT_TRUE(attnlab::layer_norm_backward(x.data(), R, D, gamma.data(), mean.data(), rstd.data(), dln.data(), dx.data(),
                                           dgamma.data(), dbeta.data()).ok);
  const Vec dd = dbl(dout), X = dbl(x), G = dbl(gamma), B = dbl(beta), W1 = dbl(w1);
  auto L = [&](const Vec& xx, const Vec& gg, const Vec& ww1) {
    Vec h = attnlab_test::matmul_d(attnlab_test::layer_norm_d(xx, R, D, gg, B, eps), ww1, R, D, F, dbl(b1));
    for (double& v : h) v = attnlab_test::gelu_d(v);
    return dot(dd, attnlab_test::add_d(xx, attnlab_test::matmul_d(h, dbl(w2), R, F, D, dbl(b2))));
  };
  expect_grad(dx, finite_diff([&](const Vec& v) { return L(v, G, W1); }, X), "x + FFN(LN(x)) dx");
  expect_grad(dgamma, finite_diff([&](const Vec& v) { return L(X, v, W1); }, G), "x + FFN(LN(x)) dgamma");
  expect_grad(dw1, finite_diff([&](const Vec& v) { return L(X, G, v); }, W1), "x + FFN(LN(x)) dw1");
}

// ---- Accumulation and bad input ----------------------------------------------------------------------
// Two calls give twice one call: every backward adds into its gradients. Element-wise ones add a
// finished value (d = 0 + g, then g + g: exactly 2g); the GEMM kernels add each product into d as
// they go (d + p0 + p1 + …), so a second pass may round differently: equal within a few ulps.
TEST(GradMlp, BackwardsAccumulate) {
  std::mt19937 rng(12);
  const size_t R = 2, D = 4, F = 3;
  const Floats x = randn(rng, R * D), dout = randn(rng, R * D), gamma = randn(rng, D, 0.3f, 1.0f),
               beta = randn(rng, D), w1 = randn(rng, D * F), b1 = randn(rng, F), w2 = randn(rng, F * D), b2 = randn(rng, D);
  Floats y(R * D), mean(R), rstd(R);
  ASSERT_TRUE(attnlab::layer_norm_forward(x.data(), R, D, gamma.data(), beta.data(), 1e-5f, y.data(), mean.data(), rstd.data()).ok);
  auto twice = [](const std::function<void(Floats&)>& run, size_t n, const char* what) {
    Floats once(n), two(n);
    run(once);
    run(two);
    run(two);
    for (size_t i = 0; i < n; ++i) EXPECT_CLOSE(two[i], 2.0f * once[i], tol::kUlps) << what << "[" << i << "]";
  };
  twice([&](Floats& d) { attnlab::layer_norm_backward(x.data(), R, D, gamma.data(), mean.data(), rstd.data(), dout.data(), d.data(), nullptr, nullptr); }, R * D, "layerNorm dx");
  twice([&](Floats& d) { Floats dx(R * D); attnlab::layer_norm_backward(x.data(), R, D, gamma.data(), mean.data(), rstd.data(), dout.data(), dx.data(), d.data(), nullptr); }, D, "layerNorm dgamma");
  twice([&](Floats& d) { attnlab::rms_norm_backward(x.data(), R, D, gamma.data(), rstd.data(), dout.data(), d.data(), nullptr); }, R * D, "rmsNorm dx");
  twice([&](Floats& d) { attnlab::activation_backward(Activation::gelu, x.data(), R * D, dout.data(), d.data()); }, R * D, "gelu dpre");
  twice([&](Floats& d) { attnlab::residual_backward(dout.data(), R * D, d.data(), nullptr); }, R * D, "residual da");
  attnlab::FeedForwardWeights w{w1.data(), b1.data(), w2.data(), b2.data()};
  Floats pre(R * F), act(R * F), out(R * D), scratch(R * F);
  ASSERT_TRUE(attnlab::feed_forward_forward(x.data(), R, D, F, w, Activation::relu, {pre.data(), act.data(), out.data()}).ok);
  twice([&](Floats& d) { attnlab::feed_forward_backward(x.data(), R, D, F, w, Activation::relu, pre.data(), act.data(), dout.data(), d.data(), {}, scratch.data()); }, R * D, "feedForward dx");
  twice([&](Floats& d) { attnlab::feed_forward_backward(x.data(), R, D, F, w, Activation::relu, pre.data(), act.data(), dout.data(), nullptr, {d.data(), nullptr, nullptr, nullptr}, scratch.data()); }, D * F, "feedForward dw1");
}

TEST(GradMlp, BadSizesAndMissingBuffersAreClearErrors) {
  Floats x(8, 1.0f), s(2, 1.0f), d(8);
  EXPECT_EQ(attnlab::layer_norm_backward(x.data(), 0, 4, nullptr, s.data(), s.data(), x.data(), d.data(), nullptr, nullptr).message,
            "layerNormBackward: rows is 0, expected a positive integer");
  EXPECT_EQ(attnlab::layer_norm_backward(x.data(), 2, 4, nullptr, nullptr, s.data(), x.data(), d.data(), nullptr, nullptr).message,
            "layerNormBackward: mean is missing");
  EXPECT_EQ(attnlab::rms_norm_backward(x.data(), 2, 4, nullptr, s.data(), x.data(), nullptr, nullptr).message,
            "rmsNormBackward: dx is missing");
  EXPECT_EQ(attnlab::layer_norm_backward(x.data(), SIZE_MAX / 2, 4, nullptr, s.data(), s.data(), x.data(), d.data(), nullptr, nullptr).message,
            "layerNormBackward: rows·dim is too large (rows·dim·4 bytes overflows size_t), expected sizes whose product fits in memory");
  EXPECT_EQ(attnlab::activation_backward(Activation::relu, x.data(), 0, x.data(), d.data()).message,
            "activationBackward: n is 0, expected a positive integer");
  attnlab::FeedForwardWeights w{x.data(), nullptr, x.data(), nullptr};
  EXPECT_EQ(attnlab::feed_forward_backward(x.data(), 2, 2, 0, w, Activation::relu, x.data(), x.data(), x.data(), d.data(), {}, d.data()).message,
            "feedForwardBackward: dFF is 0, expected a positive integer");
  EXPECT_EQ(attnlab::feed_forward_backward(x.data(), 2, 2, 2, w, Activation::relu, x.data(), x.data(), x.data(), d.data(), {}, nullptr).message,
            "feedForwardBackward: scratch is missing");
  EXPECT_EQ(attnlab::residual_backward(nullptr, 3, d.data(), d.data()).message, "residualBackward: dout is missing");
}

// ---- AdamW, clipping, schedule -----------------------------------------------------------------------
TEST(AdamW, ThreeStepsMatchTorch) {
  const Json golden = Json::load("adamw.json");
  const Json& cases = golden["adamw"];
  ASSERT_GE(cases.size(), 3u);
  for (size_t c = 0; c < cases.size(); ++c) {
    const Json& k = cases[c];
    const std::string name = k["name"].str;
    attnlab::AdamWConfig cfg;
    cfg.lr = k["lr"].number();
    cfg.beta1 = k["beta1"].number();
    cfg.beta2 = k["beta2"].number();
    cfg.eps = k["eps"].number();
    cfg.weight_decay = k["weightDecay"].number();
    Floats p = k["p0"].floats();
    const size_t n = p.size();
    Floats m(n), v(n);
    double worst = 0;
    for (size_t step = 1; step <= 3; ++step) {
      const Floats g = k["grads"][step - 1].floats();
      ASSERT_TRUE(attnlab::adamw_step(p.data(), g.data(), m.data(), v.data(), n, step, cfg).ok);
      const Json& want = k["expected"][step - 1];
      const std::string at = name + " step " + std::to_string(step);
      const Floats wp = want["params"].floats(), wm = want["m"].floats(), wv = want["v"].floats();
      attnlab_test::expect_close_all(p, wp, tol::kUlps, at + " params");
      attnlab_test::expect_close_all(m, wm, tol::kUlps, at + " m");
      attnlab_test::expect_close_all(v, wv, tol::kUlps, at + " v");
      for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(double(p[i]) - wp[i]) / std::fabs(double(wp[i])));
    }
    std::printf("[adamw] %-16s 3 steps: max rel err of params vs torch %.2e\n", name.c_str(), worst);
  }
}

TEST(AdamW, ClipGradNormMatchesTorch) {
  const Json golden = Json::load("adamw.json");
  for (size_t c = 0; c < golden["clip"].size(); ++c) {
    const Json& k = golden["clip"][c];
    Floats g = k["grad"].floats();
    float norm = 0;
    ASSERT_TRUE(attnlab::clip_grad_norm(g.data(), g.size(), static_cast<float>(k["maxNorm"].number()), &norm).ok);
    EXPECT_CLOSE(norm, k["norm"].number(), tol::kUlps) << k["name"].str;
    attnlab_test::expect_close_all(g, k["clipped"].floats(), tol::kUlps, k["name"].str);
  }
  Floats g{1.0f, NAN};
  float norm = 0;
  ASSERT_TRUE(attnlab::clip_grad_norm(g.data(), 2, 1.0f, &norm).ok);
  EXPECT_TRUE(std::isnan(norm));
  EXPECT_EQ(g[0], 1.0f) << "a non-finite norm leaves the gradients as they were";
}

TEST(AdamW, BadArgumentsAreClearErrors) {
  Floats p(3), g(3), m(3), v(3);
  attnlab::AdamWConfig c;
  c.lr = NAN;
  EXPECT_EQ(attnlab::adamw_step(p.data(), g.data(), m.data(), v.data(), 3, 1, c).message,
            "adamw: lr is NaN, expected a finite number ≥ 0");
  c = {};
  c.beta2 = 1.0;
  EXPECT_EQ(attnlab::adamw_step(p.data(), g.data(), m.data(), v.data(), 3, 1, c).message,
            "adamw: beta2 is 1, expected a number in [0, 1)");
  EXPECT_EQ(attnlab::adamw_step(p.data(), g.data(), m.data(), v.data(), 3, 0, {}).message,
            "adamw: step is 0, expected a positive integer");
  EXPECT_EQ(attnlab::adamw_step(p.data(), g.data(), nullptr, v.data(), 3, 1, {}).message, "adamw: m is missing");
  float norm;
  EXPECT_EQ(attnlab::clip_grad_norm(g.data(), 3, 0.0f, &norm).message,
            "clipGradNorm: maxNorm is 0, expected a number > 0 (Infinity: measure only)");
  float lr;
  EXPECT_EQ(attnlab::lr_warmup_cosine({1e-3f, 0.0f, 11, 10}, 0, &lr).message,
            "lrSchedule: warmupSteps is 11, expected at most totalSteps = 10");
  EXPECT_EQ(attnlab::lr_warmup_cosine({1e-3f, 2e-3f, 0, 10}, 0, &lr).message,
            "lrSchedule: minLr is 0.00200000009, expected a finite number in [0, maxLr]");
}

TEST(AdamW, WarmupCosineSchedule) {
  const attnlab::LrSchedule s{1e-3f, 1e-4f, 10, 110};
  auto at = [&](size_t step) {
    float lr = -1;
    EXPECT_TRUE(attnlab::lr_warmup_cosine(s, step, &lr).ok);
    return double(lr);
  };
  EXPECT_CLOSE(at(0), 1e-4, tol::kUlps);     // 1e-3·1/10: the first step already moves
  EXPECT_CLOSE(at(4), 5e-4, tol::kUlps);     // linear
  EXPECT_CLOSE(at(9), 1e-3, tol::kUlps);     // warm-up reaches max_lr
  EXPECT_CLOSE(at(10), 1e-3, tol::kUlps);    // cosine starts at max_lr
  EXPECT_CLOSE(at(60), 5.5e-4, tol::kUlps);  // halfway: (max + min)/2
  EXPECT_CLOSE(at(35), 1e-4 + 0.5 * 9e-4 * (1 + std::cos(M_PI * 0.25)), tol::kUlps);
  EXPECT_CLOSE(at(110), 1e-4, tol::kUlps);   // done: min_lr
  EXPECT_CLOSE(at(1000), 1e-4, tol::kUlps);
  for (size_t t = 10; t < 110; ++t) EXPECT_LE(at(t + 1), at(t)) << "decreasing after warm-up, step " << t;
}

}  // namespace
