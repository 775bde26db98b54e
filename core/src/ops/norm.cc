// Add & Norm's "Norm", and the activations of the feed-forward layer:
//   LayerNorm(x) = (x − μ)/√(σ² + eps)·γ + β     (per row, biased variance: torch.nn.LayerNorm)
//   RMSNorm(x)   = x/√(mean(x²) + eps)·γ
//   GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2)),  GELU_tanh(x) = ½x(1 + tanh(√(2/π)(x + 0.044715x³))),
//   ReLU(x) = max(x, 0)
#include <cmath>
#include <string>

#include "attnlab/backward.h"
#include "blocks_detail.h"
#include "check.h"

namespace attnlab {

namespace detail {

Status check_param(const char* op, const char* name, const float* p, size_t n, bool required) {
  if (!p) return required ? check_not_null(op, name, p) : Status::Ok();
  return check_finite(op, name, p, n);
}

Status check_eps(const char* op, float eps) {
  if (std::isfinite(eps) && eps > 0.0f) return Status::Ok();
  return Status::Fail(std::string(op) + ": eps is " + value_str(eps) + ", expected a finite number > 0");
}

// The checks every backward of this file shares: positive sizes whose product fits, required buffers.
Status check_backward(const char* op, size_t rows, size_t dim,
                      std::initializer_list<std::pair<const char*, const void*>> required) {
  ATTNLAB_CHECK(check_positive(op, "rows", rows));
  ATTNLAB_CHECK(check_positive(op, "dim", dim));
  ATTNLAB_CHECK(check_count(op, "rows·dim", {rows, dim}));
  for (const auto& [name, p] : required) ATTNLAB_CHECK(check_not_null(op, name, p));
  return Status::Ok();
}

// Two passes over each row: the mean, then Σ(x − μ)². Sums in double: it costs nothing at these
// sizes and keeps a row like 100 + N(0, 1) exact to float precision (E[x²] − E[x]² would lose it).
void layer_norm_rows(const float* x, size_t rows, size_t dim, const float* gamma, const float* beta,
                     float eps, float* out, float* mean, float* rstd) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * dim;
    float* yr = out + r * dim;
    double sum = 0.0;
    for (size_t i = 0; i < dim; ++i) sum += xr[i];
    const double mu = sum / static_cast<double>(dim);
    double sq = 0.0;
    for (size_t i = 0; i < dim; ++i) {
      const double d = xr[i] - mu;
      sq += d * d;
    }
    const double rs = 1.0 / std::sqrt(sq / static_cast<double>(dim) + static_cast<double>(eps));
    for (size_t i = 0; i < dim; ++i) {
      float y = static_cast<float>((xr[i] - mu) * rs);
      if (gamma) y *= gamma[i];
      if (beta) y += beta[i];
      yr[i] = y;
    }
    if (mean) mean[r] = static_cast<float>(mu);
    if (rstd) rstd[r] = static_cast<float>(rs);
  }
}

void activation_inplace(Activation kind, float* x, size_t n) {
  switch (kind) {
    case Activation::relu:
      for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
      return;
    case Activation::gelu: {
      constexpr float kInvSqrt2 = 0.70710678118654752f;
      for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kInvSqrt2));
      return;
    }
    case Activation::gelu_tanh: {
      constexpr float kSqrt2OverPi = 0.79788456080286536f;
      // ½(1 + tanh u) = 1/(1 + e^(−2u)) exactly; expf is ~6x faster than tanhf in WebAssembly.
      for (size_t i = 0; i < n; ++i) {
        const float v = x[i];
        const float u = kSqrt2OverPi * (v + 0.044715f * v * v * v);
        x[i] = v / (1.0f + std::exp(-2.0f * u));
      }
      return;
    }
  }
}

}  // namespace detail

Status layer_norm_forward(const float* x, size_t rows, size_t dim, const float* gamma,
                          const float* beta, float eps, float* out, float* mean, float* rstd) {
  constexpr const char* op = "layerNorm";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "dim", dim));
  ATTNLAB_CHECK(detail::check_eps(op, eps));
  ATTNLAB_CHECK(detail::check_param(op, "x", x, rows * dim, true));
  ATTNLAB_CHECK(detail::check_param(op, "gamma", gamma, dim, false));
  ATTNLAB_CHECK(detail::check_param(op, "beta", beta, dim, false));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", out));
  detail::layer_norm_rows(x, rows, dim, gamma, beta, eps, out, mean, rstd);
  // γ·y + β can overflow float32 for finite γ, β near 3.4e38.
  return detail::check_no_overflow(op, "output", out, rows * dim, "gamma and beta within float32 range");
}

