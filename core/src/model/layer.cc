// The Transformer layer of layer.h: the same op calls, in the same order, for the training forward,
// the prefill and the decode, so the three agree to the bit where they did before.
#include "layer.h"

#include <cmath>
#include <cstring>
#include <string>

#include "../kernels/dispatch.h"
#include "../ops/blocks_detail.h"
#include "../ops/check.h"
#include "../ops/multihead_detail.h"
#include "common.h"

namespace attnlab {
void attention_forward_unchecked(const AttentionArgs& a, const AttentionOutputs& o);  // attention.cc
}  // namespace attnlab

namespace attnlab::model {

namespace {

// heads [rows, D]: head h's columns [h·dk, (h+1)·dk) times scale[h].
void scale_heads(const float* scale, size_t H, size_t dk, float* heads, size_t rows) {
  const size_t D = H * dk;
  for (size_t r = 0; r < rows; ++r)
    for (size_t h = 0; h < H; ++h) {
      float* x = heads + r * D + h * dk;
      for (size_t j = 0; j < dk; ++j) x[j] *= scale[h];
    }
}

using detail::WeightLayout;

WeightLayout out_layout(const LayerWeights& w) {
  return w.out_transposed ? WeightLayout::out_in : WeightLayout::in_out;
}

// out [rows, D] = heads·W_O + b_O: the output projection after the head scales, and the decode's.
// Checked weights: multi-head attention's own product (b_O first, then the sum over heads·W_O: the
// same floats as the prefill's), without weighted_sum_forward's scan of W_O (D² floats per call, in
// every layer of every decoded token); its result is checked.
Status attention_out(const LayerWeights& lw, const float* heads, size_t rows, size_t D, float* out) {
  const MultiHeadWeights& w = lw.attn;
  if (lw.checked) {
    detail::linear_rows(heads, rows, D, D, w.wo, out_layout(lw), w.bo, out);
    return detail::check_no_overflow("multiHeadAttention", "output", out, rows * D,
                                     "heads·wo + bo within float32 range");
  }
  ATTNLAB_CHECK(weighted_sum_forward(heads, w.wo, rows, D, D, out));
  add_bias_rows(out, rows, D, w.bo);
  return Status::Ok();
}

// The cache holds `past` ≥ 1 rows: the t new rows' q, k, v are x·W + b (k, v straight into the
// cache), then row i's query attends, head by head, over the past + i + 1 cached keys (the cache
// rows are the causal mask).
Status decode_attention(const char* op, size_t l, const LayerConfig& c, const MultiHeadWeights& w, bool checked,
                        size_t t, KvCache& cache, const LayerActs& a) {
  const size_t D = c.d_model, H = c.heads, dk = D / H, past = cache.length;
  float* K = cache.keys(l);
  float* V = cache.values(l);
  if (checked && t == 1) {
    // One row (a generated token): q, k and v with W_Q, W_K and W_V read side by side (the same
    // floats as multi-head attention's projection below, which reads them one after the other).
    const float* const wt[3] = {w.wq, w.wk, w.wv};
    const float* const bias[3] = {w.bq, w.bk, w.bv};
    float* const out[3] = {a.q, K + past * D, V + past * D};
    kernels::gemv_nn3_f32(D, D, a.ln1, wt, D, bias, out);
  } else if (checked) {
    // Checked weights: multi-head attention's own projection (x·W + b, no scan of W); a q, k or v
    // that overflowed is refused below.
    MultiHeadArgs ma{};
    ma.x = a.ln1, ma.t_q = t, ma.d_model = D, ma.heads = H, ma.w = w;
    detail::multihead_project(ma, a.q, K + past * D, V + past * D);
  } else {
    const struct { const float *wt, *bias; float* out; } proj[] = {
        {w.wq, w.bq, a.q}, {w.wk, w.bk, K + past * D}, {w.wv, w.bv, V + past * D}};
    for (const auto& pj : proj) {
      ATTNLAB_CHECK(wrap(op, "attention projection", l, weighted_sum_forward(a.ln1, pj.wt, t, D, D, pj.out)));
      add_bias_rows(pj.out, t, D, pj.bias);
    }
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));  // multiHeadAttention's default
  // Row i's query, head h, over the past + i + 1 cached keys: attend(args, outputs) for each.
  const auto each_head = [&](auto&& attend) -> Status {
    for (size_t i = 0; i < t; ++i)
      for (size_t h = 0; h < H; ++h) {
        const AttentionArgs aa{a.q + i * D + h * dk, D, K + h * dk, D, V + h * dk, D, 1, past + i + 1, dk, dk, scale,
                               Mask::None()};
        AttentionOutputs ao;
        ao.weights = a.att;
        ao.out = a.heads + i * D + h * dk;
        ao.ldo = D;
        ATTNLAB_CHECK(attend(aa, ao));
      }
    return Status::Ok();
  };
  if (checked) {
    // The cache's earlier rows were checked when they were added: only the t new rows of q, k and v
    // are (attention_forward would scan every cached key and value again, for every head). Then the
    // heads unchecked; a float32 overflow in q·kᵀ or weights·v leaves a NaN or ±∞ in the heads,
    // refused after them.
    const struct { const char* name; const float* x; } fresh[] = {{"q", a.q}, {"k", K + past * D}, {"v", V + past * D}};
    for (const auto& f : fresh)
      ATTNLAB_CHECK(wrap(op, "attention", l, detail::check_no_overflow("attention", f.name, f.x, t * D,
                                                                       "x·W + b within float32 range")));
    ATTNLAB_CHECK(each_head([](const AttentionArgs& aa, const AttentionOutputs& ao) {
      attention_forward_unchecked(aa, ao);
      return Status::Ok();
    }));
    return wrap(op, "attention", l, detail::check_no_overflow("attention", "output", a.heads, t * D,
                                                              "q·kᵀ and values v within float32 range"));
  }
  return each_head([&](const AttentionArgs& aa, const AttentionOutputs& ao) {
    return wrap(op, "attention", l, attention_forward(aa, ao));
  });
}

}  // namespace

