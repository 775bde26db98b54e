// Hardening of the pointer-level ops (issue 7): sizes whose byte counts wrap size_t are refused before
// any buffer is touched, row strides must cover a row, and float32 overflow inside an op (from finite
// inputs) is an error with a message, never NaN or ±∞ in the results. The libFuzzer harnesses in
// tests/fuzz/ search for more; these pin the cases they found.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "attnlab/ops.h"

namespace {

using attnlab::Mask;
using attnlab::Status;

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// A size whose square times sizeof(float) wraps any size_t (2^33 on 64-bit, 2^17 on wasm32 would do).
constexpr size_t kHuge = size_t{1} << (sizeof(size_t) * 4);

TEST(Hardening, SizesWhoseByteCountWrapsAreRefusedBeforeReading) {
  // Pointers to one float: any read past it would be caught by ASan (tests run under it in CI).
  float one = 0.0f, out = 0.0f, w = 0.0f;
  attnlab::AttentionArgs a{&one, kHuge, &one, kHuge, &one, 1, kHuge, kHuge, kHuge, 1, 1.0f, Mask::None()};
  attnlab::AttentionOut o{nullptr, nullptr, &w, &out, 1};
  Status s = attnlab::attention_forward(a, o);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "attention: tq·tk is too large")) << s.message;

  s = attnlab::weighted_sum_forward(&one, &one, kHuge, kHuge, 1, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "weightedSum: tq·tk is too large")) << s.message;

  s = attnlab::alibi_bias(kHuge, kHuge, 1, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "alibi: heads·tq·tk is too large")) << s.message;

  s = attnlab::sinusoidal_encoding(kHuge, kHuge, 10000.0f, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "positionalEncoding: length·dModel is too large")) << s.message;

  s = attnlab::rope_rotate(&one, kHuge, kHuge, 10000.0f, 0, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "rope: t·dim is too large")) << s.message;

  attnlab::MultiHeadArgs m{&one, kHuge, nullptr, 0, 2, 1, {&one, &one, &one, &one}, Mask::None()};
  attnlab::MultiHeadOut mo{&out, &out, &out, nullptr, &w, &out, &out};
  s = attnlab::multihead_attention_forward(m, mo);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "multiHeadAttention: heads·tq·tk is too large")) << s.message;
}

TEST(Hardening, RowStridesMustCoverARow) {
  std::vector<float> q(4, 0.5f), k(4, 0.5f), v(4, 1.0f), w(4), out(4);
  // The default ldo = 0 would make every output row overwrite the first.
  attnlab::AttentionArgs a{q.data(), 2, k.data(), 2, v.data(), 2, 2, 2, 2, 2, 1.0f, Mask::None()};
  attnlab::AttentionOut o;
  o.weights = w.data();
  o.out = out.data();
  Status s = attnlab::attention_forward(a, o);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.message, "attention: ldo is 0, expected a row stride ≥ dv = 2");
  o.ldo = 2;
  EXPECT_TRUE(attnlab::attention_forward(a, o).ok);
}

TEST(Hardening, MultiHeadAdditiveMaskWithoutValuesIsRefused) {
  std::vector<float> x(4, 1.0f), wt(4, 0.5f), q(4), k(4), v(4), w(4), heads(4), out(4);
  attnlab::MultiHeadArgs a{x.data(), 2, nullptr, 0, 2, 1, {wt.data(), wt.data(), wt.data(), wt.data()},
                           Mask::Additive(nullptr)};
  Status s = attnlab::multihead_attention_forward(a, {q.data(), k.data(), v.data(), nullptr, w.data(), heads.data(), out.data()});
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.message, "multiHeadAttention: mask is missing");
}

TEST(Hardening, Float32OverflowInsideAnOpIsAnErrorNotNaN) {
  // q·k = 1e30·1e30 + 1e30·(−1e30): +∞ and −∞ terms, NaN in float32.
  std::vector<float> q{1e30f, 1e30f}, k{1e30f, -1e30f}, v{1.0f}, w(1), out(1);
  attnlab::AttentionArgs a{q.data(), 2, k.data(), 2, v.data(), 1, 1, 1, 2, 1, 1.0f, Mask::None()};
  Status s = attnlab::attention_forward(a, {nullptr, nullptr, w.data(), out.data(), 1});
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "attention: weights[0] is NaN after a float32 overflow, expected")) << s.message;

  // One-sided overflow has a limit: the +∞ score takes all the weight.
  std::vector<float> q1{1e20f}, k1{1e20f, 1.0f}, v1{5.0f, 7.0f}, w1(2), out1(1);
  attnlab::AttentionArgs a1{q1.data(), 1, k1.data(), 1, v1.data(), 1, 1, 2, 1, 1, 1.0f, Mask::None()};
  ASSERT_TRUE(attnlab::attention_forward(a1, {nullptr, nullptr, w1.data(), out1.data(), 1}).ok);
  EXPECT_EQ(w1[0], 1.0f);
  EXPECT_EQ(w1[1], 0.0f);
  EXPECT_EQ(out1[0], 5.0f);

  std::vector<float> ws{2.0f, 2.0f}, vs{3e38f, 3e38f}, o2(1);
  s = attnlab::weighted_sum_forward(ws.data(), vs.data(), 1, 2, 1, o2.data());
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "weightedSum: output[0] is Infinity after a float32 overflow")) << s.message;

  std::vector<float> x{1.0f, 1.0f, 3e38f, 3e38f}, r(4);
  s = attnlab::rope_rotate(x.data(), 2, 2, 10000.0f, 0, r.data());
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "rope: output[3] is Infinity after a float32 overflow")) << s.message;
}

TEST(Hardening, OutputHeadTinyTemperatureIsTheArgmax) {
  // softmax(l/T) with T → 0: subtracting the max first keeps the best logit at exp(0) = 1.
  std::vector<float> h{1.0f, -2.0f}, table{-0.5f, 0.1f, -0.2f, 0.3f, -0.9f, 0.0f}, logits(3), probs(3);
  ASSERT_TRUE(attnlab::output_head_forward(h.data(), 1, table.data(), 3, 2, nullptr,
                                           std::numeric_limits<float>::denorm_min(), logits.data(), probs.data()).ok);
  // logits: −0.7, −0.8, −0.9
  EXPECT_EQ(probs[0], 1.0f);
  EXPECT_EQ(probs[1], 0.0f);
  EXPECT_EQ(probs[2], 0.0f);
}

}  // namespace
