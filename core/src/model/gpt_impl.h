// gpt_impl.h — the state of a Gpt (attnlab/gpt.h), shared by gpt.cc (parameters, the training
// forward and backward, AdamW) and generate.cc (sampling with a KV cache). Internal to core/src/model.
//
// Letters: B = batch, T = sequence length, N = B·T rows, C = context, D = d_model, H = heads,
// dk = D/H, F = d_ff, V = vocab, L = layers.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnlab/gpt.h"
#include "common.h"
#include "kv_cache.h"
#include "layer.h"

namespace attnlab::model {

// ---- Deterministic random numbers ------------------------------------------------------------------
// splitmix64 (Steele, Lea & Flood 2014; Vigna's constants): a 64-bit counter through a bijective mixer.
// Uniforms use the top 53 bits, so every double is exact.
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

inline std::string mib(size_t bytes) { return std::to_string((bytes + (size_t(1) << 20) - 1) >> 20); }

// "expected a token id in [0, vocab = 16)", for ids and targets [n].
inline Status check_tokens(const char* op, const char* name, const int* ids, size_t n, size_t vocab) {
  if (!ids) return fail(op, std::string(name) + " is missing");
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab)
      return fail(op, std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(ids[i]) +
                          ", expected a token id in [0, vocab = " + std::to_string(vocab) + ")");
  return Status::Ok();
}

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

}  // namespace attnlab::model

namespace attnlab {

struct Gpt::Impl {
  GptConfig c;
  size_t V = 0, C = 0, L = 0, H = 0, D = 0, dk = 0, F = 0;
  bool ln = true, mlp = true;
  model::LayerConfig layer;  // what layer_forward needs of c

  size_t n = 0;            // parameters
  float* block = nullptr;  // [4, n]: params | grads | m | v (one calloc)
  std::vector<GptTensor> tensors;
  std::vector<model::LayerOffsets> lo;
  size_t o_wte = 0, o_wpe = 0, o_lnf_w = model::kNone, o_lnf_b = model::kNone, o_bu = 0;
  size_t steps = 0;

  // Every parameter verified finite since they last changed (verify_params; params() and a training
  // step clear it), and each layer's multi-head weight bounds computed then: the forward, the prefill
  // and the decode skip the ops' per-call scans of the weights.
  bool params_ok = false;
  std::vector<MultiHeadWeightBounds> wb;  // [L]

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
  std::vector<model::LayerActs> acts;  // [L]
  float *x_final = nullptr, *lnf = nullptr, *lnf_mean = nullptr, *lnf_rstd = nullptr;  // [N, D], [N]
  float *logits = nullptr, *probs = nullptr;  // [N, V]
  float* losses = nullptr;                    // [N]
  // Backward scratch, laid out with the activations: the residual stream's gradient, the gradient
  // entering a sub-layer's LN, dlogits, the FFN's [N, F] scratch, one sequence's MHA workspace.
  float *dres = nullptr, *dtmp = nullptr, *dlogits = nullptr, *ffn_scratch = nullptr, *mha_ws = nullptr;

  // The logit lens's scratch (one malloc, grown when needed): the L + 1 rows [L + 1, D], their LN
  // [L + 1, D], logits and probs [L + 1, V]; the order [V] (ints) after them.
  float* lens_ws = nullptr;
  size_t lens_floats = 0;

  // Sampling (generate.cc): a KV cache [L][K, V][C, D] and one context's worth of row buffers (one
  // malloc, made on the first generate), the token window [C] and the sampling scratch (a second one).
  float* gen = nullptr;
  unsigned char* gen_aux = nullptr;
  model::KvCache cache;
  model::LayerActs g_acts;  // the row buffers, reused in place by every layer
  size_t g_rows = 0;        // rows they hold
  float *g_x = nullptr, *g_h = nullptr, *g_logits = nullptr;
  int* g_window = nullptr;     // [C]
  int* g_order = nullptr;      // [V]
  double* g_weight = nullptr;  // [V]

  ~Impl() {
    std::free(block);
    std::free(ws);
    std::free(toks);
    std::free(gen);
    std::free(gen_aux);
    std::free(lens_ws);
  }

  float* P() { return block; }
  float* G() { return block + n; }
  float* M() { return block + 2 * n; }
  float* Vm() { return block + 3 * n; }

  // Layer l's tensors in a flat array laid out as the parameters: P() for the weights, G() for
  // their gradients. The one place the views are built.
  model::LayerWeights layer_weights(size_t l, const float* flat) const;
  const float* layer_head_scale(size_t l) const { return head_scale.data() + l * H; }

  // x [B·T, D] = W_E[ids] + W_pos[pos0 : pos0 + T] for each of the B sequences.
  Status embed(const char* op, const int* ids, size_t B, size_t T, size_t pos0, float* x);
  // logits [rows, V] = LN_final(x)·W_Eᵀ + b_U (ln_out, mean, rstd: LN_final's outputs), and
  // probs_out = their softmax; with verified parameters probs_out may be nullptr (logits only).
  Status unembed(const char* op, const float* x, size_t rows, float* ln_out, float* mean, float* rstd,
                 float* logits_out, float* probs_out);

  // Checks every parameter once ("forward: parameter blocks.0.attn.W_Q[5] is NaN, expected finite
  // parameters") and computes the weight bounds; free while params_ok holds.
  Status verify_params(const char* op);
  void build_table();
  void init_params();
  void layout(model::Carve& k, size_t B, size_t T);
  Status ensure_workspace(const char* op, size_t B, size_t T);
  Status run_forward(const char* op, const int* ids, const int* targets, size_t B, size_t T, bool use_scales,
                     float* loss, bool last_only = false);
  Status run_backward(const char* op);

  // generate.cc
  Status ensure_gen(size_t cap, size_t rows);
  Status extend(const int* toks, size_t r, bool decode, bool want_logits);
  int sample(const GptSampling& s, model::SplitMix64& rng);
};

}  // namespace attnlab
