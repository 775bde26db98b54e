// The one Transformer layer (core/src/model/layer.h) that the GPT's training forward, its prefill and
// its KV-cache decode all run, and a recorded run of the GPT:
//   GptLayer.PrefillAndDecodeMatchTheTrainingForward: a layer run on 7 rows at once (the training
//     forward) against the same rows through a KV cache: a prefill of 3, then decodes of 1, 2 and 1
//     rows, in place as generate() runs them; and the cache's keys and values against the forward's.
//   GptLayer.RefusesACacheMisuse: a cache with batch > 1, a prefill into a non-empty cache, a decode
//     without a cache, rows past the cache's capacity.
//   GptLayer.TransposedWeightsAreTheSameLayer: W_O, W1 and W2 stored transposed (an inference-only
//     model's layout) give the [in, out] layout's output bit for bit, through the forward, a prefill and
//     a decode; stored so without checked weights the layer refuses, naming what it expected.
//   GptRecorded.TrainStepsAndGenerateAsBeforeTheLayerWasShared: train_step losses and generate()
//     tokens (greedy, sampled, top-k, past the context, heads ablated) for a fixed seed, recorded from
//     gpt.cc before its three copies of the layer became layer_forward (where they were bit-identical
//     to the code after it: forward activations, parameters, moments and tokens). Losses are compared
//     to float32 rounding (kUlps), so a kernel that reorders a sum does not fail here; tokens exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../../core/src/model/layer.h"
#include "attnlab/gpt.h"
#include "tolerance.h"

