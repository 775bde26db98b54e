// The float32 overflow bounds of multi-head attention, computed from the kernels' column maxima, with
// and without weight bounds precomputed by multi_head_weight_bounds (ops.h): the same refusals with
// the same messages as the bounds written out here in plain scalar loops (the definition in
// docs/hardening.md), on random inputs whose magnitudes straddle every threshold; the same results
// bit for bit; bounds of other weights ignored; stale bounds never let NaN or ±∞ out; the per-column
// output bound of a W_O stored transposed (an inference-only model's) equal to that of [in, out].
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "attnlab/ops.h"
#include "../../core/src/ops/multihead_detail.h"

namespace {

using attnlab::Mask;
using attnlab::MultiHeadArgs;
using attnlab::MultiHeadWeightBounds;
using attnlab::Status;

// ---- the bounds as docs/hardening.md defines them, one column and one value at a time ----
double gamma_n(size_t n) {
  const double nu = (static_cast<double>(n) + 2.0) * 0x1p-24;
  return nu < 0.5 ? nu / (1.0 - nu) : 1.0;
}
std::string bound_str(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  std::string r = buf;
  const size_t plus = r.find("e+");
  if (plus != std::string::npos) r.erase(plus + 1, 1);
  return r;
}
std::string value_str(float x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));
  return buf;
}
float col_max(const float* x, size_t ld, size_t rows, size_t c) {
  float m = 0.0f;
  for (size_t r = 0; r < rows; ++r) m = std::fmax(m, std::fabs(x[r * ld + c]));
  return m;
}

// The status multiHeadAttention must give for finite x and weights (self-attention, no mask), from the
// projections q, k, v it computed: "" when accepted.
std::string expected_status(const MultiHeadArgs& a, const std::vector<float>& q, const std::vector<float>& k,
                            const std::vector<float>& v) {
  const std::string op = "multiHeadAttention: ";
  const size_t D = a.d_model, H = a.heads, dk = D / H, t = a.t_q;
  const struct { const char* name; const std::vector<float>& r; const char* hint; } proj[] = {
      {"q", q, "x·wq + bq within float32 range"}, {"k", k, "context·wk + bk within float32 range"},
      {"v", v, "context·wv + bv within float32 range"}};
  for (const auto& p : proj)
    for (size_t i = 0; i < t * D; ++i)
      if (!std::isfinite(p.r[i]))
        return op + p.name + "[" + std::to_string(i) + "] is " + value_str(p.r[i]) +
               " after a float32 overflow, expected " + p.hint;
  const double scale = a.scale > 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(dk));
  for (size_t h = 0; h < H; ++h) {
    double r = 0.0;
    for (size_t d = h * dk; d < (h + 1) * dk; ++d)
      r += static_cast<double>(col_max(q.data(), D, t, d)) * col_max(k.data(), D, t, d);
    const double raw = r * (1.0 + gamma_n(dk));
    const double scaled = raw * scale * (1.0 + 0x1p-23);
    if (raw > FLT_MAX)
      return op + "scores q·kᵀ of head " + std::to_string(h) + " can exceed float32 range (bound " +
             bound_str(raw) + "), expected |q|·|k| within 3.4e38";
    if (scaled > FLT_MAX)
      return op + "scores q·kᵀ·scale of head " + std::to_string(h) + " can exceed float32 range (bound " +
             bound_str(scaled) + "), expected |q|·|k|·scale within 3.4e38";
  }
  float vmax = 0.0f;
  for (size_t i = 0; i < t * D; ++i) vmax = std::fmax(vmax, std::fabs(v[i]));
  const double vb = vmax * (1.0 + gamma_n(t));
  if (vb > FLT_MAX)
    return op + "weights·v can exceed float32 range (bound " + bound_str(vb) + "), expected |v| within " +
           bound_str(FLT_MAX / (1.0 + gamma_n(t)));
  const double margin = (1.0 + gamma_n(t)) * (1.0 + gamma_n(D + 1));
  double worst = 0.0;
  for (size_t c = 0; c < D; ++c) {
    double acc = 0.0;
    for (size_t d = 0; d < D; ++d) acc += static_cast<double>(col_max(v.data(), D, t, d)) * std::fabs(a.w.wo[d * D + c]);
    const double b = (acc + (a.w.bo ? std::fabs(static_cast<double>(a.w.bo[c])) : 0.0)) * margin;
    if (b > FLT_MAX) worst = std::fmax(worst, b);
  }
  if (worst > 0.0)
    return op + "output heads·wo + bo can exceed float32 range (bound " + bound_str(worst) +
           "), expected |v|·|wo| + |bo| within 3.4e38";
  return "";
}

