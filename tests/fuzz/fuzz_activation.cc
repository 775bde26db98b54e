// libFuzzer harness for attnlab::activation_forward (ReLU, GELU, GELU-tanh; copy or in place).
// Invariants when it accepts: finite output, ReLU ≥ 0, GELU(x) ≥ −0.17 (its minimum) and ≤ max(x, 0).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const int kind = in.integer(0, 2);
  const size_t n = in.size(0, 256);
  const bool in_place = in.flag();
  auto x = in.values(n, in.clean());
  const auto x0 = x;
  auto out = in_place ? std::vector<float>() : fuzz::out_buffer(n);
  float* dst = in_place ? x.data() : out.data();
  const auto act = static_cast<attnlab::Activation>(kind);
  const attnlab::Status s = attnlab::activation_forward(act, x.data(), n, dst);
  if (!s.ok) {
    fuzz::expect_message(s, "activation");
    return 0;
  }
  fuzz::expect_finite("output", dst, n);
  for (size_t i = 0; i < n; ++i) {
    FUZZ_ASSERT(dst[i] >= (kind == 0 ? 0.0f : -0.1701f), std::to_string(x0[i]) + " -> " + std::to_string(dst[i]));
    FUZZ_ASSERT(dst[i] <= std::fmax(x0[i], 0.0f) * 1.0001f + 1e-30f, std::to_string(x0[i]) + " -> " + std::to_string(dst[i]));
  }
  return 0;
}
