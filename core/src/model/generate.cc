// Sampling from the small GPT with a KV cache (Gpt::generate of attnlab/gpt.h): the prompt runs once
// through layer_forward filling the cache (the prefill), then each new token is one row per layer
// against it (the decode) — the same layer as the training forward (layer.cc).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../ops/check.h"
#include "gpt_impl.h"

namespace attnlab {

using namespace model;

namespace {

size_t argmax(const float* x, size_t n) {  // the first maximum
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

}  // namespace

// The KV cache [L][K, V][cap, D] and row buffers for `rows` rows at once (the prefill's), laid out by
// one Carve; kept for the next call, made again only when a call needs more. Sized to the call, not
// to the context: GPT-2 small's full-context buffers were ~170 MB (the [H, C, C] prefill weights alone
// 50 MB) where a 64-token prompt and 16 tokens need 6 MB.
Status Gpt::Impl::ensure_gen(size_t cap, size_t rows) {
  if (gen && cap <= cache.capacity && rows <= g_rows) return Status::Ok();
  constexpr const char* op = "generate";
  std::free(gen);
  std::free(gen_aux);
  gen = nullptr;
  gen_aux = nullptr;
  cap = std::max(cap, cache.capacity);
  rows = std::max(rows, g_rows);
  cache.capacity = 0;
  g_rows = 0;
  float *g_q = nullptr, *g_att = nullptr, *g_heads = nullptr, *g_ao = nullptr, *g_pre = nullptr, *g_act = nullptr,
        *g_fo = nullptr;
  // The prefill's weights [H, rows, rows], or the decode's scratch row [1, length + 1] ≤ cap.
  size_t att = 0;
  const bool att_overflow = __builtin_mul_overflow(H, rows * rows, &att);  // rows ≤ C ≤ 4096: rows² fits
  att = std::max(att, cap);
  auto plan = [&](Carve& k) {
    cache.data = k.take(L, 2, cap, D);
    g_x = k.take(rows, D);
    g_h = k.take(rows, D);
    g_q = k.take(rows, D);
    g_att = k.take(att);
    k.overflow = k.overflow || att_overflow;
    g_heads = k.take(rows, D);
    g_ao = k.take(rows, D);
    g_pre = mlp ? k.take(rows, F) : nullptr;
    g_act = mlp ? k.take(rows, F) : nullptr;
    g_fo = mlp ? k.take(rows, D) : nullptr;
    g_logits = k.take(V);
  };
  Carve size;
  plan(size);
  // The token window [C] and the order [V] (ints), the sampling weights [V] (doubles): C, V ≤ 2^16.
  const size_t aux = V * sizeof(double) + (C + V) * sizeof(int);
  if (!size.fits())
    return fail(op, "the KV cache for context = " + std::to_string(C) + " is too large, expected a cache that fits in memory");
  gen = static_cast<float*>(std::malloc(size.total * sizeof(float)));
  gen_aux = static_cast<unsigned char*>(std::malloc(aux));
  if (!gen || !gen_aux) {
    std::free(gen);
    std::free(gen_aux);
    gen = nullptr;
    gen_aux = nullptr;
    return fail(op, "could not get " + mib(size.total * sizeof(float) + aux) +
                        " MiB for the KV cache, expected a smaller model or context");
  }
  Carve place;
  place.base = gen;
  plan(place);
  cache.layers = L, cache.capacity = cap, cache.d_model = D, cache.length = 0;
  g_rows = rows;
  // Every layer works in place on g_x (its LN outputs in g_h; without LN it reads g_x).
  LayerActs& a = g_acts;
  a.x_in = a.mid = g_x;
  a.ln1 = a.ln2 = ln ? g_h : g_x;
  a.q = g_q;
  a.att = g_att;
  a.heads = g_heads;
  a.attn_out = g_ao;
  a.pre = g_pre;
  a.act = g_act;
  a.ffn_out = g_fo;
  g_weight = reinterpret_cast<double*>(gen_aux);
  g_window = reinterpret_cast<int*>(gen_aux + V * sizeof(double));
  g_order = g_window + C;
  return Status::Ok();
}

// Runs toks[0:r] at positions cache.length … cache.length + r − 1 through the model, appending their
// keys and values to the cache: the prefill (an empty cache; the rows attend causally among
// themselves, as in forward()) or, with decode, each row against the cache. With want_logits,
// g_logits = the last row's logits.
Status Gpt::Impl::extend(const int* tk, size_t r, bool decode, bool want_logits) {
  constexpr const char* op = "generate";
  const float* p = P();
  ATTNLAB_CHECK(embed(op, tk, 1, r, cache.length, g_x));
  LayerRows rows;
  rows.t = r;
  rows.cache = &cache;
  rows.decode = decode;
  for (size_t l = 0; l < L; ++l) {
    rows.head_scale = ablated ? layer_head_scale(l) : nullptr;
    ATTNLAB_CHECK(layer_forward(op, l, layer, layer_weights(l, p), rows, g_acts, g_x));
  }
  cache.length += r;
  if (!want_logits) return Status::Ok();
  return unembed(op, g_x + (r - 1) * D, 1, g_h, nullptr, nullptr, g_logits, nullptr);  // embed verified the parameters
}

// The next token from g_logits: temperature 0 → the first argmax; else a draw from
// softmax(logits/temperature) over the top_k largest logits (ties: the lower id first), weights
// exp((l − max)/T) in double, summed in that order, one uniform from rng.
int Gpt::Impl::sample(const GptSampling& s, SplitMix64& rng) {
  const float* lg = g_logits;
  if (s.temperature == 0.0f) return static_cast<int>(argmax(lg, V));
  size_t k = s.top_k == 0 || s.top_k > V ? V : s.top_k;
  for (size_t i = 0; i < V; ++i) g_order[i] = static_cast<int>(i);
  if (k < V)
    std::partial_sort(g_order, g_order + k, g_order + V, [lg](int a, int b) {
      return lg[a] > lg[b] || (lg[a] == lg[b] && a < b);  // a strict total order: the same k on every build
    });
  float mx = lg[g_order[0]];
  for (size_t i = 1; i < k; ++i) mx = std::max(mx, lg[g_order[i]]);
  double total = 0.0;
  for (size_t i = 0; i < k; ++i) {
    g_weight[i] = std::exp((static_cast<double>(lg[g_order[i]]) - mx) / s.temperature);
    total += g_weight[i];
  }
  const double u = rng.uniform() * total;
  double acc = 0.0;
  for (size_t i = 0; i < k; ++i) {
    acc += g_weight[i];
    if (u < acc) return g_order[i];
  }
  return g_order[k - 1];  // u rounded up to the total
}

Status Gpt::generate(const int* prompt, size_t n, size_t steps, const GptSampling& smp, int* out) {
  constexpr const char* op = "generate";
  Impl& s = *impl_;
  if (n < 1 || n > s.C)
    return fail(op, "n is " + std::to_string(n) + ", expected a prompt length in [1, context = " + std::to_string(s.C) + "]");
  ATTNLAB_CHECK(check_tokens(op, "prompt", prompt, n, s.V));
  if (!(std::isfinite(smp.temperature) && smp.temperature >= 0.0f))
    return fail(op, "temperature is " + detail::value_str(smp.temperature) +
                        ", expected a finite number ≥ 0 (0: greedy)");
  if (smp.top_k > s.V)
    return fail(op, "topK is " + std::to_string(smp.top_k) + ", expected an integer in [0, vocab = " +
                        std::to_string(s.V) + "] (0: the whole vocabulary)");
  if (steps == 0) return Status::Ok();
  if (!out) return fail(op, "out is missing");
  // Cache rows: the prompt and the new tokens, at most the context; row buffers: the prompt, or the
  // C − 1 tokens the cache is rebuilt from when the generation runs past the context.
  const bool slides = steps > s.C - n;
  ATTNLAB_CHECK(s.ensure_gen(slides ? s.C : n + steps, slides ? std::max(n, s.C - 1) : n));
  SplitMix64 rng{smp.seed};
  int* window = s.g_window;
  std::memcpy(window, prompt, n * sizeof(int));
  s.cache.length = 0;
  ATTNLAB_CHECK(s.extend(window, n, false, true));
  for (size_t i = 0; i < steps; ++i) {
    const int tok = s.sample(smp, rng);
    out[i] = tok;
    if (i + 1 == steps) break;
    if (s.cache.length == s.C) {
      // Learned positions end at C − 1: keep the last C − 1 tokens, at positions 0 … C − 2.
      std::memmove(window, window + 1, (s.C - 1) * sizeof(int));
      s.cache.length = 0;
      if (s.C > 1) ATTNLAB_CHECK(s.extend(window, s.C - 1, false, false));
    }
    window[s.cache.length] = tok;
    ATTNLAB_CHECK(s.extend(&window[s.cache.length], 1, true, true));
  }
  return Status::Ok();
}

}  // namespace attnlab
