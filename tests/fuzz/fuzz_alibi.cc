// libFuzzer harness for attnlab::alibi_slopes / alibi_bias: slopes [H], bias [H, t_q, t_k].
// Invariants when they accept: slopes in (0, 1], bias = −slope·|i − j| ≤ 0 and finite.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t H = in.size(0, 70), t_q = in.size(0, 40), t_k = in.size(0, 40);
  auto slopes = fuzz::out_buffer(H);
  const attnlab::Status s1 = attnlab::alibi_slopes(H, slopes.data());
  if (!s1.ok) {
    fuzz::expect_message(s1, "alibi");
    return 0;
  }
  for (float m : slopes) FUZZ_ASSERT(m > 0.0f && m <= 1.0f, std::to_string(m));
  auto bias = fuzz::out_buffer(H * t_q * t_k);
  const attnlab::Status s2 = attnlab::alibi_bias(H, t_q, t_k, bias.data());
  if (!s2.ok) {
    fuzz::expect_message(s2, "alibi");
    return 0;
  }
  for (size_t h = 0; h < H; ++h)
    for (size_t i = 0; i < t_q; ++i)
      for (size_t j = 0; j < t_k; ++j) {
        const float b = bias[(h * t_q + i) * t_k + j];
        FUZZ_ASSERT(std::isfinite(b) && b <= 0.0f, std::to_string(b));
        FUZZ_ASSERT(std::fabs(b + slopes[h] * std::fabs(float(i) - float(j))) <= 1e-6f * (1 + std::fabs(b)),
                    std::to_string(b));
      }
  return 0;
}