struct PathResults {
  Status full, streaming;
  std::vector<float> q, k, v, weights, heads, out, streaming_out;
};
PathResults run_paths(const MultiHeadArgs& a) {
  const size_t t = a.t_q, D = a.d_model, H = a.heads;
  PathResults r;
  r.q.resize(t * D), r.k.resize(t * D), r.v.resize(t * D), r.weights.resize(H * t * t), r.heads.resize(t * D),
      r.out.resize(t * D), r.streaming_out.resize(t * D);
  r.full = attnlab::multi_head_attention_forward(
      a, {r.q.data(), r.k.data(), r.v.data(), nullptr, r.weights.data(), r.heads.data(), r.out.data()});
  std::vector<float> q(t * D), k(t * D), v(t * D), ws(attnlab::multi_head_streaming_workspace_floats(t, D, H));
  r.streaming = attnlab::multi_head_attention_forward_streaming(a, {q.data(), k.data(), v.data(), ws.data(),
                                                                   r.streaming_out.data()});
  return r;
}

struct Layer {
  size_t t, D, H;
  std::vector<float> x, wq, wk, wv, wo, bo;
  MultiHeadArgs args(bool with_bo) {
    MultiHeadArgs a{x.data(), t, nullptr, 0, D, H, {wq.data(), wk.data(), wv.data(), wo.data()}, Mask::None()};
    if (with_bo) a.w.bo = bo.data();
    return a;
  }
};
Layer random_layer(std::mt19937& rng, size_t t, size_t D, size_t H, int ex, int eq, int ev, int eo, int eb) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Layer L{t, D, H};
  auto fill = [&](std::vector<float>& w, size_t n, int e) {
    w.resize(n);
    for (auto& x : w) x = std::ldexp(u(rng), e);
  };
  fill(L.x, t * D, ex);
  fill(L.wq, D * D, eq);
  fill(L.wk, D * D, eq);
  fill(L.wv, D * D, ev);
  fill(L.wo, D * D, eo);
  fill(L.bo, D, eb);
  // Now and then one large entry in wo's row whose v column is small: the maxima alone then cannot
  // show the output within range, the per-column bound must decide.
  if (rng() % 3 == 0) L.wo[(rng() % D) * D + rng() % D] = std::ldexp(1.0f, 100 + static_cast<int>(rng() % 28));
  return L;
}

TEST(MultiHeadBounds, WeightBoundsAreTheMaximaOfWoAndBo) {
  std::vector<float> wo{0.5f, -3.0f, 2.0f, 1.0f}, bo{-0.25f, 0.125f}, w{0, 0, 0, 0};
  MultiHeadWeightBounds b = attnlab::multi_head_weight_bounds({w.data(), w.data(), w.data(), wo.data(), nullptr, nullptr, nullptr, bo.data()}, 2);
  EXPECT_EQ(b.wo, wo.data());
  EXPECT_EQ(b.bo, bo.data());
  EXPECT_EQ(b.d_model, 2u);
  EXPECT_EQ(b.wo_abs_max, 3.0f);
  EXPECT_EQ(b.bo_abs_max, 0.25f);
  b = attnlab::multi_head_weight_bounds({w.data(), w.data(), w.data(), wo.data()}, 2);
  EXPECT_EQ(b.bo, nullptr);
  EXPECT_EQ(b.bo_abs_max, 0.0f);
  wo[2] = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(attnlab::multi_head_weight_bounds({w.data(), w.data(), w.data(), wo.data()}, 2).wo_abs_max,
            std::numeric_limits<float>::infinity());
  wo[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(attnlab::multi_head_weight_bounds({w.data(), w.data(), w.data(), wo.data()}, 2).wo_abs_max));
}

