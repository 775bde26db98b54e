// The Matrix-level API of norm.h, ffn.h, block.h and embedding.h: takes Eigen matrices (read in
// place), checks shapes, allocates the outputs, calls the pointer-level op, throws attnlab::Error on
// bad input.
#include <string>

#include "attnlab/block.h"
#include "attnlab/embedding.h"
#include "attnlab/ffn.h"
#include "attnlab/norm.h"
#include "eigen_ref.h"

namespace attnlab {

using api::cols;
using api::ConstRef;
using api::ContiguousRows;
using api::rows;
using api::zeros;

namespace {

void need_shape(const char* fn, const char* name, const ConstRef& m, size_t r, size_t c) {
  if (rows(m) != r || cols(m) != c)
    throw Error(std::string(fn) + ": " + name + " is " + api::shape(m) + ", expected [" + std::to_string(r) +
                ", " + std::to_string(c) + "]");
}
// An optional vector: empty (→ nullptr) or exactly n values.
const float* opt(const char* fn, const char* name, const std::vector<float>& v, size_t n) {
  if (v.empty()) return nullptr;
  if (v.size() != n)
    throw Error(std::string(fn) + ": " + name + " has " + std::to_string(v.size()) + " values, expected " +
                std::to_string(n));
  return v.data();
}

MultiHeadWeights attention_weights(const char* fn, const OwnedMultiHeadWeights& w, size_t D) {
  need_shape(fn, "wq", w.wq, D, D), need_shape(fn, "wk", w.wk, D, D);
  need_shape(fn, "wv", w.wv, D, D), need_shape(fn, "wo", w.wo, D, D);
  MultiHeadWeights m{w.wq.data(), w.wk.data(), w.wv.data(), w.wo.data()};
  m.bq = opt(fn, "bq", w.bq, D), m.bk = opt(fn, "bk", w.bk, D);
  m.bv = opt(fn, "bv", w.bv, D), m.bo = opt(fn, "bo", w.bo, D);
  return m;
}
LayerNormWeights norm_weights(const char* fn, const OwnedLayerNormWeights& p, size_t D) {
  return {opt(fn, "gamma", p.gamma, D), opt(fn, "beta", p.beta, D)};
}
FeedForwardWeights ffn_weights(const char* fn, const OwnedFeedForwardWeights& p, size_t D) {
  const size_t F = cols(p.w1);
  need_shape(fn, "w1", p.w1, D, F), need_shape(fn, "w2", p.w2, F, D);
  return {p.w1.data(), opt(fn, "b1", p.b1, F), p.w2.data(), opt(fn, "b2", p.b2, D)};
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
    const size_t t = rows(step.q), tk = rows(step.k);
    for (size_t h = 0; h < H; ++h)
      step.weights.emplace_back(Eigen::Map<const RowMatrixXf>(weights.data() + h * t * tk, t, tk));
    return std::move(step);
  }
};

}  // namespace

RowMatrixXf layer_norm(const ConstRef& x, const std::vector<float>& gamma, const std::vector<float>& beta,
                       float eps) {
  RowMatrixXf y = zeros(rows(x), cols(x));
  throw_if_error(layer_norm_forward(ContiguousRows(x).data(), rows(x), cols(x),
                                    opt("layerNorm", "gamma", gamma, cols(x)),
                                    opt("layerNorm", "beta", beta, cols(x)), eps, y.data()));
  return y;
}

RowMatrixXf rms_norm(const ConstRef& x, const std::vector<float>& gamma, float eps) {
  RowMatrixXf y = zeros(rows(x), cols(x));
  throw_if_error(rms_norm_forward(ContiguousRows(x).data(), rows(x), cols(x),
                                  opt("rmsNorm", "gamma", gamma, cols(x)), eps, y.data()));
  return y;
}

RowMatrixXf activation(const ConstRef& x, Activation kind) {
  RowMatrixXf y = zeros(rows(x), cols(x));
  throw_if_error(activation_forward(kind, ContiguousRows(x).data(), rows(x) * cols(x), y.data()));
  return y;
}

