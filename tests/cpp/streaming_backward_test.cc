// The streaming multi-head backward (multi_head_attention_backward_streaming, FlashAttention-2 style)
// against the all-intermediates backward (multi_head_attention_backward) for every mask kind, self- and
// cross-attention, biases, RoPE, ALiBi, at sizes that cross the 48-query and 128-key blocks, H = 1 and
// 3; against central differences of a float64 forward for one small case; the forward's saved lse
// against log Σ exp of the full path's scores; bad arguments; and the workspace of a T = 2048 case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attnlab/attnlab.h"
#include "attnlab/backward.h"
#include "tolerance.h"

namespace attnlab_test {
namespace {

using attnlab::Mask;
using attnlab::Status;
using FVec = std::vector<float>;
using Vec = std::vector<double>;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

FVec randn(size_t n, unsigned seed, float s = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, s);
  FVec v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// What kind of additive mask a case gets (Mask::Kind::additive in Case::mask).
enum class Additive { none, padding, random };

struct Case {
  const char* name;
  size_t tq, tk, D, H;
  Mask mask;
  Additive additive = Additive::none;
  bool cross = false, rope = false, alibi = false, biases = false;
};

// The parameters and inputs of one case, and the MultiHeadArgs pointing at them.
struct Problem {
  size_t tq, tk, D, H;
  FVec x, ctx, wq, wk, wv, wo, bq, bk, bv, bo, mask, dout;
  attnlab::MultiHeadArgs a{};
  Problem(const Case& c, unsigned seed) : tq(c.tq), tk(c.cross ? c.tk : c.tq), D(c.D), H(c.H) {
    const float ws = 1.0f / std::sqrt(float(D));
    x = randn(tq * D, seed), ctx = randn(tk * D, seed + 1);
    wq = randn(D * D, seed + 2, ws), wk = randn(D * D, seed + 3, ws), wv = randn(D * D, seed + 4, ws),
    wo = randn(D * D, seed + 5, ws);
    bq = randn(D, seed + 6, 0.1f), bk = randn(D, seed + 7, 0.1f), bv = randn(D, seed + 8, 0.1f),
    bo = randn(D, seed + 9, 0.1f);
    dout = randn(tq * D, seed + 10);
    a.mask = c.mask;
    if (c.additive != Additive::none) {
      // padding: the last keys are padding for every query; random: finite biases and −∞ entries.
      // Both: query row 1 sees no key at all (its gradients must be 0, as the full backward gives).
      mask = c.additive == Additive::random ? randn(tq * tk, seed + 11) : FVec(tq * tk, 0.0f);
      const size_t valid = tk - tk / 4;
      for (size_t i = 0; i < tq; ++i)
        for (size_t j = 0; j < tk; ++j) {
          const bool hidden = c.additive == Additive::padding ? j >= valid : (i + 2 * j) % 3 == 0;
          if (hidden || i == 1) mask[i * tk + j] = kNegInf;
        }
      a.mask = Mask::Additive(mask.data());
    }
    a.x = x.data();
    a.t_q = tq;
    a.context = c.cross ? ctx.data() : nullptr;
    a.t_k = c.cross ? tk : 0;
    a.d_model = D;
    a.heads = H;
    a.w = {wq.data(), wk.data(), wv.data(), wo.data()};
    if (c.biases) a.w.bq = bq.data(), a.w.bk = bk.data(), a.w.bv = bv.data(), a.w.bo = bo.data();
    a.rope = c.rope;
    a.alibi = c.alibi;
  }
};

// Every gradient of multi-head attention.
struct Grads {
  FVec dx, dctx, dwq, dwk, dwv, dwo, dbq, dbk, dbv, dbo;
  Grads(size_t tq, size_t tk, size_t D)
      : dx(tq * D), dctx(tk * D), dwq(D * D), dwk(D * D), dwv(D * D), dwo(D * D), dbq(D), dbk(D), dbv(D),
        dbo(D) {}
  attnlab::MultiHeadGrads ptrs() {
    attnlab::MultiHeadGrads g;
    g.dx = dx.data(), g.dcontext = dctx.data();
    g.dwq = dwq.data(), g.dwk = dwk.data(), g.dwv = dwv.data(), g.dwo = dwo.data();
    g.dbq = dbq.data(), g.dbk = dbk.data(), g.dbv = dbv.data(), g.dbo = dbo.data();
    return g;
  }
  struct Named { const char* name; const FVec* v; };
  std::vector<Named> all() const {
    return {{"dx", &dx},   {"dcontext", &dctx}, {"dwq", &dwq}, {"dwk", &dwk}, {"dwv", &dwv},
            {"dwo", &dwo}, {"dbq", &dbq},       {"dbk", &dbk}, {"dbv", &dbv}, {"dbo", &dbo}};
  }
};

// The streaming forward with lse and heads kept, then its backward.
struct StreamingRun {
  FVec q, k, v, work, out, lse, heads;
  Status forward, backward;
};
StreamingRun run_streaming(const Problem& p, Grads& g) {
  StreamingRun r;
  r.q.resize(p.tq * p.D), r.k.resize(p.tk * p.D), r.v.resize(p.tk * p.D), r.out.resize(p.tq * p.D);
  r.work.resize(attnlab::multi_head_streaming_workspace_floats(p.tk, p.D, p.H));
  r.lse.resize(p.H * p.tq), r.heads.resize(p.tq * p.D);
  attnlab::MultiHeadStreamingOutputs o{r.q.data(), r.k.data(), r.v.data(), r.work.data(), r.out.data(),
                                       r.lse.data(), r.heads.data()};
  r.forward = attnlab::multi_head_attention_forward_streaming(p.a, o);
  if (!r.forward.ok) return r;
  FVec ws(attnlab::multi_head_streaming_backward_workspace_floats(p.tq, p.tk, p.D));
  r.backward = attnlab::multi_head_attention_backward_streaming(p.a, o, p.dout.data(), g.ptrs(), ws.data());
  return r;
}

// The all-intermediates forward (raw scores kept) and backward.
struct FullRun {
  FVec q, k, v, scores, weights, heads, out;
};
FullRun run_full(const Problem& p, Grads& g) {
  FullRun r;
  r.q.resize(p.tq * p.D), r.k.resize(p.tk * p.D), r.v.resize(p.tk * p.D), r.heads.resize(p.tq * p.D),
      r.out.resize(p.tq * p.D), r.scores.resize(p.H * p.tq * p.tk), r.weights.resize(p.H * p.tq * p.tk);
  attnlab::MultiHeadOutputs o{r.q.data(), r.k.data(), r.v.data(), r.scores.data(), r.weights.data(),
                              r.heads.data(), r.out.data()};
  Status st = attnlab::multi_head_attention_forward(p.a, o);
  EXPECT_TRUE(st.ok) << st.message;
  FVec ws(attnlab::multi_head_backward_workspace_floats(p.tq, p.tk, p.D));
  st = attnlab::multi_head_attention_backward(p.a, o, p.dout.data(), g.ptrs(), ws.data());
  EXPECT_TRUE(st.ok) << st.message;
  return r;
}

const Case kCases[] = {
    {"one token, H = 1", 1, 1, 4, 1, Mask::None()},
    {"causal, H = 3, biases", 5, 5, 6, 3, Mask::Causal(), Additive::none, false, false, false, true},
    {"no mask, crosses the query block, biases", 49, 49, 24, 3, Mask::None(), Additive::none, false, false, false, true},
    {"causal, crosses the key block, H = 1", 131, 131, 16, 1, Mask::Causal()},
    {"window 17", 200, 200, 32, 4, Mask::Window(17)},
    {"causal window 5, RoPE, H = 3", 200, 200, 12, 3, Mask::Window(5, true), Additive::none, false, true},
    {"padding mask + empty row, ALiBi, biases", 101, 101, 12, 3, Mask::None(), Additive::padding, false, false, true, true},
    {"random additive + empty row, RoPE + ALiBi", 60, 60, 8, 2, Mask::None(), Additive::random, false, true, true},
    {"cross, additive + empty row, biases", 97, 263, 20, 5, Mask::None(), Additive::random, true, false, false, true},
    {"cross, no mask, RoPE, H = 3", 61, 140, 12, 3, Mask::None(), Additive::none, true, true},
    {"cross, padding mask, H = 1", 50, 129, 8, 1, Mask::None(), Additive::padding, true},
    {"causal, RoPE, biases", 150, 150, 16, 2, Mask::Causal(), Additive::none, false, true, false, true},
    {"no mask, ALiBi, H = 4", 150, 150, 16, 4, Mask::None(), Additive::none, false, false, true},
};

TEST(StreamingBackward, EqualsTheAllIntermediatesBackward) {
  unsigned seed = 1000;
  double worst = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Problem p(c, seed += 20);
    Grads gs(p.tq, p.tk, p.D), gf(p.tq, p.tk, p.D);
    const StreamingRun s = run_streaming(p, gs);
    ASSERT_TRUE(s.forward.ok) << s.forward.message;
    ASSERT_TRUE(s.backward.ok) << s.backward.message;
    run_full(p, gf);
    const auto got = gs.all(), want = gf.all();
    for (size_t t = 0; t < got.size(); ++t) {
      if (!c.cross && std::string(got[t].name) == "dcontext") continue;
      // Without RoPE the key bias gets no gradient (softmax ignores a shift of a query's scores): both
      // paths return rounding noise, measured on the scale of the query bias's gradient, whose terms
      // are the same dScores, summed without the cancellation.
      const bool noise = std::string(got[t].name) == "dbk" && !c.rope;
      double floor = 1e-3;
      if (noise)
        for (float v : gf.dbq) floor = std::max(floor, double(std::fabs(v)));
      const double err = tensor_rel_error(*got[t].v, *want[t].v, floor);
      EXPECT_LE(err, tol::kStreamingGrad.rel) << got[t].name;
      worst = std::max(worst, err);
    }
    if (c.additive != Additive::none && c.cross)  // query row 1 sees no key: no gradient reaches x[1]
      for (size_t d = 0; d < p.D; ++d) EXPECT_EQ(gs.dx[1 * p.D + d], 0.0f);
  }
  std::printf("  streaming vs all-intermediates backward: max tensor error %.2e (max|Δ| / max|g|)\n", worst);
}

// Gradients accumulate (+=) and a nullptr gradient is skipped, as the full backward.
TEST(StreamingBackward, AccumulatesAndSkipsMissingGradients) {
  const Case c{"causal, RoPE", 70, 70, 12, 3, Mask::Causal(), Additive::none, false, true};
  Problem p(c, 77);
  Grads all(p.tq, p.tk, p.D);
  ASSERT_TRUE(run_streaming(p, all).backward.ok);
  Grads some(p.tq, p.tk, p.D);
  attnlab::MultiHeadGrads g;  // only dx and dwk wanted, twice
  g.dx = some.dx.data();
  g.dwk = some.dwk.data();
  StreamingRun s;
  s.q.resize(p.tq * p.D), s.k.resize(p.tk * p.D), s.v.resize(p.tk * p.D), s.out.resize(p.tq * p.D);
  s.work.resize(attnlab::multi_head_streaming_workspace_floats(p.tk, p.D, p.H));
  s.lse.resize(p.H * p.tq), s.heads.resize(p.tq * p.D);
  attnlab::MultiHeadStreamingOutputs o{s.q.data(), s.k.data(), s.v.data(), s.work.data(), s.out.data(),
                                       s.lse.data(), s.heads.data()};
  ASSERT_TRUE(attnlab::multi_head_attention_forward_streaming(p.a, o).ok);
  FVec ws(attnlab::multi_head_streaming_backward_workspace_floats(p.tq, p.tk, p.D));
  for (int rep = 0; rep < 2; ++rep)
    ASSERT_TRUE(attnlab::multi_head_attention_backward_streaming(p.a, o, p.dout.data(), g, ws.data()).ok);
  for (size_t i = 0; i < some.dx.size(); ++i) EXPECT_CLOSE(some.dx[i], 2.0 * all.dx[i], tol::kSum);
  for (size_t i = 0; i < some.dwk.size(); ++i) EXPECT_CLOSE(some.dwk[i], 2.0 * all.dwk[i], tol::kSum);
}

// With lse and heads given the forward computes the same out (bit for bit), and q keeps Q: exactly the
// full path's q, and the heads are what q held before.
TEST(StreamingBackward, ForwardWithSavedValuesLeavesItsResultUnchanged) {
  const Case c{"causal, RoPE, biases", 100, 100, 16, 2, Mask::Causal(), Additive::none, false, true, false, true};
  Problem p(c, 5);
  Grads g(p.tq, p.tk, p.D), gf(p.tq, p.tk, p.D);
  const StreamingRun s = run_streaming(p, g);
  ASSERT_TRUE(s.forward.ok);
  FVec q(p.tq * p.D), k(p.tk * p.D), v(p.tk * p.D), out(p.tq * p.D);
  FVec work(attnlab::multi_head_streaming_workspace_floats(p.tk, p.D, p.H));
  ASSERT_TRUE(attnlab::multi_head_attention_forward_streaming(
                  p.a, {q.data(), k.data(), v.data(), work.data(), out.data()}).ok);
  expect_close_all(s.out, out, tol::kExact, "out");
  expect_close_all(s.heads, q, tol::kExact, "heads = q of the call without heads");
  const FullRun f = run_full(p, gf);
  expect_close_all(s.q, f.q, tol::kExact, "q = Q after RoPE");
}

// lse[h, i] = log Σ_j exp(scale·scores[h, i, j] + M(i, j) − slope·|i − j|) from the full path's raw
// scores, in double; −∞ for a query that sees no key.
TEST(StreamingBackward, SavedLseIsLogSumExpOfTheFullPathsScores) {
  unsigned seed = 3000;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Problem p(c, seed += 20);
    Grads gs(p.tq, p.tk, p.D), gf(p.tq, p.tk, p.D);
    const StreamingRun s = run_streaming(p, gs);
    ASSERT_TRUE(s.forward.ok);
    const FullRun f = run_full(p, gf);
    const double scale = 1.0f / std::sqrt(float(p.D / p.H));
    for (size_t h = 0; h < p.H; ++h) {
      const double slope = c.alibi ? attnlab::alibi_slope(h, p.H) : 0.0;
      for (size_t i = 0; i < p.tq; ++i) {
        double mx = -INFINITY;
        Vec row(p.tk);
        for (size_t j = 0; j < p.tk; ++j) {
          const double b = p.a.mask.bias(i, j, p.tk);
          row[j] = b == -INFINITY ? -INFINITY
                                  : scale * f.scores[(h * p.tq + i) * p.tk + j] + b -
                                        slope * std::fabs(double(i) - double(j));
          mx = std::max(mx, row[j]);
        }
        const float got = s.lse[h * p.tq + i];
        if (mx == -INFINITY) {
          EXPECT_EQ(got, kNegInf) << "head " << h << " query " << i;
          continue;
        }
        double z = 0;
        for (double r : row) z += std::exp(r - mx);
        ASSERT_CLOSE(got, mx + std::log(z), tol::kRef) << "head " << h << " query " << i;
      }
    }
  }
}