namespace {

using attnlab::Activation;
using attnlab::Status;
using Floats = std::vector<float>;
namespace md = attnlab::model;
namespace tol = attnlab_test::tol;

Floats randn(size_t n, float s, std::mt19937& rng) {
  std::normal_distribution<float> d(0.0f, s);
  Floats v(n);
  for (float& x : v) x = d(rng);
  return v;
}

struct Layer {
  md::LayerConfig c;
  Floats ln1_w, ln1_b, wq, wk, wv, wo, bq, bk, bv, bo, ln2_w, ln2_b, w1, b1, w2, b2;
  md::LayerWeights w;
  explicit Layer(bool mlp, bool ln) {
    c.d_model = 16, c.heads = 4, c.d_ff = 24, c.layer_norm = ln, c.mlp = mlp, c.activation = Activation::gelu;
    std::mt19937 rng(7);
    const size_t D = c.d_model, F = c.d_ff;
    ln1_w = randn(D, 0.2f, rng), ln1_b = randn(D, 0.2f, rng), ln2_w = randn(D, 0.2f, rng), ln2_b = randn(D, 0.2f, rng);
    for (float& x : ln1_w) x += 1.0f;
    for (float& x : ln2_w) x += 1.0f;
    wq = randn(D * D, 0.4f, rng), wk = randn(D * D, 0.4f, rng), wv = randn(D * D, 0.3f, rng), wo = randn(D * D, 0.3f, rng);
    bq = randn(D, 0.1f, rng), bk = randn(D, 0.1f, rng), bv = randn(D, 0.1f, rng), bo = randn(D, 0.1f, rng);
    w1 = randn(D * F, 0.3f, rng), b1 = randn(F, 0.1f, rng), w2 = randn(F * D, 0.3f, rng), b2 = randn(D, 0.1f, rng);
    w.ln1_w = ln1_w.data(), w.ln1_b = ln1_b.data(), w.ln2_w = ln2_w.data(), w.ln2_b = ln2_b.data();
    w.attn = attnlab::MultiHeadWeights{wq.data(), wk.data(), wv.data(), wo.data(), bq.data(), bk.data(), bv.data(), bo.data()};
    w.mlp = attnlab::FeedForwardWeights{w1.data(), b1.data(), w2.data(), b2.data()};
  }
};

// Separate buffers for n rows (the training forward's layout); att holds [H, n, n].
struct Acts {
  Floats x, ln1, q, k, v, att, heads, ao, mid, ln2, pre, act, fo;
  md::LayerActs a;
  Acts(const md::LayerConfig& c, size_t n)
      : x(n * c.d_model), ln1(n * c.d_model), q(n * c.d_model), k(n * c.d_model), v(n * c.d_model),
        att(c.heads * n * n), heads(n * c.d_model), ao(n * c.d_model), mid(n * c.d_model), ln2(n * c.d_model),
        pre(n * c.d_ff), act(n * c.d_ff), fo(n * c.d_model) {
    a.x_in = x.data(), a.ln1 = c.layer_norm ? ln1.data() : x.data(), a.q = q.data(), a.k = k.data(), a.v = v.data();
    a.att = att.data(), a.heads = heads.data(), a.attn_out = ao.data(), a.mid = mid.data();
    a.ln2 = c.layer_norm ? ln2.data() : mid.data(), a.pre = pre.data(), a.act = act.data(), a.ffn_out = fo.data();
  }
};

TEST(GptLayer, PrefillAndDecodeMatchTheTrainingForward) {
  for (const bool mlp : {true, false})
    for (const bool ln : {true, false}) {
      SCOPED_TRACE(std::string(mlp ? "mlp" : "attention-only") + (ln ? " ln" : " no ln"));
      const Layer L(mlp, ln);
      const size_t T = 7, D = L.c.d_model;
      std::mt19937 rng(3);
      const Floats x = randn(T * D, 1.0f, rng);
      const Floats head_scale = {1.0f, 0.0f, 0.5f, 1.0f};
      for (const bool ablate : {false, true}) {
        // All rows at once, every activation kept.
        Acts full(L.c, T);
        std::memcpy(full.x.data(), x.data(), x.size() * sizeof(float));
        Floats y(T * D);
        md::LayerRows rows;
        rows.t = T;
        rows.head_scale = ablate ? head_scale.data() : nullptr;
        ASSERT_TRUE(md::layer_forward("test", 0, L.c, L.w, rows, full.a, y.data()).ok);

        // The same rows through a cache, each call in place on one buffer as generate() runs it.
        Floats cache_data(2 * T * D);
        md::KvCache cache;
        cache.data = cache_data.data(), cache.layers = 1, cache.capacity = T, cache.d_model = D;
        Acts one(L.c, T);
        one.a.mid = one.a.x_in;
        one.a.ln2 = one.a.ln1;
        Floats got(T * D);
        const size_t chunks[] = {3, 1, 2, 1};
        for (size_t i = 0; i < 4; ++i) {
          const size_t n = chunks[i], at = cache.length;
          std::memcpy(one.x.data(), x.data() + at * D, n * D * sizeof(float));
          md::LayerRows r;
          r.t = n;
          r.cache = &cache;
          r.decode = i > 0;
          r.head_scale = rows.head_scale;
          const Status s = md::layer_forward("test", 0, L.c, L.w, r, one.a, one.x.data());
          ASSERT_TRUE(s.ok) << s.message;
          cache.length += n;
          std::memcpy(got.data() + at * D, one.x.data(), n * D * sizeof(float));
        }
        EXPECT_LT(attnlab_test::tensor_rel_error(got, y, 1e-3), 1e-5);
        EXPECT_LT(attnlab_test::tensor_rel_error(Floats(cache.keys(0), cache.keys(0) + T * D), full.k, 1e-3), 1e-5);
        EXPECT_LT(attnlab_test::tensor_rel_error(Floats(cache.values(0), cache.values(0) + T * D), full.v, 1e-3), 1e-5);
        // The prefill is the training forward's call: its rows are the same bits.
        EXPECT_EQ(std::memcmp(got.data(), y.data(), 3 * D * sizeof(float)), 0);
        // An ablated head changes the output (the scales reach the decode too).
        if (ablate) {
          Acts plain(L.c, T);
          std::memcpy(plain.x.data(), x.data(), x.size() * sizeof(float));
          Floats y1(T * D);
          md::LayerRows r1;
          r1.t = T;
          ASSERT_TRUE(md::layer_forward("test", 0, L.c, L.w, r1, plain.a, y1.data()).ok);
          EXPECT_GT(attnlab_test::tensor_rel_error(got, y1, 1e-3), 1e-3);
        }
      }
    }
}

TEST(GptLayer, RefusesACacheMisuse) {
  const Layer L(true, true);
  const size_t D = L.c.d_model;
  Acts acts(L.c, 4);
  Floats y(4 * D), cache_data(2 * 4 * D);
  md::KvCache cache;
  cache.data = cache_data.data(), cache.layers = 1, cache.capacity = 4, cache.d_model = D;
  const std::string expect =
      "generate: layer 2 attention: a KV cache holds one sequence, expected batch 1, an empty cache for a "
      "prefill and a cache for a decode";
  md::LayerRows r;
  r.batch = 2, r.t = 2, r.cache = &cache;
  EXPECT_EQ(md::layer_forward("generate", 2, L.c, L.w, r, acts.a, y.data()).message, expect);
  r.batch = 1, cache.length = 1;
  EXPECT_EQ(md::layer_forward("generate", 2, L.c, L.w, r, acts.a, y.data()).message, expect);
  r.cache = nullptr, r.decode = true;
  EXPECT_EQ(md::layer_forward("generate", 2, L.c, L.w, r, acts.a, y.data()).message, expect);
  r.cache = &cache, cache.length = 3;  // 3 of 4 rows used: no room for 2 more
  EXPECT_EQ(md::layer_forward("generate", 2, L.c, L.w, r, acts.a, y.data()).message,
            "generate: layer 2 attention: the KV cache holds 3 of 4 rows, expected room for t = 2");
  EXPECT_EQ(cache_data, Floats(2 * 4 * D));  // nothing written
}

// [rows, cols] row major → its transpose, [cols, rows].
Floats transposed(const Floats& m, size_t rows, size_t cols) {
  Floats t(m.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) t[c * rows + r] = m[r * cols + c];
  return t;
}

TEST(GptLayer, TransposedWeightsAreTheSameLayer) {
  for (const bool mlp : {true, false}) {
    SCOPED_TRACE(mlp ? "mlp" : "attention-only");
    const Layer L(mlp, true);
    const size_t T = 5, D = L.c.d_model, F = L.c.d_ff;
    const Floats wo_t = transposed(L.wo, D, D), w1_t = transposed(L.w1, D, F), w2_t = transposed(L.w2, F, D);
    md::LayerWeights in_out = L.w, out_in = L.w;
    in_out.checked = out_in.checked = true;
    out_in.out_transposed = true;
    out_in.attn.wo = wo_t.data(), out_in.mlp.w1 = w1_t.data(), out_in.mlp.w2 = w2_t.data();
    std::mt19937 rng(5);
    const Floats x = randn(T * D, 1.0f, rng);

    // The training forward's call, all rows at once.
    Floats want(T * D), got(T * D);
    for (auto [w, y] : {std::pair{&in_out, &want}, std::pair{&out_in, &got}}) {
      Acts acts(L.c, T);
      std::memcpy(acts.x.data(), x.data(), x.size() * sizeof(float));
      md::LayerRows r;
      r.t = T;
      const Status s = md::layer_forward("test", 0, L.c, *w, r, acts.a, y->data());
      ASSERT_TRUE(s.ok) << s.message;
    }
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);

    // Through a KV cache: a prefill of 3 rows, then decodes of 1 and 1.
    Floats decoded[2];
    for (int k = 0; k < 2; ++k) {
      const md::LayerWeights& w = k ? out_in : in_out;
      Floats cache_data(2 * T * D);
      md::KvCache cache;
      cache.data = cache_data.data(), cache.layers = 1, cache.capacity = T, cache.d_model = D;
      Acts one(L.c, T);
      decoded[k].resize(T * D);
      for (const size_t n : {3, 1, 1}) {
        const size_t at = cache.length;
        std::memcpy(one.x.data(), x.data() + at * D, n * D * sizeof(float));
        md::LayerRows r;
        r.t = n, r.cache = &cache, r.decode = at > 0;
        const Status s = md::layer_forward("test", 0, L.c, w, r, one.a, decoded[k].data() + at * D);
        ASSERT_TRUE(s.ok) << s.message;
        cache.length += n;
      }
    }
    EXPECT_EQ(std::memcmp(decoded[1].data(), decoded[0].data(), decoded[0].size() * sizeof(float)), 0);

    // Stored transposed, the weights must come checked: the unchecked path is the ops' own calls, which
    // read [in, out]. Nothing is written.
    md::LayerWeights unchecked = out_in;
    unchecked.checked = false;
    Acts acts(L.c, T);
    std::memcpy(acts.x.data(), x.data(), x.size() * sizeof(float));
    Floats y(T * D, 7.0f);
    md::LayerRows r;
    r.t = T;
    EXPECT_EQ(md::layer_forward("forward", 1, L.c, unchecked, r, acts.a, y.data()).message,
              "forward: layer 1: W_O and W_out stored transposed need weights checked by the caller, expected "
              "checked weights");
    EXPECT_EQ(y, Floats(T * D, 7.0f));
  }
}