FeedForward::FeedForward(RowMatrixXf w1, RowMatrixXf w2, std::vector<float> b1, std::vector<float> b2,
                         Activation act)
    : w1_(std::move(w1)), w2_(std::move(w2)), b1_(std::move(b1)), b2_(std::move(b2)), act_(act) {
  need_shape("FeedForward", "w2", w2_, cols(w1_), rows(w1_));
  opt("FeedForward", "b1", b1_, cols(w1_));
  opt("FeedForward", "b2", b2_, rows(w1_));
}

FeedForwardResult FeedForward::operator()(const ConstRef& x) const {
  const size_t D = rows(w1_), F = cols(w1_), n = rows(x);
  need_shape("FeedForward", "x", x, n, D);
  FeedForwardResult r{zeros(n, F), zeros(n, F), zeros(n, D)};
  FeedForwardWeights w{w1_.data(), b1_.empty() ? nullptr : b1_.data(), w2_.data(),
                       b2_.empty() ? nullptr : b2_.data()};
  throw_if_error(feed_forward_forward(ContiguousRows(x).data(), n, D, F, w, act_,
                                      {r.pre.data(), r.activated.data(), r.output.data()}));
  return r;
}

EncoderBlockResult encoder_block(const ConstRef& x, const OwnedEncoderBlockWeights& w, const BlockOptions& opt_,
                                 const Mask& mask) {
  constexpr const char* fn = "encoder_block";
  const size_t t = rows(x), D = cols(x), F = cols(w.ffn.w1), H = opt_.heads;
  const ContiguousRows xs(x);
  EncoderBlockArgs a{};
  a.x = xs.data(), a.t = t, a.d_model = D, a.heads = H, a.d_ff = F;
  a.norm = opt_.norm, a.activation = opt_.activation, a.mask = mask, a.eps = opt_.eps;
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

DecoderBlockResult decoder_block(const ConstRef& x, const ConstRef& memory, const OwnedDecoderBlockWeights& w,
                                 const BlockOptions& opt_, const Mask& self_mask) {
  constexpr const char* fn = "decoder_block";
  const size_t t = rows(x), tm = rows(memory), D = cols(x), F = cols(w.ffn.w1), H = opt_.heads;
  need_shape(fn, "memory", memory, tm, D);
  const ContiguousRows xs(x), ms(memory);
  DecoderBlockArgs a{};
  a.x = xs.data(), a.t = t, a.memory = ms.data(), a.t_m = tm;
  a.d_model = D, a.heads = H, a.d_ff = F;
  a.norm = opt_.norm, a.activation = opt_.activation, a.mask = self_mask, a.eps = opt_.eps;
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

RowMatrixXf embed(const ConstRef& table, const std::vector<int>& ids) {
  RowMatrixXf out = zeros(ids.size(), cols(table));
  throw_if_error(embedding_forward(ContiguousRows(table).data(), rows(table), cols(table), ids.data(), ids.size(),
                                   out.data()));
  return out;
}

OutputHeadResult output_head(const ConstRef& h, const ConstRef& table, const std::vector<float>& bias,
                             float temperature) {
  need_shape("output_head", "h", h, rows(h), cols(table));
  OutputHeadResult r{zeros(rows(h), rows(table)), zeros(rows(h), rows(table))};
  throw_if_error(output_head_forward(ContiguousRows(h).data(), rows(h), ContiguousRows(table).data(), rows(table),
                                     cols(table), opt("output_head", "bias", bias, rows(table)), temperature,
                                     r.logits.data(), r.probs.data()));
  return r;
}

KernelRegressionResult kernel_regression(const ConstRef& xs, const std::vector<float>& ys, const ConstRef& queries,
                                         float bandwidth, RegressionKernel kernel) {
  if (ys.size() != rows(xs))
    throw Error("kernel_regression: ys has " + std::to_string(ys.size()) + " values, expected one per row of xs (" +
                std::to_string(xs.rows()) + ")");
  need_shape("kernel_regression", "queries", queries, rows(queries), cols(xs));
  KernelRegressionResult r{zeros(rows(queries), rows(xs)), zeros(rows(queries), rows(xs)),
                           std::vector<float>(rows(queries))};
  throw_if_error(kernel_regression_forward(ContiguousRows(xs).data(), ys.data(), rows(xs),
                                           ContiguousRows(queries).data(), rows(queries), cols(xs), kernel,
                                           bandwidth, r.scores.data(), r.weights.data(), r.predictions.data()));
  return r;
}

}  // namespace attnlab
