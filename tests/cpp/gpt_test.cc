// The GPT of attnlab/gpt.h (core/src/model/gpt.cc): configuration checks, the parameter table, the
// seeded init, the whole-model gradient against central differences of a float64 model written here
// from the formulas (independent of the ops), training (overfitting one batch, determinism, refused
// non-finite steps), KV-cache generation against repeated full forwards, and head ablation.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "attnlab/gpt.h"
#include "tolerance.h"

namespace {

using attnlab::Activation;
using attnlab::Gpt;
using attnlab::GptConfig;
using attnlab::GptSampling;
using attnlab::GptTrainOptions;
using attnlab::Status;
namespace tol = attnlab_test::tol;
using Vec = std::vector<double>;
using Floats = std::vector<float>;
using Ids = std::vector<int>;

GptConfig small_config(bool mlp = true, bool ln = true) {
  GptConfig c;
  c.vocab = 7;
  c.context = 6;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 8;
  c.d_ff = 12;
  c.attention_only = !mlp;
  c.layer_norm = ln;
  c.activation = Activation::gelu;
  c.seed = 3;
  return c;
}

std::unique_ptr<Gpt> make(const GptConfig& c) {
  std::unique_ptr<Gpt> m;
  const Status s = Gpt::create(c, &m);
  EXPECT_TRUE(s.ok) << s.message;
  return m;
}

Ids random_ids(size_t n, size_t vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, static_cast<int>(vocab) - 1);
  Ids v(n);
  for (int& x : v) x = d(rng);
  return v;
}

Floats copy(const float* p, size_t n) { return Floats(p, p + n); }
bool same_bits(const Floats& a, const float* b) { return std::memcmp(a.data(), b, a.size() * sizeof(float)) == 0; }

std::string message(const Status& s) { return s.ok ? "(ok)" : s.message; }

// ---- Configuration -----------------------------------------------------------------------------------

TEST(GptConfig, RefusesBadConfigsNamingTheField) {
  GptConfig c = small_config();
  c.heads = 3;
  EXPECT_EQ(message(attnlab::check_gpt_config(c)),
            "createModel: heads = 3 does not divide dModel = 8, expected dModel to be a multiple of heads");
  const struct { size_t GptConfig::*field; const char* msg; } zeros[] = {
      {&GptConfig::vocab, "createModel: vocab is 0, expected an integer in [1, 65536]"},
      {&GptConfig::context, "createModel: context is 0, expected an integer in [1, 4096]"},
      {&GptConfig::layers, "createModel: layers is 0, expected an integer in [1, 64]"},
      {&GptConfig::heads, "createModel: heads is 0, expected an integer in [1, 4096]"},
      {&GptConfig::d_model, "createModel: dModel is 0, expected an integer in [1, 4096]"}};
  for (const auto& z : zeros) {
    GptConfig b = small_config();
    b.*z.field = 0;
    EXPECT_EQ(message(attnlab::check_gpt_config(b)), z.msg);
    std::unique_ptr<Gpt> m;
    EXPECT_EQ(message(Gpt::create(b, &m)), z.msg);
    EXPECT_EQ(m, nullptr);
  }
  c = small_config();
  c.context = 4097;
  EXPECT_EQ(message(attnlab::check_gpt_config(c)), "createModel: context is 4097, expected an integer in [1, 4096]");
  c = small_config();
  c.d_ff = 16385;
  EXPECT_EQ(message(attnlab::check_gpt_config(c)),
            "createModel: dFF is 16385, expected an integer in [1, 16384] (0: 4·dModel)");
  c.attention_only = true;  // d_ff is ignored without the MLP
  EXPECT_TRUE(attnlab::check_gpt_config(c).ok);
  c = small_config();
  c.ln_eps = 0.0f;
  EXPECT_EQ(message(attnlab::check_gpt_config(c)), "createModel: lnEps is 0, expected a finite number > 0");

  // Too many parameters: 64 layers of d_model 1024 with the MLP, 12·2^20 each.
  c = small_config();
  c.layers = 64;
  c.d_model = 1024;
  c.d_ff = 0;
  c.heads = 8;
  const std::string msg = message(attnlab::check_gpt_config(c));
  EXPECT_EQ(msg.rfind("createModel: the model would have ", 0), 0u) << msg;
  EXPECT_NE(msg.find("parameters, expected at most 67108864"), std::string::npos) << msg;
  // Just under the limit is accepted: 15 attention-only layers of d_model 1024 are 63.0 M parameters.
  c.attention_only = true;
  c.layers = 15;
  EXPECT_TRUE(attnlab::check_gpt_config(c).ok) << message(attnlab::check_gpt_config(c));

  std::unique_ptr<Gpt> m;
  EXPECT_EQ(message(Gpt::create(small_config(), nullptr)), "createModel: out is missing");
  ASSERT_TRUE(Gpt::create(small_config(), &m).ok);
  EXPECT_EQ(m->config().d_ff, 12u);
  c = small_config();
  c.d_ff = 0;
  ASSERT_TRUE(Gpt::create(c, &m).ok);
  EXPECT_EQ(m->config().d_ff, 32u);  // 4·d_model
  EXPECT_EQ(m->d_head(), 4u);
}

// ---- The parameter table -----------------------------------------------------------------------------

