// The small GPT of attnlab/gpt.h, built from the pointer-level ops (ops.h), their backward passes
// (backward.h) and the optimizer (optimizer.h): nothing here computes a layer itself. What this file
// adds is the bookkeeping llm.c's train_gpt2.c does: one flat block for the parameters, gradients and
// Adam moments; one activation workspace laid out for (B, T) that keeps every intermediate for the
// backward pass; the order of the calls; and a KV cache for sampling.
//
// Letters: B = batch, T = sequence length, N = B·T rows, C = context, D = d_model, H = heads,
// dk = D/H, F = d_ff, V = vocab, L = layers.
#include "attnlab/gpt.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "../ops/check.h"
#include "attnlab/backward.h"

namespace attnlab {

namespace {

constexpr size_t kNone = SIZE_MAX;  // offset of a tensor this configuration does not have

// ---- Deterministic random numbers ------------------------------------------------------------------
// splitmix64 (Steele, Lea & Flood 2014; Vigna's constants): a 64-bit counter through a bijective mixer.
// Uniforms use the top 53 bits, so every double is exact. Normals by Box-Muller in double: from
// u1 ∈ (0, 1], u2 ∈ [0, 1), z0 = √(−2 ln u1)·cos(2π u2) and z1 = …·sin(2π u2), z0 first, then z1.
// The init draws its normals from one stream seeded with GptConfig::seed, tensor by tensor in the
// order of the table, element by element (row-major), skipping the tensors that are constant (biases,
// LN). The value stored is float(std·z), rounded once from double.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
};

struct NormalStream {
  SplitMix64 rng;
  bool has_spare = false;
  double spare = 0.0;
  double next() {
    if (has_spare) {
      has_spare = false;
      return spare;
    }
    const double u1 = 1.0 - rng.uniform();  // (0, 1]: log(u1) finite
    const double u2 = rng.uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    spare = r * std::sin(kTwoPi * u2);
    has_spare = true;
    return r * std::cos(kTwoPi * u2);
  }
};

// ---- Messages ------------------------------------------------------------------------------------
Status fail(const char* op, const std::string& rest) { return Status::Fail(std::string(op) + ": " + rest); }

// An op's refusal inside the model, under the name of the JS function that reached it:
// "trainStep: layer 0 attention: multiHeadAttention: …".
Status wrap(const char* op, const char* where, size_t layer, Status s) {
  if (s.ok) return s;
  std::string w = where;
  if (layer != kNone) w = "layer " + std::to_string(layer) + " " + w;
  s.message = std::string(op) + ": " + w + ": " + s.message;
  return s;
}
Status wrap(const char* op, const char* where, Status s) { return wrap(op, where, kNone, std::move(s)); }

std::string mib(size_t bytes) { return std::to_string((bytes + (size_t(1) << 20) - 1) >> 20); }

// "expected a token id in [0, vocab = 16)", for ids and targets [n].
Status check_tokens(const char* op, const char* name, const int* ids, size_t n, size_t vocab) {
  if (!ids) return fail(op, std::string(name) + " is missing");
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab)
      return fail(op, std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(ids[i]) +
                          ", expected a token id in [0, vocab = " + std::to_string(vocab) + ")");
  return Status::Ok();
}

// ---- Sizes -------------------------------------------------------------------------------------------
// A bump allocator over one block, run twice: without a base to add up the size (with overflow
// detection: on wasm32 size_t is 32 bits), then with the malloc'd base to hand out the pointers.
struct Carve {
  float* base = nullptr;
  size_t total = 0;  // floats
  bool overflow = false;
  float* take(size_t a, size_t b = 1, size_t c = 1, size_t d = 1) {
    size_t n = 0;
    if (__builtin_mul_overflow(a, b, &n) || __builtin_mul_overflow(n, c, &n) ||
        __builtin_mul_overflow(n, d, &n)) {
      overflow = true;
      return nullptr;
    }
    float* p = base ? base + total : nullptr;
    if (__builtin_add_overflow(total, n, &total)) overflow = true;
    return p;
  }
  bool fits() const { return !overflow && total <= SIZE_MAX / sizeof(float); }
};

// Per layer, the offsets of its tensors in the flat array (kNone when the configuration has none).
struct LayerOffsets {
  size_t ln1_w = kNone, ln1_b = kNone;
  size_t wq = kNone, wk = kNone, wv = kNone, wo = kNone, bq = kNone, bk = kNone, bv = kNone, bo = kNone;
  size_t ln2_w = kNone, ln2_b = kNone;
  size_t w_in = kNone, b_in = kNone, w_out = kNone, b_out = kNone;
};

// Per layer, the activations the forward keeps for the backward pass.
struct LayerActs {
  float* x_in = nullptr;      // [N, D] the residual stream entering the layer
  float* ln1 = nullptr;       // [N, D] LN1(x_in) (layer_norm; else the MHA reads x_in)
  float *ln1_mean = nullptr, *ln1_rstd = nullptr;  // [N]
  float *q = nullptr, *k = nullptr, *v = nullptr;  // [N, D]
  float* att = nullptr;       // [B, H, T, T] softmax weights
  float* heads = nullptr;     // [N, D] concatenated heads (after the head scales, when ablated)
  float* attn_out = nullptr;  // [N, D] heads·W_O + b_O
  float* mid = nullptr;       // [N, D] x_in + attn_out (!attention_only)
  float* ln2 = nullptr;       // [N, D] LN2(mid) (layer_norm, !attention_only)
  float *ln2_mean = nullptr, *ln2_rstd = nullptr;  // [N]
  float *pre = nullptr, *act = nullptr;            // [N, F]
  float* ffn_out = nullptr;   // [N, D]
};