// ---- Central differences of a float64 forward, one small case -------------------------------------

// out = Concat_h softmax(scale·Q_h·K_hᵀ + M − slope_h·|i − j|)·V_h · W_O + b_O, self-attention, RoPE.
struct RefForward {
  size_t t, D, H;
  const Mask* mask;
  Vec x, wq, wk, wv, wo, bq, bk, bv, bo;
  Vec proj(const Vec& w, const Vec& b) const {
    Vec y(t * D);
    for (size_t i = 0; i < t; ++i)
      for (size_t c = 0; c < D; ++c) {
        double s = b[c];
        for (size_t d = 0; d < D; ++d) s += x[i * D + d] * w[d * D + c];
        y[i * D + c] = s;
      }
    return y;
  }
  void rope(Vec& y) const {
    const size_t dk = D / H;
    for (size_t i = 0; i < t; ++i)
      for (size_t h = 0; h < H; ++h)
        for (size_t c = 0; c + 1 < dk; c += 2) {
          const double th = double(i) * std::pow(10000.0, -double(c) / double(dk));
          double* e = &y[i * D + h * dk + c];
          const double a0 = e[0], a1 = e[1];
          e[0] = a0 * std::cos(th) - a1 * std::sin(th);
          e[1] = a0 * std::sin(th) + a1 * std::cos(th);
        }
  }
  Vec forward() const {
    const size_t dk = D / H;
    Vec q = proj(wq, bq), k = proj(wk, bk), v = proj(wv, bv), heads(t * D, 0.0), row(t);
    rope(q);
    rope(k);
    const double scale = 1.0 / std::sqrt(double(dk));
    for (size_t h = 0; h < H; ++h) {
      const double slope = attnlab::alibi_slope(h, H);
      for (size_t i = 0; i < t; ++i) {
        double mx = -INFINITY;
        for (size_t j = 0; j < t; ++j) {
          const double b = mask->bias(i, j, t);
          double s = 0;
          for (size_t c = 0; c < dk; ++c) s += q[i * D + h * dk + c] * k[j * D + h * dk + c];
          row[j] = b == -INFINITY ? -INFINITY : scale * s + b - slope * std::fabs(double(i) - double(j));
          mx = std::max(mx, row[j]);
        }
        if (mx == -INFINITY) continue;  // a query that sees no key: a zero head row
        double z = 0;
        for (size_t j = 0; j < t; ++j) z += (row[j] = std::exp(row[j] - mx));
        for (size_t j = 0; j < t; ++j)
          for (size_t c = 0; c < dk; ++c) heads[i * D + h * dk + c] += row[j] / z * v[j * D + h * dk + c];
      }
    }
    Vec out(t * D);
    for (size_t i = 0; i < t; ++i)
      for (size_t c = 0; c < D; ++c) {
        double s = bo[c];
        for (size_t d = 0; d < D; ++d) s += heads[i * D + d] * wo[d * D + c];
        out[i * D + c] = s;
      }
    return out;
  }
};

