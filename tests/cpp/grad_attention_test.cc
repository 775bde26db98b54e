// The attention-side backward passes (backward.h) against central finite differences of float64
// forwards written from the formulas: softmax rows, scaled dot-product attention (every mask kind,
// fully masked rows, ALiBi), multi-head attention (biases, RoPE, ALiBi, cross-attention), RoPE,
// embedding, the tied output head and softmax cross-entropy.
//
// Each check: a scalar L = Σ dOut ⊙ forward(inputs) in double (dOut random), dL/dinput_i ≈
// (L(input_i + h) − L(input_i − h)) / 2h, compared with the float32 backward element by element
// (tol::kGrad). The largest error of each op, max|g − fd| / max|fd|, is printed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attnlab/attnlab.h"
#include "tolerance.h"

namespace {

using attnlab::Mask;
using attnlab::Status;
using attnlab_test::Tol;
using Vec = std::vector<double>;
using FVec = std::vector<float>;
constexpr double kInf = std::numeric_limits<double>::infinity();

FVec random_f(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  FVec v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
Vec to_d(const FVec& v) { return Vec(v.begin(), v.end()); }
double dot_d(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Central differences of L with respect to every entry of x (x is perturbed in place and restored).
Vec finite_diff(Vec& x, const std::function<double()>& L, double h = 1e-5) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double lp = L();
    x[i] = x0 - h;
    const double lm = L();
    x[i] = x0;
    g[i] = (lp - lm) / (2 * h);
  }
  return g;
}

// Element-wise check (tol::kGrad) and the largest error relative to the gradient's scale.
double check_grad(const FVec& got, const Vec& want, const std::string& what) {
  attnlab_test::expect_close_all(got, want, attnlab_test::tol::kGrad, what);
  double err = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  if (scale < 1e-6) {  // an exactly zero gradient (a key bias: softmax ignores a shift of every score)
    std::printf("  %-40s zero gradient: max|g| = %.2e, max|fd| = %.2e\n", what.c_str(), err, scale);
    return err;
  }
  const double rel = err / scale;
  std::printf("  %-40s max|g - fd| / max|fd| = %.2e  (max|fd| %.3g)\n", what.c_str(), rel, scale);
  return rel;
}

// ---- float64 forwards, from the formulas ------------------------------------------------------------

// Softmax of one row in place; −∞ entries give 0, an all −∞ row gives zeros.
void softmax_row_d(double* x, size_t n) {
  double mx = -kInf;
  for (size_t j = 0; j < n; ++j) mx = std::max(mx, x[j]);
  if (mx == -kInf) {
    for (size_t j = 0; j < n; ++j) x[j] = 0;
    return;
  }
  double s = 0;
  for (size_t j = 0; j < n; ++j) s += (x[j] = std::exp(x[j] - mx));
  for (size_t j = 0; j < n; ++j) x[j] /= s;
}

// out [tq, dv] = softmax(scale·Q·Kᵀ + M − slope·|i − j|)·V; q, k, v with row strides dk, dk, dv.
Vec attention_d(const double* q, size_t ldq, const double* k, size_t ldk, const double* v, size_t ldv,
                size_t tq, size_t tk, size_t dk, size_t dv, double scale, const Mask& m, double slope) {
  Vec out(tq * dv, 0.0), row(tk);
  for (size_t i = 0; i < tq; ++i) {
    for (size_t j = 0; j < tk; ++j) {
      const double b = m.bias(i, j, tk);
      double s = 0;
      for (size_t c = 0; c < dk; ++c) s += q[i * ldq + c] * k[j * ldk + c];
      row[j] = b == -kInf ? -kInf : scale * s + b - slope * std::fabs(double(i) - double(j));
    }
    softmax_row_d(row.data(), tk);
    for (size_t j = 0; j < tk; ++j)
      for (size_t c = 0; c < dv; ++c) out[i * dv + c] += row[j] * v[j * ldv + c];
  }
  return out;
}

Vec matmul_d(const Vec& a, const Vec& b, size_t m, size_t k, size_t n, const Vec* bias) {
  Vec c(m * n);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double s = bias ? (*bias)[j] : 0.0;
      for (size_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}

// Rotates pairs (2i, 2i+1) of row x[0:d] by pos·base^(−2i/d).
void rope_row_d(double* x, size_t d, double base, size_t pos) {
  for (size_t i = 0; i + 1 < d; i += 2) {
    const double th = double(pos) * std::pow(base, -double(i) / double(d));
    const double x0 = x[i], x1 = x[i + 1];
    x[i] = x0 * std::cos(th) - x1 * std::sin(th);
    x[i + 1] = x0 * std::sin(th) + x1 * std::cos(th);
  }
}

// ---- Inputs shared by the attention cases ------------------------------------------------------------

struct MaskCase {
  const char* name;
  Mask mask;
  bool square;  // needs tq = tk
  float slope;
};

// An additive mask [tq, tk] with −∞ entries, finite biases and (row 1) a fully masked row.
FVec additive_mask(size_t tq, size_t tk, unsigned seed) {
  FVec m = random_f(tq * tk, seed, -1.0f, 1.0f);
  for (size_t i = 0; i < tq; ++i)
    for (size_t j = 0; j < tk; ++j)
      if ((i + 2 * j) % 3 == 0 || i == 1) m[i * tk + j] = -std::numeric_limits<float>::infinity();
  return m;
}

}  // namespace

namespace attnlab_test {
namespace {

TEST(GradAttention, SoftmaxRowsMatchesFiniteDifferences) {
  const size_t rows = 4, cols = 6;
  FVec x = random_f(rows * cols, 1, -2.0f, 2.0f);
  const float ninf = -std::numeric_limits<float>::infinity();
  x[0 * cols + 2] = ninf;                                   // one masked entry
  for (size_t j = 0; j < cols; ++j) x[2 * cols + j] = ninf;  // a fully masked row
  FVec y(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    Vec row(x.begin() + r * cols, x.begin() + (r + 1) * cols);
    softmax_row_d(row.data(), cols);
    for (size_t j = 0; j < cols; ++j) y[r * cols + j] = float(row[j]);
  }
  const FVec dy = random_f(rows * cols, 2);
  FVec dx = random_f(rows * cols, 3);  // accumulates onto what is there
  const FVec dx0 = dx;
  ASSERT_TRUE(attnlab::softmax_rows_backward(y.data(), rows, cols, dy.data(), dx.data()).ok);
  Vec xd = to_d(x);
  const Vec dyd = to_d(dy);
  auto L = [&] {
    double s = 0;
    for (size_t r = 0; r < rows; ++r) {
      Vec row(xd.begin() + r * cols, xd.begin() + (r + 1) * cols);
      softmax_row_d(row.data(), cols);
      for (size_t j = 0; j < cols; ++j) s += dyd[r * cols + j] * row[j];
    }
    return s;
  };
  // Differences only at finite entries (a masked entry stays −∞); there the gradient must be 0.
  Vec fd(rows * cols, 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isinf(x[i])) continue;
    const double x0 = xd[i], h = 1e-5;
    xd[i] = x0 + h; const double lp = L();
    xd[i] = x0 - h; const double lm = L();
    xd[i] = x0;
    fd[i] = (lp - lm) / (2 * h);
  }
  FVec g(rows * cols);
  for (size_t i = 0; i < g.size(); ++i) g[i] = dx[i] - dx0[i];
  check_grad(g, fd, "softmax rows: dx");
  for (size_t j = 0; j < cols; ++j) EXPECT_EQ(g[2 * cols + j], 0.0f) << "fully masked row";
  EXPECT_EQ(g[2], 0.0f) << "masked entry";
  // In place (dscaled == dweights) overwrites.
  FVec inplace = dy;
  ASSERT_TRUE(attnlab::softmax_rows_backward(y.data(), rows, cols, inplace.data(), inplace.data()).ok);
  expect_close_all(inplace, g, tol::kRounding, "softmax rows in place");
}

// Scaled dot-product attention: every mask kind, a fully masked row, ALiBi, a scale ≠ 1/√d_k, and
// row strides wider than the rows.
TEST(GradAttention, AttentionMatchesFiniteDifferences) {
  const size_t n = 5, dk = 3, dv = 4;
  const FVec add_sq = additive_mask(n, n, 11), add_rect = additive_mask(4, 6, 12);
  const MaskCase cases[] = {
      {"none", Mask::None(), false, 0.0f},
      {"causal", Mask::Causal(), true, 0.0f},
      {"window 1", Mask::Window(1), true, 0.0f},
      {"causal window 2", Mask::Window(2, true), true, 0.0f},
      {"additive (fully masked row)", Mask::Additive(add_rect.data()), false, 0.0f},
      {"causal + alibi 0.5", Mask::Causal(), true, 0.5f},
      {"additive square + alibi", Mask::Additive(add_sq.data()), true, 0.25f},
  };
  unsigned seed = 100;
  for (const auto& mc : cases) {
    SCOPED_TRACE(mc.name);
    const size_t tq = mc.square ? n : 4, tk = mc.square ? n : 6;
    const size_t ldq = dk + 1, ldk = dk + 2, ldv = dv, lddo = dv + 3;
    FVec q = random_f(tq * ldq, ++seed), k = random_f(tk * ldk, ++seed), v = random_f(tk * ldv, ++seed);
    const FVec dout = random_f(tq * lddo, ++seed);
    const float scale = 0.7f;
    attnlab::AttentionArgs a{q.data(), ldq, k.data(), ldk, v.data(), ldv, tq, tk, dk, dv, scale, mc.mask,
                             mc.slope};
    FVec weights(tq * tk), out(tq * dv);
    attnlab::AttentionOutputs o;
    o.weights = weights.data();
    o.out = out.data();
    o.ldo = dv;
    ASSERT_TRUE(attnlab::attention_forward(a, o).ok);
    FVec dq(q.size(), 0.0f), dkk(k.size(), 0.0f), dvv(v.size(), 0.0f), scratch(tq * tk);
    attnlab::AttentionGrads g{dq.data(), dkk.data(), dvv.data()};
    const Status st = attnlab::attention_backward(a, weights.data(), dout.data(), lddo, g, scratch.data());
    ASSERT_TRUE(st.ok) << st.message;

    Vec qd = to_d(q), kd = to_d(k), vd = to_d(v);
    auto L = [&] {
      const Vec o = attention_d(qd.data(), ldq, kd.data(), ldk, vd.data(), ldv, tq, tk, dk, dv, scale, mc.mask,
                                mc.slope);
      double s = 0;
      for (size_t i = 0; i < tq; ++i)
        for (size_t c = 0; c < dv; ++c) s += double(dout[i * lddo + c]) * o[i * dv + c];
      return s;
    };
    const std::string tag = std::string("attention [") + mc.name + "]: ";
    check_grad(dq, finite_diff(qd, L), tag + "dq");
    check_grad(dkk, finite_diff(kd, L), tag + "dk");
    check_grad(dvv, finite_diff(vd, L), tag + "dv");
    if (mc.mask.kind == Mask::Kind::additive && !mc.square)
      for (size_t c = 0; c < ldq; ++c) EXPECT_EQ(dq[1 * ldq + c], 0.0f) << "fully masked query row 1";
  }
}

// Multi-head attention: self and cross, with and without biases, masks, RoPE, ALiBi.
struct MhaCase {
  const char* name;
  bool biases, cross, rope, alibi;
  Mask mask;
  float scale;
};

// float64 multi-head attention; parameters in the order x, context, wq, wk, wv, wo, bq, bk, bv, bo.
struct MhaRef {
  size_t tq, tk, D, H;
  bool cross, rope, alibi, biases;
  Mask mask;
  float scale;  // the scale the op used
  Vec x, ctx, wq, wk, wv, wo, bq, bk, bv, bo;
  Vec forward() const {
    const size_t dk = D / H;
    const Vec& c = cross ? ctx : x;
    Vec q = matmul_d(x, wq, tq, D, D, biases ? &bq : nullptr);
    Vec k = matmul_d(c, wk, tk, D, D, biases ? &bk : nullptr);
    const Vec v = matmul_d(c, wv, tk, D, D, biases ? &bv : nullptr);
    if (rope) {
      for (size_t t = 0; t < tq; ++t)
        for (size_t h = 0; h < H; ++h) rope_row_d(&q[t * D + h * dk], dk, 10000.0, t);
      for (size_t t = 0; t < tk; ++t)
        for (size_t h = 0; h < H; ++h) rope_row_d(&k[t * D + h * dk], dk, 10000.0, t);
    }
    Vec heads(tq * D);
    for (size_t h = 0; h < H; ++h) {
      const double slope = alibi ? attnlab::alibi_slope(h, H) : 0.0;
      const Vec oh = attention_d(&q[h * dk], D, &k[h * dk], D, &v[h * dk], D, tq, tk, dk, dk, scale, mask, slope);
      for (size_t t = 0; t < tq; ++t)
        for (size_t c2 = 0; c2 < dk; ++c2) heads[t * D + h * dk + c2] = oh[t * dk + c2];
    }
    return matmul_d(heads, wo, tq, D, D, biases ? &bo : nullptr);
  }
};

TEST(GradAttention, MultiHeadMatchesFiniteDifferences) {
  const size_t t = 5, tk_cross = 7, D = 8, H = 2;
  const FVec add_self = additive_mask(t, t, 21), add_cross = additive_mask(t, tk_cross, 22);
  const MhaCase cases[] = {
      {"self, no mask, biases", true, false, false, false, Mask::None(), 0.0f},
      {"self, causal, no biases", false, false, false, false, Mask::Causal(), 0.0f},
      {"self, causal, biases, rope", true, false, true, false, Mask::Causal(), 0.0f},
      {"self, window 1, biases, alibi", true, false, false, true, Mask::Window(1), 0.0f},
      {"self, additive, rope + alibi, scale 0.3", true, false, true, true, Mask::Additive(add_self.data()), 0.3f},
      {"cross, additive, biases", true, true, false, false, Mask::Additive(add_cross.data()), 0.0f},
      {"cross, no mask, rope, no biases", false, true, true, false, Mask::None(), 0.0f},
  };
  unsigned seed = 300;
  for (const auto& mc : cases) {
    SCOPED_TRACE(mc.name);
    const size_t tq = t, tk = mc.cross ? tk_cross : t;
    const float ws = 0.5f;  // weights ~ U(−0.5, 0.5): scores of a few units
    FVec x = random_f(tq * D, ++seed), ctx = random_f(tk * D, ++seed);
    FVec wq = random_f(D * D, ++seed, -ws, ws), wk = random_f(D * D, ++seed, -ws, ws),
         wv = random_f(D * D, ++seed, -ws, ws), wo = random_f(D * D, ++seed, -ws, ws);
    FVec bq = random_f(D, ++seed), bk = random_f(D, ++seed), bv = random_f(D, ++seed), bo = random_f(D, ++seed);
    attnlab::MultiHeadArgs a{};
    a.x = x.data();
    a.t_q = tq;
    a.context = mc.cross ? ctx.data() : nullptr;
    a.t_k = mc.cross ? tk : 0;
    a.d_model = D;
    a.heads = H;
    a.w = {wq.data(), wk.data(), wv.data(), wo.data()};
    if (mc.biases) a.w.bq = bq.data(), a.w.bk = bk.data(), a.w.bv = bv.data(), a.w.bo = bo.data();
    a.mask = mc.mask;
    a.scale = mc.scale;
    a.rope = mc.rope;
    a.alibi = mc.alibi;
    FVec q(tq * D), k(tk * D), v(tk * D), weights(H * tq * tk), heads(tq * D), out(tq * D);
    attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(), out.data()};
    Status st = attnlab::multi_head_attention_forward(a, o);
    ASSERT_TRUE(st.ok) << st.message;

    const FVec dout = random_f(tq * D, ++seed);
    FVec dx(tq * D, 0.0f), dctx(tk * D, 0.0f), dwq(D * D, 0.0f), dwk(D * D, 0.0f), dwv(D * D, 0.0f),
        dwo(D * D, 0.0f), dbq(D, 0.0f), dbk(D, 0.0f), dbv(D, 0.0f), dbo(D, 0.0f);
    attnlab::MultiHeadGrads g;
    g.dx = dx.data();
    g.dcontext = dctx.data();
    g.dwq = dwq.data(), g.dwk = dwk.data(), g.dwv = dwv.data(), g.dwo = dwo.data();
    g.dbq = dbq.data(), g.dbk = dbk.data(), g.dbv = dbv.data(), g.dbo = dbo.data();
    FVec ws_buf(attnlab::multi_head_backward_workspace_floats(tq, tk, D));
    st = attnlab::multi_head_attention_backward(a, o, dout.data(), g, ws_buf.data());
    ASSERT_TRUE(st.ok) << st.message;

    MhaRef r{tq, tk, D, H, mc.cross, mc.rope, mc.alibi, mc.biases, mc.mask,
             mc.scale > 0 ? mc.scale : 1.0f / std::sqrt(float(D / H)),
             to_d(x), to_d(ctx), to_d(wq), to_d(wk), to_d(wv), to_d(wo), to_d(bq), to_d(bk), to_d(bv), to_d(bo)};
    const Vec doutd = to_d(dout);
    auto L = [&] { return dot_d(doutd, r.forward()); };
    const std::string tag = std::string("multi-head [") + mc.name + "]: ";
    check_grad(dx, finite_diff(r.x, L), tag + "dx");
    if (mc.cross) check_grad(dctx, finite_diff(r.ctx, L), tag + "dcontext");
    check_grad(dwq, finite_diff(r.wq, L), tag + "dwq");
    check_grad(dwk, finite_diff(r.wk, L), tag + "dwk");
    check_grad(dwv, finite_diff(r.wv, L), tag + "dwv");
    check_grad(dwo, finite_diff(r.wo, L), tag + "dwo");
    if (mc.biases) {
      check_grad(dbq, finite_diff(r.bq, L), tag + "dbq");
      check_grad(dbk, finite_diff(r.bk, L), tag + "dbk");
      check_grad(dbv, finite_diff(r.bv, L), tag + "dbv");
      check_grad(dbo, finite_diff(r.bo, L), tag + "dbo");
    }
  }
}

TEST(GradAttention, RopeMatchesFiniteDifferences) {
  const size_t t = 4, d = 6, offset = 3;
  const FVec x = random_f(t * d, 41), dout = random_f(t * d, 42);
  FVec dx = random_f(t * d, 43);
  const FVec dx0 = dx;
  ASSERT_TRUE(attnlab::rope_backward(dout.data(), t, d, 100.0f, offset, dx.data()).ok);
  for (size_t i = 0; i < dx.size(); ++i) dx[i] -= dx0[i];
  Vec xd = to_d(x);
  const Vec doutd = to_d(dout);
  auto L = [&] {
    Vec y = xd;
    for (size_t r = 0; r < t; ++r) rope_row_d(&y[r * d], d, 100.0, offset + r);
    return dot_d(doutd, y);
  };
  check_grad(dx, finite_diff(xd, L), "rope: dx");
}

TEST(GradAttention, EmbeddingScatterAddsMatchesFiniteDifferences) {
  const size_t vocab = 7, D = 4;
  const int ids[] = {3, 0, 3, 6, 3};  // 3 three times: its row gets the sum
  const size_t n = 5;
  const FVec table = random_f(vocab * D, 51), dout = random_f(n * D, 52);
  FVec dtable(vocab * D, 0.0f);
  ASSERT_TRUE(attnlab::embedding_backward(ids, n, vocab, D, dout.data(), dtable.data()).ok);
  Vec td = to_d(table);
  const Vec doutd = to_d(dout);
  auto L = [&] {
    double s = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < D; ++c) s += doutd[i * D + c] * td[size_t(ids[i]) * D + c];
    return s;
  };
  check_grad(dtable, finite_diff(td, L), "embedding: dtable");
}