// out[i] += a[i]: the residual adds (the blocks' add is internal to block.cc).
void add_inplace(float* out, const float* a, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] += a[i];
}
// x [rows, D] += bias [D] per row.
void add_bias_rows(float* x, size_t rows, size_t D, const float* bias) {
  for (size_t r = 0; r < rows; ++r) add_inplace(x + r * D, bias, D);
}

size_t argmax(const float* x, size_t n) {  // the first maximum
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

}  // namespace

// ---- Configuration -----------------------------------------------------------------------------------

Status check_gpt_config(const GptConfig& c) {
  constexpr const char* op = "createModel";
  const struct { const char* name; size_t v, max; } dims[] = {
      {"vocab", c.vocab, 65536}, {"context", c.context, 4096}, {"layers", c.layers, 64},
      {"heads", c.heads, 4096},  {"dModel", c.d_model, 4096}};
  for (const auto& d : dims)
    if (d.v < 1 || d.v > d.max)
      return fail(op, std::string(d.name) + " is " + std::to_string(d.v) + ", expected an integer in [1, " +
                          std::to_string(d.max) + "]");
  if (c.d_model % c.heads != 0)
    return fail(op, "heads = " + std::to_string(c.heads) + " does not divide dModel = " + std::to_string(c.d_model) +
                        ", expected dModel to be a multiple of heads");
  if (!c.attention_only && c.d_ff > 16384)
    return fail(op, "dFF is " + std::to_string(c.d_ff) + ", expected an integer in [1, 16384] (0: 4·dModel)");
  if (!(std::isfinite(c.ln_eps) && c.ln_eps > 0.0f))
    return fail(op, "lnEps is " + detail::value_str(c.ln_eps) + ", expected a finite number > 0");
  if (!(std::isfinite(c.init_std) && c.init_std > 0.0f && c.init_std <= 10.0f))
    return fail(op, "initStd is " + detail::value_str(c.init_std) + ", expected a finite number in (0, 10]");
  if (c.activation != Activation::relu && c.activation != Activation::gelu &&
      c.activation != Activation::gelu_tanh)
    return fail(op, "activation is " + std::to_string(static_cast<int>(c.activation)) +
                        ", expected relu, gelu or gelu_tanh");
  // Every factor is ≤ 2^16 and layers ≤ 64: the count fits in 64 bits whatever size_t is.
  const uint64_t V = c.vocab, C = c.context, L = c.layers, D = c.d_model;
  const uint64_t F = c.d_ff ? c.d_ff : 4 * D;
  const uint64_t ln = c.layer_norm ? 2 * D : 0;
  uint64_t per_layer = ln + 4 * D * D + 4 * D;
  if (!c.attention_only) per_layer += ln + 2 * D * F + F + D;
  const uint64_t n = V * D + C * D + L * per_layer + ln + V;
  if (n > kMaxGptParams)
    return fail(op, "the model would have " + std::to_string(n) + " parameters, expected at most " +
                        std::to_string(kMaxGptParams) + " (smaller vocab, context, dModel, dFF or layers)");
  return Status::Ok();
}

// ---- The model's state ---------------------------------------------------------------------------------

struct Gpt::Impl {
  GptConfig c;
  size_t V = 0, C = 0, L = 0, H = 0, D = 0, dk = 0, F = 0;
  bool ln = true, mlp = true;

  size_t n = 0;            // parameters
  float* block = nullptr;  // [4, n]: params | grads | m | v (one calloc)
  std::vector<GptTensor> tensors;
  std::vector<LayerOffsets> lo;
  size_t o_wte = 0, o_wpe = 0, o_lnf_w = kNone, o_lnf_b = kNone, o_bu = 0;
  size_t steps = 0;

  std::vector<float> head_scale;  // [L·H]
  bool ablated = false;

  // The last forward: its activations (one malloc, grown when a larger (B, T) needs more) and its
  // ids and targets [N] each (the backward's embedding and loss need them).
  float* ws = nullptr;
  size_t ws_floats = 0;
  int* toks = nullptr;
  size_t toks_cap = 0;  // ints
  size_t B = 0, T = 0;
  bool valid = false, has_targets = false, fwd_ablated = false;
  std::vector<LayerActs> acts;  // [L]
  float *x_final = nullptr, *lnf = nullptr, *lnf_mean = nullptr, *lnf_rstd = nullptr;  // [N, D], [N]
  float *logits = nullptr, *probs = nullptr;  // [N, V]
  float* losses = nullptr;                    // [N]
  // Backward scratch, laid out with the activations: the residual stream's gradient, the gradient
  // entering a sub-layer's LN, dlogits, the FFN's [N, F] scratch, one sequence's MHA workspace.
  float *dres = nullptr, *dtmp = nullptr, *dlogits = nullptr, *ffn_scratch = nullptr, *mha_ws = nullptr;

  // Sampling: a KV cache [L][C, D] ×2 and one context's worth of row buffers (one malloc, made on
  // the first generate), the token window [C] and the sampling scratch (a second one).
  float* gen = nullptr;
  unsigned char* gen_aux = nullptr;
  std::vector<float*> kc, vc;  // [L]
  float *g_x = nullptr, *g_h = nullptr, *g_q = nullptr, *g_att = nullptr, *g_heads = nullptr, *g_ao = nullptr,
        *g_pre = nullptr, *g_act = nullptr, *g_fo = nullptr, *g_mean = nullptr, *g_rstd = nullptr,
        *g_logits = nullptr, *g_probs = nullptr;
  int* g_window = nullptr;   // [C]
  int* g_order = nullptr;    // [V]
  double* g_weight = nullptr;  // [V]

  ~Impl() {
    std::free(block);
    std::free(ws);
    std::free(toks);
    std::free(gen);
    std::free(gen_aux);
  }