Status layer_forward(const char* op, size_t l, const LayerConfig& c, const LayerWeights& w, const LayerRows& r,
                     const LayerActs& a, float* x_out) {
  const size_t D = c.d_model, H = c.heads, T = r.t, N = r.batch * T;
  if (w.out_transposed && !w.checked)
    return fail(op, "layer " + std::to_string(l) + ": W_O and W_out stored transposed need weights checked by "
                    "the caller, expected checked weights");
  if (r.cache ? r.batch != 1 || (!r.decode && r.cache->length != 0) : r.decode)
    return fail(op, "layer " + std::to_string(l) + " attention: a KV cache holds one sequence, expected batch 1, "
                    "an empty cache for a prefill and a cache for a decode");
  if (r.cache && (T > r.cache->capacity || r.cache->length > r.cache->capacity - T))
    return fail(op, "layer " + std::to_string(l) + " attention: the KV cache holds " + std::to_string(r.cache->length) +
                        " of " + std::to_string(r.cache->capacity) + " rows, expected room for t = " + std::to_string(T));
  if (c.layer_norm)
    ATTNLAB_CHECK(wrap(op, "ln1", l, layer_norm_forward(a.x_in, N, D, w.ln1_w, w.ln1_b, c.ln_eps, a.ln1, a.ln1_mean,
                                                       a.ln1_rstd)));
  if (r.decode) {
    ATTNLAB_CHECK(decode_attention(op, l, c, w.attn, w.checked, T, *r.cache, a));
    if (r.head_scale) scale_heads(r.head_scale, H, D / H, a.heads, T);
    ATTNLAB_CHECK(wrap(op, "attention output", l, attention_out(w, a.heads, T, D, a.attn_out)));
  } else {
    // Causal self-attention, one sequence at a time: sequence b's weights [H, T, T] land at
    // att + b·H·T·T, which makes att [B, H, T, T]. An empty cache takes the keys and values.
    float* K = r.cache ? r.cache->keys(l) : a.k;
    float* V = r.cache ? r.cache->values(l) : a.v;
    MultiHeadArgs ma{};
    ma.d_model = D;
    ma.heads = H;
    ma.w = w.attn;
    ma.mask = Mask::Causal();
    ma.weight_bounds = w.attn_bounds;
    for (size_t b = 0; b < r.batch; ++b) {
      const size_t o = b * T * D;
      ma.x = a.ln1 + o;
      ma.t_q = ma.t_k = T;
      const MultiHeadOutputs mo{a.q + o, K + o, V + o, nullptr, a.att + b * H * T * T, a.heads + o, a.attn_out + o};
      ATTNLAB_CHECK(wrap(op, "attention", l, detail::multi_head_attention_forward(ma, mo, out_layout(w))));
    }
    if (r.head_scale) {
      scale_heads(r.head_scale, H, D / H, a.heads, N);
      ATTNLAB_CHECK(wrap(op, "attention output", l, attention_out(w, a.heads, N, D, a.attn_out)));
    }
  }
  float* after_attn = c.mlp ? a.mid : x_out;
  for (size_t i = 0; i < N * D; ++i) after_attn[i] = a.x_in[i] + a.attn_out[i];
  if (!c.mlp) return Status::Ok();
  if (c.layer_norm)
    ATTNLAB_CHECK(wrap(op, "ln2", l, layer_norm_forward(a.mid, N, D, w.ln2_w, w.ln2_b, c.ln_eps, a.ln2, a.ln2_mean,
                                                       a.ln2_rstd)));
  if (w.checked) {
    // feed_forward_forward without its scans of W1 and W2 (checked by the caller), its products in
    // the order of detail::feed_forward_rows (W1 and W2 read in the layer's layout); its result checks.
    constexpr const char* ffn = "feedForward";
    float* pre = a.pre ? a.pre : a.act;
    detail::linear_rows(a.ln2, N, D, c.d_ff, w.mlp.w1, out_layout(w), w.mlp.b1, pre);
    if (a.pre) std::memcpy(a.act, a.pre, N * c.d_ff * sizeof(float));
    detail::activation_inplace(c.activation, a.act, N * c.d_ff);
    detail::linear_rows(a.act, N, c.d_ff, D, w.mlp.w2, out_layout(w), w.mlp.b2, a.ffn_out);
    if (a.pre) ATTNLAB_CHECK(wrap(op, "mlp", l, detail::check_no_overflow(ffn, "pre", a.pre, N * c.d_ff, "x·w1 + b1 within float32 range")));
    ATTNLAB_CHECK(wrap(op, "mlp", l, detail::check_no_overflow(ffn, "hidden", a.act, N * c.d_ff, "x·w1 + b1 within float32 range")));
    ATTNLAB_CHECK(wrap(op, "mlp", l, detail::check_no_overflow(ffn, "output", a.ffn_out, N * D, "hidden·w2 + b2 within float32 range")));
  } else {
    const FeedForwardOutputs fo{a.pre, a.act, a.ffn_out};
    ATTNLAB_CHECK(wrap(op, "mlp", l, feed_forward_forward(a.ln2, N, D, c.d_ff, w.mlp, c.activation, fo)));
  }
  for (size_t i = 0; i < N * D; ++i) x_out[i] = a.mid[i] + a.ffn_out[i];
  return Status::Ok();
}

}  // namespace attnlab::model