TEST(GptTable, NamesOrderShapesAndOffsetsInEveryVariant) {
  for (bool mlp : {false, true})
    for (bool ln : {false, true}) {
      SCOPED_TRACE(std::string(mlp ? "mlp" : "attention-only") + (ln ? ", layer norm" : ", no layer norm"));
      const GptConfig c = small_config(mlp, ln);
      auto m = make(c);
      const size_t V = c.vocab, C = c.context, D = c.d_model, F = c.d_ff;
      struct Want { std::string name; size_t rows, cols; int rank; };
      std::vector<Want> want = {{"embed.W_E", V, D, 2}, {"pos_embed.W_pos", C, D, 2}};
      for (size_t l = 0; l < c.layers; ++l) {
        const std::string p = "blocks." + std::to_string(l) + ".";
        if (ln) want.insert(want.end(), {{p + "ln1.w", 1, D, 1}, {p + "ln1.b", 1, D, 1}});
        for (const char* w : {"W_Q", "W_K", "W_V", "W_O"}) want.push_back({p + "attn." + w, D, D, 2});
        for (const char* b : {"b_Q", "b_K", "b_V", "b_O"}) want.push_back({p + "attn." + b, 1, D, 1});
        if (mlp) {
          if (ln) want.insert(want.end(), {{p + "ln2.w", 1, D, 1}, {p + "ln2.b", 1, D, 1}});
          want.insert(want.end(), {{p + "mlp.W_in", D, F, 2}, {p + "mlp.b_in", 1, F, 1},
                                   {p + "mlp.W_out", F, D, 2}, {p + "mlp.b_out", 1, D, 1}});
        }
      }
      if (ln) want.insert(want.end(), {{"ln_final.w", 1, D, 1}, {"ln_final.b", 1, D, 1}});
      want.push_back({"unembed.b_U", 1, V, 1});

      const auto& t = m->tensors();
      ASSERT_EQ(t.size(), want.size());
      size_t off = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        EXPECT_EQ(t[i].name, want[i].name);
        EXPECT_EQ(t[i].rows, want[i].rows) << t[i].name;
        EXPECT_EQ(t[i].cols, want[i].cols) << t[i].name;
        EXPECT_EQ(t[i].rank, want[i].rank) << t[i].name;
        EXPECT_EQ(t[i].offset, off) << t[i].name;  // contiguous, in order
        off += t[i].size();
        ASSERT_NE(m->tensor(t[i].name), nullptr);
        EXPECT_EQ(m->tensor(t[i].name)->offset, t[i].offset);
      }
      EXPECT_EQ(off, m->num_params());
      EXPECT_EQ(m->tensor("blocks.0.ln1.w") != nullptr, ln);
      EXPECT_EQ(m->tensor("blocks.1.mlp.W_in") != nullptr, mlp);
      EXPECT_EQ(m->tensor("blocks.2.attn.W_Q"), nullptr);
      EXPECT_EQ(m->tensor("nope"), nullptr);
    }
}

// ---- Init ----------------------------------------------------------------------------------------------

TEST(GptInit, SameSeedSameParamsOtherSeedOtherParams) {
  GptConfig c = small_config();
  auto a = make(c), b = make(c);
  c.seed = 4;
  auto other = make(c);
  const size_t n = a->num_params();
  EXPECT_EQ(std::memcmp(a->params(), b->params(), n * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(a->params(), other->params(), n * sizeof(float)), 0);
  const Gpt& ca = *a;
  for (const float* s : {ca.adam_m(), ca.adam_v(), ca.grads()})
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(s[i], 0.0f);
  EXPECT_EQ(a->steps_taken(), 0u);
  // Biases 0, LN gains 1, every weight drawn (nonzero), W_O's spread below W_Q's (GPT-2's 1/√(2L)).
  double sq_q = 0, sq_o = 0;
  for (const auto& t : a->tensors()) {
    const float* p = a->params() + t.offset;
    const bool gain = t.name.size() > 2 && t.name.compare(t.name.size() - 2, 2, ".w") == 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (gain) ASSERT_EQ(p[i], 1.0f) << t.name;
      else if (t.rank == 1) ASSERT_EQ(p[i], 0.0f) << t.name;
      else ASSERT_NE(p[i], 0.0f) << t.name;
      if (t.name.find("W_Q") != std::string::npos) sq_q += double(p[i]) * p[i];
      if (t.name.find("W_O") != std::string::npos) sq_o += double(p[i]) * p[i];
    }
  }
  EXPECT_LT(sq_o, sq_q);
}

// ---- Whole-model gradient ------------------------------------------------------------------------------
// A float64 GPT from the formulas of gpt.h, reading the same flat parameter layout through the table.

struct RefGpt {
  const Gpt& m;
  GptConfig c;
  explicit RefGpt(const Gpt& model) : m(model), c(model.config()) {}

  size_t off(const std::string& name) const { return m.tensor(name)->offset; }

