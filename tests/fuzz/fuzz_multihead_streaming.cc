// libFuzzer harness for attnlab::multi_head_attention_forward_streaming (the throughput mode),
// differential: every input is also run through multi_head_attention_forward, and the two must agree —
// both refuse with the same message, or both accept with outputs equal up to float rounding.
#include <algorithm>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  // Sizes reach past one key/query block so the streaming loop's block edges are exercised.
  const size_t t_q = in.size(0, 80), D = in.size(0, 16), H = in.size(0, 4);
  const bool cross = in.flag();
  const size_t t_k = cross ? in.size(0, 80) : t_q;
  const float scale = in.flag() ? 0.0f : in.value();
  const bool rope = in.flag();
  const float rope_base = in.flag() ? 10000.0f : in.value();
  const bool alibi = in.flag();
  const bool with_bias = in.flag();
  std::vector<float> mask_values;
  const attnlab::Mask mask = in.mask(t_q, t_k, mask_values);
  const bool clean = in.clean();
  auto x = in.values(t_q * D, clean);
  auto context = in.values(cross ? t_k * D : 0, clean);
  std::vector<float> w[4], b[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = in.values(D * D, clean);
    b[i] = in.values(with_bias ? D : 0, clean);
  }
  auto bias = [&](int i) -> const float* { return with_bias ? b[i].data() : nullptr; };
  attnlab::MultiHeadArgs a{x.data(), t_q, cross ? context.data() : nullptr, t_k, D, H,
                           {w[0].data(), w[1].data(), w[2].data(), w[3].data(), bias(0), bias(1), bias(2), bias(3)},
                           mask, scale, rope, rope_base, alibi};

  auto sq = fuzz::out_buffer(t_q * D), sk = fuzz::out_buffer(t_k * D), sv = fuzz::out_buffer(t_k * D);
  auto work = fuzz::out_buffer(attnlab::multi_head_streaming_workspace_floats(t_k, D, H));
  auto sout = fuzz::out_buffer(t_q * D);
  const attnlab::Status s =
      attnlab::multi_head_attention_forward_streaming(a, {sq.data(), sk.data(), sv.data(), work.data(), sout.data()});

  auto q = fuzz::out_buffer(t_q * D), k = fuzz::out_buffer(t_k * D), v = fuzz::out_buffer(t_k * D);
  auto weights = fuzz::out_buffer(H * t_q * t_k), heads = fuzz::out_buffer(t_q * D), out = fuzz::out_buffer(t_q * D);
  const attnlab::Status f = attnlab::multi_head_attention_forward(
      a, {q.data(), k.data(), v.data(), nullptr, weights.data(), heads.data(), out.data()});

  if (!s.ok) fuzz::expect_message(s, "multiHeadAttention");
  // Both paths decide float32 overflow before computing, by the same order-independent bounds
  // (check_multihead_bounds), so they accept the same inputs and refuse them with the same message.
  if (s.ok != f.ok) fuzz::fail("streaming and full agree on accepting", "streaming: " + (s.ok ? std::string("ok") : s.message) + " | full: " + (f.ok ? std::string("ok") : f.message));
  if (!s.ok && s.message != f.message) fuzz::fail("same error on both paths", s.message + " | " + f.message);
  if (!s.ok) return 0;
  fuzz::expect_finite("streaming output", sout.data(), sout.size());
  // Same numbers up to rounding, relative to the size of the values involved.
  float mag = 0;
  for (float o : out) mag = std::max(mag, std::fabs(o));
  for (float o : v) mag = std::max(mag, std::fabs(o));
  float wmax = 0;
  for (float ww : w[3]) wmax = std::max(wmax, std::fabs(ww));
  const double tol = 1e-3 * (static_cast<double>(mag) * (1.0 + static_cast<double>(wmax) * D)) + 1e-6;  // double: wmax·D may pass FLT_MAX
  for (size_t i = 0; i < out.size(); ++i)
    if (!(std::fabs(static_cast<double>(sout[i]) - out[i]) <= tol))
      fuzz::fail("streaming output equals the full output", "out[" + std::to_string(i) + "]: " +
                 std::to_string(sout[i]) + " vs " + std::to_string(out[i]) + " (tol " + std::to_string(tol) + ")");
  return 0;
}