// Random layers whose magnitudes straddle every threshold (projections, scores, values, output):
// both paths, with and without precomputed bounds, give the status written out above — the same
// refusal with the same message, or success with the same numbers.
TEST(MultiHeadBounds, SameRefusalsAndMessagesWithAndWithoutPrecomputedBounds) {
  std::mt19937 rng(20);
  const size_t shapes[][3] = {{1, 4, 1}, {3, 4, 2}, {5, 8, 2}, {9, 12, 3}, {7, 16, 4}, {16, 64, 4}, {4, 70, 5}};
  int accepted = 0, by_output = 0, by_values = 0, by_scores = 0, by_projection = 0, decided_per_column = 0;
  for (int i = 0; i < 600; ++i) {
    const auto& s = shapes[i % 7];
    // Exponents of sums that straddle the thresholds: scores ~ 2^(2·sq), values ~ 2^sv (and the
    // projection v itself past 2^128), output ~ 2^(sv + eo); one category per case, the rest small.
    auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
    const int category = i % 4;
    const int sq = category == 0 ? pick(54, 68) : pick(0, 50);
    const int sv = category == 1 ? pick(118, 132) : category == 2 ? pick(40, 100) : pick(0, 100);
    const int eo = category == 2 ? pick(112, 134) - sv : pick(-40, std::max(-40, 100 - sv));
    const int ex = pick(std::max({0, sv - 127, sq - 127}), 40);
    const int eq = sq - ex, ev = sv - ex, eb = category == 3 ? pick(100, 127) : pick(0, 60);
    Layer L = random_layer(rng, s[0], s[1], s[2], ex, eq, ev, eo, eb);
    if (category == 1 && i % 8 == 1) {
      // weights·v at the edge: v = x·I with one x within a few float32 steps of FLT_MAX, where the
      // values bound (max|v|·(1 + γ(t))) refuses only the largest (and the projections are exact).
      const size_t D = s[1];
      std::fill(L.wq.begin(), L.wq.end(), 0.0f);
      std::fill(L.wk.begin(), L.wk.end(), 0.0f);
      std::fill(L.wv.begin(), L.wv.end(), 0.0f);
      for (size_t d = 0; d < D; ++d) L.wv[d * D + d] = 1.0f;
      for (auto& w : L.wo) w = std::ldexp(w, -140 + eo);
      for (auto& x : L.x) x = std::ldexp(x, -ex);
      L.x[rng() % L.x.size()] = FLT_MAX * static_cast<float>(1.0 - pick(0, 4 * static_cast<int>(s[0] + 2)) * 0x1p-24);
    }
    const bool with_bo = rng() % 2;
    MultiHeadArgs a = L.args(with_bo);
    const PathResults plain = run_paths(a);
    const std::string want = expected_status(a, plain.q, plain.k, plain.v);
    const MultiHeadWeightBounds wb = attnlab::multi_head_weight_bounds(a.w, a.d_model);
    a.weight_bounds = &wb;
    const PathResults given = run_paths(a);
    SCOPED_TRACE("case " + std::to_string(i) + ": " + want);
    for (const Status* st : {&plain.full, &plain.streaming, &given.full, &given.streaming}) {
      EXPECT_EQ(st->ok, want.empty());
      if (!want.empty()) EXPECT_EQ(st->message, want);
    }
    if (want.empty()) {
      ++accepted;
      EXPECT_EQ(plain.out, given.out);
      EXPECT_EQ(plain.weights, given.weights);
      EXPECT_EQ(plain.streaming_out, given.streaming_out);
      for (float y : plain.out) ASSERT_TRUE(std::isfinite(y));
      // Accepted although the maxima alone could not show it: the per-column bound decided.
      float vmax = 0.0f;
      for (float y : plain.v) vmax = std::fmax(vmax, std::fabs(y));
      const double quick = static_cast<double>(s[1]) * vmax * wb.wo_abs_max + wb.bo_abs_max;
      if (quick > FLT_MAX / 4) ++decided_per_column;
    } else if (want.find("output heads·wo") != std::string::npos) ++by_output;
    else if (want.find("weights·v") != std::string::npos) ++by_values;
    else if (want.find("scores") != std::string::npos) ++by_scores;
    else ++by_projection;
  }
  // Every branch was reached (the counts are properties of the seeded inputs, not of timing).
  EXPECT_GE(accepted, 60);
  EXPECT_GE(by_output, 20);
  EXPECT_GE(by_values, 10);
  EXPECT_GE(by_scores, 20);
  EXPECT_GE(by_projection, 5);
  EXPECT_GE(decided_per_column, 5);
}