TEST(StreamingBackward, MatchesCentralDifferences) {
  const Case c{"random additive + empty row, RoPE + ALiBi, biases", 7, 7, 8, 2, Mask::None(), Additive::random,
               false, true, true, true};
  Problem p(c, 4242);
  Grads g(p.tq, p.tk, p.D);
  const StreamingRun s = run_streaming(p, g);
  ASSERT_TRUE(s.forward.ok && s.backward.ok) << s.forward.message << s.backward.message;
  auto d = [](const FVec& v) { return Vec(v.begin(), v.end()); };
  RefForward r{p.tq, p.D, p.H, &p.a.mask, d(p.x), d(p.wq), d(p.wk), d(p.wv), d(p.wo),
               d(p.bq), d(p.bk), d(p.bv), d(p.bo)};
  const Vec dout = d(p.dout);
  auto L = [&] {
    const Vec o = r.forward();
    double s = 0;
    for (size_t i = 0; i < o.size(); ++i) s += dout[i] * o[i];
    return s;
  };
  const struct { const char* name; Vec* x; const FVec* g; } params[] = {
      {"dx", &r.x, &g.dx},   {"dwq", &r.wq, &g.dwq}, {"dwk", &r.wk, &g.dwk}, {"dwv", &r.wv, &g.dwv},
      {"dwo", &r.wo, &g.dwo}, {"dbq", &r.bq, &g.dbq}, {"dbk", &r.bk, &g.dbk}, {"dbv", &r.bv, &g.dbv},
      {"dbo", &r.bo, &g.dbo}};
  for (const auto& pr : params) {
    Vec fd(pr.x->size());
    for (size_t i = 0; i < fd.size(); ++i) {
      const double x0 = (*pr.x)[i], h = 1e-5;
      (*pr.x)[i] = x0 + h;
      const double lp = L();
      (*pr.x)[i] = x0 - h;
      const double lm = L();
      (*pr.x)[i] = x0;
      fd[i] = (lp - lm) / (2 * h);
    }
    expect_close_all(*pr.g, fd, tol::kGrad, pr.name);
  }
}