  float* P() { return block; }
  float* G() { return block + n; }
  float* M() { return block + 2 * n; }
  float* Vm() { return block + 3 * n; }

  void build_table();
  void init_params();
  void layout(Carve& k, size_t B, size_t T);
  Status ensure_workspace(const char* op, size_t B, size_t T);
  void scale_heads(size_t l, float* heads, size_t rows);
  Status run_forward(const char* op, const int* ids, const int* targets, size_t B, size_t T, bool use_scales,
                     float* loss);
  Status run_backward(const char* op);
  Status ensure_gen();
  Status prefill(const int* window, size_t r, bool want_logits);
  Status one_row(int tok, size_t p);
  Status attention_out(size_t l, float* heads, size_t rows, float* out);
  int sample(const GptSampling& s, SplitMix64& rng);
};

void Gpt::Impl::build_table() {
  size_t off = 0;
  auto add = [&](std::string name, size_t rows, size_t cols, int rank) {
    GptTensor t;
    t.name = std::move(name);
    t.offset = off;
    t.rows = rows;
    t.cols = cols;
    t.rank = rank;
    off += rows * cols;
    tensors.push_back(std::move(t));
    return tensors.back().offset;
  };
  o_wte = add("embed.W_E", V, D, 2);
  o_wpe = add("pos_embed.W_pos", C, D, 2);
  lo.assign(L, LayerOffsets{});
  for (size_t l = 0; l < L; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".";
    LayerOffsets& o = lo[l];
    if (ln) {
      o.ln1_w = add(p + "ln1.w", 1, D, 1);
      o.ln1_b = add(p + "ln1.b", 1, D, 1);
    }
    o.wq = add(p + "attn.W_Q", D, D, 2);
    o.wk = add(p + "attn.W_K", D, D, 2);
    o.wv = add(p + "attn.W_V", D, D, 2);
    o.wo = add(p + "attn.W_O", D, D, 2);
    o.bq = add(p + "attn.b_Q", 1, D, 1);
    o.bk = add(p + "attn.b_K", 1, D, 1);
    o.bv = add(p + "attn.b_V", 1, D, 1);
    o.bo = add(p + "attn.b_O", 1, D, 1);
    if (mlp) {
      if (ln) {
        o.ln2_w = add(p + "ln2.w", 1, D, 1);
        o.ln2_b = add(p + "ln2.b", 1, D, 1);
      }
      o.w_in = add(p + "mlp.W_in", D, F, 2);
      o.b_in = add(p + "mlp.b_in", 1, F, 1);
      o.w_out = add(p + "mlp.W_out", F, D, 2);
      o.b_out = add(p + "mlp.b_out", 1, D, 1);
    }
  }
  if (ln) {
    o_lnf_w = add("ln_final.w", 1, D, 1);
    o_lnf_b = add("ln_final.b", 1, D, 1);
  }
  o_bu = add("unembed.b_U", 1, V, 1);
  n = off;
}

// GPT-2's init: W ~ N(0, 0.02²), the projections into the residual stream (W_O, W_out) scaled by
// 1/√(2·layers); biases 0 (calloc), LN gains 1.
void Gpt::Impl::init_params() {
  NormalStream z{SplitMix64{c.seed}};
  const double std_w = c.init_std, std_res = std_w / std::sqrt(2.0 * static_cast<double>(L));
  float* p = P();
  for (const GptTensor& t : tensors) {
    const std::string& nm = t.name;
    const bool gain = nm.size() >= 2 && nm.compare(nm.size() - 2, 2, ".w") == 0;  // ln*.w
    if (gain) {
      for (size_t i = 0; i < t.size(); ++i) p[t.offset + i] = 1.0f;
      continue;
    }
    if (t.rank != 2) continue;  // biases stay 0
    const bool residual = nm.find("W_O") != std::string::npos || nm.find("W_out") != std::string::npos;
    const double s = residual ? std_res : std_w;
    for (size_t i = 0; i < t.size(); ++i) p[t.offset + i] = static_cast<float>(s * z.next());
  }
}

// The activation workspace for (B, T), in the order the forward fills it.
void Gpt::Impl::layout(Carve& k, size_t B, size_t T) {
  size_t N = 0;
  if (__builtin_mul_overflow(B, T, &N)) {
    k.overflow = true;
    return;
  }
  for (size_t l = 0; l < L; ++l) {
    LayerActs& a = acts[l];
    a.x_in = k.take(N, D);
    a.ln1 = ln ? k.take(N, D) : a.x_in;
    a.ln1_mean = ln ? k.take(N) : nullptr;
    a.ln1_rstd = ln ? k.take(N) : nullptr;
    a.q = k.take(N, D);
    a.k = k.take(N, D);
    a.v = k.take(N, D);
    a.att = k.take(B, H, T, T);
    a.heads = k.take(N, D);
    a.attn_out = k.take(N, D);
    if (mlp) {
      a.mid = k.take(N, D);
      a.ln2 = ln ? k.take(N, D) : a.mid;
      a.ln2_mean = ln ? k.take(N) : nullptr;
      a.ln2_rstd = ln ? k.take(N) : nullptr;
      a.pre = k.take(N, F);
      a.act = k.take(N, F);
      a.ffn_out = k.take(N, D);
    }
  }
  x_final = k.take(N, D);
  lnf = ln ? k.take(N, D) : x_final;
  lnf_mean = ln ? k.take(N) : nullptr;
  lnf_rstd = ln ? k.take(N) : nullptr;
  logits = k.take(N, V);
  probs = k.take(N, V);
  losses = k.take(N);
  dres = k.take(N, D);
  dtmp = k.take(N, D);
  dlogits = k.take(N, V);
  ffn_scratch = mlp ? k.take(N, F) : nullptr;
  const size_t mws = multihead_backward_workspace_floats(T, T, D);
  if (mws == SIZE_MAX) k.overflow = true;
  mha_ws = k.take(mws);
}