// With x̂ = (x − μ)·rstd and g = dout·γ, per row (N = dim):
//   dβ += dout,  dγ += dout·x̂,  dx += rstd·(g − mean(g) − x̂·mean(g·x̂))
// (the last two terms are what flows back through μ and through σ²).
Status layer_norm_backward(const float* x, size_t rows, size_t dim, const float* gamma,
                           const float* mean, const float* rstd, const float* dout, float* dx,
                           float* dgamma, float* dbeta) {
  constexpr const char* op = "layerNormBackward";
  ATTNLAB_CHECK(detail::check_backward(op, rows, dim, {{"x", x}, {"mean", mean}, {"rstd", rstd},
                                                       {"dout", dout}, {"dx", dx}}));
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * dim;
    const float* dr = dout + r * dim;
    float* dxr = dx + r * dim;
    const float mu = mean[r], rs = rstd[r];
    double g_sum = 0.0, gx_sum = 0.0;  // Σ g, Σ g·x̂
    for (size_t i = 0; i < dim; ++i) {
      const float xhat = (xr[i] - mu) * rs;
      const float g = gamma ? dr[i] * gamma[i] : dr[i];
      g_sum += g;
      gx_sum += static_cast<double>(g) * xhat;
      if (dgamma) dgamma[i] += dr[i] * xhat;
      if (dbeta) dbeta[i] += dr[i];
    }
    const float g_mean = static_cast<float>(g_sum / static_cast<double>(dim));
    const float gx_mean = static_cast<float>(gx_sum / static_cast<double>(dim));
    for (size_t i = 0; i < dim; ++i) {
      const float xhat = (xr[i] - mu) * rs;
      const float g = gamma ? dr[i] * gamma[i] : dr[i];
      dxr[i] += rs * (g - g_mean - xhat * gx_mean);
    }
  }
  return Status::Ok();
}

Status rms_norm_forward(const float* x, size_t rows, size_t dim, const float* gamma, float eps,
                        float* out, float* rstd) {
  constexpr const char* op = "rmsNorm";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "dim", dim));
  ATTNLAB_CHECK(detail::check_eps(op, eps));
  ATTNLAB_CHECK(detail::check_param(op, "x", x, rows * dim, true));
  ATTNLAB_CHECK(detail::check_param(op, "gamma", gamma, dim, false));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", out));
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * dim;
    float* yr = out + r * dim;
    double sq = 0.0;
    for (size_t i = 0; i < dim; ++i) sq += static_cast<double>(xr[i]) * xr[i];
    const double rs = 1.0 / std::sqrt(sq / static_cast<double>(dim) + static_cast<double>(eps));
    for (size_t i = 0; i < dim; ++i) {
      const float y = static_cast<float>(xr[i] * rs);
      yr[i] = gamma ? y * gamma[i] : y;
    }
    if (rstd) rstd[r] = static_cast<float>(rs);
  }
  return detail::check_no_overflow(op, "output", out, rows * dim, "gamma within float32 range");
}

// y = x·r·γ with r = (mean(x²) + eps)^(−1/2), ∂r/∂x_j = −r³·x_j/N. With g = dout·γ, per row:
//   dγ += dout·x·r,  dx += r·g − x·r³·mean(g·x)
Status rms_norm_backward(const float* x, size_t rows, size_t dim, const float* gamma,
                         const float* rstd, const float* dout, float* dx, float* dgamma) {
  constexpr const char* op = "rmsNormBackward";
  ATTNLAB_CHECK(detail::check_backward(op, rows, dim, {{"x", x}, {"rstd", rstd}, {"dout", dout}, {"dx", dx}}));
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * dim;
    const float* dr = dout + r * dim;
    float* dxr = dx + r * dim;
    const float rs = rstd[r];
    double gx_sum = 0.0;  // Σ g·x
    for (size_t i = 0; i < dim; ++i) {
      const float g = gamma ? dr[i] * gamma[i] : dr[i];
      gx_sum += static_cast<double>(g) * xr[i];
      if (dgamma) dgamma[i] += dr[i] * xr[i] * rs;
    }
    const float c = static_cast<float>(static_cast<double>(rs) * rs * rs * gx_sum / static_cast<double>(dim));
    for (size_t i = 0; i < dim; ++i) {
      const float g = gamma ? dr[i] * gamma[i] : dr[i];
      dxr[i] += rs * g - xr[i] * c;
    }
  }
  return Status::Ok();
}