TEST(MultiHeadBounds, NonFiniteWeightsAreNamedWithOrWithoutBounds) {
  std::mt19937 rng(3);
  Layer L = random_layer(rng, 5, 8, 2, 0, 0, 0, 0, 0);
  L.wo[9] = std::numeric_limits<float>::quiet_NaN();
  MultiHeadArgs a = L.args(true);
  const MultiHeadWeightBounds wb = attnlab::multi_head_weight_bounds(a.w, 8);
  for (const MultiHeadWeightBounds* b : {static_cast<const MultiHeadWeightBounds*>(nullptr), &wb}) {
    a.weight_bounds = b;
    const PathResults r = run_paths(a);
    ASSERT_FALSE(r.full.ok);
    EXPECT_EQ(r.full.message, "multiHeadAttention: wo[9] is NaN, expected finite values");
    EXPECT_EQ(r.streaming.message, r.full.message);
  }
  L.wo[9] = 0.5f;
  L.bo[3] = -std::numeric_limits<float>::infinity();
  const MultiHeadWeightBounds wb2 = attnlab::multi_head_weight_bounds(a.w, 8);
  for (const MultiHeadWeightBounds* b : {static_cast<const MultiHeadWeightBounds*>(nullptr), &wb2}) {
    a.weight_bounds = b;
    const PathResults r = run_paths(a);
    ASSERT_FALSE(r.full.ok);
    EXPECT_EQ(r.full.message, "multiHeadAttention: bo[3] is -Infinity, expected finite values");
    EXPECT_EQ(r.streaming.message, r.full.message);
  }
}

// Bounds computed for other arrays (another wo, bo or dModel) are not used: the call reads its own.
TEST(MultiHeadBounds, BoundsOfOtherWeightsAreIgnored) {
  std::mt19937 rng(5);
  Layer L = random_layer(rng, 6, 8, 2, 0, 0, 0, 0, 0);
  std::vector<float> small(64, 1e-3f), small_b(8, 0.0f);
  for (auto& w : L.wo) w = 1e38f;  // output bound ~ 8·|v|·1e38: refused
  MultiHeadArgs a = L.args(true);
  const std::string want = "multiHeadAttention: output heads·wo + bo can exceed float32 range";
  const MultiHeadWeightBounds other_wo = attnlab::multi_head_weight_bounds({L.wq.data(), L.wk.data(), L.wv.data(), small.data(), nullptr, nullptr, nullptr, L.bo.data()}, 8);
  const MultiHeadWeightBounds other_bo = [&] {
    MultiHeadWeightBounds b = attnlab::multi_head_weight_bounds(a.w, 8);
    b.bo = small_b.data();
    b.wo_abs_max = 1e-3f;
    return b;
  }();
  const MultiHeadWeightBounds other_d = [&] {
    MultiHeadWeightBounds b = attnlab::multi_head_weight_bounds(a.w, 8);
    b.d_model = 4;
    b.wo_abs_max = 1e-3f;
    return b;
  }();
  for (const MultiHeadWeightBounds* b : {&other_wo, &other_bo, &other_d}) {
    a.weight_bounds = b;
    const PathResults r = run_paths(a);
    ASSERT_FALSE(r.full.ok);
    EXPECT_EQ(r.full.message.compare(0, want.size(), want), 0) << r.full.message;
    EXPECT_EQ(r.streaming.message, r.full.message);
  }
}

