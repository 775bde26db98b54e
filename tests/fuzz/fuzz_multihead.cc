// libFuzzer harness for attnlab::multi_head_attention_forward: self or cross attention, optional biases,
// masks, scale, RoPE, ALiBi, all decoded from the fuzz input. Invariants when the op accepts: every
// output finite, each head's weights rows distributions (or zeros); when it refuses: the message
// names "multiHeadAttention".
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t t_q = in.size(0, 12), D = in.size(0, 24), H = in.size(0, 8);
  const bool cross = in.flag();
  const size_t t_k = cross ? in.size(0, 12) : t_q;
  const bool keep_scores = in.flag();
  const float scale = in.flag() ? 0.0f : in.value();
  const bool rope = in.flag();
  const float rope_base = in.flag() ? 10000.0f : in.value();
  const bool alibi = in.flag();
  const bool with_bias[4] = {in.flag(), in.flag(), in.flag(), in.flag()};
  std::vector<float> mask_values;
  const attnlab::Mask mask = in.mask(t_q, t_k, mask_values);
  const bool clean = in.clean();
  auto x = in.values(t_q * D, clean);
  auto context = in.values(cross ? t_k * D : 0, clean);
  std::vector<float> w[4], b[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = in.values(D * D, clean);
    b[i] = in.values(with_bias[i] ? D : 0, clean);
  }
  auto bias = [&](int i) -> const float* { return with_bias[i] ? b[i].data() : nullptr; };

  auto q = fuzz::out_buffer(t_q * D), k = fuzz::out_buffer(t_k * D), v = fuzz::out_buffer(t_k * D);
  auto scores = fuzz::out_buffer(keep_scores ? H * t_q * t_k : 0), weights = fuzz::out_buffer(H * t_q * t_k);
  auto heads = fuzz::out_buffer(t_q * D), out = fuzz::out_buffer(t_q * D);

  attnlab::MultiHeadArgs a{x.data(), t_q, cross ? context.data() : nullptr, t_k, D, H,
                           {w[0].data(), w[1].data(), w[2].data(), w[3].data(), bias(0), bias(1), bias(2), bias(3)},
                           mask, scale, rope, rope_base, alibi};
  attnlab::MultiHeadOutputs o{q.data(), k.data(), v.data(), keep_scores ? scores.data() : nullptr,
                          weights.data(), heads.data(), out.data()};
  const attnlab::Status s = attnlab::multi_head_attention_forward(a, o);
  if (!s.ok) {
    fuzz::expect_message(s, "multiHeadAttention");
    return 0;
  }
  fuzz::expect_finite("q", q.data(), q.size());
  fuzz::expect_finite("k", k.data(), k.size());
  fuzz::expect_finite("v", v.data(), v.size());
  fuzz::expect_rows_distribution(weights.data(), H * t_q, t_k);
  fuzz::expect_finite("heads", heads.data(), heads.size());
  fuzz::expect_finite("output", out.data(), out.size());
  for (float s : scores) FUZZ_ASSERT(!std::isnan(s), "scores hold NaN");
  return 0;
}