TEST(GradAttention, OutputHeadMatchesFiniteDifferences) {
  const size_t rows = 3, vocab = 7, D = 5;
  const FVec h = random_f(rows * D, 61), table = random_f(vocab * D, 62), bias = random_f(vocab, 63),
             dlogits = random_f(rows * vocab, 64);
  FVec dh(rows * D, 0.0f), dtable(vocab * D, 0.0f), dbias(vocab, 0.0f);
  ASSERT_TRUE(attnlab::output_head_backward(h.data(), rows, table.data(), vocab, D, dlogits.data(), dh.data(),
                                            dtable.data(), dbias.data()).ok);
  Vec hd = to_d(h), td = to_d(table), bd = to_d(bias);
  const Vec dl = to_d(dlogits);
  auto L = [&] {
    double s = 0;
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < vocab; ++j) {
        double l = bd[j];
        for (size_t c = 0; c < D; ++c) l += hd[r * D + c] * td[j * D + c];
        s += dl[r * vocab + j] * l;
      }
    return s;
  };
  check_grad(dh, finite_diff(hd, L), "output head: dh");
  check_grad(dtable, finite_diff(td, L), "output head: dtable");
  check_grad(dbias, finite_diff(bd, L), "output head: dbias");
}

TEST(GradAttention, CrossEntropyMatchesFiniteDifferences) {
  const size_t rows = 4, vocab = 9;
  const FVec logits = random_f(rows * vocab, 71, -3.0f, 3.0f);
  const int targets[] = {2, 8, 0, 2};
  FVec probs(rows * vocab);
  float loss = 0;
  ASSERT_TRUE(attnlab::softmax_cross_entropy_forward(logits.data(), rows, vocab, targets, probs.data(), &loss).ok);
  Vec ld = to_d(logits);
  auto L = [&] {
    double s = 0;
    for (size_t r = 0; r < rows; ++r) {
      double mx = -kInf, sum = 0;
      for (size_t j = 0; j < vocab; ++j) mx = std::max(mx, ld[r * vocab + j]);
      for (size_t j = 0; j < vocab; ++j) sum += std::exp(ld[r * vocab + j] - mx);
      s += mx + std::log(sum) - ld[r * vocab + size_t(targets[r])];
    }
    return s / rows;
  };
  EXPECT_CLOSE(loss, L(), tol::kUlps);
  FVec dlogits(rows * vocab, 0.0f);
  ASSERT_TRUE(attnlab::softmax_cross_entropy_backward(probs.data(), rows, vocab, targets, 1.0f, dlogits.data()).ok);
  check_grad(dlogits, finite_diff(ld, L), "cross-entropy: dlogits");
}