  void layer_norm(const Vec& x, size_t rows, const double* w, const double* b, Vec& out) const {
    const size_t D = c.d_model;
    out.assign(rows * D, 0.0);
    for (size_t r = 0; r < rows; ++r) {
      double mu = 0, var = 0;
      for (size_t i = 0; i < D; ++i) mu += x[r * D + i];
      mu /= double(D);
      for (size_t i = 0; i < D; ++i) var += (x[r * D + i] - mu) * (x[r * D + i] - mu);
      const double rs = 1.0 / std::sqrt(var / double(D) + double(c.ln_eps));
      for (size_t i = 0; i < D; ++i) out[r * D + i] = (x[r * D + i] - mu) * rs * w[i] + b[i];
    }
  }
  // y [rows, n] = x [rows, k]·W [k, n] + b
  static void linear(const Vec& x, size_t rows, size_t k, size_t n, const double* W, const double* b, Vec& y) {
    y.assign(rows * n, 0.0);
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < n; ++j) {
        double s = b[j];
        for (size_t p = 0; p < k; ++p) s += x[r * k + p] * W[p * n + j];
        y[r * n + j] = s;
      }
  }
  double act(double x) const {
    switch (c.activation) {
      case Activation::relu: return x > 0 ? x : 0;
      case Activation::gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
      case Activation::gelu_tanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    }
    return x;
  }

  double loss(const Vec& p, const Ids& ids, const Ids& tg, size_t B, size_t T) const {
    const size_t D = c.d_model, H = c.heads, dk = D / H, V = c.vocab, F = c.d_ff, N = B * T;
    const double* P = p.data();
    Vec x(N * D), h, q, k, v, heads(N * D), o, pre, y;
    for (size_t b = 0; b < B; ++b)
      for (size_t t = 0; t < T; ++t)
        for (size_t d = 0; d < D; ++d)
          x[(b * T + t) * D + d] = P[off("embed.W_E") + ids[b * T + t] * D + d] + P[off("pos_embed.W_pos") + t * D + d];
    for (size_t l = 0; l < c.layers; ++l) {
      const std::string pf = "blocks." + std::to_string(l) + ".";
      auto w = [&](const char* name) { return P + off(pf + name); };
      if (c.layer_norm) layer_norm(x, N, w("ln1.w"), w("ln1.b"), h);
      else h = x;
      linear(h, N, D, D, w("attn.W_Q"), w("attn.b_Q"), q);
      linear(h, N, D, D, w("attn.W_K"), w("attn.b_K"), k);
      linear(h, N, D, D, w("attn.W_V"), w("attn.b_V"), v);
      for (size_t b = 0; b < B; ++b)
        for (size_t hh = 0; hh < H; ++hh)
          for (size_t i = 0; i < T; ++i) {
            Vec s(i + 1);
            double mx = -INFINITY;
            for (size_t j = 0; j <= i; ++j) {
              double d = 0;
              for (size_t e = 0; e < dk; ++e) d += q[(b * T + i) * D + hh * dk + e] * k[(b * T + j) * D + hh * dk + e];
              s[j] = d / std::sqrt(double(dk));
              mx = std::max(mx, s[j]);
            }
            double z = 0;
            for (double& sj : s) z += (sj = std::exp(sj - mx));
            for (size_t e = 0; e < dk; ++e) {
              double acc = 0;
              for (size_t j = 0; j <= i; ++j) acc += s[j] / z * v[(b * T + j) * D + hh * dk + e];
              heads[(b * T + i) * D + hh * dk + e] = acc;
            }
          }
      linear(heads, N, D, D, w("attn.W_O"), w("attn.b_O"), o);
      for (size_t i = 0; i < N * D; ++i) x[i] += o[i];
      if (!c.attention_only) {
        if (c.layer_norm) layer_norm(x, N, w("ln2.w"), w("ln2.b"), h);
        else h = x;
        linear(h, N, D, F, w("mlp.W_in"), w("mlp.b_in"), pre);
        for (double& e : pre) e = act(e);
        linear(pre, N, F, D, w("mlp.W_out"), w("mlp.b_out"), y);
        for (size_t i = 0; i < N * D; ++i) x[i] += y[i];
      }
    }
    if (c.layer_norm) layer_norm(x, N, P + off("ln_final.w"), P + off("ln_final.b"), h);
    else h = x;
    double total = 0;
    for (size_t r = 0; r < N; ++r) {
      Vec lg(V);
      double mx = -INFINITY;
      for (size_t j = 0; j < V; ++j) {
        double s = P[off("unembed.b_U") + j];
        for (size_t d = 0; d < D; ++d) s += h[r * D + d] * P[off("embed.W_E") + j * D + d];
        lg[j] = s;
        mx = std::max(mx, s);
      }
      double z = 0;
      for (double e : lg) z += std::exp(e - mx);
      total += mx + std::log(z) - lg[tg[r]];
    }
    return total / double(N);
  }
};

// Every parameter of every tensor, in the four variants: the float32 backward against
// (L(θ + h) − L(θ − h))/2h of the float64 model at the same float32 point (h = 1e-5, tol::kGrad).
// Parameters are redrawn at O(1) (the init's 0.02 would make most gradients tiny), LN gains around 1.
TEST(GptGrad, BackwardMatchesFiniteDifferencesOfFloat64Model) {
  double worst_all = 0;
  for (bool mlp : {false, true})
    for (bool ln : {false, true}) {
      const std::string variant = std::string(mlp ? "mlp" : "attention-only") + (ln ? " + LN" : ", no LN");
      SCOPED_TRACE(variant);
      auto m = make(small_config(mlp, ln));
      std::mt19937 rng(11);
      std::uniform_real_distribution<float> u(-0.5f, 0.5f);
      for (const auto& t : m->tensors()) {
        const bool gain = t.name.size() > 2 && t.name.compare(t.name.size() - 2, 2, ".w") == 0;
        for (size_t i = 0; i < t.size(); ++i) m->params()[t.offset + i] = (gain ? 1.0f : 0.0f) + u(rng);
      }
      const size_t B = 2, T = 5;
      const Ids ids = random_ids(B * T, 7, 1), tg = random_ids(B * T, 7, 2);
      float loss = 0;
      ASSERT_TRUE(m->forward(ids.data(), tg.data(), B, T, &loss).ok);
      ASSERT_TRUE(m->backward().ok);
      const RefGpt ref(*m);
      Vec p(m->params(), m->params() + m->num_params());
      EXPECT_CLOSE(loss, ref.loss(p, ids, tg, B, T), tol::kRef);  // the float64 model is the same model

      double worst = 0;
      for (const auto& t : m->tensors()) {
        Vec fd(t.size());
        Floats g(t.size());
        for (size_t i = 0; i < t.size(); ++i) {
          const size_t j = t.offset + i;
          const double x0 = p[j], h = 1e-5;
          p[j] = x0 + h;
          const double up = ref.loss(p, ids, tg, B, T);
          p[j] = x0 - h;
          const double down = ref.loss(p, ids, tg, B, T);
          p[j] = x0;
          fd[i] = (up - down) / (2 * h);
          g[i] = m->grads()[j];
        }
        attnlab_test::expect_close_all(g, fd, tol::kGrad, variant + " d" + t.name);
        double err = 0, scale = 0;
        for (size_t i = 0; i < t.size(); ++i) {
          err = std::max(err, std::fabs(g[i] - fd[i]));
          scale = std::max(scale, std::fabs(fd[i]));
        }
        // b_K's gradient is zero: it adds q·b_K to every score of a query, which softmax ignores.
        if (t.name.find("b_K") != std::string::npos) continue;
        EXPECT_GT(scale, 0.0) << t.name << " gets no gradient";
        worst = std::max(worst, err / scale);
      }
      std::printf("[grad] %-22s max over tensors of max|g - fd| / max|fd| = %.2e\n", variant.c_str(), worst);
      worst_all = std::max(worst_all, worst);
    }
  std::printf("[grad] whole model, worst = %.2e\n", worst_all);
}

// ---- Forward: shapes and what the accessors return -----------------------------------------------

