// libFuzzer harness for attnlab::attention_forward (core/include/attnlab/ops.h): sizes, strides, scale,
// mask, ALiBi slope and every value come from the fuzz input. Invariants when the op accepts:
// weights rows are distributions (or all zeros for fully masked rows), outputs finite and convex
// combinations of the values rows; when it refuses: the message names "attention" and what it expected.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  // Q: [t_q, d_k] (ldq), K: [t_k, d_k] (ldk), V: [t_k, d_v] (ldv)
  const size_t t_q = in.size(0, 48), t_k = in.size(0, 48), d_k = in.size(0, 24), d_v = in.size(0, 24);
  const size_t ldq = d_k + in.size(0, 3), ldk = d_k + in.size(0, 3), ldv = d_v + in.size(0, 3);
  const size_t ldo = d_v + in.size(0, 3);
  const bool keep_scores = in.flag(), keep_scaled = in.flag();
  const float scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(d_k ? d_k : 1)) : in.value();
  const float slope = in.flag() ? 0.0f : in.value();
  std::vector<float> mask_values;
  const attnlab::Mask mask = in.mask(t_q, t_k, mask_values);
  const bool clean = in.clean();
  auto q = in.values(fuzz::strided(t_q, d_k, ldq), clean);
  auto k = in.values(fuzz::strided(t_k, d_k, ldk), clean);
  auto v = in.values(fuzz::strided(t_k, d_v, ldv), clean);

  auto scores = fuzz::out_buffer(keep_scores ? t_q * t_k : 0);
  auto scaled = fuzz::out_buffer(keep_scaled ? t_q * t_k : 0);
  auto weights = fuzz::out_buffer(t_q * t_k);
  auto out = fuzz::out_buffer(fuzz::strided(t_q, d_v, ldo));

  attnlab::AttentionArgs a{q.data(), ldq, k.data(), ldk, v.data(), ldv, t_q, t_k, d_k, d_v, scale, mask, slope};
  attnlab::AttentionOutputs o{keep_scores ? scores.data() : nullptr, keep_scaled ? scaled.data() : nullptr,
                          weights.data(), out.data(), ldo};
  const attnlab::Status s = attnlab::attention_forward(a, o);
  if (!s.ok) {
    fuzz::expect_message(s, "attention");
    return 0;
  }
  fuzz::expect_rows_distribution(weights.data(), t_q, t_k);
  for (size_t i = 0; i < t_q; ++i) fuzz::expect_finite("output", out.data() + i * ldo, d_v);
  fuzz::expect_convex(weights.data(), v.data(), ldv, out.data(), ldo, t_q, t_k, d_v);
  // scores/scaled: never NaN (±∞ only from float32 overflow or −∞ mask entries)
  for (const auto* buf : {&scores, &scaled})
    for (float x : *buf) FUZZ_ASSERT(!std::isnan(x), "scores/scaled hold NaN");
  return 0;
}