// Bounds left stale by writing into the same wo: never a NaN or ±∞ handed back.
TEST(MultiHeadBounds, StaleBoundsNeverLetNonFiniteResultsOut) {
  std::mt19937 rng(7);
  Layer L = random_layer(rng, 6, 8, 2, 0, 0, 0, 0, 0);
  for (auto& x : L.x) x *= 1e6f;
  MultiHeadArgs a = L.args(false);
  const MultiHeadWeightBounds wb = attnlab::multi_head_weight_bounds(a.w, 8);
  a.weight_bounds = &wb;
  for (auto& w : L.wo) w = 3e38f;  // now the output overflows: the bounds still say max|wo| ≈ 1
  const PathResults r = run_paths(a);
  for (const auto* res : {&r.out, &r.streaming_out})
    if (res == &r.out ? r.full.ok : r.streaming.ok)
      for (float y : *res) EXPECT_TRUE(std::isfinite(y));
  EXPECT_FALSE(r.full.ok);  // |v|·|wo| far past float32: the result check refuses it
  EXPECT_NE(r.full.message.find("after a float32 overflow"), std::string::npos) << r.full.message;
}

// W_O stored transposed ([out, in], detail::WeightLayout::out_in): the exact per-column output bound
// Σ_d max|v[:, d]|·|wo[d, c]| reads column c as row c, and refuses exactly what [in, out] refuses. v's
// column 2 reaches 10, every other 0.01; one W_O entry of 1e38 (so that D·max|v|·max|wo| leaves the
// quick bound and the per-column sums decide): at (d 5, c 2) it is 1e36 there (accepted), at (d 2, c 5)
// 1e39 (refused). Read in the wrong layout, the first would be refused.
TEST(MultiHeadBounds, TransposedWoHasTheSameOutputBound) {
  namespace dt = attnlab::detail;
  const size_t D = 8, H = 2, T = 3;
  std::vector<float> x(T * D, 0.0f), w0(D * D, 0.0f), q(T * D, 0.1f), k(T * D, 0.1f), v(T * D, 0.01f), scratch(D);
  for (size_t t = 0; t < T; ++t) v[t * D + 2] = 10.0f;
  for (const auto [d, c, ok] : {std::tuple{size_t(5), size_t(2), true}, std::tuple{size_t(2), size_t(5), false}}) {
    std::vector<float> wo(D * D, 0.0f), wo_t(D * D, 0.0f);
    wo[d * D + c] = 1e38f;
    wo_t[c * D + d] = 1e38f;
    MultiHeadArgs a{};
    a.x = x.data(), a.t_q = T, a.d_model = D, a.heads = H, a.mask = Mask::None();
    a.w = attnlab::MultiHeadWeights{w0.data(), w0.data(), w0.data(), wo.data()};
    const Status in_out = dt::check_multihead_bounds(a, q.data(), k.data(), v.data(), scratch.data());
    a.w.wo = wo_t.data();
    const Status out_in = dt::check_multihead_bounds(a, q.data(), k.data(), v.data(), scratch.data(), dt::WeightLayout::out_in);
    const Status misread = dt::check_multihead_bounds(a, q.data(), k.data(), v.data(), scratch.data());
    EXPECT_EQ(in_out.ok, ok) << in_out.message;
    EXPECT_EQ(out_in.ok, ok) << out_in.message;
    EXPECT_EQ(out_in.message, in_out.message);
    EXPECT_NE(misread.ok, ok);  // the transposed array read as [in, out]: the other answer
    if (!ok) EXPECT_NE(in_out.message.find("output heads·wo + bo can exceed float32 range"), std::string::npos) << in_out.message;
  }
}

}  // namespace
