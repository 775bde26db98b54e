// attnlab — attention and the Transformer, computed step by step so that people can watch it.
//
// Two layers:
//   * Matrix level (this header's includes): reads like the lecture, speaks Eigen and throws
//     attnlab::Error on bad input. Matrices go in as Eigen::Ref<const RowMatrixXf> (row-major float:
//     your Eigen matrix, a block of one or an Eigen::Map over your buffer, read in place) and come
//     out as RowMatrixXf (attnlab/matrix.h).
//   * Pointer level (attnlab/ops.h): llm.c-style functions on raw buffers that return a Status; the
//     WebAssembly bindings and the hot paths use these.
//
// Conventions: row-major float32; a projection maps a row vector x to x·W, so W is [in, out];
// head h of a multi-head layer owns columns [h·d_k, (h+1)·d_k). Shapes are written as the lecture
// writes them: Q [t_q, d_k], K [t_k, d_k], V [t_k, d_v].
//
// Example — the study notes' "I / play / football":
//
//   #include <attnlab/attnlab.h>
//   using attnlab::RowMatrixXf;
//   RowMatrixXf X{{0.2f, 0.4f, 0.6f}, {0.8f, 0.3f, 0.3f}, {0.1f, 0.2f, 0.5f}};
//   RowMatrixXf W_Q{{1, 0}, {0, 1}, {1, -1}}, W_K{{0.5f, -0.5f}, {1, 0}, {0, 1}}, W_V{{1, 1}, {0.5f, -0.5f}, {1, 0}};
//   auto r = attnlab::attention(attnlab::matmul(X, W_Q), attnlab::matmul(X, W_K), attnlab::matmul(X, W_V));
//   // r.weights row 0 ≈ [0.3233 0.3941 0.2826], r.output row 0 ≈ [1.0137 0.2561]
#pragma once

#include "attnlab/attention.h"
#include "attnlab/backward.h"     // backward passes of the pointer-level ops (training)
#include "attnlab/block.h"      // encoder and decoder blocks
#include "attnlab/embedding.h"  // embedding, tied output head, kernel regression
#include "attnlab/ffn.h"        // position-wise feed-forward
#include "attnlab/mask.h"
#include "attnlab/matrix.h"
#include "attnlab/multihead.h"
#include "attnlab/norm.h"       // LayerNorm, RMSNorm, activations
#include "attnlab/ops.h"
#include "attnlab/optimizer.h"  // AdamW, gradient clipping, warm-up + cosine schedule (training)
#include "attnlab/positional.h"
#include "attnlab/status.h"

namespace attnlab {

// A·B for A [m, k], B [k, n] (either may be a block of a bigger matrix), by attnlab's GEMM kernel.
RowMatrixXf matmul(const Eigen::Ref<const RowMatrixXf>& A, const Eigen::Ref<const RowMatrixXf>& B);

}  // namespace attnlab