TEST(GptForward, AccessorsHoldTheDocumentedValues) {
  const GptConfig c = small_config();
  auto m = make(c);
  const size_t B = 2, T = 4, D = c.d_model, H = c.heads, V = c.vocab;
  const Ids ids = random_ids(B * T, V, 5), tg = random_ids(B * T, V, 6);
  EXPECT_EQ(m->logits(), nullptr);  // no forward yet
  float loss = 0;
  ASSERT_TRUE(m->forward(ids.data(), tg.data(), B, T, &loss).ok);
  EXPECT_EQ(m->batch(), B);
  EXPECT_EQ(m->length(), T);
  // residual(0) = W_E[ids] + W_pos[t], exactly.
  const float* wte = m->params() + m->tensor("embed.W_E")->offset;
  const float* wpe = m->params() + m->tensor("pos_embed.W_pos")->offset;
  for (size_t r = 0; r < B * T; ++r)
    for (size_t d = 0; d < D; ++d) ASSERT_EQ(m->residual(0)[r * D + d], wte[ids[r] * D + d] + wpe[(r % T) * D + d]);
  EXPECT_NE(m->residual(c.layers), nullptr);
  EXPECT_EQ(m->residual(c.layers + 1), nullptr);
  EXPECT_EQ(m->attention(c.layers), nullptr);
  // attention(l): [B, H, T, T], causal rows of softmax weights.
  for (size_t l = 0; l < c.layers; ++l)
    for (size_t bh = 0; bh < B * H; ++bh)
      for (size_t i = 0; i < T; ++i) {
        const float* row = m->attention(l) + (bh * T + i) * T;
        double sum = 0;
        for (size_t j = 0; j < T; ++j) {
          if (j > i) ASSERT_EQ(row[j], 0.0f);
          sum += row[j];
        }
        EXPECT_CLOSE(sum, 1.0, tol::kSum);
      }
  // token_losses: −log softmax(logits)[target], their mean the loss.
  double mean = 0;
  for (size_t r = 0; r < B * T; ++r) {
    const float* lg = m->logits() + r * V;
    double z = 0;
    for (size_t j = 0; j < V; ++j) z += std::exp(double(lg[j]));
    EXPECT_CLOSE(m->token_losses()[r], std::log(z) - lg[tg[r]], tol::kSum);
    mean += m->token_losses()[r];
  }
  EXPECT_CLOSE(loss, mean / double(B * T), tol::kSum);
  // Without targets there are no token losses, and backward has nothing to differentiate.
  ASSERT_TRUE(m->forward(ids.data(), nullptr, B, T, nullptr).ok);
  EXPECT_EQ(m->token_losses(), nullptr);
  EXPECT_EQ(message(m->backward()), "backward: the last forward had no targets, expected forward with targets (the loss)");
}

// The activation workspace grows for a larger batch·t and is reused for a smaller one: results equal a
// fresh model's, bit for bit.
TEST(GptForward, WorkspaceGrowsAndIsReused) {
  const GptConfig c = small_config();
  auto m = make(c);
  for (const auto& [B, T] : {std::pair<size_t, size_t>{1, 2}, {3, 6}, {2, 3}, {1, 6}}) {
    const Ids ids = random_ids(B * T, c.vocab, unsigned(10 * B + T));
    auto fresh = make(c);
    float l1 = 0, l2 = 0;
    ASSERT_TRUE(m->forward(ids.data(), ids.data(), B, T, &l1).ok);
    ASSERT_TRUE(fresh->forward(ids.data(), ids.data(), B, T, &l2).ok);
    EXPECT_EQ(l1, l2);
    EXPECT_TRUE(same_bits(copy(fresh->logits(), B * T * c.vocab), m->logits()));
    ASSERT_TRUE(m->backward().ok);
    ASSERT_TRUE(fresh->backward().ok);
    EXPECT_TRUE(same_bits(copy(fresh->grads(), fresh->num_params()), m->grads()));
  }
}

// The parameters are checked once (not by every op on every call): a value written through params()
// is checked by the next forward and generate, which name the tensor; the same results as before once
// it is finite again, and after a training step (new values, new weight bounds).
TEST(GptForward, ParametersWrittenThroughParamsAreCheckedByTheNextCall) {
  auto m = make(small_config());
  const Ids ids = {1, 2, 3, 4, 5};
  ASSERT_TRUE(m->forward(ids.data(), nullptr, 1, 5, nullptr).ok);
  const Floats before(m->logits(), m->logits() + 5 * 7);
  const attnlab::GptTensor* w_in = m->tensor("blocks.1.mlp.W_in");
  ASSERT_NE(w_in, nullptr);
  float* p = m->params() + w_in->offset + 5;
  const float keep = *p;
  *p = NAN;
  EXPECT_EQ(message(m->forward(ids.data(), nullptr, 1, 5, nullptr)),
            "forward: parameter blocks.1.mlp.W_in[5] is NaN, expected finite parameters");
  int out[2];
  GptSampling greedy;
  greedy.temperature = 0;
  EXPECT_EQ(message(m->generate(ids.data(), 3, 2, greedy, out)),
            "generate: parameter blocks.1.mlp.W_in[5] is NaN, expected finite parameters");
  m->params()[w_in->offset + 5] = keep;
  ASSERT_TRUE(m->forward(ids.data(), nullptr, 1, 5, nullptr).ok);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(m->logits()[i], before[i]) << i;
  // A training step changes W_O: the next forward's weight bounds are those of the new values.
  const Ids targets = {2, 3, 4, 5, 6};
  ASSERT_TRUE(m->train_step(ids.data(), targets.data(), 1, 5, GptTrainOptions{}, nullptr, nullptr).ok);
  ASSERT_TRUE(m->forward(ids.data(), nullptr, 1, 5, nullptr).ok);
  auto fresh = make(small_config());
  std::memcpy(fresh->params(), m->params(), m->num_params() * sizeof(float));
  ASSERT_TRUE(fresh->forward(ids.data(), nullptr, 1, 5, nullptr).ok);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(m->logits()[i], fresh->logits()[i]) << i;
}

