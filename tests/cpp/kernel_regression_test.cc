// kernel_regression (Nadaraya-Watson), Gaussian and dot kernels, against float64.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "reference.h"

using namespace attnlab_test;

TEST(KernelRegression, GaussianAndDotMatchFloat64) {
  std::mt19937 rng(7);
  for (auto kernel : {attnlab::RegressionKernel::gaussian, attnlab::RegressionKernel::dot})
    for (size_t dim : {1u, 3u}) {
      const size_t n = 17, nq = 5;
      const float bw = 0.7f;
      RowMatrixXf xs = random_matrix(rng, n, dim, 2.0f), qs = random_matrix(rng, nq, dim, 2.0f);
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
          EXPECT_CLOSE(r.weights(q, i), wi, tol::kRounding);
        }
        EXPECT_CLOSE(r.predictions[q], pred, tol::kSum);
      }
    }
}
