// Transformer encoder and decoder layers, built from the ops: multi-head attention
// (multi_head_attention_forward), Add & Norm (residual + LayerNorm) and the feed-forward network.
//   encoder, post-LN (the paper):  y = LN1(x + MHA(x));            out = LN2(y + FFN(y))
//   encoder, pre-LN (GPT):         y = x + MHA(LN1(x));            out = y + FFN(LN2(y))
//   decoder adds, between the two, cross-attention to the encoder output: Q from the decoder
//   stream, K and V from memory.
// Each intermediate lands in a caller-owned buffer so that a widget can show every step.
#include <cstring>
#include <initializer_list>
#include <string>

#include "attnlab/backward.h"
#include "blocks_detail.h"
#include "check.h"

namespace attnlab {

namespace {

// The checks a block shares: sizes, mask, eps, and every weight (names as the JS facade spells them).
struct ParamSpec { const char* name; const float* p; size_t n; bool required; };

Status check_params(const char* op, std::initializer_list<ParamSpec> params) {
  for (const auto& p : params) ATTNLAB_CHECK(detail::check_param(op, p.name, p.p, p.n, p.required));
  return Status::Ok();
}

Status check_sizes(const char* op, size_t t, size_t D, size_t H, size_t d_ff, float eps) {
  ATTNLAB_CHECK(detail::check_positive(op, "t", t));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", D));
  ATTNLAB_CHECK(detail::check_positive(op, "heads", H));
  ATTNLAB_CHECK(detail::check_positive(op, "dFF", d_ff));
  ATTNLAB_CHECK(detail::check_heads_divide(op, D, H));
  return detail::check_eps(op, eps);
}

// Attention weights of one multi-head layer; prefix "" for self-attention, "c" for cross.
Status check_attention_weights(const char* op, const MultiHeadWeights& w, size_t D, bool cross) {
  const size_t DD = D * D;
  if (!cross)
    return check_params(op, {{"weights.wq", w.wq, DD, true}, {"weights.wk", w.wk, DD, true},
                             {"weights.wv", w.wv, DD, true}, {"weights.wo", w.wo, DD, true},
                             {"weights.bq", w.bq, D, false}, {"weights.bk", w.bk, D, false},
                             {"weights.bv", w.bv, D, false}, {"weights.bo", w.bo, D, false}});
  return check_params(op, {{"weights.cwq", w.wq, DD, true}, {"weights.cwk", w.wk, DD, true},
                           {"weights.cwv", w.wv, DD, true}, {"weights.cwo", w.wo, DD, true},
                           {"weights.cbq", w.bq, D, false}, {"weights.cbk", w.bk, D, false},
                           {"weights.cbv", w.bv, D, false}, {"weights.cbo", w.bo, D, false}});
}

Status check_ffn_weights(const char* op, const FeedForwardWeights& w, size_t D, size_t d_ff) {
  return check_params(op, {{"weights.w1", w.w1, D * d_ff, true}, {"weights.b1", w.b1, d_ff, false},
                           {"weights.w2", w.w2, d_ff * D, true}, {"weights.b2", w.b2, D, false}});
}

bool has_outputs(const MultiHeadOutputs& m) {
  return m.q && m.k && m.v && m.weights && m.heads && m.out;
}

// One multi-head attention sub-layer on checked inputs: the op itself (no copy of its code).
Status attend(const float* x, size_t t, const float* context, size_t t_k, size_t D, size_t H,
              const MultiHeadWeights& w, const Mask& mask, const MultiHeadOutputs& o) {
  MultiHeadArgs a{};
  a.x = x;
  a.t_q = t;
  a.context = context;
  a.t_k = t_k;
  a.d_model = D;
  a.heads = H;
  a.w = w;
  a.mask = mask;
  return multi_head_attention_forward(a, o);
}

void layer_norm(const float* x, size_t t, size_t D, const LayerNormWeights& ln, float eps, float* out) {
  detail::layer_norm_rows(x, t, D, ln.gamma, ln.beta, eps, out, nullptr, nullptr);
}

}  // namespace

// A residual connection out = a + b passes its gradient to both branches unchanged.
Status residual_backward(const float* dout, size_t n, float* da, float* db) {
  constexpr const char* op = "residualBackward";
  ATTNLAB_CHECK(detail::check_positive(op, "n", n));
  ATTNLAB_CHECK(detail::check_count(op, "n", {n}));
  ATTNLAB_CHECK(detail::check_not_null(op, "dout", dout));
  if (da) for (size_t i = 0; i < n; ++i) da[i] += dout[i];
  if (db) for (size_t i = 0; i < n; ++i) db[i] += dout[i];
  return Status::Ok();
}

Status encoder_block_forward(const EncoderBlockArgs& a, const EncoderBlockOutputs& o) {
  constexpr const char* op = "encoderBlock";
  const size_t t = a.t, D = a.d_model, H = a.heads, F = a.d_ff;
  ATTNLAB_CHECK(check_sizes(op, t, D, H, F, a.eps));
  ATTNLAB_CHECK(detail::check_mask(op, a.mask, t, t));
  ATTNLAB_CHECK(detail::check_param(op, "x", a.x, t * D, true));
  ATTNLAB_CHECK(check_attention_weights(op, a.w.attn, D, false));
  ATTNLAB_CHECK(check_params(op, {{"weights.ln1Gamma", a.w.ln1.gamma, D, false},
                                  {"weights.ln1Beta", a.w.ln1.beta, D, false},
                                  {"weights.ln2Gamma", a.w.ln2.gamma, D, false},
                                  {"weights.ln2Beta", a.w.ln2.beta, D, false}}));
  ATTNLAB_CHECK(check_ffn_weights(op, a.w.ffn, D, F));
  if (!has_outputs(o.attn) || !o.residual1 || !o.norm1 || !o.ffn.pre || !o.ffn.activated || !o.ffn.out ||
      !o.residual2 || !o.norm2 || !o.out)
    return Status::Fail(std::string(op) + ": an output buffer is missing");

  const size_t n = t * D;
  if (a.norm == NormPlacement::post) {
    ATTNLAB_CHECK(detail::renamed(attend(a.x, t, nullptr, t, D, H, a.w.attn, a.mask, o.attn), op, "attention"));  // MHA(x)
    detail::add_f32(n, a.x, o.attn.out, o.residual1);                             // x + MHA(x)
    layer_norm(o.residual1, t, D, a.w.ln1, a.eps, o.norm1);                       // y = LN1(·)
    detail::feed_forward_rows(o.norm1, t, D, F, a.w.ffn, a.activation, o.ffn);   // FFN(y)
    detail::add_f32(n, o.norm1, o.ffn.out, o.residual2);                          // y + FFN(y)
    layer_norm(o.residual2, t, D, a.w.ln2, a.eps, o.norm2);                       // out = LN2(·)
    std::memcpy(o.out, o.norm2, n * sizeof(float));
  } else {
    layer_norm(a.x, t, D, a.w.ln1, a.eps, o.norm1);                                   // LN1(x)
    ATTNLAB_CHECK(detail::renamed(attend(o.norm1, t, nullptr, t, D, H, a.w.attn, a.mask, o.attn), op, "attention"));  // MHA(LN1(x))
    detail::add_f32(n, a.x, o.attn.out, o.residual1);                                 // y = x + ·
    layer_norm(o.residual1, t, D, a.w.ln2, a.eps, o.norm2);                           // LN2(y)
    detail::feed_forward_rows(o.norm2, t, D, F, a.w.ffn, a.activation, o.ffn);       // FFN(LN2(y))
    detail::add_f32(n, o.residual1, o.ffn.out, o.residual2);                          // out = y + ·
    std::memcpy(o.out, o.residual2, n * sizeof(float));
  }
  // Finite inputs can overflow float32 in the FFN or a residual sum; refuse the result.
  ATTNLAB_CHECK(detail::check_no_overflow(op, "ffn pre", o.ffn.pre, t * F, "weights within float32 range"));
  ATTNLAB_CHECK(detail::check_no_overflow(op, "ffn hidden", o.ffn.activated, t * F, "weights within float32 range"));
  for (const float* r : {o.residual1, o.norm1, o.ffn.out, o.residual2, o.norm2, o.out})
    ATTNLAB_CHECK(detail::check_no_overflow(op, "output", r, n, "x and weights within float32 range"));
  return Status::Ok();
}

Status decoder_block_forward(const DecoderBlockArgs& a, const DecoderBlockOutputs& o) {
  constexpr const char* op = "decoderBlock";
  const size_t t = a.t, tm = a.t_m, D = a.d_model, H = a.heads, F = a.d_ff;
  ATTNLAB_CHECK(check_sizes(op, t, D, H, F, a.eps));
  ATTNLAB_CHECK(detail::check_positive(op, "tm", tm));
  ATTNLAB_CHECK(detail::check_mask(op, a.mask, t, t));
  ATTNLAB_CHECK(detail::check_param(op, "x", a.x, t * D, true));
  ATTNLAB_CHECK(detail::check_param(op, "memory", a.memory, tm * D, true));
  ATTNLAB_CHECK(check_attention_weights(op, a.w.self_attn, D, false));
  ATTNLAB_CHECK(check_attention_weights(op, a.w.cross_attn, D, true));
  ATTNLAB_CHECK(check_params(op, {{"weights.ln1Gamma", a.w.ln1.gamma, D, false},
                                  {"weights.ln1Beta", a.w.ln1.beta, D, false},
                                  {"weights.ln2Gamma", a.w.ln2.gamma, D, false},
                                  {"weights.ln2Beta", a.w.ln2.beta, D, false},
                                  {"weights.ln3Gamma", a.w.ln3.gamma, D, false},
                                  {"weights.ln3Beta", a.w.ln3.beta, D, false}}));
  ATTNLAB_CHECK(check_ffn_weights(op, a.w.ffn, D, F));
  if (!has_outputs(o.self_attn) || !has_outputs(o.cross_attn) || !o.residual1 || !o.norm1 ||
      !o.residual2 || !o.norm2 || !o.ffn.pre || !o.ffn.activated || !o.ffn.out || !o.residual3 ||
      !o.norm3 || !o.out)
    return Status::Fail(std::string(op) + ": an output buffer is missing");

  const size_t n = t * D;
  const Mask none = Mask::None();
  if (a.norm == NormPlacement::post) {
    ATTNLAB_CHECK(detail::renamed(attend(a.x, t, nullptr, t, D, H, a.w.self_attn, a.mask, o.self_attn), op, "self-attention"));
    detail::add_f32(n, a.x, o.self_attn.out, o.residual1);
    layer_norm(o.residual1, t, D, a.w.ln1, a.eps, o.norm1);                            // y1
    ATTNLAB_CHECK(detail::renamed(attend(o.norm1, t, a.memory, tm, D, H, a.w.cross_attn, none, o.cross_attn), op, "cross-attention"));
    detail::add_f32(n, o.norm1, o.cross_attn.out, o.residual2);
    layer_norm(o.residual2, t, D, a.w.ln2, a.eps, o.norm2);                            // y2
    detail::feed_forward_rows(o.norm2, t, D, F, a.w.ffn, a.activation, o.ffn);
    detail::add_f32(n, o.norm2, o.ffn.out, o.residual3);
    layer_norm(o.residual3, t, D, a.w.ln3, a.eps, o.norm3);
    std::memcpy(o.out, o.norm3, n * sizeof(float));
  } else {
    layer_norm(a.x, t, D, a.w.ln1, a.eps, o.norm1);
    ATTNLAB_CHECK(detail::renamed(attend(o.norm1, t, nullptr, t, D, H, a.w.self_attn, a.mask, o.self_attn), op, "self-attention"));
    detail::add_f32(n, a.x, o.self_attn.out, o.residual1);                             // y1
    layer_norm(o.residual1, t, D, a.w.ln2, a.eps, o.norm2);
    ATTNLAB_CHECK(detail::renamed(attend(o.norm2, t, a.memory, tm, D, H, a.w.cross_attn, none, o.cross_attn), op, "cross-attention"));
    detail::add_f32(n, o.residual1, o.cross_attn.out, o.residual2);                    // y2
    layer_norm(o.residual2, t, D, a.w.ln3, a.eps, o.norm3);
    detail::feed_forward_rows(o.norm3, t, D, F, a.w.ffn, a.activation, o.ffn);
    detail::add_f32(n, o.residual2, o.ffn.out, o.residual3);
    std::memcpy(o.out, o.residual3, n * sizeof(float));
  }
  // As in encoder_block_forward: float32 overflow from finite inputs is refused.
  ATTNLAB_CHECK(detail::check_no_overflow(op, "ffn pre", o.ffn.pre, t * F, "weights within float32 range"));
  ATTNLAB_CHECK(detail::check_no_overflow(op, "ffn hidden", o.ffn.activated, t * F, "weights within float32 range"));
  for (const float* r : {o.residual1, o.norm1, o.residual2, o.norm2, o.ffn.out, o.residual3, o.norm3, o.out})
    ATTNLAB_CHECK(detail::check_no_overflow(op, "output", r, n, "x, memory and weights within float32 range"));
  return Status::Ok();
}

}  // namespace attnlab
