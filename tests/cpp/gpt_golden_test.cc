// The small GPT (attnlab/gpt.h) against PyTorch: tests/golden/gpt.json, written by
// tests/golden/generate_gpt.py from the header's math in torch (not a port of gpt.cc).
//
//   GptGolden.ForwardAndBackwardMatchTorch: four 2-layer configs (MLP + LN; attention-only + LN;
//     attention-only without LN; MLP without LN, gelu_tanh), the float32 model fed torch's parameters
//     through tensor(name), against a float64 reference: loss, token losses, logits, attention weights
//     of both layers, and the gradient of every parameter.
//   GptGolden.AdamWStepsMatchTorch: three train_step calls (forward, backward, clip_grad_norm_, AdamW
//     with weight decay on the rank-2 tensors only) against torch run in float32.
//
// Every comparison is one number per tensor (tol::kModel's comment says why); each is printed as
// "[gpt-golden] <config> <what> rel err …" so the agreement can be quoted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "attnlab/gpt.h"
#include "golden_json.h"
#include "tolerance.h"

namespace {

using attnlab::Gpt;
using attnlab_test::Json;
namespace tol = attnlab_test::tol;
using Doubles = std::vector<double>;

// The float64 reference values (Json::floats() would round them to float32 first).
Doubles doubles(const Json& j) {
  Doubles v;
  for (const Json& x : j.items) v.push_back(x.number());
  return v;
}
std::vector<int> ints(const Json& j) {
  std::vector<int> v;
  for (const Json& x : j.items) v.push_back(static_cast<int>(x.number()));
  return v;
}
template <class T>
std::vector<double> span(const T* p, size_t n) { return std::vector<double>(p, p + n); }

attnlab::GptConfig config_from(const Json& c) {
  attnlab::GptConfig g;
  g.vocab = size_t(c["vocab"].number());
  g.context = size_t(c["context"].number());
  g.layers = size_t(c["layers"].number());
  g.heads = size_t(c["heads"].number());
  g.d_model = size_t(c["dModel"].number());
  g.d_ff = size_t(c["dFf"].number());
  g.attention_only = c["attentionOnly"].num != 0;
  g.layer_norm = c["layerNorm"].num != 0;
  const std::string act = c["activation"].str;
  g.activation = act == "relu" ? attnlab::Activation::relu
                 : act == "gelu_tanh" ? attnlab::Activation::gelu_tanh : attnlab::Activation::gelu;
  g.ln_eps = float(c["lnEps"].number());
  return g;
}

// A model with the config of `c` whose parameters are torch's; checks that the names, their order and
// shapes are exactly the model's before writing anything.
std::unique_ptr<Gpt> model_with_torch_params(const Json& c) {
  std::unique_ptr<Gpt> m;
  const attnlab::Status s = Gpt::create(config_from(c["config"]), &m);
  EXPECT_TRUE(s.ok) << s.message;
  if (!s.ok) return nullptr;
  const Json& params = c["params"];
  const auto& tensors = m->tensors();
  std::vector<std::string> mine, theirs;
  for (const auto& t : tensors) mine.push_back(t.name);
  for (const Json& p : params.items) theirs.push_back(p["name"].str);
  EXPECT_EQ(mine, theirs) << c["name"].str << ": the model's tensor names (in order) vs torch's";
  if (mine != theirs) return nullptr;
  size_t total = 0;
  for (const Json& p : params.items) {
    const std::string name = p["name"].str;
    const attnlab::GptTensor* t = m->tensor(name);
    EXPECT_NE(t, nullptr) << name;
    if (!t) return nullptr;
    const Json& shape = p["shape"];
    if (shape.size() == 2) {
      EXPECT_EQ(t->rank, 2) << name;
      EXPECT_EQ(t->rows, size_t(shape[0].number())) << name;
      EXPECT_EQ(t->cols, size_t(shape[1].number())) << name;
    } else {
      EXPECT_EQ(t->rank, 1) << name;
      EXPECT_EQ(t->cols, size_t(shape[0].number())) << name;
    }
    const std::vector<float> v = p["values"].floats();
    EXPECT_EQ(v.size(), t->size()) << name;
    if (v.size() != t->size() || t->offset + t->size() > m->num_params()) return nullptr;
    std::copy(v.begin(), v.end(), m->params() + t->offset);
    total += v.size();
  }
  EXPECT_EQ(total, m->num_params()) << c["name"].str << ": the tensors cover every parameter";
  return m;
}

// One tensor: print its relative error (tensor_rel_error) and hold it to `t`.
void compare(const std::string& label, const Doubles& got, const Doubles& want, attnlab_test::Tol t,
             double floor = 1e-30) {
  size_t at = 0;
  const double err = attnlab_test::tensor_rel_error(got, want, floor, &at);
  std::printf("[gpt-golden] %-60s rel err %.2e\n", label.c_str(), err);
  EXPECT_LE(err, t.rel) << label << ": worst at [" << at << "]: "
                        << (at < got.size() ? got[at] : NAN) << " vs " << want[at];
}

TEST(GptGolden, ForwardAndBackwardMatchTorch) {
  const Json golden = Json::load("gpt.json");
  const Json& configs = golden["configs"];
  ASSERT_EQ(configs.size(), 4u);
  for (const Json& c : configs.items) {
    const std::string name = c["name"].str;
    SCOPED_TRACE(name);
    std::unique_ptr<Gpt> m = model_with_torch_params(c);
    ASSERT_NE(m, nullptr);
    const size_t batch = size_t(c["batch"].number()), t = size_t(c["t"].number());
    const std::vector<int> ids = ints(c["ids"]), targets = ints(c["targets"]);
    ASSERT_EQ(ids.size(), batch * t);
    const Json& want = c["expected"];
    const attnlab::GptConfig& cfg = m->config();

    float loss = NAN;
    const attnlab::Status f = m->forward(ids.data(), targets.data(), batch, t, &loss);
    ASSERT_TRUE(f.ok) << f.message;
    compare(name + " loss", {double(loss)}, {want["loss"].number()}, tol::kModel);
    compare(name + " token losses", span(m->token_losses(), batch * t), doubles(want["tokenLosses"]), tol::kModel);
    compare(name + " logits", span(m->logits(), batch * t * cfg.vocab), doubles(want["logits"]), tol::kModel);
    for (size_t l = 0; l < cfg.layers; ++l)
      compare(name + " attention layer " + std::to_string(l), span(m->attention(l), batch * cfg.heads * t * t),
              doubles(want["attention"][l]), tol::kModel);

    const attnlab::Status b = m->backward();
    ASSERT_TRUE(b.ok) << b.message;
    // A gradient that is exactly 0 in float64 (b_K) is float32 rounding noise here: measure it against
    // the scale of the whole gradient instead of its own (~1e-17).
    const Json& grads = want["grads"];
    std::set<std::string> noise;
    for (const Json& n : c["roundingNoiseGrads"].items) noise.insert(n.str);
    double scale = 0;
    for (const auto& [tname, g] : grads.fields)
      for (const Json& x : g.items) scale = std::max(scale, std::fabs(x.number()));
    ASSERT_EQ(grads.size(), m->tensors().size());
    double worst = 0;
    std::string worst_name;
    for (const attnlab::GptTensor& tensor : m->tensors()) {
      const Doubles g = span(m->grads() + tensor.offset, tensor.size()), w = doubles(grads[tensor.name]);
      const bool is_noise = noise.count(tensor.name) != 0;
      const double err = attnlab_test::tensor_rel_error(g, w, is_noise ? scale : 1e-30);
      if (err > worst) worst = err, worst_name = tensor.name;
      compare(name + " grad " + tensor.name + (is_noise ? " (exact 0: vs |grad|max)" : ""), g, w, tol::kModel,
              is_noise ? scale : 1e-30);
    }
    std::printf("[gpt-golden] %-60s rel err %.2e (%s)\n", (name + " worst grad").c_str(), worst,
                worst_name.c_str());
  }
}

TEST(GptGolden, AdamWStepsMatchTorch) {
  const Json golden = Json::load("gpt.json");
  const Json& a = golden["adamw"];
  const Json* config = nullptr;
  for (const Json& c : golden["configs"].items)
    if (c["name"].str == a["config"].str) config = &c;
  ASSERT_NE(config, nullptr);
  const std::string name = a["config"].str + " adamw";
  std::unique_ptr<Gpt> m = model_with_torch_params(*config);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->steps_taken(), 0u);

