// GPT-2 safetensors (core/src/model/gpt2_checkpoint.cc): the F16/BF16 converters bit by bit, every
// generated file (tests/golden/generate_gpt2.py) against the torch reference, streaming in awkward
// chunks, the export read back, the inference-only layout (W_O, W_in and W_out stored transposed) against
// the trainable one, and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "attnlab/gpt.h"
#include "golden_json.h"
#include "tolerance.h"

namespace {

using attnlab::Gpt;
using attnlab::Gpt2Config;
using attnlab_test::Json;

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

TEST(Gpt2Convert, F16NormalsZerosInfinities) {
  EXPECT_EQ(attnlab::f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(attnlab::f16_to_f32(0xC000), -2.0f);
  EXPECT_EQ(attnlab::f16_to_f32(0x7BFF), 65504.0f);           // largest finite
  EXPECT_EQ(attnlab::f16_to_f32(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(bits(attnlab::f16_to_f32(0x0000)), 0u);
  EXPECT_EQ(bits(attnlab::f16_to_f32(0x8000)), 0x80000000u);  // −0 keeps its sign
  EXPECT_EQ(attnlab::f16_to_f32(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(attnlab::f16_to_f32(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(attnlab::f16_to_f32(0x7E00)));
  EXPECT_TRUE(std::isnan(attnlab::f16_to_f32(0x7C01)));  // signalling NaN stays NaN
  EXPECT_EQ(attnlab::f16_to_f32(0x3555), 0x1.554p-2f);    // 1/3 rounded to half: exact
}

TEST(Gpt2Convert, F16Subnormals) {
  EXPECT_EQ(attnlab::f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(attnlab::f16_to_f32(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(attnlab::f16_to_f32(0x8200), -std::ldexp(512.0f, -24));
  // Every half value against the formula (−1)^s · 2^(e−15) · (1 + m/1024), or m · 2^−24 when e = 0.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t e = (h >> 10) & 31, m = h & 1023;
    if (e == 31) continue;
    const double mag = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(1.0 + m / 1024.0, int(e) - 15);
    const double want = (h & 0x8000) ? -mag : mag;
    ASSERT_EQ(double(attnlab::f16_to_f32(uint16_t(h))), want) << "half 0x" << std::hex << h;
  }
}

TEST(Gpt2Convert, Bf16IsTheTopHalfOfFloat32) {
  EXPECT_EQ(attnlab::bf16_to_f32(0x3F80), 1.0f);
  EXPECT_EQ(attnlab::bf16_to_f32(0x0001), std::ldexp(1.0f, -133));  // a float32 subnormal
  EXPECT_EQ(attnlab::bf16_to_f32(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(attnlab::bf16_to_f32(0x7FC0)));
  for (uint32_t b = 0; b < 0x10000; b += 7) EXPECT_EQ(bits(attnlab::bf16_to_f32(uint16_t(b))), b << 16);
}

std::vector<uint8_t> read_file(const std::string& name) {
  std::ifstream f(std::string(ATTNLAB_GOLDEN_DIR) + "/gpt2/" + name, std::ios::binary);
  EXPECT_TRUE(bool(f)) << name;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

Gpt2Config config_of(const Json& c) {
  Gpt2Config g;
  if (c.fields.count("n_head")) g.n_head = size_t(c["n_head"].number());
  g.n_layer = size_t(c["n_layer"].number());
  g.layer_norm_epsilon = float(c["layer_norm_epsilon"].number());
  g.activation = c["activation_function"].str == "gelu" ? attnlab::Activation::gelu : attnlab::Activation::gelu_tanh;
  return g;
}

// max |a − e| ≤ 1e-4 · max |e| (tests/cpp/tolerance.h kModel's rule, per tensor).
void expect_tensor_close(const float* a, const std::vector<float>& e, const std::string& what) {
  float scale = 0, worst = 0;
  for (float x : e) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < e.size(); ++i) worst = std::max(worst, std::fabs(a[i] - e[i]));
  EXPECT_LE(worst, 1e-4f * scale) << what << ": max error " << worst << " at scale " << scale;
}

TEST(Gpt2Checkpoint, EveryGeneratedFileMatchesTorch) {
  const Json ref = Json::load("gpt2/reference.json");
  const Json& cases = ref["cases"];
  ASSERT_GE(cases.size(), 4u);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Json& c = cases[k];
    SCOPED_TRACE(c["file"].str);
    const std::vector<uint8_t> bytes = read_file(c["file"].str);
    ASSERT_TRUE(attnlab::is_gpt2_safetensors(bytes.data(), bytes.size()));
    std::unique_ptr<Gpt> m;
    const attnlab::Status s = attnlab::load_gpt2_safetensors(bytes.data(), bytes.size(), config_of(c["config"]), &m);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_TRUE(m->inference_only());
    EXPECT_EQ(m->grads(), nullptr);
    std::vector<int> ids;
    for (const Json& j : c["ids"].items) ids.push_back(int(j.number()));
    ASSERT_TRUE(m->forward(ids.data(), nullptr, 1, ids.size(), nullptr).ok);
    expect_tensor_close(m->logits(), c["logits"].floats(), "logits");
    const size_t T = ids.size(), H = m->config().heads;
    for (size_t l = 0; l < m->config().layers; ++l) {
      for (size_t h = 0; h < H; ++h)
        expect_tensor_close(m->attention(l) + h * T * T, c["attention"][l][h].floats(), "attention " + std::to_string(l));
    }
    for (size_t l = 0; l <= m->config().layers; ++l)
      expect_tensor_close(m->residual(l), c["residuals"][l].floats(), "residual " + std::to_string(l));
    std::vector<int> prompt;
    for (const Json& j : c["prompt"].items) prompt.push_back(int(j.number()));
    const size_t steps = size_t(c["steps"].number());
    std::vector<int> out(steps);
    attnlab::GptSampling greedy;
    greedy.temperature = 0;
    ASSERT_TRUE(m->generate(prompt.data(), prompt.size(), steps, greedy, out.data()).ok);
    for (size_t i = 0; i < steps; ++i) EXPECT_EQ(out[i], int(c["greedy"][i].number())) << "token " << i;
    // Training refuses, saying why.
    const attnlab::Status t = m->backward();
    EXPECT_FALSE(t.ok);
    EXPECT_NE(t.message.find("inference-only"), std::string::npos) << t.message;
  }
}

// The logit lens against torch's (ids exact, each prob within 1e-4 of itself: tol::kModel's bound, per
// value, as the brief of the lens asks), and its last row against the forward's own softmax, bit for bit.
TEST(Gpt2Checkpoint, LogitLensMatchesTorchAndEndsAtTheNextTokenDistribution) {
  const Json ref = Json::load("gpt2/reference.json");
  for (const Json& c : ref["cases"].items) {
    SCOPED_TRACE(c["file"].str);
    const std::vector<uint8_t> bytes = read_file(c["file"].str);
    std::unique_ptr<Gpt> m;
    ASSERT_TRUE(attnlab::load_gpt2_safetensors(bytes.data(), bytes.size(), config_of(c["config"]), &m).ok);
    std::vector<int> ids;
    for (const Json& j : c["ids"].items) ids.push_back(int(j.number()));
    const size_t T = ids.size(), V = m->config().vocab, R = m->config().layers + 1;
    ASSERT_TRUE(m->forward(ids.data(), nullptr, 1, T, nullptr).ok);
    for (const Json& lens : c["lens"].items) {
      const size_t pos = size_t(lens["position"].number()), k = size_t(lens["k"].number());
      std::vector<int> got_ids(R * k, -1);
      std::vector<float> got_p(R * k, -1.0f);
      const attnlab::Status s = m->logit_lens(0, pos, k, got_ids.data(), got_p.data());
      ASSERT_TRUE(s.ok) << s.message;
      ASSERT_EQ(lens["ids"].size(), R);
      for (size_t l = 0; l < R; ++l)
        for (size_t j = 0; j < k; ++j) {
          EXPECT_EQ(got_ids[l * k + j], int(lens["ids"][l][j].number())) << "layer " << l << " rank " << j;
          const double want = lens["probs"][l][j].number();
          EXPECT_LE(std::fabs(got_p[l * k + j] - want), attnlab_test::tol::kModel.rel * want) << "layer " << l << " rank " << j;
        }
      // The last row is softmax of the forward's own logits at pos (in double here: within float32 rounding).
      const float* lg = m->logits() + pos * V;
      double mx = lg[0], sum = 0;
      for (size_t i = 1; i < V; ++i) mx = std::max(mx, double(lg[i]));
      for (size_t i = 0; i < V; ++i) sum += std::exp(lg[i] - mx);
      for (size_t j = 0; j < k; ++j) {
        const double want = std::exp(lg[got_ids[(R - 1) * k + j]] - mx) / sum;
        EXPECT_NEAR(got_p[(R - 1) * k + j], want, 1e-6 * want) << "rank " << j;
      }
    }
    // Refusals name the option.
    std::vector<int> i5(R * 5);
    std::vector<float> p5(R * 5);
    attnlab::Status s = m->logit_lens(0, T, 5, i5.data(), p5.data());
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.message.find("lens.position is " + std::to_string(T)), std::string::npos) << s.message;
    s = m->logit_lens(0, 0, V + 1, i5.data(), p5.data());
    EXPECT_NE(s.message.find("lens.k is"), std::string::npos) << s.message;
    s = m->logit_lens(1, 0, 5, i5.data(), p5.data());
    EXPECT_NE(s.message.find("past batch = 1"), std::string::npos) << s.message;
  }
}

TEST(Gpt2Checkpoint, StreamedInAnyChunkingGivesTheSameParameters) {
  const Json ref = Json::load("gpt2/reference.json");
  for (size_t k : {size_t(0), size_t(1), size_t(2)}) {
    const Json& c = ref["cases"][k];
    const std::vector<uint8_t> bytes = read_file(c["file"].str);
    std::unique_ptr<Gpt> whole;
    ASSERT_TRUE(attnlab::load_gpt2_safetensors(bytes.data(), bytes.size(), config_of(c["config"]), &whole).ok);
    for (size_t chunk : {size_t(1), size_t(3), size_t(7), size_t(4093)}) {
      attnlab::Gpt2Loader ld;
      ASSERT_TRUE(ld.begin(bytes.data(), bytes.size(), config_of(c["config"])).ok);
      EXPECT_EQ(ld.file_bytes(), bytes.size());
      for (size_t at = ld.header_bytes(); at < bytes.size(); at += chunk)
        ASSERT_TRUE(ld.write(bytes.data() + at, std::min(chunk, bytes.size() - at)).ok);
      std::unique_ptr<Gpt> m;
      const attnlab::Status s = ld.finish(&m);
      ASSERT_TRUE(s.ok) << s.message;
      ASSERT_EQ(m->num_params(), whole->num_params());
      EXPECT_EQ(std::memcmp(m->params(), whole->params(), 4 * m->num_params()), 0) << "chunk " << chunk;
    }
  }
}

TEST(Gpt2Checkpoint, ExportReadsBackToTheSameParameters) {
  const Json ref = Json::load("gpt2/reference.json");
  const Json& c = ref["cases"][0];
  const std::vector<uint8_t> bytes = read_file(c["file"].str);
  std::unique_ptr<Gpt> m, back;
  ASSERT_TRUE(attnlab::load_gpt2_safetensors(bytes.data(), bytes.size(), config_of(c["config"]), &m).ok);
  std::vector<uint8_t> out;
  std::string cfg;
  ASSERT_TRUE(attnlab::save_gpt2_safetensors(*m, &out, &cfg).ok);
  EXPECT_NE(cfg.find("\"n_head\": 4"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("\"activation_function\": \"gelu_new\""), std::string::npos) << cfg;
  ASSERT_TRUE(attnlab::load_gpt2_safetensors(out.data(), out.size(), config_of(c["config"]), &back).ok);
  EXPECT_EQ(std::memcmp(m->params(), back->params(), 4 * m->num_params()), 0);
}

// An inference-only model stores W_O, W_in and W_out transposed and reads them as "nt"; the same model saved
// in attnlab's layout loads as a trainable model, which keeps [in, out]. Both layouts hold the same
// values, save to the same bytes and compute the same floats: the forward (prefill) logits, attention
// and residuals bit for bit, and the KV-cache decode's greedy tokens, plain and with heads ablated.
TEST(Gpt2Checkpoint, TransposedInferenceLayoutGivesTheTrainableModelsFloats) {
  const Json ref = Json::load("gpt2/reference.json");
  for (size_t k : {size_t(0), size_t(1), size_t(3)}) {  // n_embd 64: the decode reads W_O in eight parts
    const Json& c = ref["cases"][k];
    SCOPED_TRACE(c["file"].str);
    const std::vector<uint8_t> bytes = read_file(c["file"].str);
    std::unique_ptr<Gpt> inf, tr;
    ASSERT_TRUE(attnlab::load_gpt2_safetensors(bytes.data(), bytes.size(), config_of(c["config"]), &inf).ok);
    std::vector<uint8_t> saved, again;
    ASSERT_TRUE(attnlab::save_safetensors(*inf, false, &saved).ok);
    ASSERT_TRUE(attnlab::load_safetensors(saved.data(), saved.size(), &tr).ok);
    ASSERT_FALSE(tr->inference_only());
    ASSERT_TRUE(attnlab::save_safetensors(*tr, false, &again).ok);
    EXPECT_EQ(saved, again);
    // The same values, each where its tensor says.
    size_t transposed = 0;
    for (const attnlab::GptTensor& t : inf->tensors()) {
      const attnlab::GptTensor* u = tr->tensor(t.name);
      ASSERT_NE(u, nullptr);
      EXPECT_FALSE(u->transposed);
      const bool out_proj = t.name.find("attn.W_O") != std::string::npos || t.name.find("mlp.W_in") != std::string::npos ||
                            t.name.find("mlp.W_out") != std::string::npos;
      EXPECT_EQ(t.transposed, out_proj) << t.name;
      transposed += t.transposed;
      for (size_t r = 0; r < t.rows; ++r)
        for (size_t q = 0; q < t.cols; ++q)
          ASSERT_EQ(bits(inf->params()[t.offset + t.index(r, q)]), bits(tr->params()[u->offset + r * u->cols + q]))
              << t.name << "[" << r << ", " << q << "]";
    }
    EXPECT_EQ(transposed, 3 * inf->config().layers);
    std::vector<int> ids;
    for (const Json& j : c["ids"].items) ids.push_back(int(j.number()));
    const size_t T = ids.size(), V = inf->config().vocab, D = inf->config().d_model, L = inf->config().layers;
    const size_t H = inf->config().heads;
    std::vector<float> mask(L * H, 1.0f);
    mask[1] = 0.0f;
    for (const bool ablate : {false, true}) {
      SCOPED_TRACE(ablate ? "a head ablated" : "every head");
      ASSERT_TRUE(inf->set_head_mask(ablate ? mask.data() : nullptr).ok);
      ASSERT_TRUE(tr->set_head_mask(ablate ? mask.data() : nullptr).ok);
      ASSERT_TRUE(inf->forward(ids.data(), nullptr, 1, T, nullptr).ok);
      ASSERT_TRUE(tr->forward(ids.data(), nullptr, 1, T, nullptr).ok);
      EXPECT_EQ(std::memcmp(inf->logits(), tr->logits(), 4 * T * V), 0);
      for (size_t l = 0; l < L; ++l) EXPECT_EQ(std::memcmp(inf->attention(l), tr->attention(l), 4 * H * T * T), 0);
      for (size_t l = 0; l <= L; ++l) EXPECT_EQ(std::memcmp(inf->residual(l), tr->residual(l), 4 * T * D), 0);
      attnlab::GptSampling greedy;
      greedy.temperature = 0;
      const size_t steps = inf->config().context - T;
      std::vector<int> a(steps), b(steps);
      ASSERT_TRUE(inf->generate(ids.data(), T, steps, greedy, a.data()).ok);
      ASSERT_TRUE(tr->generate(ids.data(), T, steps, greedy, b.data()).ok);
      EXPECT_EQ(a, b);
    }
  }
}

TEST(Gpt2Checkpoint, RefusalsNameWhatIsWrong) {
  const Json ref = Json::load("gpt2/reference.json");
  const Json& c = ref["cases"][3];  // f32, no prefix
  const std::vector<uint8_t> bytes = read_file(c["file"].str);
  const Gpt2Config cfg = config_of(c["config"]);
  auto refuse = [&](const std::vector<uint8_t>& b, const Gpt2Config& g, const char* needle) {
    std::unique_ptr<Gpt> m;
    const attnlab::Status s = attnlab::load_gpt2_safetensors(b.data(), b.size(), g, &m);
    EXPECT_FALSE(s.ok);
    EXPECT_EQ(m, nullptr);
    EXPECT_NE(s.message.find(needle), std::string::npos) << s.message;
  };
  // Truncated: the header describes more than came.
  refuse(std::vector<uint8_t>(bytes.begin(), bytes.end() - 100), cfg, "truncated");
  // The header's own text edited: a tensor renamed, a shape changed, a dtype changed.
  auto edit = [&](const std::string& from, const std::string& to) {
    std::vector<uint8_t> b = bytes;
    std::string s(b.begin(), b.end());
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    EXPECT_EQ(from.size(), to.size());
    std::memcpy(b.data() + at, to.data(), to.size());
    return b;
  };
  refuse(edit("\"h.1.ln_2.bias\"", "\"h.1.ln_2.bia_\""), cfg, "no tensor \"h.1.ln_2.bias\"");
  refuse(edit("\"h.0.ln_1.weight\":{\"dtype\":\"F32\"", "\"h.0.ln_1.weight\":{\"dtype\":\"I32\""), cfg, "dtype \"I32\"");
  Gpt2Config wrong = cfg;
  wrong.n_layer = 12;
  refuse(bytes, wrong, "config n_layer is 12 but the file has 3");
  wrong = cfg;
  wrong.n_head = 5;
  refuse(bytes, wrong, "n_head = 5 does not divide n_embd = 24");
  Gpt2Config none = cfg;
  none.n_head = 0;
  refuse(bytes, none, "not a multiple of 64");
  // A pickle (pytorch_model.bin) is not safetensors.
  std::vector<uint8_t> pickle = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  refuse(pickle, cfg, "loadModel: bytes");
}

}  // namespace