// ---- The recorded run -------------------------------------------------------------------------------

struct Recorded {
  bool attention_only, layer_norm;
  float init_std;
  uint32_t loss_bits[6];
  std::vector<int> tokens[2][4];  // [heads ablated][sampling]
};

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(GptRecorded, TrainStepsAndGenerateAsBeforeTheLayerWasShared) {
  const Recorded runs[] = {
      {false, true, 0.02f, {0x4034de8d, 0x402c62bb, 0x402577b1, 0x4023e7a6, 0x401b6acf, 0x401d6f7a},
       {{{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
         {6, 6, 12, 12, 12, 16, 11, 11, 2, 5, 5, 5, 3, 4, 3, 3, 4, 11, 3, 11, 11, 11, 1, 1, 3},
         {10, 12, 10, 12, 4, 4, 11, 12, 3, 12, 5, 5, 8, 5},
         {12, 12, 12, 2, 2, 1, 1, 3, 3}},
        {{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
         {6, 6, 12, 12, 12, 16, 11, 11, 2, 5, 5, 5, 3, 4, 1, 1, 11, 3, 6, 11, 11, 11, 1, 1, 3},
         {10, 12, 10, 13, 4, 4, 11, 12, 3, 12, 5, 5, 8, 5},
         {12, 12, 12, 2, 2, 1, 1, 3, 1}}}},
      {true, false, 0.25f, {0x404eb9bc, 0x4047058d, 0x404c990d, 0x403ab385, 0x402fe7b6, 0x402d97dc},
       {{{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
         {6, 8, 16, 16, 16, 2, 8, 16, 16, 14, 14, 14, 14, 14, 14, 14, 11, 11, 11, 1, 1, 1, 1, 1, 1},
         {15, 14, 14, 14, 9, 9, 11, 11, 6, 8, 7, 7, 10, 10},
         {16, 9, 14, 14, 14, 9, 9, 5, 5}},
        {{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
         {8, 0, 16, 16, 16, 2, 7, 9, 9, 14, 14, 14, 14, 14, 14, 14, 10, 14, 10, 14, 14, 14, 14, 14, 14},
         {15, 14, 14, 14, 9, 9, 12, 12, 6, 8, 8, 9, 9, 9},
         {16, 9, 14, 14, 14, 10, 10, 11, 11}}}}};
  for (const Recorded& rec : runs) {
    SCOPED_TRACE(rec.attention_only ? "attention-only, no LN" : "MLP, LN");
    attnlab::GptConfig c;
    c.vocab = 17, c.context = 12, c.layers = 2, c.heads = 4, c.d_model = 32, c.d_ff = 48;
    c.attention_only = rec.attention_only, c.layer_norm = rec.layer_norm, c.init_std = rec.init_std, c.seed = 11;
    std::unique_ptr<attnlab::Gpt> m;
    ASSERT_TRUE(attnlab::Gpt::create(c, &m).ok);
    std::vector<int> ids(36), tg(36);
    unsigned s = 5;
    for (int& id : ids) s = s * 1103515245u + 12345u, id = static_cast<int>((s >> 16) % 17);
    for (size_t i = 0; i < ids.size(); ++i) tg[i] = ids[(i + 1) % ids.size()];
    for (int st = 0; st < 6; ++st) {  // batch 2 or 3, t 12 or 7, clipped or not
      attnlab::GptTrainOptions o;
      o.adamw.lr = 3e-3;
      o.max_grad_norm = st % 2 ? 1.0f : INFINITY;
      float loss = 0, norm = 0;
      ASSERT_TRUE(m->train_step(ids.data(), tg.data(), st % 2 ? 3 : 2, st % 3 == 2 ? 7 : 12, o, &loss, &norm).ok);
      EXPECT_TRUE(attnlab_test::Close(loss, from_bits(rec.loss_bits[st]), tol::kUlps)) << "step " << st;
    }
    struct Sampling { float t; size_t k; uint64_t seed; size_t n, steps; };
    const Sampling gs[] = {{0, 0, 0, 3, 30}, {0.8f, 5, 1, 1, 25}, {1.0f, 0, 2, 12, 14}, {1.3f, 3, 3, 7, 9}};
    for (int masked = 0; masked < 2; ++masked) {
      if (masked) {
        Floats mask(8, 1.0f);
        mask[1] = 0.0f, mask[6] = 0.5f;
        ASSERT_TRUE(m->set_head_mask(mask.data()).ok);
      }
      for (int g = 0; g < 4; ++g) {
        attnlab::GptSampling sm;
        sm.temperature = gs[g].t, sm.top_k = gs[g].k, sm.seed = gs[g].seed;
        std::vector<int> out(gs[g].steps);
        ASSERT_TRUE(m->generate(ids.data(), gs[g].n, gs[g].steps, sm, out.data()).ok);
        EXPECT_EQ(out, rec.tokens[masked][g]) << "heads ablated " << masked << ", sampling " << g;
      }
    }
  }
}

}  // namespace