// ---- Bad arguments -----------------------------------------------------------------------------------

TEST(StreamingBackward, BadArgumentsAreRefusedWithClearMessages) {
  const Case c{"small", 3, 3, 4, 2, Mask::None()};
  Problem p(c, 9);
  Grads g(p.tq, p.tk, p.D);
  StreamingRun s = run_streaming(p, g);
  ASSERT_TRUE(s.backward.ok);
  attnlab::MultiHeadStreamingOutputs o{s.q.data(), s.k.data(), s.v.data(), s.work.data(), s.out.data(),
                                       s.lse.data(), s.heads.data()};
  FVec ws(attnlab::multi_head_streaming_backward_workspace_floats(p.tq, p.tk, p.D));
  auto run = [&](const attnlab::MultiHeadArgs& a, const attnlab::MultiHeadStreamingOutputs& so,
                 const float* dout, float* w) {
    return attnlab::multi_head_attention_backward_streaming(a, so, dout, g.ptrs(), w).message;
  };
  const std::string op = "multiHeadAttentionStreamingBackward: ";
  EXPECT_EQ(run(p.a, o, p.dout.data(), nullptr), op + "workspace is missing");
  EXPECT_EQ(run(p.a, o, nullptr, ws.data()), op + "dout is missing");
  for (const char* name : {"saved.q", "saved.k", "saved.v", "saved.lse", "saved.heads"}) {
    auto so = o;
    const std::string n = name;
    (n == "saved.q" ? so.q : n == "saved.k" ? so.k : n == "saved.v" ? so.v : n == "saved.lse" ? so.lse : so.heads) =
        nullptr;
    EXPECT_EQ(run(p.a, so, p.dout.data(), ws.data()), op + name + " is missing");
  }
  auto so = o;
  so.heads = so.q;
  EXPECT_EQ(run(p.a, so, p.dout.data(), ws.data()),
            op + "saved.heads is saved.q, expected a separate [tq, dModel] buffer (the forward keeps Q in q only "
                 "when heads is given)");

  auto a = p.a;
  a.t_q = 0;
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "tq is 0, expected a positive integer");
  a = p.a;
  a.d_model = 0;
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "dModel is 0, expected a positive integer");
  a = p.a;
  a.heads = 3;
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()),
            op + "heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads");
  a = p.a;
  a.w.wo = nullptr;
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "wo is missing");
  // Masks that do not fit the call: causal over two sequences, an additive mask without values.
  a = p.a;
  a.context = p.ctx.data();
  a.t_k = 2;
  a.mask = Mask::Causal();
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "a causal or window mask needs tq = tk, got tq = 3, tk = 2");
  a.mask = Mask::None();
  a.alibi = true;
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()),
            op + "alibi is defined for self-attention, expected no context with alibi");
  a = p.a;
  a.mask = Mask::Additive(nullptr);
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "mask is missing");
  FVec nan_mask(p.tq * p.tk, 0.0f);
  nan_mask[4] = NAN;
  a.mask = Mask::Additive(nan_mask.data());
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "mask[4] is NaN, expected finite values or -Infinity");
  a = p.a;
  a.mask = Mask::Window(-1);
  EXPECT_EQ(run(a, o, p.dout.data(), ws.data()), op + "mask.window is -1, expected an integer ≥ 0");
  // Sizes whose workspace cannot be addressed.
  EXPECT_EQ(attnlab::multi_head_streaming_backward_workspace_floats(SIZE_MAX / 2, 4, 4), SIZE_MAX);
  EXPECT_EQ(attnlab::multi_head_streaming_backward_workspace_floats(4, 4, SIZE_MAX / 8), SIZE_MAX);
}