// Embedding → tied head → cross-entropy: the table's gradient is the sum of both uses.
TEST(GradAttention, TiedEmbeddingAndHeadAccumulateIntoOneTable) {
  const size_t vocab = 6, D = 4, n = 5;
  const int ids[] = {1, 4, 4, 0, 5}, targets[] = {4, 4, 0, 5, 1};
  const FVec table = random_f(vocab * D, 81);
  FVec e(n * D), logits(n * vocab), probs(n * vocab);
  float loss = 0;
  ASSERT_TRUE(attnlab::embedding_forward(table.data(), vocab, D, ids, n, e.data()).ok);
  ASSERT_TRUE(attnlab::output_head_forward(e.data(), n, table.data(), vocab, D, nullptr, 1.0f, logits.data(),
                                           probs.data()).ok);
  ASSERT_TRUE(attnlab::softmax_cross_entropy_forward(logits.data(), n, vocab, targets, probs.data(), &loss).ok);
  FVec dlogits(n * vocab, 0.0f), de(n * D, 0.0f), dtable(vocab * D, 0.0f);
  ASSERT_TRUE(attnlab::softmax_cross_entropy_backward(probs.data(), n, vocab, targets, 1.0f, dlogits.data()).ok);
  ASSERT_TRUE(attnlab::output_head_backward(e.data(), n, table.data(), vocab, D, dlogits.data(), de.data(),
                                            dtable.data(), nullptr).ok);
  ASSERT_TRUE(attnlab::embedding_backward(ids, n, vocab, D, de.data(), dtable.data()).ok);
  Vec td = to_d(table);
  auto L = [&] {
    double s = 0;
    for (size_t r = 0; r < n; ++r) {
      Vec l(vocab, 0.0);
      double mx = -kInf, sum = 0;
      for (size_t j = 0; j < vocab; ++j) {
        for (size_t c = 0; c < D; ++c) l[j] += td[size_t(ids[r]) * D + c] * td[j * D + c];
        mx = std::max(mx, l[j]);
      }
      for (size_t j = 0; j < vocab; ++j) sum += std::exp(l[j] - mx);
      s += mx + std::log(sum) - l[size_t(targets[r])];
    }
    return s / n;
  };
  check_grad(dtable, finite_diff(td, L), "tied embedding + head + loss: dtable");
}

