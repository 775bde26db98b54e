// libFuzzer harness for attnlab::encoder_block_forward and decoder_block_forward (post- or pre-LN,
// ReLU/GELU, masks, optional biases and LayerNorm parameters). Invariant when they accept: every
// intermediate and the output finite, attention weights rows distributions.
#include "fuzz_common.h"

namespace {

struct Params {  // the weights of one multi-head attention
  std::vector<float> w[4], b[4];
  attnlab::MultiHeadWeights get(bool bias) const {
    return {w[0].data(), w[1].data(), w[2].data(), w[3].data(), bias ? b[0].data() : nullptr,
            bias ? b[1].data() : nullptr, bias ? b[2].data() : nullptr, bias ? b[3].data() : nullptr};
  }
};
struct MhaBuffers {
  std::vector<float> q, k, v, weights, heads, out;
  MhaBuffers(size_t t, size_t tk, size_t D, size_t H)
      : q(fuzz::out_buffer(t * D)), k(fuzz::out_buffer(tk * D)), v(fuzz::out_buffer(tk * D)),
        weights(fuzz::out_buffer(H * t * tk)), heads(fuzz::out_buffer(t * D)), out(fuzz::out_buffer(t * D)) {}
  attnlab::MultiHeadOutputs get() { return {q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(), out.data()}; }
  void expect(size_t t, size_t tk, size_t H) const {
    for (const auto* b : {&q, &k, &v, &heads, &out}) fuzz::expect_finite("attention buffer", b->data(), b->size());
    fuzz::expect_rows_distribution(weights.data(), H * t, tk);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const bool decoder = in.flag();
  const size_t t = in.size(0, 8), t_m = decoder ? in.size(0, 8) : 0, D = in.size(0, 16), H = in.size(0, 4);
  const size_t d_ff = in.size(0, 32);
  const auto norm = in.flag() ? attnlab::NormPlacement::pre : attnlab::NormPlacement::post;
  const auto act = static_cast<attnlab::Activation>(in.integer(0, 2));
  const float eps = in.flag() ? 1e-5f : in.value();
  const bool bias = in.flag(), ln_params = in.flag();
  std::vector<float> mask_values;
  const attnlab::Mask mask = in.mask(t, t, mask_values);
  const bool clean = in.clean();
  auto x = in.values(t * D, clean), memory = in.values(t_m * D, clean);
  Params p[2];
  for (auto& pp : p)
    for (int i = 0; i < 4; ++i) {
      pp.w[i] = in.values(D * D, clean);
      pp.b[i] = in.values(D, clean);
    }
  std::vector<float> ln[6];
  for (auto& l : ln) l = in.values(ln_params ? D : 0, clean);
  auto lnw = [&](int i) {
    return attnlab::LayerNormWeights{ln_params ? ln[2 * i].data() : nullptr, ln_params ? ln[2 * i + 1].data() : nullptr};
  };
  auto w1 = in.values(D * d_ff, clean), b1 = in.values(d_ff, clean), w2 = in.values(d_ff * D, clean), b2 = in.values(D, clean);
  attnlab::FeedForwardWeights ffw{w1.data(), bias ? b1.data() : nullptr, w2.data(), bias ? b2.data() : nullptr};
  auto pre = fuzz::out_buffer(t * d_ff), hidden = fuzz::out_buffer(t * d_ff), ffn_out = fuzz::out_buffer(t * D);
  std::vector<float> stream[7];  // residual/norm buffers and out, each [t, D]
  for (auto& b : stream) b = fuzz::out_buffer(t * D);

  MhaBuffers self(t, t, D, H), cross(t, t_m, D, H);
  attnlab::Status s;
  if (!decoder) {
    attnlab::EncoderBlockArgs a{x.data(), t, D, H, d_ff, norm, act, mask, eps,
                                {p[0].get(bias), lnw(0), lnw(1), ffw}};
    attnlab::EncoderBlockOutputs o{self.get(), stream[0].data(), stream[1].data(),
                               {pre.data(), hidden.data(), ffn_out.data()}, stream[2].data(), stream[3].data(),
                               stream[4].data()};
    s = attnlab::encoder_block_forward(a, o);
    if (!s.ok) {
      fuzz::expect_message(s, "encoderBlock");
      return 0;
    }
    self.expect(t, t, H);
    for (int i = 0; i < 5; ++i) fuzz::expect_finite("stream", stream[i].data(), stream[i].size());
  } else {
    attnlab::DecoderBlockArgs a{x.data(), t, memory.data(), t_m, D, H, d_ff, norm, act, mask, eps,
                                {p[0].get(bias), p[1].get(bias), lnw(0), lnw(1), lnw(2), ffw}};
    attnlab::DecoderBlockOutputs o{self.get(), stream[0].data(), stream[1].data(), cross.get(), stream[2].data(),
                               stream[3].data(), {pre.data(), hidden.data(), ffn_out.data()}, stream[4].data(),
                               stream[5].data(), stream[6].data()};
    s = attnlab::decoder_block_forward(a, o);
    if (!s.ok) {
      fuzz::expect_message(s, "decoderBlock");
      return 0;
    }
    self.expect(t, t, H);
    cross.expect(t, t_m, H);
    for (auto& b : stream) fuzz::expect_finite("stream", b.data(), b.size());
  }
  fuzz::expect_finite("ffn hidden", hidden.data(), hidden.size());
  fuzz::expect_finite("ffn out", ffn_out.data(), ffn_out.size());
  return 0;
}
