// The two ends of the Transformer, with tied weights (Press & Wolf):
//   embedding:    e_i = one-hot(i)ᵀ·W_E = W_E[i, :]                    (a row lookup)
//   output head:  logits = h·W_Eᵀ (+ b),  probs = softmax(logits / temperature)
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

#include "../kernels/dispatch.h"
#include "attnlab/backward.h"
#include "blocks_detail.h"
#include "check.h"

namespace attnlab {

Status embedding_forward(const float* table, size_t vocab, size_t d_model, const int* ids, size_t n,
                         float* out) {
  constexpr const char* op = "embedding";
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  ATTNLAB_CHECK(detail::check_positive(op, "ids.length", n));
  ATTNLAB_CHECK(detail::check_not_null(op, "ids", ids));
  ATTNLAB_CHECK(detail::check_not_null(op, "output buffer", out));
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab)
      return Status::Fail(std::string(op) + ": ids[" + std::to_string(i) + "] is " + std::to_string(ids[i]) +
                          ", expected an integer in [0, vocab = " + std::to_string(vocab) + ")");
  ATTNLAB_CHECK(detail::check_param(op, "table", table, vocab * d_model, true));
  for (size_t i = 0; i < n; ++i)
    std::memcpy(out + i * d_model, table + static_cast<size_t>(ids[i]) * d_model, d_model * sizeof(float));
  return Status::Ok();
}

Status output_head_forward(const float* h, size_t rows, const float* table, size_t vocab,
                           size_t d_model, const float* bias, float temperature, float* logits,
                           float* probs) {
  constexpr const char* op = "outputHead";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  if (!(std::isfinite(temperature) && temperature > 0.0f))
    return Status::Fail(std::string(op) + ": temperature is " + detail::value_str(temperature) +
                        ", expected a finite number > 0");
  ATTNLAB_CHECK(detail::check_param(op, "h", h, rows * d_model, true));
  ATTNLAB_CHECK(detail::check_param(op, "table", table, vocab * d_model, true));
  ATTNLAB_CHECK(detail::check_param(op, "bias", bias, vocab, false));
  if (!logits || !probs) return Status::Fail(std::string(op) + ": an output buffer is missing");
  return detail::output_head_rows(h, rows, table, vocab, d_model, bias, temperature, logits, probs);
}

// The computation of output_head_forward on arguments it has checked (or a model that checked its
// table once): the result checks stay, they read only the logits.
Status detail::output_head_rows(const float* h, size_t rows, const float* table, size_t vocab, size_t d_model,
                                const float* bias, float temperature, float* logits, float* probs) {
  constexpr const char* op = "outputHead";
  // logits [rows, vocab] = h [rows, D] · W_Eᵀ: the table [vocab, D] is already the "nt" layout.
  kernels::gemm_nt_f32(rows, vocab, d_model, h, d_model, table, d_model, logits, vocab);
  if (bias)
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < vocab; ++j) logits[r * vocab + j] += bias[j];
  // Logits from finite inputs can still overflow float32 (NaN from +∞ and −∞ terms).
  ATTNLAB_CHECK(detail::check_no_overflow(op, "logits", logits, rows * vocab,
                                          "h·tableᵀ within float32 range (|h|·|table row| < 3.4e38)"));
  if (!probs) return Status::Ok();  // logits only (a model's generate and forward)
  // softmax((l − max)/T): subtracting the row max before dividing keeps the largest entry at 0 for
  // any temperature, so a tiny T gives the argmax one-hot, never a row of −∞ (zeros) or 0·∞ = NaN.
  for (size_t r = 0; r < rows; ++r) {
    const float* lr = logits + r * vocab;
    float mx = lr[0];
    for (size_t j = 1; j < vocab; ++j) mx = lr[j] > mx ? lr[j] : mx;
    for (size_t j = 0; j < vocab; ++j) probs[r * vocab + j] = (lr[j] - mx) / temperature;
  }
  kernels::softmax_rows_f32(rows, vocab, probs, vocab, probs, vocab);
  return Status::Ok();
}

// ---- Backward, and the loss ------------------------------------------------------------------------

namespace {

// ids[0:n] in [0, vocab), else "<op>: <name>[i] is …, expected an integer in [0, vocab = …)".
Status check_ids(const char* op, const char* name, const int* ids, size_t n, size_t vocab) {
  ATTNLAB_CHECK(detail::check_not_null(op, name, ids));
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab)
      return Status::Fail(std::string(op) + ": " + name + "[" + std::to_string(i) + "] is " +
                          std::to_string(ids[i]) + ", expected an integer in [0, vocab = " +
                          std::to_string(vocab) + ")");
  return Status::Ok();
}

}  // namespace

// A lookup's gradient is a scatter-add: a token that appears twice gets both rows' gradients.
Status embedding_backward(const int* ids, size_t n, size_t vocab, size_t d_model, const float* dout,
                          float* dtable) {
  constexpr const char* op = "embeddingBackward";
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  ATTNLAB_CHECK(detail::check_positive(op, "ids.length", n));
  ATTNLAB_CHECK(detail::check_count(op, "vocab·dModel", {vocab, d_model}));
  ATTNLAB_CHECK(detail::check_count(op, "ids.length·dModel", {n, d_model}));
  ATTNLAB_CHECK(check_ids(op, "ids", ids, n, vocab));
  ATTNLAB_CHECK(detail::check_not_null(op, "dout", dout));
  ATTNLAB_CHECK(detail::check_not_null(op, "dtable", dtable));
  for (size_t i = 0; i < n; ++i) {
    float* row = dtable + static_cast<size_t>(ids[i]) * d_model;
    const float* g = dout + i * d_model;
    for (size_t c = 0; c < d_model; ++c) row[c] += g[c];
  }
  return Status::Ok();
}