Status Gpt::Impl::ensure_workspace(const char* op, size_t B, size_t T) {
  Carve size;
  layout(size, B, T);
  size_t N = 0, ints = 0;
  if (!size.fits() || __builtin_mul_overflow(B, T, &N) || __builtin_mul_overflow(N, size_t(2), &ints) ||
      ints > SIZE_MAX / sizeof(int))
    return fail(op, "batch·t = " + std::to_string(B) + "·" + std::to_string(T) +
                        " is too large, expected activations whose size fits in memory");
  if (size.total > ws_floats) {
    std::free(ws);
    ws_floats = 0;
    ws = static_cast<float*>(std::malloc(size.total * sizeof(float)));
    if (!ws)
      return fail(op, "could not get " + mib(size.total * sizeof(float)) + " MiB for the activations of batch = " +
                          std::to_string(B) + ", t = " + std::to_string(T) + ", expected a smaller batch or t");
    ws_floats = size.total;
  }
  if (ints > toks_cap) {
    std::free(toks);
    toks_cap = 0;
    toks = static_cast<int*>(std::malloc(ints * sizeof(int)));
    if (!toks)
      return fail(op, "could not get " + mib(ints * sizeof(int)) + " MiB for the ids of batch = " +
                          std::to_string(B) + ", t = " + std::to_string(T) + ", expected a smaller batch or t");
    toks_cap = ints;
  }
  Carve place;
  place.base = ws;
  layout(place, B, T);
  return Status::Ok();
}

// heads [rows, D]: head h of layer l's columns [h·dk, (h+1)·dk) times its scale.
void Gpt::Impl::scale_heads(size_t l, float* heads, size_t rows) {
  const float* s = head_scale.data() + l * H;
  for (size_t r = 0; r < rows; ++r)
    for (size_t h = 0; h < H; ++h) {
      float* x = heads + r * D + h * dk;
      for (size_t j = 0; j < dk; ++j) x[j] *= s[h];
    }
}

// out [rows, D] = heads·W_O + b_O (the output projection recomputed after the head scales, and the
// KV cache's one row).
Status Gpt::Impl::attention_out(size_t l, float* heads, size_t rows, float* out) {
  const float* p = P();
  ATTNLAB_CHECK(weighted_sum_forward(heads, p + lo[l].wo, rows, D, D, out));
  add_bias_rows(out, rows, D, p + lo[l].bo);
  return Status::Ok();
}

Status Gpt::Impl::run_forward(const char* op, const int* ids, const int* targets, size_t B, size_t T,
                              bool use_scales, float* loss) {
  valid = false;
  if (B < 1) return fail(op, "batch is 0, expected a positive integer");
  if (T < 1 || T > C)
    return fail(op, "t is " + std::to_string(T) + ", expected an integer in [1, context = " + std::to_string(C) + "]");
  if (B > SIZE_MAX / T)
    return fail(op, "batch·t = " + std::to_string(B) + "·" + std::to_string(T) +
                        " is too large, expected activations whose size fits in memory");
  // Ids and targets before the workspace, so a refused call leaves memory as it was (B·T fits: the
  // caller's arrays hold that many ints).
  const size_t N = B * T;
  ATTNLAB_CHECK(check_tokens(op, "ids", ids, N, V));
  if (targets) ATTNLAB_CHECK(check_tokens(op, "targets", targets, N, V));
  ATTNLAB_CHECK(ensure_workspace(op, B, T));
  std::memcpy(toks, ids, N * sizeof(int));
  if (targets) std::memcpy(toks + N, targets, N * sizeof(int));
  const bool scaled = use_scales && ablated;
  const float* p = P();

  // x = W_E[ids] + W_pos[0:T]
  ATTNLAB_CHECK(wrap(op, "embed", embedding_forward(p + o_wte, V, D, ids, N, acts[0].x_in)));
  for (size_t b = 0; b < B; ++b) add_inplace(acts[0].x_in + b * T * D, p + o_wpe, T * D);

  for (size_t l = 0; l < L; ++l) {
    LayerActs& a = acts[l];
    const LayerOffsets& w = lo[l];
    float* x_next = l + 1 < L ? acts[l + 1].x_in : x_final;
    if (ln)
      ATTNLAB_CHECK(wrap(op, "ln1", l, layer_norm_forward(a.x_in, N, D, p + w.ln1_w, p + w.ln1_b, c.ln_eps,
                                                         a.ln1, a.ln1_mean, a.ln1_rstd)));
    // Causal self-attention, one sequence at a time: sequence b's weights [H, T, T] land at
    // att + b·H·T·T, which makes att [B, H, T, T].
    MultiHeadArgs ma{};
    ma.d_model = D;
    ma.heads = H;
    ma.w = MultiHeadWeights{p + w.wq, p + w.wk, p + w.wv, p + w.wo, p + w.bq, p + w.bk, p + w.bv, p + w.bo};
    ma.mask = Mask::Causal();
    for (size_t b = 0; b < B; ++b) {
      const size_t r = b * T * D;
      ma.x = a.ln1 + r;
      ma.t_q = ma.t_k = T;
      MultiHeadOutputs mo{a.q + r, a.k + r, a.v + r, nullptr, a.att + b * H * T * T, a.heads + r, a.attn_out + r};
      ATTNLAB_CHECK(wrap(op, "attention", l, multihead_attention_forward(ma, mo)));
    }
    if (scaled) {
      scale_heads(l, a.heads, N);
      ATTNLAB_CHECK(wrap(op, "attention output", l, attention_out(l, a.heads, N, a.attn_out)));
    }
    float* after_attn = mlp ? a.mid : x_next;
    for (size_t i = 0; i < N * D; ++i) after_attn[i] = a.x_in[i] + a.attn_out[i];
    if (mlp) {
      if (ln)
        ATTNLAB_CHECK(wrap(op, "ln2", l, layer_norm_forward(a.mid, N, D, p + w.ln2_w, p + w.ln2_b, c.ln_eps,
                                                           a.ln2, a.ln2_mean, a.ln2_rstd)));
      const FeedForwardWeights fw{p + w.w_in, p + w.b_in, p + w.w_out, p + w.b_out};
      ATTNLAB_CHECK(wrap(op, "mlp", l, feed_forward_forward(a.ln2, N, D, F, fw, c.activation,
                                                           FeedForwardOutputs{a.pre, a.act, a.ffn_out})));
      for (size_t i = 0; i < N * D; ++i) x_next[i] = a.mid[i] + a.ffn_out[i];
    }
  }
  if (ln)
    ATTNLAB_CHECK(wrap(op, "ln_final", layer_norm_forward(x_final, N, D, p + o_lnf_w, p + o_lnf_b, c.ln_eps, lnf,
                                                          lnf_mean, lnf_rstd)));
  // logits = LN_final(x)·W_Eᵀ + b_U (output_head_forward's probs are overwritten by the loss's)
  ATTNLAB_CHECK(wrap(op, "unembed", output_head_forward(lnf, N, p + o_wte, V, D, p + o_bu, 1.0f, logits, probs)));
  if (targets) {
    float l = 0.0f;
    ATTNLAB_CHECK(wrap(op, "loss", softmax_cross_entropy_forward(logits, N, V, targets, probs, &l, losses)));
    if (loss) *loss = l;
  }
  this->B = B;
  this->T = T;
  has_targets = targets != nullptr;
  fwd_ablated = scaled;
  valid = true;
  return Status::Ok();
}

