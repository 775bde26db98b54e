// The Matrix level speaks Eigen: a C++ user's own Eigen data (a matrix, a block of a bigger one, a
// Map over a buffer, a product expression) goes in without a copy where the op takes a row stride,
// and every kind of argument gives the same numbers as a contiguous copy.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "reference.h"

using namespace attnlab_test;
using Ref = Eigen::Ref<const RowMatrixXf>;

namespace {

// A [rows, cols] matrix whose every entry is NaN, to hold blocks: a function that read past a block's
// row (ignoring its stride) would read NaN and be refused or give NaN.
RowMatrixXf nan_frame(Eigen::Index rows, Eigen::Index cols) {
  return RowMatrixXf::Constant(rows, cols, std::numeric_limits<float>::quiet_NaN());
}

void expect_equal(const RowMatrixXf& got, const RowMatrixXf& want, const char* what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  expect_near_all(got, to_d(want), tol::kExact, what);
}

}  // namespace

TEST(EigenApi, BlockBindsInPlaceWithItsRowStride) {
  RowMatrixXf big = nan_frame(9, 11);
  const Ref ref(big.block(2, 3, 4, 5));  // what attention(), matmul() … receive
  EXPECT_EQ(ref.data(), &big(2, 3));     // no temporary
  EXPECT_EQ(ref.outerStride(), 11);      // rows 11 floats apart
}

TEST(EigenApi, AttentionAndMatmulReadBlocksThroughTheStride) {
  std::mt19937 rng(11);
  const RowMatrixXf Q = random_matrix(rng, 7, 4), K = random_matrix(rng, 7, 4), V = random_matrix(rng, 7, 3);
  // The same values as blocks of wider NaN-filled matrices, each at an awkward offset.
  RowMatrixXf bq = nan_frame(10, 13), bk = nan_frame(9, 6), bv = nan_frame(7, 10);
  bq.block(2, 5, 7, 4) = Q, bk.block(1, 1, 7, 4) = K, bv.block(0, 6, 7, 3) = V;
  const auto want = attnlab::attention(Q, K, V, attnlab::Mask::Window(2));
  const auto got = attnlab::attention(bq.block(2, 5, 7, 4), bk.block(1, 1, 7, 4), bv.block(0, 6, 7, 3),
                                      attnlab::Mask::Window(2));
  expect_equal(got.scores, want.scores, "scores");
  expect_equal(got.weights, want.weights, "weights");
  expect_equal(got.output, want.output, "output");

  const RowMatrixXf W = random_matrix(rng, 4, 6);
  RowMatrixXf bw = nan_frame(5, 9);
  bw.block(1, 2, 4, 6) = W;
  const RowMatrixXf P = attnlab::matmul(bq.block(2, 5, 7, 4), bw.block(1, 2, 4, 6));
  expect_equal(P, attnlab::matmul(Q, W), "matmul of blocks");
  const RowMatrixXf eigen = Q * W;  // Eigen's own product, another summation order
  expect_near_all(P, to_d(eigen), tol::kSum, "matmul vs Eigen");
}

TEST(EigenApi, OpsWithoutAStrideTakeBlocksMapsAndExpressions) {
  std::mt19937 rng(12);
  const size_t t = 6, D = 8, H = 2, F = 12;
  const RowMatrixXf x = random_matrix(rng, t, D), ctx = random_matrix(rng, 4, D);
  RowMatrixXf frame = nan_frame(t + 3, D + 5);
  frame.block(3, 2, t, D) = x;
  const auto x_block = frame.block(3, 2, t, D);  // narrower than its matrix: rows not contiguous
  std::vector<float> buffer(x.data(), x.data() + x.size());
  const Eigen::Map<const RowMatrixXf> x_map(buffer.data(), t, D);

  attnlab::OwnedMultiHeadWeights w = random_attention(rng, D);
  attnlab::MultiHeadAttention mha(H, w.wq, w.wk, w.wv, w.wo);
  mha.set_biases(w.bq, w.bk, w.bv, w.bo);
  const auto want = mha(x, ctx);
  for (const auto& got : {mha(x_block, ctx), mha(x_map, ctx)}) {
    expect_equal(got.output, want.output, "multi-head output");
    ASSERT_EQ(got.weights.size(), H);
    expect_equal(got.weights[1], want.weights[1], "multi-head weights");
  }
  const auto ln = random_ln(rng, D);
  expect_equal(attnlab::layer_norm(x_block, ln.gamma, ln.beta), attnlab::layer_norm(x, ln.gamma, ln.beta),
               "layer_norm of a block");
  expect_equal(attnlab::activation(x_block, attnlab::Activation::gelu),
               attnlab::activation(x, attnlab::Activation::gelu), "gelu of a block");
  const auto p = random_ffn(rng, D, F);
  attnlab::FeedForward ffn(p.w1, p.w2, p.b1, p.b2);
  expect_equal(ffn(x_block).output, ffn(x).output, "feed-forward of a block");
  attnlab::OwnedEncoderBlockWeights ew{w, random_ln(rng, D), random_ln(rng, D), p};
  expect_equal(attnlab::encoder_block(x_block, ew, {H}).output, attnlab::encoder_block(x, ew, {H}).output,
               "encoder block of a block");

  // A product expression is evaluated by Eigen into a temporary, then used like any matrix.
  const RowMatrixXf q = x * w.wq;
  expect_equal(attnlab::rope(x * w.wq, 10000.0f, 3), attnlab::rope(q, 10000.0f, 3), "rope of a product");
}

TEST(EigenApi, ErrorsKeepTheirMessages) {
  const RowMatrixXf A = RowMatrixXf::Zero(2, 3), B = RowMatrixXf::Zero(4, 5);
  try {
    attnlab::matmul(A, B);
    FAIL() << "expected an error";
  } catch (const attnlab::Error& e) {
    EXPECT_STREQ(e.what(), "matmul: A is [2, 3] and B is [4, 5], expected A.cols = B.rows");
  }
  try {
    attnlab::MultiHeadAttention(2, RowMatrixXf::Zero(4, 4), RowMatrixXf::Zero(4, 4), RowMatrixXf::Zero(4, 3),
                                RowMatrixXf::Zero(4, 4));
    FAIL() << "expected an error";
  } catch (const attnlab::Error& e) {
    EXPECT_STREQ(e.what(), "MultiHeadAttention: weights are [4, 3], expected [dModel, dModel] = [4, 4]");
  }
  try {
    attnlab::FeedForward(RowMatrixXf::Zero(4, 8), RowMatrixXf::Zero(8, 4))(RowMatrixXf::Zero(3, 5));
    FAIL() << "expected an error";
  } catch (const attnlab::Error& e) {
    EXPECT_STREQ(e.what(), "FeedForward: x is [3, 5], expected [3, 4]");
  }
}
