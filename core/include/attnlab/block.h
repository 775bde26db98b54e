// attnlab/block.h — Transformer encoder and decoder blocks, Matrix level, every intermediate kept.
//
//   encoder, post-LN (the paper):  y = LN1(x + MHA(x));       out = LN2(y + FFN(y))
//   encoder, pre-LN (GPT):         y = x + MHA(LN1(x));       out = y + FFN(LN2(y))
//   decoder: masked self-attention, cross-attention (Q from the decoder, K and V from the encoder
//   output), FFN — each with Add & Norm.
// Weights follow torch.nn.TransformerEncoderLayer / TransformerDecoderLayer transposed to x·W.
#pragma once

#include <vector>

#include "attnlab/detail/eigen_ref.h"
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

// ---- Header-only adapters over encoder_block_forward and decoder_block_forward (ops.h).

namespace detail {

inline MultiHeadWeights attention_weights(const char* fn, const OwnedMultiHeadWeights& w, size_t D) {
  need_shape(fn, "wq", w.wq, D, D), need_shape(fn, "wk", w.wk, D, D);
  need_shape(fn, "wv", w.wv, D, D), need_shape(fn, "wo", w.wo, D, D);
  MultiHeadWeights m{w.wq.data(), w.wk.data(), w.wv.data(), w.wo.data()};
  m.bq = optional_values(fn, "bq", w.bq, D), m.bk = optional_values(fn, "bk", w.bk, D);
  m.bv = optional_values(fn, "bv", w.bv, D), m.bo = optional_values(fn, "bo", w.bo, D);
  return m;
}
inline LayerNormWeights norm_weights(const char* fn, const OwnedLayerNormWeights& p, size_t D) {
  return {optional_values(fn, "gamma", p.gamma, D), optional_values(fn, "beta", p.beta, D)};
}
inline FeedForwardWeights ffn_weights(const char* fn, const OwnedFeedForwardWeights& p, size_t D) {
  const size_t F = cols(p.w1);
  need_shape(fn, "w1", p.w1, D, F), need_shape(fn, "w2", p.w2, F, D);
  return {p.w1.data(), optional_values(fn, "b1", p.b1, F), p.w2.data(), optional_values(fn, "b2", p.b2, D)};
}

// Buffers of one attention sub-layer, and their per-head matrices afterwards.
struct AttentionBuffers {
  MultiHeadResult step;
  std::vector<float> weights;
  AttentionBuffers(size_t t, size_t tk, size_t D, size_t H)
      : step{zeros(t, D), zeros(tk, D), zeros(tk, D), {}, zeros(t, D), zeros(t, D)}, weights(H * t * tk) {}
  MultiHeadOutputs out() {
    MultiHeadOutputs o{};
    o.q = step.q.data(), o.k = step.k.data(), o.v = step.v.data();
    o.weights = weights.data(), o.heads = step.heads.data(), o.out = step.output.data();
    return o;
  }
  MultiHeadResult done(size_t H) {
    step.weights = split_heads(weights, H, rows(step.q), rows(step.k));
    return std::move(step);
  }
};

}  // namespace detail

inline EncoderBlockResult encoder_block(const Eigen::Ref<const RowMatrixXf>& x, const OwnedEncoderBlockWeights& w,
                                        const BlockOptions& opt, const Mask& mask) {
  using namespace detail;
  constexpr const char* fn = "encoder_block";
  const size_t t = rows(x), D = cols(x), F = cols(w.ffn.w1), H = opt.heads;
  const ContiguousRows xs(x);
  EncoderBlockArgs a{};
  a.x = xs.data(), a.t = t, a.d_model = D, a.heads = H, a.d_ff = F;
  a.norm = opt.norm, a.activation = opt.activation, a.mask = mask, a.eps = opt.eps;
  a.w = {attention_weights(fn, w.attn, D), norm_weights(fn, w.ln1, D), norm_weights(fn, w.ln2, D),
         ffn_weights(fn, w.ffn, D)};
  AttentionBuffers attn(t, t, D, H ? H : 1);
  EncoderBlockResult r{{}, zeros(t, D), zeros(t, D), zeros(t, F), zeros(t, F), zeros(t, D),
                       zeros(t, D), zeros(t, D), zeros(t, D)};
  EncoderBlockOutputs o{attn.out(), r.residual1.data(), r.norm1.data(),
                        {r.ffn_pre.data(), r.ffn_activated.data(), r.ffn_out.data()},
                        r.residual2.data(), r.norm2.data(), r.output.data()};
  throw_if_error(encoder_block_forward(a, o));
  r.attn = attn.done(H);
  return r;
}

inline DecoderBlockResult decoder_block(const Eigen::Ref<const RowMatrixXf>& x,
                                        const Eigen::Ref<const RowMatrixXf>& memory,
                                        const OwnedDecoderBlockWeights& w, const BlockOptions& opt,
                                        const Mask& self_mask) {
  using namespace detail;
  constexpr const char* fn = "decoder_block";
  const size_t t = rows(x), tm = rows(memory), D = cols(x), F = cols(w.ffn.w1), H = opt.heads;
  need_shape(fn, "memory", memory, tm, D);
  const ContiguousRows xs(x), ms(memory);
  DecoderBlockArgs a{};
  a.x = xs.data(), a.t = t, a.memory = ms.data(), a.t_m = tm;
  a.d_model = D, a.heads = H, a.d_ff = F;
  a.norm = opt.norm, a.activation = opt.activation, a.mask = self_mask, a.eps = opt.eps;
  a.w = {attention_weights(fn, w.self_attn, D), attention_weights(fn, w.cross_attn, D),
         norm_weights(fn, w.ln1, D), norm_weights(fn, w.ln2, D), norm_weights(fn, w.ln3, D),
         ffn_weights(fn, w.ffn, D)};
  AttentionBuffers self(t, t, D, H ? H : 1), cross(t, tm, D, H ? H : 1);
  DecoderBlockResult r{{}, zeros(t, D), zeros(t, D), {}, zeros(t, D), zeros(t, D), zeros(t, F),
                       zeros(t, F), zeros(t, D), zeros(t, D), zeros(t, D), zeros(t, D)};
  DecoderBlockOutputs o{self.out(), r.residual1.data(), r.norm1.data(), cross.out(), r.residual2.data(),
                        r.norm2.data(), {r.ffn_pre.data(), r.ffn_activated.data(), r.ffn_out.data()},
                        r.residual3.data(), r.norm3.data(), r.output.data()};
  throw_if_error(decoder_block_forward(a, o));
  r.self_attn = self.done(H);
  r.cross_attn = cross.done(H);
  return r;
}

}  // namespace attnlab