  // Weight decay goes to exactly the tensors torch decayed: the rank-2 ones.
  std::set<std::string> decayed, rank2, noise;
  for (const Json& n : a["decayed"].items) decayed.insert(n.str);
  for (const attnlab::GptTensor& t : m->tensors())
    if (t.rank == 2) rank2.insert(t.name);
  EXPECT_EQ(decayed, rank2);
  for (const Json& n : (*config)["roundingNoiseGrads"].items) noise.insert(n.str);

  attnlab::GptTrainOptions o;
  o.adamw.lr = a["lr"].number();
  o.adamw.beta1 = a["beta1"].number();
  o.adamw.beta2 = a["beta2"].number();
  o.adamw.eps = a["eps"].number();
  o.adamw.weight_decay = a["weightDecay"].number();
  o.max_grad_norm = float(a["maxGradNorm"].number());
  const size_t batch = size_t((*config)["batch"].number()), t = size_t((*config)["t"].number());

  std::vector<float> before(m->params(), m->params() + m->num_params());
  for (size_t s = 0; s < a["steps"].size(); ++s) {
    const Json& step = a["steps"][s];
    const std::string at = name + " step " + std::to_string(s + 1);
    SCOPED_TRACE(at);
    const std::vector<int> ids = ints(step["ids"]), targets = ints(step["targets"]);
    ASSERT_EQ(ids.size(), batch * t);
    float loss = NAN, norm = NAN;
    const attnlab::Status st = m->train_step(ids.data(), targets.data(), batch, t, o, &loss, &norm);
    ASSERT_TRUE(st.ok) << st.message;
    EXPECT_EQ(m->steps_taken(), s + 1);
    compare(at + " loss", {double(loss)}, {step["loss"].number()}, tol::kModel);
    compare(at + " grad norm (before clipping)", {double(norm)}, {step["gradNorm"].number()}, tol::kModel);
    double worst = 0;
    std::string worst_name;
    for (const attnlab::GptTensor& tensor : m->tensors()) {
      const float* p = m->params() + tensor.offset;
      if (noise.count(tensor.name)) {
        // Its gradient is rounding noise: only the bound on Adam's step holds (tol::kAdamNoiseStep).
        double moved = 0;
        for (size_t i = 0; i < tensor.size(); ++i)
          moved = std::max(moved, std::fabs(double(p[i]) - double(before[tensor.offset + i])));
        std::printf("[gpt-golden] %-60s moved %.2e (bound %.2e)\n",
                    (at + " " + tensor.name + " (noise gradient)").c_str(), moved, tol::kAdamNoiseStep * o.adamw.lr);
        EXPECT_LE(moved, tol::kAdamNoiseStep * o.adamw.lr) << tensor.name;
        continue;
      }
      const std::vector<float> w = step["params"][tensor.name].floats();  // float32 values, exact
      const Doubles got = span(p, tensor.size()), want(w.begin(), w.end());
      size_t i = 0;
      const double err = attnlab_test::tensor_rel_error(got, want, 1e-30, &i);
      if (err > worst) worst = err, worst_name = tensor.name;
      EXPECT_LE(err, tol::kTrainSteps.rel) << tensor.name << ": worst at [" << i << "]: " << got[i] << " vs " << want[i];
    }
    std::printf("[gpt-golden] %-60s rel err %.2e (%s)\n", (at + " params, worst tensor").c_str(), worst,
                worst_name.c_str());
    before.assign(m->params(), m->params() + m->num_params());
  }
}

}  // namespace
