// The Matrix-level C++ API: allocates the outputs, calls the pointer-level op, throws on bad input.
#include <cmath>
#include <string>

#include "attnlab/attnlab.h"
#include "../kernels/dispatch.h"
#include "../ops/check.h"

namespace attnlab {

Matrix matmul(const Matrix& A, const Matrix& B) {
  if (A.cols() != B.rows())
    throw Error("matmul: A is [" + std::to_string(A.rows()) + ", " + std::to_string(A.cols()) +
                "] and B is [" + std::to_string(B.rows()) + ", " + std::to_string(B.cols()) +
                "], expected A.cols = B.rows");
  Matrix C(A.rows(), B.cols());
  if (A.rows() && B.cols()) {
    if (A.cols() == 0) return C;
    kernels::gemm_nn_f32(A.rows(), B.cols(), A.cols(), A.data(), A.cols(), B.data(), B.cols(), nullptr,
                         C.data(), C.cols());
  }
  return C;
}

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Mask& mask,
                          std::optional<float> scale) {
  if (Q.cols() != K.cols())
    throw Error("attention: Q has " + std::to_string(Q.cols()) + " columns and K has " +
                std::to_string(K.cols()) + ", expected the same d_k");
  if (K.rows() != V.rows())
    throw Error("attention: K has " + std::to_string(K.rows()) + " rows and V has " +
                std::to_string(V.rows()) + ", expected the same t_k");
  const size_t tq = Q.rows(), tk = K.rows(), dk = Q.cols(), dv = V.cols();
  AttentionResult r{Matrix(tq, tk), Matrix(tq, tk), Matrix(tq, tk), Matrix(tq, dv)};
  const float s = scale ? *scale : 1.0f / std::sqrt(static_cast<float>(dk));
  AttentionArgs a{Q.data(), dk, K.data(), dk, V.data(), dv, tq, tk, dk, dv, s, mask};
  AttentionOutputs o{r.scores.data(), r.scaled.data(), r.weights.data(), r.output.data(), dv};
  throw_if_error(attention_forward(a, o));
  return r;
}

MultiHeadAttention::MultiHeadAttention(size_t heads, Matrix wq, Matrix wk, Matrix wv, Matrix wo)
    : heads_(heads), wq_(std::move(wq)), wk_(std::move(wk)), wv_(std::move(wv)), wo_(std::move(wo)) {
  const size_t D = wq_.rows();
  for (const Matrix* w : {&wq_, &wk_, &wv_, &wo_})
    if (w->rows() != D || w->cols() != D)
      throw Error("MultiHeadAttention: weights are [" + std::to_string(w->rows()) + ", " +
                  std::to_string(w->cols()) + "], expected [dModel, dModel] = [" + std::to_string(D) +
                  ", " + std::to_string(D) + "]");
}

void MultiHeadAttention::set_biases(std::vector<float> bq, std::vector<float> bk, std::vector<float> bv,
                                    std::vector<float> bo) {
  for (const auto* b : {&bq, &bk, &bv, &bo})
    if (!b->empty() && b->size() != d_model())
      throw Error("MultiHeadAttention: a bias has " + std::to_string(b->size()) + " values, expected dModel = " +
                  std::to_string(d_model()));
  bq_ = std::move(bq), bk_ = std::move(bk), bv_ = std::move(bv), bo_ = std::move(bo);
}

MultiHeadResult MultiHeadAttention::operator()(const Matrix& x, const Mask& mask) const {
  return run(x, nullptr, mask);
}
MultiHeadResult MultiHeadAttention::operator()(const Matrix& x, const Matrix& context, const Mask& mask) const {
  return run(x, &context, mask);
}

MultiHeadResult MultiHeadAttention::run(const Matrix& x, const Matrix* context, const Mask& mask) const {
  const size_t D = d_model();
  if (x.cols() != D || (context && context->cols() != D))
    throw Error("MultiHeadAttention: inputs need dModel = " + std::to_string(D) + " columns");
  const size_t tq = x.rows(), tk = context ? context->rows() : tq;
  auto opt = [](const std::vector<float>& b) { return b.empty() ? nullptr : b.data(); };
  MultiHeadArgs a{x.data(), tq, context ? context->data() : nullptr, tk, D, heads_,
                  {wq_.data(), wk_.data(), wv_.data(), wo_.data(), opt(bq_), opt(bk_), opt(bv_), opt(bo_)},
                  mask};
  MultiHeadResult r{Matrix(tq, D), Matrix(tk, D), Matrix(tk, D), {}, Matrix(tq, D), Matrix(tq, D)};
  const size_t H = heads_ ? heads_ : 1;
  std::vector<float> weights(H * tq * tk);
  MultiHeadOutputs o{r.q.data(), r.k.data(), r.v.data(), nullptr, weights.data(), r.heads.data(), r.output.data()};
  throw_if_error(multihead_attention_forward(a, o));
  for (size_t h = 0; h < heads_; ++h)
    r.weights.emplace_back(tq, tk, std::vector<float>(weights.begin() + h * tq * tk, weights.begin() + (h + 1) * tq * tk));
  return r;
}

Matrix sinusoidal_positional_encoding(size_t length, size_t d_model, float base) {
  Matrix pe(length, d_model);
  throw_if_error(sinusoidal_positional_encoding_forward(length, d_model, base, pe.data()));
  return pe;
}

Matrix rope(const Matrix& x, float base, size_t offset) {
  Matrix out(x.rows(), x.cols());
  throw_if_error(rope_forward(x.data(), x.rows(), x.cols(), base, offset, out.data()));
  return out;
}

std::vector<float> alibi_slopes(size_t heads) {
  std::vector<float> s(heads);
  throw_if_error(attnlab::alibi_slopes(heads, s.data()));
  return s;
}

std::vector<Matrix> alibi_bias(size_t heads, size_t t_q, size_t t_k) {
  size_t n = 0;  // a product that wraps is left to the op to refuse, before it writes anything
  const bool wraps = __builtin_mul_overflow(heads, t_q, &n) || __builtin_mul_overflow(n, t_k, &n);
  std::vector<float> b(wraps ? 0 : n);
  throw_if_error(attnlab::alibi_bias(heads, t_q, t_k, b.data()));
  std::vector<Matrix> r;
  for (size_t h = 0; h < heads; ++h)
    r.emplace_back(t_q, t_k, std::vector<float>(b.begin() + h * t_q * t_k, b.begin() + (h + 1) * t_q * t_k));
  return r;
}

}  // namespace attnlab
