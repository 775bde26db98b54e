// kernels.h — the hot loops, XNNPACK-style: one small function per operation, named
// <op>_<layout>_f32_<isa>, pointer + sizes + row strides in, no allocation, no hidden state.
//
// Every SIMD128 kernel has a scalar twin with the same signature; tests/cpp/kernels_test.cc holds
// them equal at awkward (prime) sizes. Choosing a kernel happens once, in dispatch.h.
//
// Dimension letters: m, n = output rows/cols, k = reduction length. ld* = row stride in floats
// (>= the row length), so a head's column slice of Q [t, d_model] is passed without copying.
#pragma once

#include <cstddef>

#include "attnlab/mask.h"

namespace attnlab::kernels {

// C[m, n] = A[m, k] · B[k, n] (+ bias[n] on every row when bias != nullptr).
// "nn": A and B both row-major, untransposed (X · W with W [in, out]).
void gemm_nn_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, const float* bias, float* c, size_t ldc);
void gemm_nn_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                          size_t ldb, const float* bias, float* c, size_t ldc);

// C[m, n] += A[m, k] · B[k, n]: accumulates (the streaming attention's O += P·V over key blocks).
void gemm_nn_acc_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc);
void gemm_nn_acc_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, float* c, size_t ldc);

// C[m, n] = A[m, k] · B[n, k]ᵀ. "nt": B is stored row-major as [n, k] (Q · Kᵀ with K [t_k, d_k]).
void gemm_nt_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                        size_t ldb, float* c, size_t ldc);
void gemm_nt_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b,
                          size_t ldb, float* c, size_t ldc);

// C[m, n] += A[m, k] · B[n, k]ᵀ: "nt", accumulating. The backward pass's input gradients
// (dX += dY·Wᵀ with W [in, out]).
void gemm_nt_acc_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc);
void gemm_nt_acc_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, float* c, size_t ldc);

// C[m, n] += A[k, m]ᵀ · B[k, n]: "tn", A stored row-major as [k, m], accumulating. The backward
// pass's weight gradients (dW += Xᵀ·dY with X [t, in]) and dV += weightsᵀ·dOut.
void gemm_tn_acc_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                            const float* b, size_t ldb, float* c, size_t ldc);
void gemm_tn_acc_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                              const float* b, size_t ldb, float* c, size_t ldc);

// B packed once, used by many GEMMs (the streaming attention packs each head's K and V once
// instead of once per query block). Layout: strips of 8 columns of op(B), strip s = [k, 8] row-major
// at bp + s·8·k, the last strip zero-padded; packed_b_floats(k, n) floats.
//   pack_b_nt: op(B) = Bᵀ with B stored [n, k] (K: [t_k, d_k]);  pack_b_nn: op(B) = B [k, n] (V).
inline size_t packed_b_floats(size_t k, size_t n) { return (n + 7) / 8 * 8 * k; }
void pack_b_nt_f32_scalar(size_t n, size_t k, const float* b, size_t ldb, float* bp);
void pack_b_nt_f32_wasmsimd(size_t n, size_t k, const float* b, size_t ldb, float* bp);
void pack_b_nn_f32_scalar(size_t k, size_t n, const float* b, size_t ldb, float* bp);
void pack_b_nn_f32_wasmsimd(size_t k, size_t n, const float* b, size_t ldb, float* bp);

// C[m, n] (=, or += when accumulate) A[m, k]·op(B), op(B) read from packed strips: strip s of the
// k rows used starts at bp + s·strip_stride (a column block of a packed K: bp at strip j0/8,
// strip_stride 8·d_k; a row block of a packed V: bp = packed V + 8·j0, strip_stride 8·t_k).
void gemm_prepacked_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                               const float* bp, size_t strip_stride, bool accumulate, float* c,
                               size_t ldc);
void gemm_prepacked_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                 const float* bp, size_t strip_stride, bool accumulate, float* c,
                                 size_t ldc);

// Three one-row products of the same x: y_i[0:n] = bias_i + x[0:k]·B_i for i = 0, 1, 2 (B_i [k, n] with
// row stride ldb, bias_i may be nullptr: 0). A decoded token's q, k and v: the three matrices are read
// side by side, row p of each in turn, three long streams in memory order. Each y_i is the same floats
// as gemm_nn_f32(1, n, k, x, k, B_i, ldb, bias_i, y_i, n) (bias first, then p = 0, 1, … in order).
void gemv_nn3_f32_scalar(size_t n, size_t k, const float* x, const float* const b[3], size_t ldb,
                         const float* const bias[3], float* const y[3]);
void gemv_nn3_f32_wasmsimd(size_t n, size_t k, const float* x, const float* const b[3], size_t ldb,
                           const float* const bias[3], float* const y[3]);

// Row-wise softmax, y[i, :] = exp(x[i, :] − max_i) / Σ exp(x[i, :] − max_i). In place when x == y.
// −Infinity entries give exactly 0; a row whose entries are all −Infinity gives all zeros (not NaN).
void softmax_rows_f32_scalar(size_t rows, size_t cols, const float* x, size_t ldx, float* y,
                             size_t ldy);
void softmax_rows_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float* y,
                               size_t ldy);

