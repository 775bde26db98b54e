// Add & Norm's "Norm", and the activations of the feed-forward layer:
//   LayerNorm(x) = (x − μ)/√(σ² + eps)·γ + β     (per row, biased variance: torch.nn.LayerNorm)
//   RMSNorm(x)   = x/√(mean(x²) + eps)·γ
//   GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2)),  GELU_tanh(x) = ½x(1 + tanh(√(2/π)(x + 0.044715x³))),
//   ReLU(x) = max(x, 0)
#include <cmath>
#include <string>

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

Status rms_norm_forward(const float* x, size_t rows, size_t dim, const float* gamma, float eps,
                        float* out) {
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
  }
  return detail::check_no_overflow(op, "output", out, rows * dim, "gamma within float32 range");
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

}  // namespace attnlab