// Gradients accumulate (a second call adds the same again) and a nullptr gradient is skipped.
TEST(GradAttention, BackwardsAccumulateAndSkipMissingGradients) {
  const size_t t = 4, D = 6, H = 3;
  FVec x = random_f(t * D, 91), w = random_f(4 * D * D, 92, -0.5f, 0.5f);
  attnlab::MultiHeadArgs a{};
  a.x = x.data();
  a.t_q = t;
  a.d_model = D;
  a.heads = H;
  a.w = {w.data(), w.data() + D * D, w.data() + 2 * D * D, w.data() + 3 * D * D};
  a.mask = Mask::Causal();
  a.rope = true;
  FVec q(t * D), k(t * D), v(t * D), weights(H * t * t), heads(t * D), out(t * D);
  attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(), out.data()};
  ASSERT_TRUE(attnlab::multi_head_attention_forward(a, o).ok);
  const FVec dout = random_f(t * D, 93);
  FVec ws(attnlab::multi_head_backward_workspace_floats(t, t, D));
  FVec dx(t * D, 0.0f), dwk(D * D, 0.0f);
  attnlab::MultiHeadGrads g;  // only dx and dwk wanted
  g.dx = dx.data();
  g.dwk = dwk.data();
  ASSERT_TRUE(attnlab::multi_head_attention_backward(a, o, dout.data(), g, ws.data()).ok);
  const FVec dx1 = dx, dwk1 = dwk;
  ASSERT_TRUE(attnlab::multi_head_attention_backward(a, o, dout.data(), g, ws.data()).ok);
  for (size_t i = 0; i < dx.size(); ++i) EXPECT_CLOSE(dx[i], 2.0 * dx1[i], tol::kUlps);
  for (size_t i = 0; i < dwk.size(); ++i) EXPECT_CLOSE(dwk[i], 2.0 * dwk1[i], tol::kUlps);

  // Attention with only dv wanted: dv = weightsᵀ·dout, twice.
  attnlab::AttentionArgs aa{q.data(), D, k.data(), D, v.data(), D, t, t, D, D, 0.5f, Mask::None()};
  FVec aw(t * t), ao(t * D), dv(t * D, 0.0f), scratch(t * t);
  attnlab::AttentionOutputs ao_{nullptr, nullptr, aw.data(), ao.data(), D};
  ASSERT_TRUE(attnlab::attention_forward(aa, ao_).ok);
  attnlab::AttentionGrads ag;
  ag.dv = dv.data();
  ASSERT_TRUE(attnlab::attention_backward(aa, aw.data(), dout.data(), D, ag, scratch.data()).ok);
  ASSERT_TRUE(attnlab::attention_backward(aa, aw.data(), dout.data(), D, ag, scratch.data()).ok);
  for (size_t j = 0; j < t; ++j)
    for (size_t c = 0; c < D; ++c) {
      double want = 0;
      for (size_t i = 0; i < t; ++i) want += double(aw[i * t + j]) * dout[i * D + c];
      EXPECT_CLOSE(dv[j * D + c], 2.0 * want, tol::kSum);
    }
}