// One key block of the online (streaming) softmax, flash-attention style. For each row i of the
// block's scores s [rows, cols] (masked entries already −∞):
//   s_ij ← min(scale·s_ij, FLT_MAX);  m' = max(m_i, max_j s_ij);  c = exp(m_i − m');
//   s_ij ← exp(s_ij − m');  l_i ← l_i·c + Σ_j s_ij;  o[i, 0:d] ← c·o[i, 0:d];  m_i ← m'.
// s then holds the block's unnormalised probabilities (for O += s·V); the caller divides O by l at
// the end. Start with m = −∞, l = 0, o = 0. A row whose scores so far are all −∞ keeps that state and
// gets zero probabilities.
void online_softmax_block_f32_scalar(size_t rows, size_t cols, float scale, float* s, size_t lds,
                                     float* m, float* l, float* o, size_t ldo, size_t d);
void online_softmax_block_f32_wasmsimd(size_t rows, size_t cols, float scale, float* s, size_t lds,
                                       float* m, float* l, float* o, size_t ldo, size_t d);

// The streaming attention's backward tiles (FlashAttention-2): probabilities recomputed from the
// forward's log-sum-exp instead of kept. For a tile of scaled, masked scores s [rows, cols]:
//   exp_minus_lse:  s_ij ← exp(min(min(s_ij, FLT_MAX) − lse_i, 0))  (= softmax_ij; 0 for −∞ scores,
//                   and the whole row 0 when lse_i = −∞: a query that saw no key)
//   softmax_grad:   dp_ij ← (p_ij·(dp_ij − delta_i))·scale   (dScores from dWeights, delta_i = Σ_j p_ij·dp_ij
//                   over the whole row, computed by the caller as rowsum(dO ∘ O))
void exp_minus_lse_f32_scalar(size_t rows, size_t cols, float* s, size_t lds, const float* lse);
void exp_minus_lse_f32_wasmsimd(size_t rows, size_t cols, float* s, size_t lds, const float* lse);
void softmax_grad_f32_scalar(size_t rows, size_t cols, const float* p, size_t ldp, float* dp,
                             size_t lddp, const float* delta, float scale);
void softmax_grad_f32_wasmsimd(size_t rows, size_t cols, const float* p, size_t ldp, float* dp,
                               size_t lddp, const float* delta, float scale);

// The pass between the scores and the softmax, on a tile [rows, cols] of the [t_q, t_k] scores whose
// top-left is (i0, j0): for i = i0 + r, j = j0 + c,
//   y[r, c] = scale·x[r, c] + M(i, j) − alibi_slope·|i − j|       M = mask.bias(i, j, t_k)
// where M = −∞ assigns −∞ rather than adding it (an overflowed +∞ score cannot become NaN). With no
// mask and no ALiBi, y = scale·x exactly. scale is finite and > 0. In place when x == y.
// Returns true when a score x or a result y is NaN (float32 overflow in q·k: +∞ and −∞ terms), which
// the softmax must never see. Both attention paths (all intermediates, and streaming per key block)
// run it.
bool scale_mask_f32_scalar(size_t rows, size_t cols, const float* x, size_t ldx, float scale,
                           const Mask& mask, float alibi_slope, size_t i0, size_t j0, size_t t_k,
                           float* y, size_t ldy);
bool scale_mask_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float scale,
                             const Mask& mask, float alibi_slope, size_t i0, size_t j0, size_t t_k,
                             float* y, size_t ldy);

// S[m, n] = −‖A[i, :] − B[j, :]‖² for A [m, k] and B [n, k] ("nt": B is laid out like K): the
// Gaussian kernel's score, so that softmax(S / bandwidth) is Nadaraya-Watson regression. Direct
// differences rather than 2a·b − ‖a‖² − ‖b‖², which cancels when points are close to each other and
// far from 0.
void neg_sq_dist_nt_f32_scalar(size_t m, size_t n, size_t k, const float* a, size_t lda,
                               const float* b, size_t ldb, float* s, size_t lds);
void neg_sq_dist_nt_f32_wasmsimd(size_t m, size_t n, size_t k, const float* a, size_t lda,
                                 const float* b, size_t ldb, float* s, size_t lds);

// Column maxima of |x| for x [rows, cols] (row stride ldx): colmax[c] ← max(|colmax[c]|, max_r |x[r, c]|),
// accumulating (start from zeros). Compared as bit patterns without the sign, so it is exact and NaN
// ranks above +∞ above every finite value: a non-finite x shows in its column's maximum. The attention
// overflow bounds (core/src/ops/check.h) take the maxima of Q, K, V and W_O from it on every call.
void column_max_abs_f32_scalar(size_t rows, size_t cols, const float* x, size_t ldx, float* colmax);
void column_max_abs_f32_wasmsimd(size_t rows, size_t cols, const float* x, size_t ldx, float* colmax);

// Index of the first NaN or ±∞ in x[0:n] (−∞ counts as finite when allow_neg_inf: additive masks),
// n when there is none. Every argument check and every overflow check of a result runs it.
size_t first_non_finite_f32_scalar(const float* x, size_t n, bool allow_neg_inf);
size_t first_non_finite_f32_wasmsimd(const float* x, size_t n, bool allow_neg_inf);

}  // namespace attnlab::kernels
