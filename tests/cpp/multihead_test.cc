// multi-head attention: the notes' two-head example, bad input, and the streaming (output-only) path
// against the all-intermediates op for every mask kind, cross-attention, RoPE and ALiBi, at sizes that
// cross its query and key blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attnlab/attnlab.h"
#include "tolerance.h"

using attnlab::RowMatrixXf;
namespace tol = attnlab_test::tol;

TEST(MultiHead, NotesTheCatSatHeadOne) {
  // The notes' two-head example, d_model 4, d_k 2. W_K of head 2 was lost in the OCR; attnlab uses
  // [[0.2,0.3],[0.4,0.5],[0.6,0.7],[0.8,0.9]] (matches the surviving K_sat,2 = [0.6, 0.8]).
  RowMatrixXf X{{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}};
  RowMatrixXf WQ{{0.1f, 0.2f, 0.9f, 0.8f}, {0.3f, 0.4f, 0.7f, 0.6f}, {0.5f, 0.6f, 0.5f, 0.4f}, {0.7f, 0.8f, 0.3f, 0.2f}};
  RowMatrixXf WK{{0.8f, 0.7f, 0.2f, 0.3f}, {0.6f, 0.5f, 0.4f, 0.5f}, {0.4f, 0.3f, 0.6f, 0.7f}, {0.2f, 0.1f, 0.8f, 0.9f}};
  RowMatrixXf WV{{0.1f, 0.1f, 0.5f, 0.5f}, {0.2f, 0.2f, 0.6f, 0.6f}, {0.3f, 0.3f, 0.7f, 0.7f}, {0.4f, 0.4f, 0.8f, 0.8f}};
  RowMatrixXf WO{{0.1f, 0.2f, 0.3f, 0.4f}, {0.5f, 0.6f, 0.7f, 0.8f}, {0.9f, 1.0f, 1.1f, 1.2f}, {1.3f, 1.4f, 1.5f, 1.6f}};
  attnlab::MultiHeadAttention mha(2, WQ, WK, WV, WO);
  auto r = mha(X);
  // The notes: Q_the,1 = [0.6, 0.8], K_the,1 = [1.2, 1.0], Q_sat,2 = [1.6, 1.4], V_cat,2 = [1.4, 1.4].
  EXPECT_CLOSE(r.q(0, 0), 0.6f, tol::kRounding);
  EXPECT_CLOSE(r.q(0, 1), 0.8f, tol::kRounding);
  EXPECT_CLOSE(r.k(0, 0), 1.2f, tol::kRounding);
  EXPECT_CLOSE(r.q(2, 2), 1.6f, tol::kRounding);
  EXPECT_CLOSE(r.v(1, 3), 1.4f, tol::kRounding);
  // Head 1 scaled scores for "the": [1.52, 0.96, 1.8] / √2 → softmax.
  const float s[] = {1.52f / std::sqrt(2.f), 0.96f / std::sqrt(2.f), 1.8f / std::sqrt(2.f)};
  const float z = std::exp(s[0]) + std::exp(s[1]) + std::exp(s[2]);
  for (int j = 0; j < 3; ++j) EXPECT_CLOSE(r.weights[0](0, j), std::exp(s[j]) / z, tol::kRounding);
  // Output = Concat(heads)·W_O.
  for (size_t i = 0; i < 3; ++i)
    for (size_t c = 0; c < 4; ++c) {
      float acc = 0;
      for (size_t p = 0; p < 4; ++p) acc += r.heads(i, p) * WO(p, c);
      EXPECT_CLOSE(r.output(i, c), acc, tol::kSum);
    }
}

TEST(MultiHead, HeadsMustDivideDModel) {
  const RowMatrixXf W = RowMatrixXf::Constant(6, 6, 0.1f);
  attnlab::MultiHeadAttention mha(4, W, W, W, W);
  try {
    mha(RowMatrixXf::Constant(2, 6, 1.0f));
    FAIL();
  } catch (const attnlab::Error& e) {
    EXPECT_NE(std::string(e.what()).find("heads = 4 does not divide dModel = 6"), std::string::npos);
  }
}

namespace {

std::vector<float> randn(size_t n, unsigned seed, float s = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, s);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct Case {
  size_t tq, tk, D, H;
  attnlab::Mask mask;
  bool cross = false, rope = false, alibi = false, bias = false;
};

// exact: a sequence within the streaming path's one [48, 128] tile takes the plain softmax, the full op's
// kernels in its order, so its output and heads are the full op's bit for bit.
void expect_streaming_matches(const Case& c, unsigned seed, bool exact = false) {
  const size_t D = c.D, tq = c.tq, tk = c.cross ? c.tk : c.tq;
  const float ws = 1.0f / std::sqrt(float(D));
  auto x = randn(tq * D, seed), ctx = randn(tk * D, seed + 1);
  auto wq = randn(D * D, seed + 2, ws), wk = randn(D * D, seed + 3, ws), wv = randn(D * D, seed + 4, ws),
       wo = randn(D * D, seed + 5, ws), b = randn(D, seed + 6, 0.1f);
  std::vector<float> additive;
  attnlab::Mask mask = c.mask;
  if (mask.kind == attnlab::Mask::Kind::additive) {
    additive = randn(tq * tk, seed + 7);
    for (size_t i = 0; i < tq * tk; i += 3) additive[i] = -std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < tk; ++j) additive[j] = -std::numeric_limits<float>::infinity();  // row 0: no key
    mask = attnlab::Mask::Additive(additive.data());
  }
  attnlab::MultiHeadWeights w{wq.data(), wk.data(), wv.data(), wo.data()};
  if (c.bias) w.bq = w.bk = w.bv = w.bo = b.data();
  attnlab::MultiHeadArgs a{x.data(), tq, c.cross ? ctx.data() : nullptr, tk, D, c.H, w, mask};
  a.rope = c.rope;
  a.alibi = c.alibi;

