// libFuzzer harness for attnlab::load_safetensors (core/src/model/safetensors.cc), the one entry point
// that reads a file a user hands over. Two kinds of input:
//   - the bytes as they are (the corpus holds real checkpoints and a Hugging Face style file, so
//     mutations start from valid headers);
//   - first byte 0xFF (never the first byte of a file attnlab writes: 8 + N is a multiple of 8, so
//     N's low byte is too): a valid checkpoint of a tiny model (one of 8: attention_only × layer_norm ×
//     optimizer state) with the rest of the input as edits — bytes or floats overwritten, digits of
//     the header changed, the file cut or extended — so that runs reach the checks behind the JSON
//     (shapes, offsets, tiling, values) instead of dying in the JSON validator.
// The loader gets an exact-size copy, so ASan sees any read past the end. Invariants: a refusal
// names loadModel (or createModel, for a config its check refuses) and says what was expected; an
// accepted file gives finite parameters and moments, and the model saves to bytes that load again and
// save to the same bytes.
#include <memory>

#include "attnlab/gpt.h"
#include "fuzz_common.h"

namespace {

std::vector<uint8_t> tiny_checkpoint(int variant) {
  attnlab::GptConfig c;
  c.vocab = 5;
  c.context = 4;
  c.layers = 1 + (variant & 1);
  c.heads = 2;
  c.d_model = 4;
  c.d_ff = 6;
  c.attention_only = (variant & 2) != 0;
  c.layer_norm = (variant & 4) == 0;
  c.seed = static_cast<uint64_t>(variant);
  std::unique_ptr<attnlab::Gpt> m;
  attnlab::Status s = attnlab::Gpt::create(c, &m);
  FUZZ_ASSERT(s.ok, s.message);
  const int ids[4] = {0, 1, 2, 3}, targets[4] = {1, 2, 3, 4};
  s = m->train_step(ids, targets, 1, 4, attnlab::GptTrainOptions{}, nullptr, nullptr);
  FUZZ_ASSERT(s.ok, s.message);
  std::vector<uint8_t> bytes;
  s = attnlab::save_safetensors(*m, (variant & 1) != 0, &bytes);
  FUZZ_ASSERT(s.ok, s.message);
  return bytes;
}

const std::vector<uint8_t>& checkpoint(int variant) {
  static std::vector<uint8_t> files[8];
  if (files[variant].empty()) files[variant] = tiny_checkpoint(variant);
  return files[variant];
}

std::vector<uint8_t> edited(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  std::vector<uint8_t> b = checkpoint(in.integer(0, 7));
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | b[i];
  const size_t data_start = 8 + static_cast<size_t>(header);
  const size_t edits = in.size(1, 6);
  for (size_t e = 0; e < edits && !in.empty(); ++e) {
    switch (in.integer(0, 5)) {
      case 0:  // any byte
        if (!b.empty()) b[in.size(0, b.size() - 1)] = static_cast<uint8_t>(in.integer(0, 255));
        break;
      case 1:  // a digit of the header (sizes, offsets, config values)
        if (data_start <= b.size() && data_start > 8) {
          const size_t p = in.size(8, data_start - 1);
          if (b[p] >= '0' && b[p] <= '9') b[p] = static_cast<uint8_t>('0' + in.integer(0, 9));
        }
        break;
      case 2:  // a float of the data: NaN, ±Inf, denormals, negative second moments…
        if (b.size() >= data_start + 4) {
          const size_t p = data_start + 4 * in.size(0, (b.size() - data_start) / 4 - 1);
          const float x = in.value();
          std::memcpy(b.data() + p, &x, 4);
        }
        break;
      case 3:  // cut
        b.resize(in.size(0, b.size()));
        break;
      case 4:  // extend
        b.resize(b.size() + in.size(1, 16), static_cast<uint8_t>(in.integer(0, 255)));
        break;
      default:  // the header length itself
        if (b.size() >= 8) b[in.size(0, 7)] = static_cast<uint8_t>(in.integer(0, 255));
        break;
    }
  }
  return b;
}

void expect_finite_model(const attnlab::Gpt& m) {
  fuzz::expect_finite("params", m.params(), m.num_params());
  fuzz::expect_finite("adam_m", m.adam_m(), m.num_params());
  fuzz::expect_finite("adam_v", m.adam_v(), m.num_params());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes = size > 0 && data[0] == 0xFF ? edited(data + 1, size - 1)
                                                        : std::vector<uint8_t>(data, data + size);
  // Exact size: the loader must stay inside [0, n).
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() ? bytes.size() : 1]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());

  std::unique_ptr<attnlab::Gpt> m;
  const attnlab::Status s = attnlab::load_safetensors(exact.get(), bytes.size(), &m);
  if (!s.ok) {
    FUZZ_ASSERT(m == nullptr, s.message);
    fuzz::expect_message(s, s.message.rfind("createModel: ", 0) == 0 ? "createModel" : "loadModel");
    return 0;
  }
  FUZZ_ASSERT(m != nullptr, "a model");
  expect_finite_model(*m);
  for (const bool with_opt : {false, true}) {
    std::vector<uint8_t> a, b;
    attnlab::Status t = attnlab::save_safetensors(*m, with_opt, &a);
    FUZZ_ASSERT(t.ok, t.message);
    std::unique_ptr<attnlab::Gpt> l;
    t = attnlab::load_safetensors(a.data(), a.size(), &l);
    FUZZ_ASSERT(t.ok, t.message);
    FUZZ_ASSERT(std::memcmp(l->params(), m->params(), 4 * m->num_params()) == 0, "params round-trip");
    t = attnlab::save_safetensors(*l, with_opt, &b);
    FUZZ_ASSERT(t.ok, t.message);
    FUZZ_ASSERT(a == b, "load(save(m)) saves to the same bytes");
  }
  return 0;
}