// The gradient of the last forward's mean loss into G(), from the loss down (llm.c's order). A
// sub-layer x + f(LN(x)) takes d(out) from dres, its input gradient through f lands in dtmp (zeroed),
// and LN's backward (or, without LN, a plain add) returns it into dres: dres then holds d(x).
Status Gpt::Impl::run_backward(const char* op) {
  const size_t N = B * T;
  const float* p = P();
  float* g = G();
  const int* ids = toks;
  const int* targets = toks + N;
  std::memset(g, 0, n * sizeof(float));
  std::memset(dlogits, 0, N * V * sizeof(float));
  std::memset(dres, 0, N * D * sizeof(float));
  ATTNLAB_CHECK(wrap(op, "loss", softmax_cross_entropy_backward(probs, N, V, targets, 1.0f, dlogits)));
  if (ln) {
    std::memset(dtmp, 0, N * D * sizeof(float));
    ATTNLAB_CHECK(wrap(op, "unembed", output_head_backward(lnf, N, p + o_wte, V, D, dlogits, dtmp, g + o_wte,
                                                           g + o_bu)));
    ATTNLAB_CHECK(wrap(op, "ln_final", layer_norm_backward(x_final, N, D, p + o_lnf_w, lnf_mean, lnf_rstd, dtmp, dres,
                                                           g + o_lnf_w, g + o_lnf_b)));
  } else {
    ATTNLAB_CHECK(wrap(op, "unembed", output_head_backward(x_final, N, p + o_wte, V, D, dlogits, dres, g + o_wte,
                                                           g + o_bu)));
  }
  for (size_t l = L; l-- > 0;) {
    LayerActs& a = acts[l];
    const LayerOffsets& w = lo[l];
    if (mlp) {
      std::memset(dtmp, 0, N * D * sizeof(float));
      const FeedForwardWeights fw{p + w.w_in, p + w.b_in, p + w.w_out, p + w.b_out};
      const FeedForwardGrads fg{g + w.w_in, g + w.b_in, g + w.w_out, g + w.b_out};
      ATTNLAB_CHECK(wrap(op, "mlp", l, feed_forward_backward(a.ln2, N, D, F, fw, c.activation, a.pre, a.act, dres,
                                                            dtmp, fg, ffn_scratch)));
      if (ln)
        ATTNLAB_CHECK(wrap(op, "ln2", l, layer_norm_backward(a.mid, N, D, p + w.ln2_w, a.ln2_mean, a.ln2_rstd, dtmp,
                                                            dres, g + w.ln2_w, g + w.ln2_b)));
      else
        ATTNLAB_CHECK(wrap(op, "mlp", l, residual_backward(dtmp, N * D, dres, nullptr)));
    }
    std::memset(dtmp, 0, N * D * sizeof(float));
    MultiHeadArgs ma{};
    ma.d_model = D;
    ma.heads = H;
    ma.w = MultiHeadWeights{p + w.wq, p + w.wk, p + w.wv, p + w.wo, p + w.bq, p + w.bk, p + w.bv, p + w.bo};
    ma.mask = Mask::Causal();
    MultiHeadGrads mg;
    mg.dwq = g + w.wq, mg.dwk = g + w.wk, mg.dwv = g + w.wv, mg.dwo = g + w.wo;
    mg.dbq = g + w.bq, mg.dbk = g + w.bk, mg.dbv = g + w.bv, mg.dbo = g + w.bo;
    for (size_t b = 0; b < B; ++b) {
      const size_t r = b * T * D;
      ma.x = a.ln1 + r;
      ma.t_q = ma.t_k = T;
      const MultiHeadOutputs saved{a.q + r, a.k + r, a.v + r, nullptr, a.att + b * H * T * T, a.heads + r,
                                   a.attn_out + r};
      mg.dx = dtmp + r;
      ATTNLAB_CHECK(wrap(op, "attention", l, multihead_attention_backward(ma, saved, dres + r, mg, mha_ws)));
    }
    if (ln)
      ATTNLAB_CHECK(wrap(op, "ln1", l, layer_norm_backward(a.x_in, N, D, p + w.ln1_w, a.ln1_mean, a.ln1_rstd, dtmp,
                                                          dres, g + w.ln1_w, g + w.ln1_b)));
    else
      ATTNLAB_CHECK(wrap(op, "attention", l, residual_backward(dtmp, N * D, dres, nullptr)));
  }
  // x0 = W_E[ids] + W_pos[t]: a scatter-add into W_E, a sum over the batch into W_pos.
  ATTNLAB_CHECK(wrap(op, "embed", embedding_backward(ids, N, V, D, dres, g + o_wte)));
  for (size_t b = 0; b < B; ++b) add_inplace(g + o_wpe, dres + b * T * D, T * D);
  return Status::Ok();
}