Status activation_forward(Activation kind, const float* x, size_t n, float* out) {
  constexpr const char* op = "activation";
  ATTNLAB_CHECK(detail::check_positive(op, "x.length", n));
  ATTNLAB_CHECK(detail::check_param(op, "x", x, n, true));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", out));
  if (out != x)
    for (size_t i = 0; i < n; ++i) out[i] = x[i];
  detail::activation_inplace(kind, out, n);
  return Status::Ok();
}

// dpre += act'(pre)·dout:
//   ReLU'(x) = [x > 0]
//   GELU'(x) = Φ(x) + x·φ(x),  φ(x) = e^(−x²/2)/√(2π)
//   GELU_tanh'(x) = ½(1 + tanh u) + ½x(1 − tanh²u)·√(2/π)(1 + 3·0.044715x²),  u = √(2/π)(x + 0.044715x³)
Status activation_backward(Activation kind, const float* pre, size_t n, const float* dout, float* dpre) {
  constexpr const char* op = "activationBackward";
  ATTNLAB_CHECK(detail::check_positive(op, "n", n));
  ATTNLAB_CHECK(detail::check_count(op, "n", {n}));
  ATTNLAB_CHECK(detail::check_not_null(op, "pre", pre));
  ATTNLAB_CHECK(detail::check_not_null(op, "dout", dout));
  ATTNLAB_CHECK(detail::check_not_null(op, "dpre", dpre));
  detail::activation_backward_rows(kind, pre, n, dout, dpre, true);
  return Status::Ok();
}

namespace detail {

void activation_backward_rows(Activation kind, const float* pre, size_t n, const float* dout,
                              float* dpre, bool accumulate) {
  // Element i reads dout[i] before writing dpre[i]: dout == dpre works (accumulate false).
  auto put = [&](size_t i, float d) { dpre[i] = accumulate ? dpre[i] + d : d; };
  switch (kind) {
    case Activation::relu:
      for (size_t i = 0; i < n; ++i) put(i, pre[i] > 0.0f ? dout[i] : 0.0f);
      break;
    case Activation::gelu: {
      constexpr float kInvSqrt2 = 0.70710678118654752f, kInvSqrt2Pi = 0.39894228040143268f;
      for (size_t i = 0; i < n; ++i) {
        const float v = pre[i];
        const float cdf = 0.5f * (1.0f + std::erf(v * kInvSqrt2));
        const float pdf = kInvSqrt2Pi * std::exp(-0.5f * v * v);
        put(i, (cdf + v * pdf) * dout[i]);
      }
      break;
    }
    case Activation::gelu_tanh: {
      constexpr float kSqrt2OverPi = 0.79788456080286536f, kC = 0.044715f;
      // With s = σ(2u) = ½(1 + tanh u): ½(1 − tanh²u) = 2s(1 − s), so no 1 ± tanh cancels for x < 0
      // (and, as in the forward, expf rather than tanhf). Where s(1 − s) is 0 the second term is 0
      // (avoids 0·∞ once x³ overflows).
      for (size_t i = 0; i < n; ++i) {
        const float v = pre[i];
        const float sg = 1.0f / (1.0f + std::exp(-2.0f * kSqrt2OverPi * (v + kC * v * v * v)));
        const float t = sg * (1.0f - sg);
        const float du = kSqrt2OverPi * (1.0f + 3.0f * kC * v * v);
        put(i, (t > 0.0f ? sg + 2.0f * v * t * du : sg) * dout[i]);
      }
      break;
    }
  }
}

}  // namespace detail

}  // namespace attnlab
