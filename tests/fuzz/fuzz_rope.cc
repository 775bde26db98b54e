// libFuzzer harness for attnlab::rope_forward: x [t, d] rotated pairwise, copied or in place, with
// positions offset + row up to 2^24 (what the JS API allows). Invariants when it accepts: finite
// output, and each pair keeps its length (a rotation) up to float rounding.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t t = in.size(0, 64), d = in.size(0, 32);
  const float base = in.flag() ? 10000.0f : in.value();
  const size_t offset = in.flag() ? in.size(0, 8) : in.size(0, size_t{1} << 24);
  const bool in_place = in.flag();
  auto x = in.values(t * d, in.clean());
  const auto x0 = x;
  auto out = in_place ? std::vector<float>() : fuzz::out_buffer(t * d);
  float* dst = in_place ? x.data() : out.data();
  const attnlab::Status s = attnlab::rope_forward(x.data(), t, d, base, offset, dst);
  if (!s.ok) {
    fuzz::expect_message(s, "rope");
    return 0;
  }
  fuzz::expect_finite("output", dst, t * d);
  for (size_t i = 0; i + 1 < t * d; i += 2) {
    const double n0 = std::hypot(static_cast<double>(x0[i]), static_cast<double>(x0[i + 1]));
    const double n1 = std::hypot(static_cast<double>(dst[i]), static_cast<double>(dst[i + 1]));
    FUZZ_ASSERT(std::fabs(n1 - n0) <= 1e-5 * n0 + 1e-37, std::to_string(n0) + " -> " + std::to_string(n1));
  }
  return 0;
}