  std::vector<float> q(tq * D), k(tk * D), v(tk * D), wts(c.H * tq * tk), heads(tq * D), out(tq * D);
  attnlab::MultiHeadOutputs full{q.data(), k.data(), v.data(), nullptr, wts.data(), heads.data(), out.data()};
  ASSERT_TRUE(attnlab::multi_head_attention_forward(a, full).ok);

  std::vector<float> q2(tq * D), k2(tk * D), v2(tk * D), out2(tq * D);
  std::vector<float> work(attnlab::multi_head_streaming_workspace_floats(tk, D, c.H));
  attnlab::MultiHeadStreamingOutputs so{q2.data(), k2.data(), v2.data(), work.data(), out2.data()};
  auto st = attnlab::multi_head_attention_forward_streaming(a, so);
  ASSERT_TRUE(st.ok) << st.message;
  if (exact) {
    for (size_t i = 0; i < tq * D; ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(out2[i]), std::bit_cast<uint32_t>(out[i]))
          << "output " << i << ": " << out2[i] << " vs " << out[i] << " (tq=" << tq << " tk=" << tk << ")";
      ASSERT_EQ(std::bit_cast<uint32_t>(q2[i]), std::bit_cast<uint32_t>(heads[i])) << "heads " << i;
    }
    return;
  }
  for (size_t i = 0; i < tq * D; ++i) {
    ASSERT_CLOSE(out2[i], out[i], tol::kRef)
        << "at " << i << " (tq=" << tq << " tk=" << tk << " D=" << D << " H=" << c.H << ")";
    ASSERT_CLOSE(q2[i], heads[i], tol::kRef);  // q ends as Concat(heads)
  }
}

}  // namespace

TEST(Streaming, MatchesAllIntermediates) {
  using attnlab::Mask;
  const Case cases[] = {
      {1, 1, 4, 1, Mask::None()},
      {3, 3, 8, 2, Mask::Causal()},
      {49, 49, 24, 3, Mask::None(), false, false, false, true},  // crosses the 48-query block
      {131, 131, 16, 2, Mask::Causal()},                         // crosses the 128-key block
      {200, 200, 32, 4, Mask::Window(17)},
      {200, 200, 32, 4, Mask::Window(5, true)},
      {97, 263, 20, 5, Mask::Additive(nullptr), true},  // cross-attention, additive mask, empty row 0
      {61, 300, 12, 3, Mask::None(), true, false, false, true},
      {150, 150, 16, 2, Mask::Causal(), false, true},  // RoPE
      {150, 150, 16, 4, Mask::None(), false, false, true},  // ALiBi
  };
  unsigned seed = 100;
  for (const auto& c : cases) expect_streaming_matches(c, seed += 10);
}

TEST(Streaming, WithinOneTileIsTheFullOpBitForBit) {
  using attnlab::Mask;
  const Case cases[] = {
      {16, 16, 64, 4, Mask::None()},  // the interactive shape
      {16, 16, 64, 4, Mask::Causal(), false, false, false, true},
      {1, 1, 4, 1, Mask::None()},
      {48, 48, 24, 3, Mask::Window(5, true)},  // the tile's last query row
      {7, 128, 20, 5, Mask::Additive(nullptr), true},  // cross, its last key, a row that sees no key
      {30, 30, 16, 2, Mask::Causal(), false, true},  // RoPE
      {30, 30, 16, 4, Mask::None(), false, false, true},  // ALiBi
  };
  unsigned seed = 300;
  for (const auto& c : cases) expect_streaming_matches(c, seed += 10, true);
}

TEST(Streaming, RejectsBadArgumentsLikeTheFullOp) {
  std::vector<float> x(6, 1.0f), w(9, 0.1f), q(6), k(6), v(6), out(6);
  std::vector<float> work(attnlab::multi_head_streaming_workspace_floats(2, 3, 2));
  attnlab::MultiHeadArgs a{x.data(), 2, nullptr, 2, 3, 2, {w.data(), w.data(), w.data(), w.data()},
                           attnlab::Mask::None()};
  attnlab::MultiHeadStreamingOutputs o{q.data(), k.data(), v.data(), work.data(), out.data()};
  auto s = attnlab::multi_head_attention_forward_streaming(a, o);
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.message.find("heads = 2 does not divide dModel = 3"), std::string::npos);
}