// T = 2048, D = 64, H = 4: the workspace is O((t_q + t_k)·D), far below the H·t² weights that the
// all-intermediates backward needs, and the backward runs with it. No timing.
TEST(StreamingBackward, LongSequenceRunsInLinearMemory) {
  const size_t T = 2048, D = 64, H = 4;
  const size_t ws = attnlab::multi_head_streaming_backward_workspace_floats(T, T, D);
  EXPECT_EQ(ws, 4 * T * D + 2 * 48 * 128 + 48);  // dheads, dq, dk, dv + two block tiles + delta
  EXPECT_LT(ws * 16, H * T * T);
  EXPECT_LT(attnlab::multi_head_streaming_workspace_floats(T, D, H) * 16, H * T * T);
  const Case c{"long causal", T, T, D, H, Mask::Causal()};
  Problem p(c, 11);
  Grads g(p.tq, p.tk, p.D);
  const StreamingRun s = run_streaming(p, g);
  ASSERT_TRUE(s.forward.ok) << s.forward.message;
  ASSERT_TRUE(s.backward.ok) << s.backward.message;
  for (const auto& t : g.all()) {
    if (std::string(t.name) == "dcontext") continue;
    EXPECT_EQ(attnlab::first_non_finite(t.v->data(), t.v->size()), t.v->size()) << t.name;
  }
  double norm = 0;
  for (float v : g.dx) norm += double(v) * v;
  EXPECT_GT(norm, 0.0);
}

}  // namespace
}  // namespace attnlab_test
