// The Matrix-level API of norm.h, ffn.h, block.h and embedding.h: checks shapes, allocates the
// outputs, calls the pointer-level op, throws attnlab::Error on bad input.
#include <string>

#include "attnlab/block.h"
#include "attnlab/embedding.h"
#include "attnlab/ffn.h"
#include "attnlab/norm.h"

namespace attnlab {

namespace {

std::string shape(const Matrix& m) {
  return "[" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "]";
}
void need_shape(const char* fn, const char* name, const Matrix& m, size_t rows, size_t cols) {
  if (m.rows() != rows || m.cols() != cols)
    throw Error(std::string(fn) + ": " + name + " is " + shape(m) + ", expected [" + std::to_string(rows) +
                ", " + std::to_string(cols) + "]");
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
  const size_t F = p.w1.cols();
  need_shape(fn, "w1", p.w1, D, F), need_shape(fn, "w2", p.w2, F, D);
  return {p.w1.data(), opt(fn, "b1", p.b1, F), p.w2.data(), opt(fn, "b2", p.b2, D)};
}

// Buffers of one attention sub-layer, and their Matrix form afterwards.
struct AttentionBuffers {
  MultiHeadResult step;
  std::vector<float> weights;
  AttentionBuffers(size_t t, size_t tk, size_t D, size_t H)
      : step{Matrix(t, D), Matrix(tk, D), Matrix(tk, D), {}, Matrix(t, D), Matrix(t, D)}, weights(H * t * tk) {}
  MultiHeadOutputs out() {
    MultiHeadOutputs o{};
    o.q = step.q.data(), o.k = step.k.data(), o.v = step.v.data();
    o.weights = weights.data(), o.heads = step.heads.data(), o.out = step.output.data();
    return o;
  }
  MultiHeadResult done(size_t H) {
    const size_t t = step.q.rows(), tk = step.k.rows();
    for (size_t h = 0; h < H; ++h)
      step.weights.emplace_back(t, tk, std::vector<float>(weights.begin() + h * t * tk,
                                                          weights.begin() + (h + 1) * t * tk));
    return std::move(step);
  }
};

}  // namespace

Matrix layer_norm(const Matrix& x, const std::vector<float>& gamma, const std::vector<float>& beta, float eps) {
  Matrix y(x.rows(), x.cols());
  throw_if_error(layer_norm_forward(x.data(), x.rows(), x.cols(), opt("layerNorm", "gamma", gamma, x.cols()),
                                    opt("layerNorm", "beta", beta, x.cols()), eps, y.data()));
  return y;
}

Matrix rms_norm(const Matrix& x, const std::vector<float>& gamma, float eps) {
  Matrix y(x.rows(), x.cols());
  throw_if_error(rms_norm_forward(x.data(), x.rows(), x.cols(), opt("rmsNorm", "gamma", gamma, x.cols()), eps,
                                  y.data()));
  return y;
}

Matrix activation(const Matrix& x, Activation kind) {
  Matrix y(x.rows(), x.cols());
  throw_if_error(activation_forward(kind, x.data(), x.rows() * x.cols(), y.data()));
  return y;
}

FeedForward::FeedForward(Matrix w1, Matrix w2, std::vector<float> b1, std::vector<float> b2, Activation act)
    : w1_(std::move(w1)), w2_(std::move(w2)), b1_(std::move(b1)), b2_(std::move(b2)), act_(act) {
  need_shape("FeedForward", "w2", w2_, w1_.cols(), w1_.rows());
  opt("FeedForward", "b1", b1_, w1_.cols());
  opt("FeedForward", "b2", b2_, w1_.rows());
}

FeedForwardResult FeedForward::operator()(const Matrix& x) const {
  const size_t D = w1_.rows(), F = w1_.cols();
  need_shape("FeedForward", "x", x, x.rows(), D);
  FeedForwardResult r{Matrix(x.rows(), F), Matrix(x.rows(), F), Matrix(x.rows(), D)};
  FeedForwardWeights w{w1_.data(), b1_.empty() ? nullptr : b1_.data(), w2_.data(),
                       b2_.empty() ? nullptr : b2_.data()};
  throw_if_error(feed_forward_forward(x.data(), x.rows(), D, F, w, act_,
                                      {r.pre.data(), r.activated.data(), r.output.data()}));
  return r;
}

EncoderBlockResult encoder_block(const Matrix& x, const OwnedEncoderBlockWeights& w, const BlockOptions& opt_,
                                 const Mask& mask) {
  constexpr const char* fn = "encoder_block";
  const size_t t = x.rows(), D = x.cols(), F = w.ffn.w1.cols(), H = opt_.heads;
  EncoderBlockArgs a{};
  a.x = x.data(), a.t = t, a.d_model = D, a.heads = H, a.d_ff = F;
  a.norm = opt_.norm, a.activation = opt_.activation, a.mask = mask, a.eps = opt_.eps;
  a.w = {attention_weights(fn, w.attn, D), norm_weights(fn, w.ln1, D), norm_weights(fn, w.ln2, D),
         ffn_weights(fn, w.ffn, D)};
  AttentionBuffers attn(t, t, D, H ? H : 1);
  EncoderBlockResult r{{}, Matrix(t, D), Matrix(t, D), Matrix(t, F), Matrix(t, F), Matrix(t, D),
                       Matrix(t, D), Matrix(t, D), Matrix(t, D)};
  EncoderBlockOutputs o{attn.out(), r.residual1.data(), r.norm1.data(),
                    {r.ffn_pre.data(), r.ffn_activated.data(), r.ffn_out.data()},
                    r.residual2.data(), r.norm2.data(), r.output.data()};
  throw_if_error(encoder_block_forward(a, o));
  r.attn = attn.done(H);
  return r;
}

DecoderBlockResult decoder_block(const Matrix& x, const Matrix& memory, const OwnedDecoderBlockWeights& w,
                                 const BlockOptions& opt_, const Mask& self_mask) {
  constexpr const char* fn = "decoder_block";
  const size_t t = x.rows(), tm = memory.rows(), D = x.cols(), F = w.ffn.w1.cols(), H = opt_.heads;
  need_shape(fn, "memory", memory, tm, D);
  DecoderBlockArgs a{};
  a.x = x.data(), a.t = t, a.memory = memory.data(), a.t_m = tm;
  a.d_model = D, a.heads = H, a.d_ff = F;
  a.norm = opt_.norm, a.activation = opt_.activation, a.mask = self_mask, a.eps = opt_.eps;
  a.w = {attention_weights(fn, w.self_attn, D), attention_weights(fn, w.cross_attn, D),
         norm_weights(fn, w.ln1, D), norm_weights(fn, w.ln2, D), norm_weights(fn, w.ln3, D),
         ffn_weights(fn, w.ffn, D)};
  AttentionBuffers self(t, t, D, H ? H : 1), cross(t, tm, D, H ? H : 1);
  DecoderBlockResult r{{}, Matrix(t, D), Matrix(t, D), {}, Matrix(t, D), Matrix(t, D), Matrix(t, F),
                       Matrix(t, F), Matrix(t, D), Matrix(t, D), Matrix(t, D), Matrix(t, D)};
  DecoderBlockOutputs o{self.out(), r.residual1.data(), r.norm1.data(), cross.out(), r.residual2.data(),
                    r.norm2.data(), {r.ffn_pre.data(), r.ffn_activated.data(), r.ffn_out.data()},
                    r.residual3.data(), r.norm3.data(), r.output.data()};
  throw_if_error(decoder_block_forward(a, o));
  r.self_attn = self.done(H);
  r.cross_attn = cross.done(H);
  return r;
}

Matrix embed(const Matrix& table, const std::vector<int>& ids) {
  Matrix out(ids.size(), table.cols());
  throw_if_error(embedding_forward(table.data(), table.rows(), table.cols(), ids.data(), ids.size(), out.data()));
  return out;
}

OutputHeadResult output_head(const Matrix& h, const Matrix& table, const std::vector<float>& bias,
                             float temperature) {
  need_shape("output_head", "h", h, h.rows(), table.cols());
  OutputHeadResult r{Matrix(h.rows(), table.rows()), Matrix(h.rows(), table.rows())};
  throw_if_error(output_head_forward(h.data(), h.rows(), table.data(), table.rows(), table.cols(),
                                     opt("output_head", "bias", bias, table.rows()), temperature,
                                     r.logits.data(), r.probs.data()));
  return r;
}

KernelRegressionResult kernel_regression(const Matrix& xs, const std::vector<float>& ys, const Matrix& queries,
                                         float bandwidth, RegressionKernel kernel) {
  if (ys.size() != xs.rows())
    throw Error("kernel_regression: ys has " + std::to_string(ys.size()) + " values, expected one per row of xs (" +
                std::to_string(xs.rows()) + ")");
  need_shape("kernel_regression", "queries", queries, queries.rows(), xs.cols());
  KernelRegressionResult r{Matrix(queries.rows(), xs.rows()), Matrix(queries.rows(), xs.rows()),
                           std::vector<float>(queries.rows())};
  throw_if_error(kernel_regression_forward(xs.data(), ys.data(), xs.rows(), queries.data(), queries.rows(),
                                           xs.cols(), kernel, bandwidth, r.scores.data(), r.weights.data(),
                                           r.predictions.data()));
  return r;
}

}  // namespace attnlab