TEST(GptForward, RefusesBadArgumentsNamingTheFunction) {
  GptConfig c = small_config();
  c.vocab = 16;
  auto m = make(c);
  Ids ids = {1, 2, 3, 17, 4};
  EXPECT_EQ(message(m->forward(ids.data(), nullptr, 1, 5, nullptr)),
            "forward: ids[3] is 17, expected a token id in [0, vocab = 16)");
  ids[3] = -1;
  EXPECT_EQ(message(m->forward(ids.data(), nullptr, 1, 5, nullptr)),
            "forward: ids[3] is -1, expected a token id in [0, vocab = 16)");
  ids[3] = 0;
  EXPECT_EQ(m->logits(), nullptr);  // a refused forward leaves nothing to read
  EXPECT_EQ(message(m->forward(ids.data(), nullptr, 0, 5, nullptr)), "forward: batch is 0, expected a positive integer");
  EXPECT_EQ(message(m->forward(ids.data(), nullptr, 1, 0, nullptr)), "forward: t is 0, expected an integer in [1, context = 6]");
  EXPECT_EQ(message(m->forward(ids.data(), nullptr, 1, 7, nullptr)), "forward: t is 7, expected an integer in [1, context = 6]");
  EXPECT_EQ(message(m->forward(nullptr, nullptr, 1, 5, nullptr)), "forward: ids is missing");
  const std::string huge = message(m->forward(ids.data(), nullptr, SIZE_MAX / 2, 5, nullptr));
  EXPECT_EQ(huge.rfind("forward: batch·t = ", 0), 0u) << huge;

  const Ids six = {0, 1, 2, 3, 4, 5};
  Ids tg = six;
  tg[5] = 16;
  EXPECT_EQ(message(m->train_step(six.data(), tg.data(), 1, 6, GptTrainOptions{}, nullptr, nullptr)),
            "trainStep: targets[5] is 16, expected a token id in [0, vocab = 16)");
  GptTrainOptions o;
  o.adamw.lr = NAN;
  EXPECT_EQ(message(m->train_step(ids.data(), ids.data(), 1, 5, o, nullptr, nullptr)),
            "trainStep: lr is NaN, expected a finite number ≥ 0");
  o = GptTrainOptions{};
  o.adamw.beta2 = 1.0;
  EXPECT_EQ(message(m->train_step(ids.data(), ids.data(), 1, 5, o, nullptr, nullptr)),
            "trainStep: beta2 is 1, expected a number in [0, 1)");
  o = GptTrainOptions{};
  o.max_grad_norm = 0.0f;
  EXPECT_EQ(message(m->train_step(ids.data(), ids.data(), 1, 5, o, nullptr, nullptr)),
            "trainStep: maxGradNorm is 0, expected a number > 0 (Infinity: measure only)");
  EXPECT_EQ(m->steps_taken(), 0u);
  EXPECT_EQ(message(m->backward()), "backward: no forward to differentiate, expected forward(ids, targets, …) first");

  Floats scale(c.layers * c.heads, 1.0f);
  scale[3] = NAN;
  EXPECT_EQ(message(m->set_head_mask(scale.data())), "setHeadMask: mask[3] is NaN, expected finite values");

  const GptSampling s;
  int out[4];
  EXPECT_EQ(message(m->generate(ids.data(), 0, 4, s, out)), "generate: n is 0, expected a prompt length in [1, context = 6]");
  EXPECT_EQ(message(m->generate(tg.data(), 6, 4, s, out)), "generate: prompt[5] is 16, expected a token id in [0, vocab = 16)");
  GptSampling bad;
  bad.temperature = -1.0f;
  EXPECT_EQ(message(m->generate(ids.data(), 2, 4, bad, out)),
            "generate: temperature is -1, expected a finite number ≥ 0 (0: greedy)");
  bad = GptSampling{};
  bad.top_k = 17;
  EXPECT_EQ(message(m->generate(ids.data(), 2, 4, bad, out)),
            "generate: topK is 17, expected an integer in [0, vocab = 16] (0: the whole vocabulary)");
}

// ---- Training --------------------------------------------------------------------------------------------

// Two sequences of a fixed "language" (next token = the sequence's continuation): every (sequence,
// position) has one target, so a small model can memorise it.
struct Batch {
  Ids ids, targets;
  size_t B, T;
};
Batch lm_batch(size_t B, size_t T, size_t vocab, unsigned seed) {
  Batch b{{}, {}, B, T};
  for (size_t s = 0; s < B; ++s) {
    Ids seq = random_ids(T + 1, vocab, seed + unsigned(s));
    seq[0] = static_cast<int>(s % vocab);  // distinct first tokens: distinct contexts everywhere
    b.ids.insert(b.ids.end(), seq.begin(), seq.end() - 1);
    b.targets.insert(b.targets.end(), seq.begin() + 1, seq.end());
  }
  return b;
}

TEST(GptTrain, OverfitsOneBatch) {
  // ln 8 = 2.08 at init; "near zero" for a batch the model can memorise.
  constexpr float kMemorised = 0.05f;
  GptConfig c;
  c.vocab = 8;
  c.context = 8;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 32;
  c.seed = 1;
  auto m = make(c);
  const Batch b = lm_batch(2, 8, c.vocab, 100);
  GptTrainOptions o;
  o.adamw.lr = 1e-2;
  o.adamw.weight_decay = 0.0;
  float first = 0, loss = 0, norm = 0;
  size_t steps = 0;
  for (; steps < 300 && !(steps > 0 && loss < kMemorised); ++steps) {
    const Status s = m->train_step(b.ids.data(), b.targets.data(), b.B, b.T, o, &loss, &norm);
    ASSERT_TRUE(s.ok) << s.message;
    ASSERT_TRUE(std::isfinite(norm));
    if (steps == 0) first = loss;
  }
  std::printf("[train] overfit: loss %.4f → %.4f in %zu steps\n", first, loss, steps);
  EXPECT_LT(loss, kMemorised);
  EXPECT_EQ(m->steps_taken(), steps);
}

