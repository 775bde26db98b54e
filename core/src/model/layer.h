// layer.h — one pre-LN Transformer decoder layer, the only place a model computes one:
//   x = x + MHA(LN1(x))      causal, heads of d_head = d_model / heads
//   x = x + MLP(LN2(x))      (without `mlp`: attention-only; without `layer_norm`: no LN)
// It serves the training forward (rows of `batch` sequences, every activation kept for the backward
// pass), the prefill of a KV cache and the decode of the next rows against it. It takes the layer's
// weight views and its dimensions, not a model: any model laid out this way calls it (the trainable
// GPT of gpt.h, a pretrained one loaded from a checkpoint).
#pragma once

#include <cstddef>

#include "attnlab/ops.h"
#include "attnlab/status.h"
#include "kv_cache.h"

namespace attnlab::model {

struct LayerConfig {
  size_t d_model = 0, heads = 0, d_ff = 0;
  bool layer_norm = true;
  bool mlp = true;  // false: attention-only (mlp and ln2 are not read)
  Activation activation = Activation::gelu;
  float ln_eps = 1e-5f;
};

// A layer's tensors, as views (x·W layout, [in, out], except W_O and the MLP's W1 and W2 with
// out_transposed). ln*_w/_b are read only with layer_norm.
// checked: the caller has verified every weight finite since they last changed (Gpt does, once, not
// per call); then the projections and the MLP skip their per-call scans of the weights (~all of a
// GPT-2 forward's memory traffic again) and keep only the checks of what they compute. attn_bounds:
// multi_head_weight_bounds of attn, computed with that check (or nullptr).
struct LayerWeights {
  const float *ln1_w = nullptr, *ln1_b = nullptr;
  MultiHeadWeights attn{};
  const float *ln2_w = nullptr, *ln2_b = nullptr;
  FeedForwardWeights mlp{};
  bool checked = false;
  const MultiHeadWeightBounds* attn_bounds = nullptr;
  // W_O [D, D], W1 [D, F] and W2 [F, D] stored transposed ([out, in]: an inference-only model's
  // layout, read as "nt", each output a dot product of one contiguous row; detail::WeightLayout::out_in):
  // a decoded token streams each matrix's rows in eight parts, and a prompt's product reads them in
  // place, without packing them (the nt kernel computes the product's transpose then). The same
  // floats as the [in, out] layout, bit for bit. Needs checked weights (the unchecked path is the ops'
  // own checked calls, which take [in, out]).
  bool out_transposed = false;
};

// Where the layer writes, N = batch·t rows of D (F for pre/act). Without layer_norm, ln1 == x_in and
// ln2 == mid; ln1_mean/… may be nullptr (not kept). Each buffer may be reused in place by the next
// call: the in-place chain x_in == mid == x_out (and ln1 == ln2) is allowed.
struct LayerActs {
  float* x_in = nullptr;      // [N, D] the residual stream entering the layer (read)
  float* ln1 = nullptr;       // [N, D] LN1(x_in)
  float *ln1_mean = nullptr, *ln1_rstd = nullptr;  // [N]
  float *q = nullptr, *k = nullptr, *v = nullptr;  // [N, D] (with a cache k and v are its rows instead)
  float* att = nullptr;       // [batch, H, t, t] softmax weights (decode: scratch of [1, length + t])
  float* heads = nullptr;     // [N, D] the concatenated heads (after the head scales, when given)
  float* attn_out = nullptr;  // [N, D] heads·W_O + b_O
  float* mid = nullptr;       // [N, D] x_in + attn_out (mlp)
  float* ln2 = nullptr;       // [N, D] LN2(mid)
  float *ln2_mean = nullptr, *ln2_rstd = nullptr;  // [N]
  float *pre = nullptr, *act = nullptr;            // [N, F]
  float* ffn_out = nullptr;   // [N, D]
};

// The rows the layer runs and what their attention sees.
//  - no cache: `batch` sequences of t rows each (sequence b is rows [b·t, (b+1)·t)), each causal over
//    itself (att is [batch, H, t, t]): the training forward;
//  - a cache (batch 1): the t rows are positions cache.length … cache.length + t − 1 and their keys
//    and values go to those rows of the layer's cache. The prefill (decode false, cache.length 0):
//    the rows attend causally among themselves, with the same multi-head call as the training
//    forward. The decode: the rows are projected, then row i attends over cache rows
//    0 … length + i, head by head (one row against the cache costs O(length·D)).
//    The caller advances cache.length after the last layer.
struct LayerRows {
  size_t batch = 1, t = 0;
  KvCache* cache = nullptr;
  bool decode = false;                // with a cache: attend over it (else it must be empty)
  const float* head_scale = nullptr;  // [H] multiplies head h's output before W_O, or nullptr (all 1)
};

// op and layer name the refusal: "<op>: layer <l> attention: …".
Status layer_forward(const char* op, size_t layer, const LayerConfig& c, const LayerWeights& w,
                     const LayerRows& r, const LayerActs& a, float* x_out);

}  // namespace attnlab::model