// ---- Sampling with a KV cache --------------------------------------------------------------------------

Status Gpt::Impl::ensure_gen() {
  if (gen) return Status::Ok();
  constexpr const char* op = "generate";
  auto plan = [&](Carve& k) {
    for (size_t l = 0; l < L; ++l) {
      kc[l] = k.take(C, D);
      vc[l] = k.take(C, D);
    }
    g_x = k.take(C, D);
    g_h = k.take(C, D);
    g_q = k.take(C, D);
    g_att = k.take(H, C, C);
    g_heads = k.take(C, D);
    g_ao = k.take(C, D);
    g_pre = mlp ? k.take(C, F) : nullptr;
    g_act = mlp ? k.take(C, F) : nullptr;
    g_fo = mlp ? k.take(C, D) : nullptr;
    g_mean = k.take(C);
    g_rstd = k.take(C);
    g_logits = k.take(V);
    g_probs = k.take(V);
  };
  kc.assign(L, nullptr);
  vc.assign(L, nullptr);
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
  g_weight = reinterpret_cast<double*>(gen_aux);
  g_window = reinterpret_cast<int*>(gen_aux + V * sizeof(double));
  g_order = g_window + C;
  return Status::Ok();
}

// Runs window[0:r] (positions 0 … r−1) through the model with the same ops as forward(), filling
// each layer's cache rows 0 … r−1; with want_logits, g_logits = the last row's logits.
Status Gpt::Impl::prefill(const int* window, size_t r, bool want_logits) {
  constexpr const char* op = "generate";
  const float* p = P();
  ATTNLAB_CHECK(wrap(op, "embed", embedding_forward(p + o_wte, V, D, window, r, g_x)));
  add_inplace(g_x, p + o_wpe, r * D);
  for (size_t l = 0; l < L; ++l) {
    const LayerOffsets& w = lo[l];
    const float* h = g_x;
    if (ln) {
      ATTNLAB_CHECK(wrap(op, "ln1", l, layer_norm_forward(g_x, r, D, p + w.ln1_w, p + w.ln1_b, c.ln_eps, g_h)));
      h = g_h;
    }
    MultiHeadArgs ma{};
    ma.x = h;
    ma.t_q = ma.t_k = r;
    ma.d_model = D;
    ma.heads = H;
    ma.w = MultiHeadWeights{p + w.wq, p + w.wk, p + w.wv, p + w.wo, p + w.bq, p + w.bk, p + w.bv, p + w.bo};
    ma.mask = Mask::Causal();
    const MultiHeadOutputs mo{g_q, kc[l], vc[l], nullptr, g_att, g_heads, g_ao};
    ATTNLAB_CHECK(wrap(op, "attention", l, multihead_attention_forward(ma, mo)));
    if (ablated) {
      scale_heads(l, g_heads, r);
      ATTNLAB_CHECK(wrap(op, "attention output", l, attention_out(l, g_heads, r, g_ao)));
    }
    add_inplace(g_x, g_ao, r * D);
    if (mlp) {
      h = g_x;
      if (ln) {
        ATTNLAB_CHECK(wrap(op, "ln2", l, layer_norm_forward(g_x, r, D, p + w.ln2_w, p + w.ln2_b, c.ln_eps, g_h)));
        h = g_h;
      }
      const FeedForwardWeights fw{p + w.w_in, p + w.b_in, p + w.w_out, p + w.b_out};
      ATTNLAB_CHECK(wrap(op, "mlp", l, feed_forward_forward(h, r, D, F, fw, c.activation,
                                                           FeedForwardOutputs{g_pre, g_act, g_fo})));
      add_inplace(g_x, g_fo, r * D);
    }
  }
  if (!want_logits) return Status::Ok();
  const float* last = g_x + (r - 1) * D;
  if (ln) {
    ATTNLAB_CHECK(wrap(op, "ln_final", layer_norm_forward(last, 1, D, p + o_lnf_w, p + o_lnf_b, c.ln_eps, g_h)));
    last = g_h;
  }
  return wrap(op, "unembed", output_head_forward(last, 1, p + o_wte, V, D, p + o_bu, 1.0f, g_logits, g_probs));
}