TEST(GptTrain, TenStepsAreDeterministic) {
  GptConfig c = small_config();
  auto a = make(c), b = make(c);
  const Batch data = lm_batch(2, 6, c.vocab, 7);
  GptTrainOptions o;
  o.adamw.lr = 3e-3;
  o.max_grad_norm = 1.0f;
  for (int i = 0; i < 10; ++i) {
    float la = 0, lb = 0, na = 0, nb = 0;
    ASSERT_TRUE(a->train_step(data.ids.data(), data.targets.data(), 2, 6, o, &la, &na).ok);
    ASSERT_TRUE(b->train_step(data.ids.data(), data.targets.data(), 2, 6, o, &lb, &nb).ok);
    EXPECT_EQ(la, lb) << "step " << i;
    EXPECT_EQ(na, nb) << "step " << i;
  }
  EXPECT_TRUE(same_bits(copy(a->params(), a->num_params()), b->params()));
  EXPECT_TRUE(same_bits(copy(a->adam_v(), a->num_params()), b->adam_v()));
  EXPECT_EQ(a->steps_taken(), 10u);
}

// A train step equals forward + backward + clip + AdamW per tensor with decay only on rank-2 tensors.
TEST(GptTrain, StepIsBackwardThenAdamWPerTensor) {
  GptConfig c = small_config();
  auto a = make(c), b = make(c);
  const Batch data = lm_batch(2, 5, c.vocab, 9);
  GptTrainOptions o;
  o.adamw.lr = 1e-2;
  o.adamw.weight_decay = 0.1;
  float loss = 0, norm = 0;
  ASSERT_TRUE(a->train_step(data.ids.data(), data.targets.data(), 2, 5, o, &loss, &norm).ok);
  float lb = 0;
  ASSERT_TRUE(b->forward(data.ids.data(), data.targets.data(), 2, 5, &lb).ok);
  ASSERT_TRUE(b->backward().ok);
  EXPECT_EQ(loss, lb);
  double sq = 0;
  for (size_t i = 0; i < b->num_params(); ++i) sq += double(b->grads()[i]) * b->grads()[i];
  EXPECT_CLOSE(norm, std::sqrt(sq), tol::kUlps);
  Floats p = copy(b->params(), b->num_params()), mm(p.size(), 0.0f), vv(p.size(), 0.0f);
  for (const auto& t : b->tensors()) {
    attnlab::AdamWConfig w = o.adamw;
    if (t.rank != 2) w.weight_decay = 0.0;
    ASSERT_TRUE(attnlab::adamw_step(p.data() + t.offset, b->grads() + t.offset, mm.data() + t.offset,
                                    vv.data() + t.offset, t.size(), 1, w).ok);
  }
  EXPECT_TRUE(same_bits(p, a->params()));
  EXPECT_TRUE(same_bits(mm, a->adam_m()));
  EXPECT_EQ(a->steps_taken(), 1u);
}

struct Snapshot {
  Floats p, m, v;
  size_t steps;
  explicit Snapshot(const Gpt& g)
      : p(copy(g.params(), g.num_params())), m(copy(g.adam_m(), g.num_params())),
        v(copy(g.adam_v(), g.num_params())), steps(g.steps_taken()) {}
  void expect_same(const Gpt& g) const {
    EXPECT_TRUE(same_bits(p, g.params()));
    EXPECT_TRUE(same_bits(m, g.adam_m()));
    EXPECT_TRUE(same_bits(v, g.adam_v()));
    EXPECT_EQ(steps, g.steps_taken());
  }
};

TEST(GptTrain, NonFiniteStepIsRefusedAndChangesNothing) {
  GptConfig c;
  c.vocab = 8;
  c.context = 6;
  c.layers = 1;
  c.heads = 2;
  c.d_model = 32;
  c.seed = 2;
  auto m = make(c);
  const Batch b = lm_batch(2, 6, c.vocab, 21);
  GptTrainOptions o;
  for (int i = 0; i < 3; ++i)  // nonzero moments to protect
    ASSERT_TRUE(m->train_step(b.ids.data(), b.targets.data(), 2, 6, o, nullptr, nullptr).ok);
  float* P = m->params();

  // 1. The loss overflows: b_U makes logit 0 ≈ 3e38 and logit 1 ≈ −3e38, every target is 1, so
  //    −log softmax = 6e38 is beyond float32.
  {
    const size_t bu = m->tensor("unembed.b_U")->offset;
    const float keep0 = P[bu], keep1 = P[bu + 1];
    P[bu] = 3e38f;
    P[bu + 1] = -3e38f;
    const Snapshot before(*m);
    const Ids ones(12, 1);
    const Status s = m->train_step(b.ids.data(), ones.data(), 2, 6, o, nullptr, nullptr);
    EXPECT_FALSE(s.ok);
    EXPECT_EQ(s.message.rfind("trainStep: ", 0), 0u) << s.message;
    EXPECT_NE(s.message.find("loss"), std::string::npos) << s.message;
    before.expect_same(*m);
    P[bu] = keep0;
    P[bu + 1] = keep1;
  }
  // 2. The forward is finite but the gradient norm is not: LN_final's gain 0 and bias 1e38 give every
  //    row h = 1e38 (logits within ±0.6e38, one-hot probabilities); with targets that are never the
  //    argmax, dW_E[argmax, :] = 1e38 in each of d_model = 32 entries: ‖g‖ = 1e38·√32 > 3.4e38.
  {
    const size_t w = m->tensor("ln_final.w")->offset, bb = m->tensor("ln_final.b")->offset;
    for (size_t d = 0; d < c.d_model; ++d) P[w + d] = 0.0f, P[bb + d] = 1e38f;
    ASSERT_TRUE(m->forward(b.ids.data(), nullptr, 2, 6, nullptr).ok);
    size_t top = 0;
    for (size_t j = 1; j < c.vocab; ++j)
      if (m->logits()[j] > m->logits()[top]) top = j;
    const Ids never_top(12, static_cast<int>((top + 1) % c.vocab));
    const Snapshot before(*m);
    float loss = 0, norm = 0;
    const Status s = m->train_step(b.ids.data(), never_top.data(), 2, 6, o, &loss, &norm);
    EXPECT_TRUE(std::isfinite(loss));
    EXPECT_TRUE(std::isinf(norm));
    EXPECT_EQ(message(s), "trainStep: the gradient norm is Infinity, expected a finite norm (the step was not "
                          "applied: parameters, moments and steps unchanged)");
    before.expect_same(*m);
    for (size_t d = 0; d < c.d_model; ++d) P[w + d] = 1.0f, P[bb + d] = 0.0f;
  }
  // 3. Loss and gradients are finite but the AdamW update is not: at step 4 the bias-corrected step
  //    size lr/(1 − 0.9⁴) of lr = 3e38 is 8.7e38, past float32. Refused before any tensor is written.
  {
    const Snapshot before(*m);
    GptTrainOptions huge = o;
    huge.adamw.lr = 3e38;
    huge.adamw.weight_decay = 0.0;
    const Status s = m->train_step(b.ids.data(), b.targets.data(), 2, 6, huge, nullptr, nullptr);
    EXPECT_FALSE(s.ok);
    EXPECT_EQ(s.message.rfind("trainStep: the AdamW update of ", 0), 0u) << s.message;
    EXPECT_NE(s.message.find("(the step was not applied: parameters, moments and steps unchanged)"), std::string::npos)
        << s.message;
    before.expect_same(*m);
    EXPECT_TRUE(m->train_step(b.ids.data(), b.targets.data(), 2, 6, o, nullptr, nullptr).ok) << "still trains";
  }
}

