// The one tolerance check of the GoogleTest suites (tests/unit/helpers.js has the Vitest twin):
// |got − want| ≤ max(tol.abs, tol.rel·|want|), element by element. Equal values pass, NaN fails. Pick the
// preset that says why two numbers may differ; a new kind of comparison gets a new named preset here.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace attnlab_test {

struct Tol {
  double rel, abs;
};

namespace tol {
// Exactly equal.
inline constexpr Tol kExact{0, 0};
// The same O(1) value a few float32 roundings apart (1e-6 ≈ 8 ulps at 1).
inline constexpr Tol kRounding{0, 1e-6};
// The same, at any magnitude: a few float32 ulps relative to the value.
inline constexpr Tol kUlps{1e-6, 0};
// An O(1) sum or dot product over tens of float32 terms, in another order or in float64.
inline constexpr Tol kSum{0, 1e-5};
// A float32 op, end to end, against an independent float64 reference (Eigen; the streaming path against
// the all-intermediates one at awkward sizes).
inline constexpr Tol kRef{1e-4, 1e-4};
// A float32 backward pass against central finite differences of a float64 forward (step 1e-5, whose
// own error is ~1e-10): the float32 rounding of the forward's saved values and of the backward's
// sums, relative to gradients of O(1).
inline constexpr Tol kGrad{1e-4, 1e-5};
// The streaming multi-head backward (FlashAttention-2: probabilities recomputed as exp(S − lse) in
// blocks) against the all-intermediates one, per TENSOR as kModel (tensor_rel_error): the same
// gradients summed in another order (per key block, then over blocks) from probabilities rounded
// differently (exp(S − lse) vs exp(S − m)/l), through ~6 float32 ops; a gradient near 0 inherits the
// absolute rounding of its tensor's large terms, so per element would fail on correct code. Measured
// ≤ 5e-7 (1.2e-6 for the key bias's rounding noise); 1e-5 ≈ 80 float32 ulps.
inline constexpr Tol kStreamingGrad{1e-5, 0};
// The lecture notes' numbers, printed to 4 decimals.
inline constexpr Tol kPrinted4{0, 5e-5};
// A whole float32 model (forward and backward, ~20 ops deep) against a float64 reference, measured per
// TENSOR by tensor_rel_error: max|got − want| / max(max|want|, floor). Not per element: a logit or
// gradient near 0 is a sum of large terms that cancel, and carries their absolute rounding error, so
// per-element relative error fails on correct code, while a per-element absolute bound would need
// tuning to each tensor's scale. The tensor's own largest value is the scale its rounding follows.
// 1e-4 ≈ 800 float32 ulps.
inline constexpr Tol kModel{1e-4, 0};
// Two float32 runs of the same few training steps (the model and torch in float32), per tensor as
// kModel: gradients agree to ~1e-6, and Adam's m̂/√v̂ barely moves with their relative error, so the
// parameters differ by a small multiple of lr·1e-6 (torch float32 vs float64 measures 2e-7).
inline constexpr Tol kTrainSteps{1e-5, 0};
// A parameter whose exact gradient is 0, so that float32 gives rounding noise (b_K: softmax ignores a
// constant added to every key), after Adam steps: Adam normalises the noise, so the value is only
// bounded, not reproducible. Each step moves it by at most lr·√Σᵢ wᵢ²/uᵢ (m̂ = Σ wᵢgᵢ, v̂ = Σ uᵢgᵢ²;
// Cauchy–Schwarz), which is 1, 1.0004, 1.001 for steps 1–3 at β = (0.9, 0.95): ≤ 1.01·lr per step.
inline constexpr double kAdamNoiseStep = 1.01;  // × lr: the bound per step on such a parameter
}  // namespace tol

// The error of a whole tensor relative to its own scale (tol::kModel): max|got − want| / max(max|want|,
// floor). floor > 0 keeps a tensor whose reference is 0 from dividing by 0; *at: the worst element.
template <class Got, class Want>
double tensor_rel_error(const Got& got, const Want& want, double floor, size_t* at = nullptr) {
  double diff = 0, scale = floor;
  size_t worst = 0;
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    double d = std::fabs(double(got[i]) - double(want[i]));
    if (std::isnan(d)) d = INFINITY;
    if (d > diff) diff = d, worst = i;
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  if (at) *at = worst;
  return got.size() == want.size() ? diff / scale : INFINITY;
}

inline double bound(double want, Tol t) { return std::max(t.abs, t.rel * std::fabs(want)); }

inline ::testing::AssertionResult Close(double got, double want, Tol t) {
  if (got == want || std::fabs(got - want) <= bound(want, t)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << got << " vs " << want << ": |difference| " << std::fabs(got - want)
                                       << " > " << bound(want, t);
}

// Every element; one failure message naming the worst.
template <class Got, class Want>
void expect_close_all(const Got& got, const Want& want, Tol t, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got[i], w = want[i];
    double err = g == w ? 0.0 : std::fabs(g - w) / bound(w, t);
    if (std::isnan(err)) err = INFINITY;
    if (err > worst) worst = err, at = i;
  }
  EXPECT_LE(worst, 1.0) << what << ": worst at [" << at << "]: " << double(got[at]) << " vs " << double(want[at]);
}

}  // namespace attnlab_test

#define EXPECT_CLOSE(got, want, tol) EXPECT_TRUE(::attnlab_test::Close((got), (want), (tol)))
#define ASSERT_CLOSE(got, want, tol) ASSERT_TRUE(::attnlab_test::Close((got), (want), (tol)))
