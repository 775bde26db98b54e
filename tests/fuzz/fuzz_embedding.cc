// libFuzzer harness for attnlab::embedding_forward (ids → rows of the table) and output_head_forward
// (logits = h·W_Eᵀ + bias, probs = softmax(logits / temperature)). Invariants when they accept:
// embedding rows equal table rows exactly; probs rows are distributions; logits never NaN.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const size_t vocab = in.size(0, 40), D = in.size(0, 24), n = in.size(0, 24);
  const bool clean = in.clean();
  auto table = in.values(vocab * D, clean);
  if (in.flag()) {
    std::vector<int> ids(n);
    for (int& id : ids) id = in.flag() ? in.integer(-2, static_cast<int>(vocab) + 2) : in.integer(INT32_MIN, INT32_MAX);
    auto out = fuzz::out_buffer(n * D);
    const attnlab::Status s = attnlab::embedding_forward(table.data(), vocab, D, ids.data(), n, out.data());
    if (!s.ok) {
      fuzz::expect_message(s, "embedding");
      return 0;
    }
    for (size_t i = 0; i < n; ++i)
      FUZZ_ASSERT(std::memcmp(out.data() + i * D, table.data() + size_t(ids[i]) * D, D * sizeof(float)) == 0, "row copy");
    return 0;
  }
  const bool with_bias = in.flag();
  const float temperature = in.flag() ? 1.0f : in.value();
  auto h = in.values(n * D, clean), bias = in.values(with_bias ? vocab : 0, clean);
  auto logits = fuzz::out_buffer(n * vocab), probs = fuzz::out_buffer(n * vocab);
  const attnlab::Status s = attnlab::output_head_forward(h.data(), n, table.data(), vocab, D,
                                                         with_bias ? bias.data() : nullptr, temperature,
                                                         logits.data(), probs.data());
  if (!s.ok) {
    fuzz::expect_message(s, "outputHead");
    return 0;
  }
  for (float l : logits) FUZZ_ASSERT(!std::isnan(l), "logit NaN");
  fuzz::expect_rows_distribution(probs.data(), n, vocab);
  for (size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (size_t j = 0; j < vocab; ++j) sum += probs[i * vocab + j];
    FUZZ_ASSERT(sum > 0.5, "probs row " + std::to_string(i) + " is all zeros");
  }
  return 0;
}