// A position whose loss is past float32 while the mean over positions is not: forward refuses it
// instead of returning an infinite token loss.
TEST(GptForward, RefusesATokenLossPastFloat32) {
  GptConfig c;
  c.vocab = 8;
  c.context = 6;
  c.layers = 1;
  c.heads = 2;
  c.d_model = 8;
  auto m = make(c);
  float* P = m->params();
  const size_t bu = m->tensor("unembed.b_U")->offset;
  P[bu] = 2e38f;  // logit 0 ≈ 2e38, logit 1 ≈ −2e38: −log softmax[1] ≈ 4e38 at every position
  P[bu + 1] = -2e38f;
  const Ids ids(6, 2), ones(6, 1);
  float loss = 0;
  const Status s = m->forward(ids.data(), ones.data(), 1, 6, &loss);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.message.rfind("forward: ", 0), 0u) << s.message;
  EXPECT_NE(s.message.find("loss"), std::string::npos) << s.message;
}

// ---- Head ablation ------------------------------------------------------------------------------------

TEST(GptAblation, ScalesMultiplyHeadsBeforeTheOutputProjection) {
  GptConfig c = small_config();
  auto m = make(c), zeroed = make(c);
  const size_t B = 2, T = 5, n = B * T * c.vocab, H = c.heads, dk = c.d_model / H;
  const Ids ids = random_ids(B * T, c.vocab, 31);
  ASSERT_TRUE(m->forward(ids.data(), nullptr, B, T, nullptr).ok);
  const Floats plain = copy(m->logits(), n);

  Floats ones(c.layers * H, 1.0f);
  ASSERT_TRUE(m->set_head_mask(ones.data()).ok);
  EXPECT_FALSE(m->heads_ablated());
  ASSERT_TRUE(m->forward(ids.data(), nullptr, B, T, nullptr).ok);
  EXPECT_TRUE(same_bits(plain, m->logits()));

  Floats scale = ones;
  scale[0 * H + 1] = 0.0f;  // layer 0, head 1
  ASSERT_TRUE(m->set_head_mask(scale.data()).ok);
  EXPECT_TRUE(m->heads_ablated());
  ASSERT_TRUE(m->forward(ids.data(), ids.data(), B, T, nullptr).ok);
  const Floats ablated = copy(m->logits(), n);
  EXPECT_FALSE(same_bits(plain, ablated.data()));
  EXPECT_EQ(message(m->backward()),
            "backward: heads are ablated (setHeadMask), expected every head mask 1 during the forward and the backward");
  // The same as removing head 1's rows of layer 0's W_O.
  float* wo = zeroed->params() + zeroed->tensor("blocks.0.attn.W_O")->offset;
  for (size_t r = dk; r < 2 * dk; ++r)
    for (size_t j = 0; j < c.d_model; ++j) wo[r * c.d_model + j] = 0.0f;
  ASSERT_TRUE(zeroed->forward(ids.data(), nullptr, B, T, nullptr).ok);
  attnlab_test::expect_close_all(ablated, copy(zeroed->logits(), n), tol::kSum, "scale 0 vs zeroed W_O rows");
  // nullptr restores every head.
  ASSERT_TRUE(m->set_head_mask(nullptr).ok);
  EXPECT_FALSE(m->heads_ablated());
  ASSERT_TRUE(m->forward(ids.data(), nullptr, B, T, nullptr).ok);
  EXPECT_TRUE(same_bits(plain, m->logits()));
}

TEST(GptAblation, TrainStepIgnoresTheScales) {
  GptConfig c = small_config();
  auto a = make(c), b = make(c);
  Floats scale(c.layers * c.heads, 0.0f);
  ASSERT_TRUE(b->set_head_mask(scale.data()).ok);
  const Batch data = lm_batch(2, 6, c.vocab, 41);
  float la = 0, lb = 0;
  ASSERT_TRUE(a->train_step(data.ids.data(), data.targets.data(), 2, 6, GptTrainOptions{}, &la, nullptr).ok);
  ASSERT_TRUE(b->train_step(data.ids.data(), data.targets.data(), 2, 6, GptTrainOptions{}, &lb, nullptr).ok);
  EXPECT_EQ(la, lb);
  EXPECT_TRUE(same_bits(copy(a->params(), a->num_params()), b->params()));
  EXPECT_TRUE(b->heads_ablated());  // the scales stay set for forward and generate
}

// ---- Generation -----------------------------------------------------------------------------------------

// Greedy decoding by repeated full forwards over the last min(len, context) tokens, argmax of the last row.
Ids greedy_by_forward(Gpt& m, const Ids& prompt, size_t steps) {
  const size_t C = m.config().context, V = m.config().vocab;
  Ids seq = prompt, out;
  for (size_t s = 0; s < steps; ++s) {
    const size_t t = std::min(seq.size(), C);
    const Status st = m.forward(seq.data() + seq.size() - t, nullptr, 1, t, nullptr);
    EXPECT_TRUE(st.ok) << st.message;
    const float* last = m.logits() + (t - 1) * V;
    size_t best = 0;
    for (size_t j = 1; j < V; ++j)
      if (last[j] > last[best]) best = j;
    seq.push_back(static_cast<int>(best));
    out.push_back(static_cast<int>(best));
  }
  return out;
}

