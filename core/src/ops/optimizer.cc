// AdamW, gradient-norm clipping and the warm-up + cosine schedule (attnlab/optimizer.h), written in
// the order torch.optim.AdamW and torch.nn.utils.clip_grad_norm_ compute them, so that the same float32
// inputs give the same float32 results to within a rounding.
#include "attnlab/optimizer.h"

#include <cmath>
#include <string>

#include "check.h"

namespace attnlab {

namespace {

Status check_range(const char* op, const char* name, double x, double lo, bool lo_open, double hi,
                   bool hi_open, const char* expected) {
  const bool ok = std::isfinite(x) && (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
  if (ok) return Status::Ok();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  const std::string v = std::isnan(x) ? "NaN" : std::isinf(x) ? (x > 0 ? "Infinity" : "-Infinity") : buf;
  return Status::Fail(std::string(op) + ": " + name + " is " + v + ", expected " + expected);
}

// The step's scalars in double, as torch computes them in Python, then rounded to float32 for the
// element-wise pass (as torch applies a Python scalar to a float32 tensor).
struct AdamWScalars {
  float decay, step_size, bc2_sqrt, b1, b2, one_b1, one_b2, eps;
};
AdamWScalars adamw_scalars(size_t step, const AdamWConfig& c) {
  const double t = static_cast<double>(step);
  const double bc1 = 1.0 - std::pow(c.beta1, t);
  const double bc2 = 1.0 - std::pow(c.beta2, t);
  return {static_cast<float>(1.0 - c.lr * c.weight_decay), static_cast<float>(c.lr / bc1),
          static_cast<float>(std::sqrt(bc2)),            static_cast<float>(c.beta1),
          static_cast<float>(c.beta2),                   static_cast<float>(1.0 - c.beta1),
          static_cast<float>(1.0 - c.beta2),             static_cast<float>(c.eps)};
}

// One element of the update; adamw_step writes it, adamw_step_stays_finite only looks at it, so both
// see the same float32 arithmetic.
inline void adamw_element(const AdamWScalars& k, float g, float* p, float* m, float* v) {
  const float mi = *m * k.b1 + g * k.one_b1;
  const float vi = *v * k.b2 + g * g * k.one_b2;
  const float denom = std::sqrt(vi) / k.bc2_sqrt + k.eps;
  *p = *p * k.decay - k.step_size * (mi / denom);
  *m = mi;
  *v = vi;
}

Status check_adamw(const char* op, size_t n, size_t step, const AdamWConfig& c) {
  ATTNLAB_CHECK(detail::check_positive(op, "n", n));
  ATTNLAB_CHECK(detail::check_count(op, "n", {n}));
  ATTNLAB_CHECK(detail::check_positive(op, "step", step));
  return check_adamw_config(op, c);
}

}  // namespace

Status check_adamw_config(const char* op, const AdamWConfig& c) {
  ATTNLAB_CHECK(check_range(op, "lr", c.lr, 0.0f, false, INFINITY, true, "a finite number ≥ 0"));
  ATTNLAB_CHECK(check_range(op, "beta1", c.beta1, 0.0f, false, 1.0f, true, "a number in [0, 1)"));
  ATTNLAB_CHECK(check_range(op, "beta2", c.beta2, 0.0f, false, 1.0f, true, "a number in [0, 1)"));
  ATTNLAB_CHECK(check_range(op, "eps", c.eps, 0.0f, true, INFINITY, true, "a finite number > 0"));
  ATTNLAB_CHECK(check_range(op, "weightDecay", c.weight_decay, 0.0f, false, INFINITY, true, "a finite number ≥ 0"));
  return Status::Ok();
}

bool adamw_step_stays_finite(const float* params, const float* grads, const float* m, const float* v,
                             size_t n, size_t step, const AdamWConfig& c) {
  if (!check_adamw("adamw", n, step, c).ok || !params || !grads || !m || !v) return false;
  const AdamWScalars k = adamw_scalars(step, c);
  // Each result is finite iff its product with 0 is 0 (NaN and ±∞ give NaN), and a sum of zeros
  // stays 0 while one NaN poisons it: one branch-free pass.
  float acc = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    float p = params[i], mi = m[i], vi = v[i];
    adamw_element(k, grads[i], &p, &mi, &vi);
    acc += p * 0.0f + mi * 0.0f + vi * 0.0f;
  }
  return acc == 0.0f;
}

Status adamw_step(float* params, const float* grads, float* m, float* v, size_t n, size_t step,
                  const AdamWConfig& c) {
  constexpr const char* op = "adamw";
  ATTNLAB_CHECK(check_adamw(op, n, step, c));
  ATTNLAB_CHECK(detail::check_not_null(op, "params", params));
  ATTNLAB_CHECK(detail::check_not_null(op, "grads", grads));
  ATTNLAB_CHECK(detail::check_not_null(op, "m", m));
  ATTNLAB_CHECK(detail::check_not_null(op, "v", v));
  const AdamWScalars k = adamw_scalars(step, c);
  for (size_t i = 0; i < n; ++i) adamw_element(k, grads[i], &params[i], &m[i], &v[i]);
  return Status::Ok();
}

Status clip_grad_norm(float* grads, size_t n, float max_norm, float* norm) {
  constexpr const char* op = "clipGradNorm";
  ATTNLAB_CHECK(detail::check_positive(op, "n", n));
  ATTNLAB_CHECK(detail::check_count(op, "n", {n}));
  if (std::isnan(max_norm) || !(max_norm > 0.0f))
    return Status::Fail(std::string(op) + ": maxNorm is " + detail::value_str(max_norm) +
                        ", expected a number > 0 (Infinity: measure only)");
  ATTNLAB_CHECK(detail::check_not_null(op, "grads", grads));
  ATTNLAB_CHECK(detail::check_not_null(op, "norm", norm));
  double sq = 0.0;
  for (size_t i = 0; i < n; ++i) sq += static_cast<double>(grads[i]) * grads[i];
  const float total = static_cast<float>(std::sqrt(sq));
  *norm = total;
  if (!std::isfinite(total)) return Status::Ok();
  const float coef = max_norm / (total + 1e-6f);
  if (coef < 1.0f)
    for (size_t i = 0; i < n; ++i) grads[i] *= coef;
  return Status::Ok();
}

Status lr_warmup_cosine(const LrSchedule& s, size_t step, float* lr) {
  constexpr const char* op = "lrSchedule";
  ATTNLAB_CHECK(check_range(op, "maxLr", s.max_lr, 0.0f, false, INFINITY, true, "a finite number ≥ 0"));
  ATTNLAB_CHECK(check_range(op, "minLr", s.min_lr, 0.0f, false, s.max_lr, false, "a finite number in [0, maxLr]"));
  ATTNLAB_CHECK(detail::check_positive(op, "totalSteps", s.total_steps));
  if (s.warmup_steps > s.total_steps)
    return Status::Fail(std::string(op) + ": warmupSteps is " + std::to_string(s.warmup_steps) +
                        ", expected at most totalSteps = " + std::to_string(s.total_steps));
  ATTNLAB_CHECK(detail::check_not_null(op, "lr", lr));
  const double max_lr = s.max_lr, min_lr = s.min_lr;
  double r;
  if (step < s.warmup_steps) {
    r = max_lr * static_cast<double>(step + 1) / static_cast<double>(s.warmup_steps);
  } else if (step < s.total_steps) {
    const double progress = static_cast<double>(step - s.warmup_steps) /
                            static_cast<double>(s.total_steps - s.warmup_steps);
    r = min_lr + 0.5 * (max_lr - min_lr) * (1.0 + std::cos(M_PI * progress));
  } else {
    r = min_lr;
  }
  *lr = static_cast<float>(r);
  return Status::Ok();
}

}  // namespace attnlab
