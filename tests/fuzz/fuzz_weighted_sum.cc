// libFuzzer harness for attnlab::weighted_sum_forward: out [t_q, d_v] = weights [t_q, t_k] · V [t_k, d_v].
// Invariant when the op accepts: the output is finite (float32 overflow is an error, not ±∞).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t t_q = in.size(0, 48), t_k = in.size(0, 48), d_v = in.size(0, 24);
  const bool clean = in.clean();
  auto w = in.values(t_q * t_k, clean);
  auto v = in.values(t_k * d_v, clean);
  auto out = fuzz::out_buffer(t_q * d_v);
  const attnlab::Status s = attnlab::weighted_sum_forward(w.data(), v.data(), t_q, t_k, d_v, out.data());
  if (!s.ok) {
    fuzz::expect_message(s, "weightedSum");
    return 0;
  }
  fuzz::expect_finite("output", out.data(), out.size());
  return 0;
}