// logits = h·W_Eᵀ + b:  dh += dlogits·W_E;  dW_E += dlogitsᵀ·h;  db += Σ_rows dlogits.
Status output_head_backward(const float* h, size_t rows, const float* table, size_t vocab,
                            size_t d_model, const float* dlogits, float* dh, float* dtable,
                            float* dbias) {
  constexpr const char* op = "outputHeadBackward";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_positive(op, "dModel", d_model));
  ATTNLAB_CHECK(detail::check_count(op, "rows·vocab", {rows, vocab}));
  ATTNLAB_CHECK(detail::check_count(op, "rows·dModel", {rows, d_model}));
  ATTNLAB_CHECK(detail::check_count(op, "vocab·dModel", {vocab, d_model}));
  ATTNLAB_CHECK(detail::check_not_null(op, "dlogits", dlogits));
  if (dh) ATTNLAB_CHECK(detail::check_not_null(op, "table", table));
  if (dtable) ATTNLAB_CHECK(detail::check_not_null(op, "h", h));
  // dh [rows, D] += dlogits [rows, V]·W_E [V, D]
  if (dh) kernels::gemm_nn_acc_f32(rows, d_model, vocab, dlogits, vocab, table, d_model, dh, d_model);
  // dW_E [V, D] += dlogitsᵀ [V, rows]·h [rows, D]
  if (dtable) kernels::gemm_tn_acc_f32(vocab, d_model, rows, dlogits, vocab, h, d_model, dtable, d_model);
  if (dbias)
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < vocab; ++j) dbias[j] += dlogits[r * vocab + j];
  return Status::Ok();
}

// loss = mean_r (log Σ_j exp(l_rj) − l_r,t), by log-sum-exp in double (no log of a probability that
// rounded to 0); probs = softmax(logits) for the backward pass; row_losses (optional) each row's term.
Status softmax_cross_entropy_forward(const float* logits, size_t rows, size_t vocab, const int* targets,
                                     float* probs, float* loss, float* row_losses) {
  constexpr const char* op = "crossEntropy";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_count(op, "rows·vocab", {rows, vocab}));
  ATTNLAB_CHECK(detail::check_not_null(op, "logits", logits));
  ATTNLAB_CHECK(check_ids(op, "targets", targets, rows, vocab));
  ATTNLAB_CHECK(detail::check_not_null(op, "probs", probs));
  ATTNLAB_CHECK(detail::check_not_null(op, "loss", loss));
  ATTNLAB_CHECK(detail::check_finite(op, "logits", logits, rows * vocab));
  double total = 0.0;
  for (size_t r = 0; r < rows; ++r) {
    const float* lr = logits + r * vocab;
    float mx = lr[0];
    for (size_t j = 1; j < vocab; ++j) mx = lr[j] > mx ? lr[j] : mx;
    double sum = 0.0;
    for (size_t j = 0; j < vocab; ++j) sum += std::exp(static_cast<double>(lr[j]) - mx);
    const double row = static_cast<double>(mx) + std::log(sum) - lr[targets[r]];
    total += row;
    // Finite logits of opposite signs near ±3.4e38 give a loss beyond float32 (max − target > 3.4e38):
    // a row's, even when the mean over rows would fit.
    if (row_losses && !(row <= FLT_MAX))
      return Status::Fail(std::string(op) + ": the loss of row " + std::to_string(r) + " is " +
                          detail::value_str(static_cast<float>(row)) +
                          " after a float32 overflow, expected logits whose spread (max − target) is within 3.4e38");
    if (row_losses) row_losses[r] = static_cast<float>(row);
  }
  const double mean = total / static_cast<double>(rows);
  if (!(mean <= FLT_MAX))
    return Status::Fail(std::string(op) + ": loss is " + detail::value_str(static_cast<float>(mean)) +
                        " after a float32 overflow, expected logits whose spread (max − target) is within 3.4e38");
  kernels::softmax_rows_f32(rows, vocab, logits, vocab, probs, vocab);
  *loss = static_cast<float>(mean);
  return Status::Ok();
}

// d loss / d logits[r, j] = (probs[r, j] − [j = target_r]) / rows.
Status softmax_cross_entropy_backward(const float* probs, size_t rows, size_t vocab, const int* targets,
                                      float dloss, float* dlogits) {
  constexpr const char* op = "crossEntropyBackward";
  ATTNLAB_CHECK(detail::check_positive(op, "rows", rows));
  ATTNLAB_CHECK(detail::check_positive(op, "vocab", vocab));
  ATTNLAB_CHECK(detail::check_count(op, "rows·vocab", {rows, vocab}));
  ATTNLAB_CHECK(detail::check_not_null(op, "probs", probs));
  ATTNLAB_CHECK(check_ids(op, "targets", targets, rows, vocab));
  ATTNLAB_CHECK(detail::check_not_null(op, "dlogits", dlogits));
  if (!std::isfinite(dloss))
    return Status::Fail(std::string(op) + ": dloss is " + detail::value_str(dloss) + ", expected a finite number");
  const float s = dloss / static_cast<float>(rows);
  for (size_t r = 0; r < rows; ++r) {
    const float* p = probs + r * vocab;
    float* d = dlogits + r * vocab;
    for (size_t j = 0; j < vocab; ++j) d[j] += s * p[j];
    d[targets[r]] -= s;
  }
  return Status::Ok();
}

}  // namespace attnlab
