// Hardening of the pointer-level ops: sizes whose byte counts wrap size_t are refused before
// any buffer is touched, row strides must cover a row, and float32 overflow inside an op (from finite
// inputs) is an error with a message, never NaN or ±∞ in the results. The libFuzzer harnesses in
// tests/fuzz/ search for more; these pin the cases they found.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "attnlab/ops.h"
#include "tolerance.h"

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
  attnlab::AttentionOutputs o{nullptr, nullptr, &w, &out, 1};
  Status s = attnlab::attention_forward(a, o);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "attention: tq·tk is too large")) << s.message;

  s = attnlab::weighted_sum_forward(&one, &one, kHuge, kHuge, 1, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "weightedSum: tq·tk is too large")) << s.message;

  s = attnlab::alibi_bias(kHuge, kHuge, 1, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "alibi: heads·tq·tk is too large")) << s.message;

  s = attnlab::sinusoidal_positional_encoding_forward(kHuge, kHuge, 10000.0f, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "positionalEncoding: length·dModel is too large")) << s.message;

  s = attnlab::rope_forward(&one, kHuge, kHuge, 10000.0f, 0, &out);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "rope: t·dim is too large")) << s.message;

  attnlab::MultiHeadArgs m{&one, kHuge, nullptr, 0, 2, 1, {&one, &one, &one, &one}, Mask::None()};
  attnlab::MultiHeadOutputs mo{&out, &out, &out, nullptr, &w, &out, &out};
  s = attnlab::multi_head_attention_forward(m, mo);
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "multiHeadAttention: heads·tq·tk is too large")) << s.message;
}

TEST(Hardening, RowStridesMustCoverARow) {
  std::vector<float> q(4, 0.5f), k(4, 0.5f), v(4, 1.0f), w(4), out(4);
  // The default ldo = 0 would make every output row overwrite the first.
  attnlab::AttentionArgs a{q.data(), 2, k.data(), 2, v.data(), 2, 2, 2, 2, 2, 1.0f, Mask::None()};
  attnlab::AttentionOutputs o;
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
  Status s = attnlab::multi_head_attention_forward(a, {q.data(), k.data(), v.data(), nullptr, w.data(), heads.data(), out.data()});
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.message, "multiHeadAttention: mask is missing");
}

TEST(Hardening, Float32OverflowInsideAnOpIsAnErrorNotNaN) {
  // q·k = 1e30·1e30 + 1e30·(−1e30): +∞ and −∞ terms, NaN in float32. Refused before computing, by the
  // bound Σ_d max|q_d|·max|k_d| = 2e60.
  std::vector<float> q{1e30f, 1e30f}, k{1e30f, -1e30f}, v{1.0f}, w(1), out(1);
  attnlab::AttentionArgs a{q.data(), 2, k.data(), 2, v.data(), 1, 1, 1, 2, 1, 1.0f, Mask::None()};
  Status s = attnlab::attention_forward(a, {nullptr, nullptr, w.data(), out.data(), 1});
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.message, "attention: scores q·kᵀ can exceed float32 range (bound 2e60), expected |q|·|k| within 3.4e38");

  // One-sided overflow (q·k = 1e40 → +∞) is refused too: whether a sum overflows depends on the order
  // of its terms, so only a bound that does not can make every path agree.
  std::vector<float> q1{1e20f}, k1{1e20f, 1.0f}, v1{5.0f, 7.0f}, w1(2), out1(1);
  attnlab::AttentionArgs a1{q1.data(), 1, k1.data(), 1, v1.data(), 1, 1, 2, 1, 1, 1.0f, Mask::None()};
  s = attnlab::attention_forward(a1, {nullptr, nullptr, w1.data(), out1.data(), 1});
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "attention: scores q·kᵀ can exceed float32 range (bound 1e40), expected |q|·|k| within 3.4e38")) << s.message;
  // Scaled scores plus a finite additive mask entry count too.
  std::vector<float> q2{1e19f}, k2{1e19f, 1.0f}, mask{-3e38f, 0.0f};
  a1 = {q2.data(), 1, k2.data(), 1, v1.data(), 1, 1, 2, 1, 1, 1.0f, Mask::Additive(mask.data())};
  s = attnlab::attention_forward(a1, {nullptr, nullptr, w1.data(), out1.data(), 1});
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "attention: scores q·kᵀ·scale can exceed float32 range (bound 4e38), expected |q|·|k|·scale + |mask| within 3.4e38")) << s.message;
  mask[0] = -std::numeric_limits<float>::infinity();  // −∞ removes the key and adds nothing
  ASSERT_TRUE(attnlab::attention_forward(a1, {nullptr, nullptr, w1.data(), out1.data(), 1}).ok);
  EXPECT_EQ(out1[0], 7.0f);

  std::vector<float> ws{2.0f, 2.0f}, vs{3e38f, 3e38f}, o2(1);
  s = attnlab::weighted_sum_forward(ws.data(), vs.data(), 1, 2, 1, o2.data());
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "weightedSum: output[0] is Infinity after a float32 overflow")) << s.message;

  std::vector<float> x{1.0f, 1.0f, 3e38f, 3e38f}, r(4);
  s = attnlab::rope_forward(x.data(), 2, 2, 10000.0f, 0, r.data());
  ASSERT_FALSE(s.ok);
  EXPECT_TRUE(starts_with(s.message, "rope: output[3] is Infinity after a float32 overflow")) << s.message;
}

