// The Matrix-level C++ API of attention.h, multihead.h, positional.h and attnlab.h: takes Eigen
// matrices (read in place), allocates the outputs, calls the pointer-level op, throws on bad input.
#include <cmath>
#include <string>

#include "attnlab/attnlab.h"
#include "../kernels/dispatch.h"
#include "eigen_ref.h"

namespace attnlab {

using api::cols;
using api::ConstRef;
using api::ContiguousRows;
using api::rows;
using api::stride;
using api::zeros;

RowMatrixXf matmul(const ConstRef& A, const ConstRef& B) {
  if (A.cols() != B.rows())
    throw Error("matmul: A is " + api::shape(A) + " and B is " + api::shape(B) + ", expected A.cols = B.rows");
  RowMatrixXf C = zeros(rows(A), cols(B));
  if (A.rows() && B.cols() && A.cols())
    kernels::gemm_nn_f32(rows(A), cols(B), cols(A), A.data(), stride(A), B.data(), stride(B), nullptr,
                         C.data(), cols(B));
  return C;
}

AttentionResult attention(const ConstRef& Q, const ConstRef& K, const ConstRef& V, const Mask& mask,
                          std::optional<float> scale) {
  if (Q.cols() != K.cols())
    throw Error("attention: Q has " + std::to_string(Q.cols()) + " columns and K has " +
                std::to_string(K.cols()) + ", expected the same d_k");
  if (K.rows() != V.rows())
    throw Error("attention: K has " + std::to_string(K.rows()) + " rows and V has " +
                std::to_string(V.rows()) + ", expected the same t_k");
  const size_t tq = rows(Q), tk = rows(K), dk = cols(Q), dv = cols(V);
  AttentionResult r{zeros(tq, tk), zeros(tq, tk), zeros(tq, tk), zeros(tq, dv)};
  const float s = scale ? *scale : 1.0f / std::sqrt(static_cast<float>(dk));
  AttentionArgs a{Q.data(), stride(Q), K.data(), stride(K), V.data(), stride(V), tq, tk, dk, dv, s, mask};
  AttentionOutputs o{r.scores.data(), r.scaled.data(), r.weights.data(), r.output.data(), dv};
  throw_if_error(attention_forward(a, o));
  return r;
}

MultiHeadAttention::MultiHeadAttention(size_t heads, RowMatrixXf wq, RowMatrixXf wk, RowMatrixXf wv,
                                       RowMatrixXf wo)
    : heads_(heads), wq_(std::move(wq)), wk_(std::move(wk)), wv_(std::move(wv)), wo_(std::move(wo)) {
  const Eigen::Index D = wq_.rows();
  for (const RowMatrixXf* w : {&wq_, &wk_, &wv_, &wo_})
    if (w->rows() != D || w->cols() != D)
      throw Error("MultiHeadAttention: weights are " + api::shape(*w) + ", expected [dModel, dModel] = [" +
                  std::to_string(D) + ", " + std::to_string(D) + "]");
}

void MultiHeadAttention::set_biases(std::vector<float> bq, std::vector<float> bk, std::vector<float> bv,
                                    std::vector<float> bo) {
  for (const auto* b : {&bq, &bk, &bv, &bo})
    if (!b->empty() && b->size() != d_model())
      throw Error("MultiHeadAttention: a bias has " + std::to_string(b->size()) + " values, expected dModel = " +
                  std::to_string(d_model()));
  bq_ = std::move(bq), bk_ = std::move(bk), bv_ = std::move(bv), bo_ = std::move(bo);
}

MultiHeadResult MultiHeadAttention::operator()(const ConstRef& x, const Mask& mask) const {
  return run(x, nullptr, mask);
}
MultiHeadResult MultiHeadAttention::operator()(const ConstRef& x, const ConstRef& context, const Mask& mask) const {
  return run(x, &context, mask);
}

MultiHeadResult MultiHeadAttention::run(const ConstRef& x, const ConstRef* context, const Mask& mask) const {
  const size_t D = d_model();
  if (cols(x) != D || (context && cols(*context) != D))
    throw Error("MultiHeadAttention: inputs need dModel = " + std::to_string(D) + " columns");
  const size_t tq = rows(x), tk = context ? rows(*context) : tq;
  const ContiguousRows xs(x), cs(context ? *context : x);
  auto opt = [](const std::vector<float>& b) { return b.empty() ? nullptr : b.data(); };
  MultiHeadArgs a{xs.data(), tq, context ? cs.data() : nullptr, tk, D, heads_,
                  {wq_.data(), wk_.data(), wv_.data(), wo_.data(), opt(bq_), opt(bk_), opt(bv_), opt(bo_)},
                  mask};
  MultiHeadResult r{zeros(tq, D), zeros(tk, D), zeros(tk, D), {}, zeros(tq, D), zeros(tq, D)};
  const size_t H = heads_ ? heads_ : 1;
  std::vector<float> weights(H * tq * tk);
  MultiHeadOutputs o{r.q.data(), r.k.data(), r.v.data(), nullptr, weights.data(), r.heads.data(), r.output.data()};
  throw_if_error(multi_head_attention_forward(a, o));
  for (size_t h = 0; h < heads_; ++h)
    r.weights.emplace_back(Eigen::Map<const RowMatrixXf>(weights.data() + h * tq * tk, tq, tk));
  return r;
}

RowMatrixXf sinusoidal_positional_encoding(size_t length, size_t d_model, float base) {
  RowMatrixXf pe = zeros(length, d_model);
  throw_if_error(sinusoidal_positional_encoding_forward(length, d_model, base, pe.data()));
  return pe;
}

RowMatrixXf rope(const ConstRef& x, float base, size_t offset) {
  RowMatrixXf out = zeros(rows(x), cols(x));
  throw_if_error(rope_forward(ContiguousRows(x).data(), rows(x), cols(x), base, offset, out.data()));
  return out;
}

std::vector<float> alibi_slopes(size_t heads) {
  std::vector<float> s(heads);
  throw_if_error(attnlab::alibi_slopes(heads, s.data()));
  return s;
}

std::vector<RowMatrixXf> alibi_bias(size_t heads, size_t t_q, size_t t_k) {
  size_t n = 0;  // a product that wraps is left to the op to refuse, before it writes anything
  const bool wraps = __builtin_mul_overflow(heads, t_q, &n) || __builtin_mul_overflow(n, t_k, &n);
  std::vector<float> b(wraps ? 0 : n);
  throw_if_error(attnlab::alibi_bias(heads, t_q, t_k, b.data()));
  std::vector<RowMatrixXf> r;
  for (size_t h = 0; h < heads; ++h)
    r.emplace_back(Eigen::Map<const RowMatrixXf>(b.data() + h * t_q * t_k, t_q, t_k));
  return r;
}

}  // namespace attnlab