// Token tok at position p, the cache holding rows 0 … p−1 of every layer: one row per layer. Its
// query attends over the p + 1 cached keys of its head (the cache rows are the causal mask).
Status Gpt::Impl::one_row(int tok, size_t pos) {
  constexpr const char* op = "generate";
  const float* pr = P();
  float* x = g_x;  // [1, D]
  ATTNLAB_CHECK(wrap(op, "embed", embedding_forward(pr + o_wte, V, D, &tok, 1, x)));
  add_inplace(x, pr + o_wpe + pos * D, D);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));  // multiHeadAttention's default
  for (size_t l = 0; l < L; ++l) {
    const LayerOffsets& w = lo[l];
    const float* h = x;
    if (ln) {
      ATTNLAB_CHECK(wrap(op, "ln1", l, layer_norm_forward(x, 1, D, pr + w.ln1_w, pr + w.ln1_b, c.ln_eps, g_h)));
      h = g_h;
    }
    // q, and this position's k and v straight into the cache: x·W + b for one row.
    float* krow = kc[l] + pos * D;
    float* vrow = vc[l] + pos * D;
    const struct { size_t wt, bias; float* out; } proj[] = {{w.wq, w.bq, g_q}, {w.wk, w.bk, krow}, {w.wv, w.bv, vrow}};
    for (const auto& pj : proj) {
      ATTNLAB_CHECK(wrap(op, "attention projection", l, weighted_sum_forward(h, pr + pj.wt, 1, D, D, pj.out)));
      add_inplace(pj.out, pr + pj.bias, D);
    }
    for (size_t hh = 0; hh < H; ++hh) {
      const AttentionArgs aa{g_q + hh * dk, D, kc[l] + hh * dk, D, vc[l] + hh * dk, D, 1, pos + 1, dk, dk, scale,
                             Mask::None()};
      AttentionOutputs ao;
      ao.weights = g_att;
      ao.out = g_heads + hh * dk;
      ao.ldo = D;
      ATTNLAB_CHECK(wrap(op, "attention", l, attention_forward(aa, ao)));
    }
    if (ablated) scale_heads(l, g_heads, 1);
    ATTNLAB_CHECK(wrap(op, "attention output", l, attention_out(l, g_heads, 1, g_ao)));
    add_inplace(x, g_ao, D);
    if (mlp) {
      h = x;
      if (ln) {
        ATTNLAB_CHECK(wrap(op, "ln2", l, layer_norm_forward(x, 1, D, pr + w.ln2_w, pr + w.ln2_b, c.ln_eps, g_h)));
        h = g_h;
      }
      const FeedForwardWeights fw{pr + w.w_in, pr + w.b_in, pr + w.w_out, pr + w.b_out};
      ATTNLAB_CHECK(wrap(op, "mlp", l, feed_forward_forward(h, 1, D, F, fw, c.activation,
                                                           FeedForwardOutputs{g_pre, g_act, g_fo})));
      add_inplace(x, g_fo, D);
    }
  }
  const float* last = x;
  if (ln) {
    ATTNLAB_CHECK(wrap(op, "ln_final", layer_norm_forward(x, 1, D, pr + o_lnf_w, pr + o_lnf_b, c.ln_eps, g_h)));
    last = g_h;
  }
  return wrap(op, "unembed", output_head_forward(last, 1, pr + o_wte, V, D, pr + o_bu, 1.0f, g_logits, g_probs));
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

// ---- Gpt -------------------------------------------------------------------------------------------------

Gpt::Gpt() = default;
Gpt::~Gpt() = default;

Status Gpt::create(const GptConfig& cfg, std::unique_ptr<Gpt>* out) {
  constexpr const char* op = "createModel";
  if (!out) return fail(op, "out is missing");
  out->reset();
  ATTNLAB_CHECK(check_gpt_config(cfg));
  std::unique_ptr<Gpt> m(new (std::nothrow) Gpt());
  if (!m) return fail(op, "could not allocate the model");
  m->impl_.reset(new (std::nothrow) Impl());
  if (!m->impl_) return fail(op, "could not allocate the model");
  Impl& s = *m->impl_;
  s.c = cfg;
  if (s.c.d_ff == 0) s.c.d_ff = 4 * cfg.d_model;
  s.V = cfg.vocab, s.C = cfg.context, s.L = cfg.layers, s.H = cfg.heads, s.D = cfg.d_model;
  s.dk = s.D / s.H;
  s.F = s.c.d_ff;
  s.ln = cfg.layer_norm;
  s.mlp = !cfg.attention_only;
  s.build_table();
  // check_gpt_config bounds n by kMaxGptParams = 2^26: 4n floats fit in size_t even on wasm32.
  s.block = static_cast<float*>(std::calloc(4 * s.n, sizeof(float)));
  if (!s.block)
    return fail(op, "could not get " + mib(4 * s.n * sizeof(float)) +
                        " MiB for the parameters, gradients and Adam moments, expected a smaller model");
  s.init_params();
  s.head_scale.assign(s.L * s.H, 1.0f);
  s.acts.assign(s.L, LayerActs{});
  *out = std::move(m);
  return Status::Ok();
}

const GptConfig& Gpt::config() const { return impl_->c; }
size_t Gpt::d_head() const { return impl_->dk; }
size_t Gpt::num_params() const { return impl_->n; }
float* Gpt::params() { return impl_->P(); }
const float* Gpt::params() const { return impl_->block; }
const float* Gpt::grads() const { return impl_->block + impl_->n; }
float* Gpt::adam_m() { return impl_->M(); }
float* Gpt::adam_v() { return impl_->Vm(); }
const float* Gpt::adam_m() const { return impl_->block + 2 * impl_->n; }
const float* Gpt::adam_v() const { return impl_->block + 3 * impl_->n; }
size_t Gpt::steps_taken() const { return impl_->steps; }
void Gpt::set_steps_taken(size_t t) { impl_->steps = t; }
const std::vector<GptTensor>& Gpt::tensors() const { return impl_->tensors; }