// A model trained a little, so its logits are not the near-ties of the init.
std::unique_ptr<Gpt> trained(const GptConfig& c) {
  auto m = make(c);
  const Batch b = lm_batch(3, c.context, c.vocab, 55);
  GptTrainOptions o;
  o.adamw.lr = 1e-2;
  for (int i = 0; i < 40; ++i)
    EXPECT_TRUE(m->train_step(b.ids.data(), b.targets.data(), b.B, b.T, o, nullptr, nullptr).ok);
  return m;
}

TEST(GptGenerate, KvCacheGreedyEqualsRepeatedForwardPastTheContext) {
  for (bool mlp : {false, true})
    for (bool ln : {false, true}) {
      SCOPED_TRACE(std::string(mlp ? "mlp" : "attention-only") + (ln ? " + LN" : ", no LN"));
      GptConfig c;
      c.vocab = 11;
      c.context = 7;
      c.layers = 2;
      c.heads = 2;
      c.d_model = 16;
      c.attention_only = !mlp;
      c.layer_norm = ln;
      c.seed = 8;
      auto m = trained(c);
      GptSampling greedy;
      greedy.temperature = 0.0f;
      for (const Ids& prompt : {Ids{3}, Ids{1, 4, 1, 5}, Ids{2, 7, 1, 8, 2, 8, 1}}) {  // up to n = context
        const size_t steps = 3 * c.context;  // rebuilds the cache several times
        Ids got(steps);
        const Status s = m->generate(prompt.data(), prompt.size(), steps, greedy, got.data());
        ASSERT_TRUE(s.ok) << s.message;
        EXPECT_EQ(got, greedy_by_forward(*m, prompt, steps)) << "prompt of " << prompt.size();
      }
      // Head scales apply to generate as to forward.
      Floats scale = {1.0f, 0.0f, 0.5f, 1.0f};
      ASSERT_TRUE(m->set_head_mask(scale.data()).ok);
      const Ids prompt = {5, 0, 9};
      Ids got(2 * c.context);
      ASSERT_TRUE(m->generate(prompt.data(), prompt.size(), got.size(), greedy, got.data()).ok);
      EXPECT_EQ(got, greedy_by_forward(*m, prompt, got.size())) << "ablated";
    }
}

// The cache and row buffers are sized to each call (prompt + steps, at most the context) and grow when a
// later call needs more: calls of growing then shrinking size, the last past the context.
TEST(GptGenerate, BuffersSizedToTheCallGrowAndStayCorrect) {
  GptConfig c = small_config();
  c.context = 9;
  auto m = trained(c);
  GptSampling greedy;
  greedy.temperature = 0.0f;
  const struct { Ids prompt; size_t steps; } calls[] = {
      {{3}, 1}, {{3}, 2}, {{1, 4, 1, 5}, 3}, {{2}, 1}, {{1, 4, 1, 5, 2, 6}, 3}, {{5, 0}, 20}, {{6}, 2}};
  for (const auto& k : calls) {
    Ids got(k.steps);
    ASSERT_TRUE(m->generate(k.prompt.data(), k.prompt.size(), k.steps, greedy, got.data()).ok);
    EXPECT_EQ(got, greedy_by_forward(*m, k.prompt, k.steps)) << "prompt of " << k.prompt.size() << ", " << k.steps << " steps";
  }
}

// The shortest contexts: with context 1 every new token rebuilds from an empty cache.
TEST(GptGenerate, KvCacheGreedyWithContextOneAndTwo) {
  for (size_t context : {1, 2}) {
    SCOPED_TRACE("context " + std::to_string(context));
    GptConfig c = small_config();
    c.context = context;
    auto m = trained(c);
    GptSampling greedy;
    greedy.temperature = 0.0f;
    const Ids prompt(context, 4);
    Ids got(9);
    ASSERT_TRUE(m->generate(prompt.data(), prompt.size(), got.size(), greedy, got.data()).ok);
    EXPECT_EQ(got, greedy_by_forward(*m, prompt, got.size()));
  }
}

TEST(GptGenerate, SamplingIsSeededAndTopOneIsGreedy) {
  GptConfig c = small_config();
  c.vocab = 16;
  c.context = 8;
  auto m = trained(c);
  const Ids prompt = {1, 2, 3};
  const size_t steps = 20;
  GptSampling s;
  s.temperature = 1.5f;
  s.seed = 77;
  Ids a(steps), b(steps), k1(steps), greedy(steps);
  ASSERT_TRUE(m->generate(prompt.data(), 3, steps, s, a.data()).ok);
  ASSERT_TRUE(m->generate(prompt.data(), 3, steps, s, b.data()).ok);
  EXPECT_EQ(a, b);
  for (int t : a) EXPECT_TRUE(t >= 0 && t < 16);
  s.top_k = 1;
  ASSERT_TRUE(m->generate(prompt.data(), 3, steps, s, k1.data()).ok);
  GptSampling g;
  g.temperature = 0.0f;
  ASSERT_TRUE(m->generate(prompt.data(), 3, steps, g, greedy.data()).ok);
  EXPECT_EQ(k1, greedy);
  // top_k = 3 only ever picks one of the 3 largest logits of its step: check the first step.
  s.top_k = 3;
  ASSERT_TRUE(m->forward(prompt.data(), nullptr, 1, 3, nullptr).ok);
  const float* last = m->logits() + 2 * 16;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    s.seed = seed;
    int first = -1;
    ASSERT_TRUE(m->generate(prompt.data(), 3, 1, s, &first).ok);
    int larger = 0;
    for (size_t j = 0; j < 16; ++j) larger += last[j] > last[first];
    EXPECT_LT(larger, 3) << "seed " << seed;
  }
  EXPECT_TRUE(m->generate(prompt.data(), 3, 0, s, nullptr).ok);  // nothing to write
}

}  // namespace