// Runs both multi-head paths on one input: the all-intermediates op and the streaming one.
struct BothPaths {
  Status full, streaming;
  std::vector<float> full_out, streaming_out;
};
BothPaths run_both(const attnlab::MultiHeadArgs& a) {
  const size_t tq = a.t_q, tk = a.context ? a.t_k : a.t_q, D = a.d_model, H = a.heads;
  BothPaths r;
  std::vector<float> q(tq * D), k(tk * D), v(tk * D), w(H * tq * tk), heads(tq * D);
  r.full_out.resize(tq * D);
  r.full = attnlab::multi_head_attention_forward(a, {q.data(), k.data(), v.data(), nullptr, w.data(), heads.data(), r.full_out.data()});
  std::vector<float> ws(attnlab::multi_head_streaming_workspace_floats(tk, D, H));
  r.streaming_out.resize(tq * D);
  r.streaming = attnlab::multi_head_attention_forward_streaming(a, {q.data(), k.data(), v.data(), ws.data(), r.streaming_out.data()});
  return r;
}

TEST(Hardening, OverflowingScoresAreRefusedByBothMultiHeadPathsAlike) {
  // The fuzzer's input (tests/fuzz/corpus/multihead_streaming/regress-scores-overflow-window): t = 10,
  // dModel = 2, 2 heads, a window mask, scale = FLT_MAX, one input −1e19. Scores overflowed float32 to
  // +∞ or to FLT_MAX depending on each path's summation order, and the paths shared the weight among
  // 8 or 9 keys: −1e19/8 vs −1e19/9. Now both refuse it, with the same message.
  std::vector<float> x{-0.5f, 0.25f, 0.25f, 2.0f, 0.5f, 0.0f, -1e19f, 0.5f, 0.5f, 1.0f,
                       2.0f, 0.0f, -1.0f, 0.25f, 2.0f, 0.25f, 0.25f, -0.5f, 0.25f, 2.0f};
  std::vector<float> wq{2.0f, 0.25f, 0.0f, 0.25f}, wk{2.0f, -0.5f, -0.5f, 0.5f}, wv{-0.5f, -1.0f, 2.0f, 0.25f},
      wo{-0.5f, 0.25f, -1.0f, 0.5f};
  attnlab::MultiHeadArgs a{x.data(), 10, nullptr, 0, 2, 2, {wq.data(), wk.data(), wv.data(), wo.data()},
                           Mask::Window(5), std::numeric_limits<float>::max()};
  BothPaths r = run_both(a);
  ASSERT_FALSE(r.full.ok);
  EXPECT_EQ(r.streaming.message, r.full.message);
  // q = x·wq and k = x·wk reach −2e19 in head 0's column: |q|·|k| up to 4e38 before any scale.
  EXPECT_EQ(r.full.message, "multiHeadAttention: scores q·kᵀ of head 0 can exceed float32 range (bound 4e38), "
                            "expected |q|·|k| within 3.4e38");

  // With −1e17 instead of −1e19 and the default scale the scores fit: both accept, and agree.
  x[6] = -1e17f;
  a.scale = 0.0f;
  r = run_both(a);
  ASSERT_TRUE(r.full.ok) << r.full.message;
  ASSERT_TRUE(r.streaming.ok) << r.streaming.message;
  for (size_t i = 0; i < r.full_out.size(); ++i)
    EXPECT_CLOSE(r.streaming_out[i], r.full_out[i], attnlab_test::tol::kUlps) << i;
}