const GptTensor* Gpt::tensor(std::string_view name) const {
  for (const GptTensor& t : impl_->tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Status Gpt::set_head_mask(const float* mask) {
  Impl& s = *impl_;
  const size_t n = s.L * s.H;
  if (!mask) {
    std::fill(s.head_scale.begin(), s.head_scale.end(), 1.0f);
    s.ablated = false;
    return Status::Ok();
  }
  ATTNLAB_CHECK(detail::check_finite("setHeadMask", "mask", mask, n));
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    s.head_scale[i] = mask[i];
    any = any || mask[i] != 1.0f;
  }
  s.ablated = any;
  return Status::Ok();
}
bool Gpt::heads_ablated() const { return impl_->ablated; }

Status Gpt::forward(const int* ids, const int* targets, size_t batch, size_t t, float* loss) {
  return impl_->run_forward("forward", ids, targets, batch, t, true, loss);
}

size_t Gpt::batch() const { return impl_->valid ? impl_->B : 0; }
size_t Gpt::length() const { return impl_->valid ? impl_->T : 0; }
const float* Gpt::logits() const { return impl_->valid ? impl_->logits : nullptr; }
const float* Gpt::attention(size_t layer) const {
  return impl_->valid && layer < impl_->L ? impl_->acts[layer].att : nullptr;
}
const float* Gpt::token_losses() const { return impl_->valid && impl_->has_targets ? impl_->losses : nullptr; }
const float* Gpt::residual(size_t layer) const {
  if (!impl_->valid || layer > impl_->L) return nullptr;
  return layer == impl_->L ? impl_->x_final : impl_->acts[layer].x_in;
}

Status Gpt::backward() {
  constexpr const char* op = "backward";
  Impl& s = *impl_;
  if (!s.valid) return fail(op, "no forward to differentiate, expected forward(ids, targets, …) first");
  if (!s.has_targets) return fail(op, "the last forward had no targets, expected forward with targets (the loss)");
  if (s.ablated || s.fwd_ablated)
    return fail(op, "heads are ablated (setHeadMask), expected every head mask 1 during the forward and the backward");
  return s.run_backward(op);
}

Status Gpt::train_step(const int* ids, const int* targets, size_t batch, size_t t, const GptTrainOptions& o,
                       float* loss, float* grad_norm) {
  constexpr const char* op = "trainStep";
  Impl& s = *impl_;
  const AdamWConfig& a = o.adamw;
  ATTNLAB_CHECK(check_adamw_config(op, a));
  if (std::isnan(o.max_grad_norm) || !(o.max_grad_norm > 0.0f))
    return fail(op, "maxGradNorm is " + detail::value_str(o.max_grad_norm) + ", expected a number > 0 (Infinity: measure only)");
  if (s.steps == SIZE_MAX) return fail(op, "stepsTaken is at its maximum, expected fewer steps");
  if (!targets) return fail(op, "targets is missing");

  float l = 0.0f;
  ATTNLAB_CHECK(s.run_forward(op, ids, targets, batch, t, false, &l));  // unablated
  if (!std::isfinite(l))
    return fail(op, "the loss is " + detail::value_str(l) +
                        ", expected a finite loss (the step was not applied: parameters, moments and steps unchanged)");
  ATTNLAB_CHECK(s.run_backward(op));
  float norm = 0.0f;
  ATTNLAB_CHECK(wrap(op, "clip", clip_grad_norm(s.G(), s.n, o.max_grad_norm, &norm)));
  if (loss) *loss = l;
  if (grad_norm) *grad_norm = norm;
  if (!std::isfinite(norm))
    return fail(op, "the gradient norm is " + detail::value_str(norm) +
                        ", expected a finite norm (the step was not applied: parameters, moments and steps unchanged)");
  // AdamW tensor by tensor: weight decay on the rank-2 tensors only (nanoGPT's groups).
  AdamWConfig decayed = a, plain = a;
  plain.weight_decay = 0.0;
  const size_t step = s.steps + 1;
  for (const GptTensor& tt : s.tensors)
    if (!adamw_step_stays_finite(s.P() + tt.offset, s.G() + tt.offset, s.M() + tt.offset, s.Vm() + tt.offset,
                                 tt.size(), step, tt.rank == 2 ? decayed : plain))
      return fail(op, "the AdamW update of " + tt.name +
                          " would not be finite (lr = " + detail::value_str(static_cast<float>(a.lr)) +
                          "), expected a smaller lr (the step was not applied: parameters, moments and steps unchanged)");
  for (const GptTensor& tt : s.tensors)
    ATTNLAB_CHECK(wrap(op, "adamw", adamw_step(s.P() + tt.offset, s.G() + tt.offset, s.M() + tt.offset,
                                               s.Vm() + tt.offset, tt.size(), step, tt.rank == 2 ? decayed : plain)));
  s.steps = step;
  return Status::Ok();
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
  ATTNLAB_CHECK(s.ensure_gen());
  SplitMix64 rng{smp.seed};
  int* window = s.g_window;
  std::memcpy(window, prompt, n * sizeof(int));
  size_t len = n;
  ATTNLAB_CHECK(s.prefill(window, len, true));
  for (size_t i = 0; i < steps; ++i) {
    const int tok = s.sample(smp, rng);
    out[i] = tok;
    if (i + 1 == steps) break;
    if (len == s.C) {
      // Learned positions end at C − 1: keep the last C − 1 tokens, at positions 0 … C − 2.
      std::memmove(window, window + 1, (s.C - 1) * sizeof(int));
      len = s.C - 1;
      if (len > 0) ATTNLAB_CHECK(s.prefill(window, len, false));
    }
    window[len] = tok;
    ATTNLAB_CHECK(s.one_row(tok, len));
    ++len;
  }
  return Status::Ok();
}

}  // namespace attnlab
