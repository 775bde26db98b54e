// The small GPT of attnlab/gpt.h, built from the pointer-level ops (ops.h), their backward passes
// (backward.h) and the optimizer (optimizer.h): nothing here computes a layer itself. What this file
// adds is the bookkeeping llm.c's train_gpt2.c does: one flat block for the parameters, gradients and
// Adam moments; one activation workspace laid out for (B, T) that keeps every intermediate for the
// backward pass; the order of the calls. The layer itself is layer_forward (layer.cc), sampling with a
// KV cache is generate.cc.
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

#include "../ops/blocks_detail.h"
#include "../ops/check.h"
#include "attnlab/backward.h"
#include "gpt_impl.h"

namespace attnlab {

using namespace model;

namespace {

// ---- Init's random numbers -----------------------------------------------------------------------
// SplitMix64 (gpt_impl.h). Normals by Box-Muller in double: from
// u1 ∈ (0, 1], u2 ∈ [0, 1), z0 = √(−2 ln u1)·cos(2π u2) and z1 = …·sin(2π u2), z0 first, then z1.
// The init draws its normals from one stream seeded with GptConfig::seed, tensor by tensor in the
// order of the table, element by element (row-major), skipping the tensors that are constant (biases,
// LN). The value stored is float(std·z), rounded once from double.
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
  const uint64_t max = c.inference_only ? kMaxInferenceGptParams : kMaxGptParams;
  if (n > max)
    return fail(op, "the model would have " + std::to_string(n) + " parameters, expected at most " +
                        std::to_string(max) +
                        (c.inference_only ? " (" + std::to_string((n * 4 + (1u << 20) - 1) >> 20) +
                                                " MiB; wasm32 memory is at most 4 GiB)"
                                          : std::string(" (smaller vocab, context, dModel, dFF or layers)")));
  return Status::Ok();
}

void Gpt::Impl::build_table() {
  size_t off = 0;
  // An inference-only model stores W_O and the MLP's W_in and W_out transposed: its forward reads them
  // as "nt", each output's weights one contiguous row (layer.h).
  auto add = [&](std::string name, size_t rows, size_t cols, int rank, bool transposed = false) {
    GptTensor t;
    t.name = std::move(name);
    t.offset = off;
    t.rows = rows;
    t.cols = cols;
    t.rank = rank;
    t.transposed = transposed && c.inference_only;
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
    o.wo = add(p + "attn.W_O", D, D, 2, true);
    o.bq = add(p + "attn.b_Q", 1, D, 1);
    o.bk = add(p + "attn.b_K", 1, D, 1);
    o.bv = add(p + "attn.b_V", 1, D, 1);
    o.bo = add(p + "attn.b_O", 1, D, 1);
    if (mlp) {
      if (ln) {
        o.ln2_w = add(p + "ln2.w", 1, D, 1);
        o.ln2_b = add(p + "ln2.b", 1, D, 1);
      }
      o.w_in = add(p + "mlp.W_in", D, F, 2, true);
      o.b_in = add(p + "mlp.b_in", 1, F, 1);
      o.w_out = add(p + "mlp.W_out", F, D, 2, true);
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

LayerWeights Gpt::Impl::layer_weights(size_t l, const float* flat) const {
  const LayerOffsets& o = lo[l];
  auto at = [flat](size_t off) { return off == kNone ? nullptr : flat + off; };
  LayerWeights w;
  w.ln1_w = at(o.ln1_w), w.ln1_b = at(o.ln1_b);
  w.attn = MultiHeadWeights{at(o.wq), at(o.wk), at(o.wv), at(o.wo), at(o.bq), at(o.bk), at(o.bv), at(o.bo)};
  w.ln2_w = at(o.ln2_w), w.ln2_b = at(o.ln2_b);
  w.mlp = FeedForwardWeights{at(o.w_in), at(o.b_in), at(o.w_out), at(o.b_out)};
  w.out_transposed = c.inference_only;  // build_table stores W_O, W_in and W_out transposed then
  if (flat == block && params_ok) {  // the parameters (not the gradients), verified
    w.checked = true;
    w.attn_bounds = &wb[l];
  }
  return w;
}

Status Gpt::Impl::verify_params(const char* op) {
  if (params_ok) return Status::Ok();
  const float* p = P();
  for (const GptTensor& t : tensors) {
    const size_t i = first_non_finite(p + t.offset, t.size());
    if (i != t.size())
      return fail(op, "parameter " + t.name + "[" + std::to_string(i) + "] is " + detail::value_str(p[t.offset + i]) +
                          ", expected finite parameters");
  }
  wb.resize(L);
  for (size_t l = 0; l < L; ++l) wb[l] = multi_head_weight_bounds(layer_weights(l, p).attn, D);
  params_ok = true;
  return Status::Ok();
}

// The lookup of embedding_forward on ids checked by the caller (check_tokens) and a table checked by
// verify_params: its per-call scan of W_E [V, D] was a quarter of a one-token GPT-2 forward.
Status Gpt::Impl::embed(const char* op, const int* ids, size_t B, size_t T, size_t pos0, float* x) {
  ATTNLAB_CHECK(verify_params(op));
  const float* p = P();
  for (size_t i = 0; i < B * T; ++i)
    std::memcpy(x + i * D, p + o_wte + static_cast<size_t>(ids[i]) * D, D * sizeof(float));
  for (size_t b = 0; b < B; ++b) add_inplace(x + b * T * D, p + o_wpe + pos0 * D, T * D);
  return Status::Ok();
}

Status Gpt::Impl::unembed(const char* op, const float* x, size_t rows, float* ln_out, float* mean, float* rstd,
                          float* logits_out, float* probs_out) {
  const float* p = P();
  if (ln) {
    ATTNLAB_CHECK(wrap(op, "ln_final", layer_norm_forward(x, rows, D, p + o_lnf_w, p + o_lnf_b, c.ln_eps, ln_out,
                                                          mean, rstd)));
    x = ln_out;
  }
  // W_E and b_U were checked by verify_params (embed runs it first): the head without its scan of W_E.
  if (params_ok)
    return wrap(op, "unembed", detail::output_head_rows(x, rows, p + o_wte, V, D, p + o_bu, 1.0f, logits_out, probs_out));
  return wrap(op, "unembed", output_head_forward(x, rows, p + o_wte, V, D, p + o_bu, 1.0f, logits_out, probs_out));
}

// The activation workspace for (B, T), in the order the forward fills it.
void Gpt::Impl::layout(Carve& k, size_t B, size_t T) {
  size_t N = 0;
  if (__builtin_mul_overflow(B, T, &N)) {
    k.overflow = true;
    return;
  }
  // An inference-only model keeps what a forward returns or reads afterwards — each layer's residual
  // stream x_in (residual(), the logit lens) and its attention weights — and shares one set of the
  // other activations among its layers (no backward reads them): 8·N·D + 2·N·F floats instead of L
  // times that (GPT-2 small at t = 64: 45 → 8 MiB).
  if (c.inference_only) {
    LayerActs shared;
    shared.ln1 = ln ? k.take(N, D) : nullptr;
    shared.ln1_mean = ln ? k.take(N) : nullptr;
    shared.ln1_rstd = ln ? k.take(N) : nullptr;
    shared.q = k.take(N, D);
    shared.k = k.take(N, D);
    shared.v = k.take(N, D);
    shared.heads = k.take(N, D);
    shared.attn_out = k.take(N, D);
    if (mlp) {
      shared.mid = k.take(N, D);
      shared.ln2 = ln ? k.take(N, D) : nullptr;
      shared.ln2_mean = ln ? k.take(N) : nullptr;
      shared.ln2_rstd = ln ? k.take(N) : nullptr;
      shared.pre = k.take(N, F);
      shared.act = k.take(N, F);
      shared.ffn_out = k.take(N, D);
    }
    for (size_t l = 0; l < L; ++l) {
      LayerActs& a = acts[l];
      a = shared;
      a.x_in = k.take(N, D);
      a.att = k.take(B, H, T, T);
      if (!ln) a.ln1 = a.x_in;
      if (mlp && !ln) a.ln2 = a.mid;
    }
  }
  for (size_t l = 0; l < L && !c.inference_only; ++l) {
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
  if (c.inference_only) {  // no backward: no gradient scratch
    dres = dtmp = dlogits = ffn_scratch = mha_ws = nullptr;
    return;
  }
  dres = k.take(N, D);
  dtmp = k.take(N, D);
  dlogits = k.take(N, V);
  ffn_scratch = mlp ? k.take(N, F) : nullptr;
  const size_t mws = multi_head_backward_workspace_floats(T, T, D);
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

Status Gpt::Impl::run_forward(const char* op, const int* ids, const int* targets, size_t B, size_t T,
                              bool use_scales, float* loss, bool last_only) {
  valid = false;
  if (last_only && targets)
    return fail(op, "logits 'last' computes the last row's logits only, expected no targets (the loss needs every row)");
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
  ATTNLAB_CHECK(embed(op, ids, B, T, 0, acts[0].x_in));
  LayerRows rows;
  rows.batch = B;
  rows.t = T;
  for (size_t l = 0; l < L; ++l) {
    rows.head_scale = scaled ? layer_head_scale(l) : nullptr;
    ATTNLAB_CHECK(layer_forward(op, l, layer, layer_weights(l, p), rows, acts[l], l + 1 < L ? acts[l + 1].x_in : x_final));
  }
  // logits = LN_final(x)·W_Eᵀ + b_U, without their softmax: only the loss reads probs, and it writes
  // its own (a GPT-2 forward of 64 tokens spent ~3 % of its time on 64 × 50257 exponentials). With
  // last_only, of each sequence's last row (gathered into lnf's first B rows: every row is its own
  // LayerNorm and dot products, so a row's logits are the same floats either way). embed verified the
  // parameters, which unembed's logits-only path needs.
  if (last_only) {
    for (size_t b = 0; b < B; ++b) std::memcpy(lnf + b * D, x_final + (b * T + T - 1) * D, D * sizeof(float));
    ATTNLAB_CHECK(unembed(op, lnf, B, lnf, nullptr, nullptr, logits, nullptr));
  } else {
    ATTNLAB_CHECK(unembed(op, x_final, N, lnf, lnf_mean, lnf_rstd, logits, nullptr));
  }
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
  // The gradients' views are the parameters' views into G() (writable: G() is this model's).
  auto mut = [](const float* x) { return const_cast<float*>(x); };
  for (size_t l = L; l-- > 0;) {
    LayerActs& a = acts[l];
    const LayerWeights w = layer_weights(l, p), gw = layer_weights(l, g);
    if (mlp) {
      std::memset(dtmp, 0, N * D * sizeof(float));
      const FeedForwardGrads fg{mut(gw.mlp.w1), mut(gw.mlp.b1), mut(gw.mlp.w2), mut(gw.mlp.b2)};
      ATTNLAB_CHECK(wrap(op, "mlp", l, feed_forward_backward(a.ln2, N, D, F, w.mlp, c.activation, a.pre, a.act, dres,
                                                            dtmp, fg, ffn_scratch)));
      if (ln)
        ATTNLAB_CHECK(wrap(op, "ln2", l, layer_norm_backward(a.mid, N, D, w.ln2_w, a.ln2_mean, a.ln2_rstd, dtmp,
                                                            dres, mut(gw.ln2_w), mut(gw.ln2_b))));
      else
        ATTNLAB_CHECK(wrap(op, "mlp", l, residual_backward(dtmp, N * D, dres, nullptr)));
    }
    std::memset(dtmp, 0, N * D * sizeof(float));
    MultiHeadArgs ma{};
    ma.d_model = D;
    ma.heads = H;
    ma.w = w.attn;
    ma.mask = Mask::Causal();
    MultiHeadGrads mg;
    mg.dwq = mut(gw.attn.wq), mg.dwk = mut(gw.attn.wk), mg.dwv = mut(gw.attn.wv), mg.dwo = mut(gw.attn.wo);
    mg.dbq = mut(gw.attn.bq), mg.dbk = mut(gw.attn.bk), mg.dbv = mut(gw.attn.bv), mg.dbo = mut(gw.attn.bo);
    for (size_t b = 0; b < B; ++b) {
      const size_t r = b * T * D;
      ma.x = a.ln1 + r;
      ma.t_q = ma.t_k = T;
      const MultiHeadOutputs saved{a.q + r, a.k + r, a.v + r, nullptr, a.att + b * H * T * T, a.heads + r,
                                   a.attn_out + r};
      mg.dx = dtmp + r;
      ATTNLAB_CHECK(wrap(op, "attention", l, multi_head_attention_backward(ma, saved, dres + r, mg, mha_ws)));
    }
    if (ln)
      ATTNLAB_CHECK(wrap(op, "ln1", l, layer_norm_backward(a.x_in, N, D, w.ln1_w, a.ln1_mean, a.ln1_rstd, dtmp,
                                                          dres, mut(gw.ln1_w), mut(gw.ln1_b))));
    else
      ATTNLAB_CHECK(wrap(op, "attention", l, residual_backward(dtmp, N * D, dres, nullptr)));
  }
  // x0 = W_E[ids] + W_pos[t]: a scatter-add into W_E, a sum over the batch into W_pos.
  ATTNLAB_CHECK(wrap(op, "embed", embedding_backward(ids, N, V, D, dres, g + o_wte)));
  for (size_t b = 0; b < B; ++b) add_inplace(g + o_wpe, dres + b * T * D, T * D);
  return Status::Ok();
}

// ---- Gpt -------------------------------------------------------------------------------------------------

constexpr const char* kInferenceOnly =
    "this model is inference-only (a pretrained model loaded for forward and generate: no gradient or "
    "optimizer memory), expected a model from createModel or an attnlab checkpoint to train";

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
  s.layer = LayerConfig{s.D, s.H, s.F, s.ln, s.mlp, s.c.activation, s.c.ln_eps};
  s.build_table();
  // check_gpt_config bounds n by kMaxGptParams = 2^26 (4n floats fit in size_t even on wasm32), and
  // an inference-only model by 2^30 − 2^26 (its n floats are < 4 GiB).
  if (cfg.inference_only) {
    s.block = static_cast<float*>(std::calloc(s.n, sizeof(float)));
    if (!s.block)
      return fail(op, "could not get " + mib(s.n * sizeof(float)) + " MiB for the " + std::to_string(s.n) +
                          " parameters of this inference-only model (4 bytes each), more than the memory "
                          "can give (WebAssembly: at most 4 GiB, less what is in use), expected a smaller model");
  } else {
    s.block = static_cast<float*>(std::calloc(4 * s.n, sizeof(float)));
    if (!s.block)
      return fail(op, "could not get " + mib(4 * s.n * sizeof(float)) +
                          " MiB for the parameters, gradients and Adam moments, expected a smaller model");
    s.init_params();
  }
  s.head_scale.assign(s.L * s.H, 1.0f);
  s.acts.assign(s.L, LayerActs{});
  *out = std::move(m);
  return Status::Ok();
}

const GptConfig& Gpt::config() const { return impl_->c; }
size_t Gpt::d_head() const { return impl_->dk; }
size_t Gpt::num_params() const { return impl_->n; }
float* Gpt::params() {  // writable: the next forward checks them again
  impl_->params_ok = false;
  return impl_->P();
}
const float* Gpt::params() const { return impl_->block; }
bool Gpt::inference_only() const { return impl_->c.inference_only; }
const float* Gpt::grads() const { return inference_only() ? nullptr : impl_->block + impl_->n; }
float* Gpt::adam_m() { return inference_only() ? nullptr : impl_->M(); }
float* Gpt::adam_v() { return inference_only() ? nullptr : impl_->Vm(); }
const float* Gpt::adam_m() const { return inference_only() ? nullptr : impl_->block + 2 * impl_->n; }
const float* Gpt::adam_v() const { return inference_only() ? nullptr : impl_->block + 3 * impl_->n; }
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

Status Gpt::forward(const int* ids, const int* targets, size_t batch, size_t t, float* loss, bool last_logits_only) {
  return impl_->run_forward("forward", ids, targets, batch, t, true, loss, last_logits_only);
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
  if (s.c.inference_only) return fail(op, kInferenceOnly);
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
  if (s.c.inference_only) return fail(op, kInferenceOnly);
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
  s.params_ok = false;  // new values: the weight bounds are recomputed by the next forward
  return Status::Ok();
}

}  // namespace attnlab