TEST(Hardening, HugeValuesGiveTheSameOutputOnBothMultiHeadPaths) {
  // Equal scores over 9 keys with values 3e38: the output (the mean) is 3e38. The streaming path sums
  // p·v before dividing by l (9·3e38 = +∞ in float32) unless it scales p by a power of two.
  const size_t t = 9;
  std::vector<float> x(t, 3e38f), zero{0.0f}, one{1.0f};
  attnlab::MultiHeadArgs a{x.data(), t, nullptr, 0, 1, 1, {zero.data(), zero.data(), one.data(), one.data()},
                           Mask::None()};
  BothPaths r = run_both(a);
  ASSERT_TRUE(r.full.ok) << r.full.message;
  ASSERT_TRUE(r.streaming.ok) << r.streaming.message;
  for (size_t i = 0; i < t; ++i) {
    EXPECT_FLOAT_EQ(r.full_out[i], 3e38f);
    EXPECT_FLOAT_EQ(r.streaming_out[i], 3e38f);
  }
  // Values within rounding of FLT_MAX, or an output projection that could overflow: both refuse alike.
  x.assign(t, std::numeric_limits<float>::max());
  r = run_both(a);
  ASSERT_FALSE(r.full.ok);
  EXPECT_EQ(r.streaming.message, r.full.message);
  EXPECT_TRUE(starts_with(r.full.message, "multiHeadAttention: weights·v can exceed float32 range")) << r.full.message;
  x.assign(t, 3e38f);
  std::vector<float> two{2.0f};
  a.w.wo = two.data();
  r = run_both(a);
  ASSERT_FALSE(r.full.ok);
  EXPECT_EQ(r.streaming.message, r.full.message);
  EXPECT_EQ(r.full.message, "multiHeadAttention: output heads·wo + bo can exceed float32 range (bound 6e38), expected |v|·|wo| + |bo| within 3.4e38");
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

TEST(BadInput, BlocksGiveAStatusWithAClearMessage) {
  std::vector<float> x(8, 1.0f), y(8), w(64, 0.1f);
  EXPECT_EQ(attnlab::layer_norm_forward(x.data(), 2, 4, nullptr, nullptr, 0.0f, y.data()).message,
            "layerNorm: eps is 0, expected a finite number > 0");
  x[5] = NAN;
  EXPECT_EQ(attnlab::rms_norm_forward(x.data(), 2, 4, nullptr, 1e-6f, y.data()).message,
            "rmsNorm: x[5] is NaN, expected finite values");
  x[5] = 1.0f;
  EXPECT_EQ(attnlab::feed_forward_forward(x.data(), 2, 4, 8, {w.data(), nullptr, nullptr}, attnlab::Activation::relu,
                                          {nullptr, y.data(), y.data()})
                .message,
            "feedForward: w2 is missing");
  const int ids[] = {0, 3};
  EXPECT_EQ(attnlab::embedding_forward(w.data(), 3, 4, ids, 2, y.data()).message,
            "embedding: ids[1] is 3, expected an integer in [0, vocab = 3)");
  EXPECT_EQ(attnlab::kernel_regression_forward(x.data(), x.data(), 2, x.data(), 1, 1,
                                               attnlab::RegressionKernel::gaussian, -1.0f, nullptr, y.data(), y.data())
                .message,
            "kernelRegression: bandwidth is -1, expected a finite number > 0");

  // An encoder block: a missing weight, a NaN LayerNorm gain, a missing output buffer.
  std::vector<float> buf(16 * 64);
  attnlab::EncoderBlockArgs a{};
  a.x = x.data(), a.t = 2, a.d_model = 4, a.heads = 2, a.d_ff = 8;
  a.w.attn = {w.data(), w.data(), nullptr, w.data()};
  a.w.ffn = {w.data(), nullptr, w.data(), nullptr};
  attnlab::EncoderBlockOutputs o{};
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message, "encoderBlock: weights.wv is missing");
  a.w.attn.wv = w.data();
  std::vector<float> gamma{1, NAN, 1, 1};
  a.w.ln2.gamma = gamma.data();
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message,
            "encoderBlock: weights.ln2Gamma[1] is NaN, expected finite values");
  a.w.ln2.gamma = nullptr;
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message, "encoderBlock: an output buffer is missing");
  a.heads = 3;
  EXPECT_EQ(attnlab::encoder_block_forward(a, o).message,
            "encoderBlock: heads = 3 does not divide dModel = 4, expected dModel to be a multiple of heads");
}
