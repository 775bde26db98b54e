// libFuzzer harness for attnlab::sinusoidal_encoding: out [length, D]. Invariant when it accepts:
// every value in [−1, 1] (a sine or cosine), and row 0 is (0, 1, 0, 1, …).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t length = in.size(0, 300), D = in.size(0, 64);
  const float base = in.flag() ? 10000.0f : in.value();
  auto out = fuzz::out_buffer(length * D);
  const attnlab::Status s = attnlab::sinusoidal_encoding(length, D, base, out.data());
  if (!s.ok) {
    fuzz::expect_message(s, "positionalEncoding");
    return 0;
  }
  for (float x : out) FUZZ_ASSERT(x >= -1.0f && x <= 1.0f, std::to_string(x));
  for (size_t c = 0; c < D; ++c) FUZZ_ASSERT(out[c] == ((c & 1) ? 1.0f : 0.0f), std::to_string(out[c]));
  return 0;
}
