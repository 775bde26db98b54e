// attnlab/block.h — Transformer encoder and decoder blocks, Matrix level, every intermediate kept.
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
#include "attnlab/multihead.h"
#include "attnlab/ops.h"

namespace attnlab {

// The weights of a block, owning their storage: the Matrix-level twins of the pointer-level
// MultiHeadWeights, LayerNormWeights, FeedForwardWeights, EncoderBlockWeights and DecoderBlockWeights
// (ops.h), same names with the prefix Owned.
struct OwnedMultiHeadWeights {
  RowMatrixXf wq, wk, wv, wo;            // [D, D]
  std::vector<float> bq, bk, bv, bo;     // [D] or empty
};
struct OwnedLayerNormWeights { std::vector<float> gamma, beta; };  // [D] or empty
struct OwnedFeedForwardWeights {
  RowMatrixXf w1, w2;                    // [D, d_ff], [d_ff, D]
  std::vector<float> b1, b2;             // [d_ff], [D] or empty
};

struct OwnedEncoderBlockWeights {
  OwnedMultiHeadWeights attn;
  OwnedLayerNormWeights ln1, ln2;
  OwnedFeedForwardWeights ffn;
};
struct BlockOptions {
  size_t heads = 1;
  NormPlacement norm = NormPlacement::post;
  Activation activation = Activation::relu;
  float eps = 1e-5f;
};

// Each attention sub-layer's intermediates are a MultiHeadResult (multihead.h): q, k, v, the
// per-head weights, the concatenated heads and the output.
struct EncoderBlockResult {
  MultiHeadResult attn;
  RowMatrixXf residual1, norm1;                 // [t, D]
  RowMatrixXf ffn_pre, ffn_activated, ffn_out;  // [t, d_ff] x·W1 + b1, [t, d_ff] act(ffn_pre), [t, D]
  RowMatrixXf residual2, norm2, output;         // [t, D]
};
// x: [t, D]. Throws attnlab::Error.
EncoderBlockResult encoder_block(const Eigen::Ref<const RowMatrixXf>& x, const OwnedEncoderBlockWeights& w,
                                 const BlockOptions& opt, const Mask& mask = Mask::None());

struct OwnedDecoderBlockWeights {
  OwnedMultiHeadWeights self_attn, cross_attn;
  OwnedLayerNormWeights ln1, ln2, ln3;
  OwnedFeedForwardWeights ffn;
};
struct DecoderBlockResult {
  MultiHeadResult self_attn;
  RowMatrixXf residual1, norm1;                 // [t, D]
  MultiHeadResult cross_attn;                   // weights H × [t, t_m]
  RowMatrixXf residual2, norm2;                 // [t, D]
  RowMatrixXf ffn_pre, ffn_activated, ffn_out;  // [t, d_ff], [t, d_ff], [t, D]
  RowMatrixXf residual3, norm3, output;         // [t, D]
};
// x: [t, D], memory: [t_m, D] (the encoder output). Self-attention is causal unless told otherwise.
DecoderBlockResult decoder_block(const Eigen::Ref<const RowMatrixXf>& x, const Eigen::Ref<const RowMatrixXf>& memory,
                                 const OwnedDecoderBlockWeights& w, const BlockOptions& opt,
                                 const Mask& self_mask = Mask::Causal());

}  // namespace attnlab