TEST(GradAttention, BadSizesAreRefusedWithClearMessages) {
  float buf[64] = {};
  const int ids[] = {0, 9};
  Status st = attnlab::embedding_backward(ids, 2, 4, 2, buf, buf);
  EXPECT_EQ(st.message, "embeddingBackward: ids[1] is 9, expected an integer in [0, vocab = 4)");
  st = attnlab::softmax_cross_entropy_forward(buf, 2, 4, ids, buf, buf);
  EXPECT_EQ(st.message, "crossEntropy: targets[1] is 9, expected an integer in [0, vocab = 4)");
  const float huge[4] = {3e38f, -3e38f, 0.0f, 1.0f};
  const int zero[1] = {1};
  float loss = 0;
  st = attnlab::softmax_cross_entropy_forward(huge, 1, 4, zero, buf, &loss);
  EXPECT_EQ(st.message, "crossEntropy: loss is Infinity after a float32 overflow, expected logits whose spread "
                        "(max − target) is within 3.4e38");
  st = attnlab::softmax_cross_entropy_backward(buf, 2, 4, nullptr, 1.0f, buf);
  EXPECT_EQ(st.message, "crossEntropyBackward: targets is missing");
  st = attnlab::rope_backward(buf, 2, 3, 10000.0f, 0, buf);
  EXPECT_EQ(st.message, "ropeBackward: dim is 3, expected an even number (RoPE rotates pairs)");
  st = attnlab::softmax_rows_backward(buf, 0, 4, buf, buf);
  EXPECT_EQ(st.message, "softmaxBackward: rows is 0, expected a positive integer");
  st = attnlab::output_head_backward(buf, 2, nullptr, 4, 2, buf, buf, nullptr, nullptr);
  EXPECT_EQ(st.message, "outputHeadBackward: table is missing");

  attnlab::AttentionArgs a{buf, 2, buf, 2, buf, 2, 2, 2, 2, 2, 1.0f, Mask::None()};
  st = attnlab::attention_backward(a, buf, buf, 1, {}, buf);
  EXPECT_EQ(st.message, "attentionBackward: lddo is 1, expected a row stride ≥ dv = 2");
  st = attnlab::attention_backward(a, buf, buf, 2, {}, nullptr);
  EXPECT_EQ(st.message, "attentionBackward: scratch is missing");
  a.scale = 0.0f;
  st = attnlab::attention_backward(a, buf, buf, 2, {}, buf);
  EXPECT_EQ(st.message, "attentionBackward: scale is 0, expected a finite number > 0");

  attnlab::MultiHeadArgs m{};
  m.x = buf;
  m.t_q = 2;
  m.d_model = 6;
  m.heads = 4;
  m.w = {buf, buf, buf, buf};
  attnlab::MultiHeadOutputs o{buf, buf, buf, nullptr, buf, buf, buf};
  st = attnlab::multi_head_attention_backward(m, o, buf, {}, buf);
  EXPECT_EQ(st.message,
            "multiHeadAttentionBackward: heads = 4 does not divide dModel = 6, expected dModel to be a multiple of heads");
  m.heads = 2;
  st = attnlab::multi_head_attention_backward(m, o, buf, {}, nullptr);
  EXPECT_EQ(st.message, "multiHeadAttentionBackward: workspace is missing");
  o.weights = nullptr;
  st = attnlab::multi_head_attention_backward(m, o, buf, {}, buf);
  EXPECT_EQ(st.message, "multiHeadAttentionBackward: saved.weights is missing");
}

}  // namespace
}  // namespace attnlab_test
