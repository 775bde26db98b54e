// attnlab/block.h — Transformer encoder and decoder layers, Matrix level, every intermediate kept.
//
//   encoder, post-LN (the paper):  y = LN1(x + MHA(x));       out = LN2(y + FFN(y))
//   encoder, pre-LN (GPT):         y = x + MHA(LN1(x));       out = y + FFN(LN2(y))
//   decoder: masked self-attention, cross-attention (Q from the decoder, K and V from the encoder
//   output), FFN — each with Add & Norm.
// Weights follow torch.nn.TransformerEncoderLayer / TransformerDecoderLayer transposed to x·W.
#pragma once

#include <vector>

#include "attnlab/mask.h"
#include "attnlab/matrix.h"
#include "attnlab/ops.h"

namespace attnlab {

struct AttentionLayerWeights {
  Matrix wq, wk, wv, wo;                 // [D, D]
  std::vector<float> bq, bk, bv, bo;     // [D] or empty
};
struct LayerNormParams { std::vector<float> gamma, beta; };  // [D] or empty
struct FeedForwardParams {
  Matrix w1, w2;                         // [D, d_ff], [d_ff, D]
  std::vector<float> b1, b2;             // [d_ff], [D] or empty
};

struct EncoderLayerWeights {
  AttentionLayerWeights attn;
  LayerNormParams ln1, ln2;
  FeedForwardParams ffn;
};
struct BlockOptions {
  size_t heads = 1;
  NormPlacement norm = NormPlacement::post;
  Activation activation = Activation::relu;
  float eps = 1e-5f;
};

struct AttentionStep {
  Matrix q, k, v;               // [t, D], [t_k, D], [t_k, D]
  std::vector<Matrix> weights;  // H × [t, t_k]
  Matrix heads, out;            // [t, D]
};
struct EncoderLayerResult {
  AttentionStep attn;
  Matrix residual1, norm1;              // [t, D]
  Matrix ffn_pre, ffn_hidden, ffn_out;  // [t, d_ff], [t, d_ff], [t, D]
  Matrix residual2, norm2, output;      // [t, D]
};
// x: [t, D]. Throws attnlab::Error.
EncoderLayerResult encoder_layer(const Matrix& x, const EncoderLayerWeights& w, const BlockOptions& opt,
                                 const Mask& mask = Mask::None());

struct DecoderLayerWeights {
  AttentionLayerWeights self_attn, cross_attn;
  LayerNormParams ln1, ln2, ln3;
  FeedForwardParams ffn;
};
struct DecoderLayerResult {
  AttentionStep self_attn;
  Matrix residual1, norm1;
  AttentionStep cross_attn;             // weights H × [t, t_m]
  Matrix residual2, norm2;
  Matrix ffn_pre, ffn_hidden, ffn_out;
  Matrix residual3, norm3, output;
};
// x: [t, D], memory: [t_m, D] (the encoder output). Self-attention is causal unless told otherwise.
DecoderLayerResult decoder_layer(const Matrix& x, const Matrix& memory, const DecoderLayerWeights& w,
                                 const BlockOptions& opt, const Mask& self_mask = Mask::Causal());

}  // namespace attnlab
