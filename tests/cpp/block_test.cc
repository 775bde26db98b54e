// encoder_block and decoder_block against a float64 composition of the formulas, pre- and post-norm.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "reference.h"

using namespace attnlab_test;

class EncoderBlock : public ::testing::TestWithParam<std::tuple<attnlab::NormPlacement, attnlab::Activation, bool>> {};

TEST_P(EncoderBlock, MatchesFloat64Composition) {
  const auto [norm, act, causal] = GetParam();
  std::mt19937 rng(4);
  const size_t t = 7, D = 12, H = 3, F = 20;
  attnlab::OwnedEncoderBlockWeights w{random_attention(rng, D), random_ln(rng, D), random_ln(rng, D), random_ffn(rng, D, F)};
  RowMatrixXf x = random_matrix(rng, t, D);
  auto r = attnlab::encoder_block(x, w, {H, norm, act, 1e-5f}, causal ? attnlab::Mask::Causal() : attnlab::Mask::None());
  const Vec xd = to_d(x);
  auto ln = [&](const Vec& v, const attnlab::OwnedLayerNormWeights& p) { return layer_norm_d(v, t, D, to_d(p.gamma), to_d(p.beta), 1e-5); };
  Vec out;
  if (norm == attnlab::NormPlacement::post) {
    const Vec y = ln(add_d(xd, mha_d(xd, t, xd, t, D, H, w.attn, causal)), w.ln1);
    out = ln(add_d(y, ffn_d(y, t, D, F, w.ffn, act)), w.ln2);
  } else {
    const Vec n1 = ln(xd, w.ln1);
    const Vec y = add_d(xd, mha_d(n1, t, n1, t, D, H, w.attn, causal));
    out = add_d(y, ffn_d(ln(y, w.ln2), t, D, F, w.ffn, act));
  }
  expect_near_all(r.output, out, tol::kSum, "encoder output");
  ASSERT_EQ(r.attn.weights.size(), H);
  if (causal) EXPECT_EQ(r.attn.weights[1](0, 1), 0.0f);  // no peeking ahead
}

INSTANTIATE_TEST_SUITE_P(
    Blocks, EncoderBlock,
    ::testing::Combine(::testing::Values(attnlab::NormPlacement::post, attnlab::NormPlacement::pre),
                       ::testing::Values(attnlab::Activation::relu, attnlab::Activation::gelu),
                       ::testing::Bool()));

TEST(DecoderBlock, MatchesFloat64CompositionPreAndPost) {
  std::mt19937 rng(5);
  const size_t t = 5, tm = 3, D = 8, H = 2, F = 16;
  attnlab::OwnedDecoderBlockWeights w{random_attention(rng, D), random_attention(rng, D), random_ln(rng, D),
                                 random_ln(rng, D), random_ln(rng, D), random_ffn(rng, D, F)};
  RowMatrixXf x = random_matrix(rng, t, D), mem = random_matrix(rng, tm, D);
  const Vec xd = to_d(x), md = to_d(mem);
  auto ln = [&](const Vec& v, const attnlab::OwnedLayerNormWeights& p) { return layer_norm_d(v, t, D, to_d(p.gamma), to_d(p.beta), 1e-5); };
  for (auto norm : {attnlab::NormPlacement::post, attnlab::NormPlacement::pre}) {
    auto r = attnlab::decoder_block(x, mem, w, {H, norm, attnlab::Activation::gelu, 1e-5f});
    Vec out;
    if (norm == attnlab::NormPlacement::post) {
      const Vec y1 = ln(add_d(xd, mha_d(xd, t, xd, t, D, H, w.self_attn, true)), w.ln1);
      const Vec y2 = ln(add_d(y1, mha_d(y1, t, md, tm, D, H, w.cross_attn, false)), w.ln2);
      out = ln(add_d(y2, ffn_d(y2, t, D, F, w.ffn, attnlab::Activation::gelu)), w.ln3);
    } else {
      const Vec n1 = ln(xd, w.ln1);
      const Vec y1 = add_d(xd, mha_d(n1, t, n1, t, D, H, w.self_attn, true));
      const Vec y2 = add_d(y1, mha_d(ln(y1, w.ln2), t, md, tm, D, H, w.cross_attn, false));
      out = add_d(y2, ffn_d(ln(y2, w.ln3), t, D, F, w.ffn, attnlab::Activation::gelu));
    }
    expect_near_all(r.output, out, tol::kSum, "decoder output");
    ASSERT_EQ(r.cross_attn.weights.size(), H);
    EXPECT_EQ(size_t(r.cross_attn.weights[0].cols()), tm);  // queries from the decoder, keys from memory
    EXPECT_EQ(size_t(r.cross_attn.k.rows()), tm);
  }
}

TEST(Blocks, MatrixApiThrowsOnShapeMismatch) {
  std::mt19937 rng(8);
  attnlab::OwnedEncoderBlockWeights w{random_attention(rng, 4), {}, {}, random_ffn(rng, 4, 8)};
  EXPECT_THROW(attnlab::encoder_block(RowMatrixXf::Zero(3, 5), w, {2}), attnlab::Error);
  w.attn.bq.resize(3);
  EXPECT_THROW(attnlab::encoder_block(RowMatrixXf::Zero(3, 4), w, {2}), attnlab::Error);
  EXPECT_THROW(attnlab::embed(RowMatrixXf::Zero(3, 4), {0, 7}), attnlab::Error);
}
