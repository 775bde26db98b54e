// pretrain_induction — trains the induction task's 2-layer attention-only GPT natively with the same
// C++ core the page runs, and writes the snapshots <attn-train> and the decks show at once
// (web/train/pretrained/induction/: step-<N>.safetensors + index.json). Seeded: the same command
// writes the same bytes. Run by scripts/pretrain.sh; the output is committed.
//
//   attnlab_pretrain_induction OUT_DIR [steps] [seed]
//
// The task is web/train/tasks.js's inductionTask with its defaults, drawn with the same PRNG
// (mulberry32) in the same order: BOS (0), P = 11 distinct tokens from 1 … 15 (a Fisher–Yates prefix), repeated to fill 23
// positions; ids = seq[0:23], targets = seq[1:24].
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <string>
#include <vector>

#include "attnlab/gpt.h"
#include "pretrain_common.h"

namespace {

namespace pt = attnlab::pretrain;
using pt::Mulberry32;

constexpr char kTool[] = "pretrain_induction";  // how its errors begin
constexpr int kVocab = 16, kContext = 23, kMinPeriod = 4, kMaxPeriod = 11;

// One sequence of inductionTask(): ids [23], targets [23]; returns its period P (positions i > P are
// the repeat).
int induction_sequence(Mulberry32& rng, int* ids, int* targets) {
  const int P = kMinPeriod + rng.below(kMaxPeriod - kMinPeriod + 1);
  int pool[kVocab - 1];
  for (int k = 0; k < kVocab - 1; ++k) pool[k] = k + 1;
  for (int k = 0; k < P; ++k) {
    const int r = k + rng.below(kVocab - 1 - k);
    std::swap(pool[k], pool[r]);
  }
  int seq[kContext + 1];
  seq[0] = 0;  // BOS
  for (int p = 1; p <= kContext; ++p) seq[p] = pool[(p - 1) % P];
  for (int i = 0; i < kContext; ++i) {
    ids[i] = seq[i];
    targets[i] = seq[i + 1];
  }
  return P;
}

}  // namespace

int main(int argc, char** argv) {
  if (!pt::has_args(argc, argv, 1, "OUT_DIR [steps] [seed]")) return 2;
  const std::string out = argv[1];
  const size_t steps = pt::arg_or(argc, argv, 2, 2500);
  const uint32_t seed = static_cast<uint32_t>(pt::arg_or(argc, argv, 3, 2));

  attnlab::GptConfig c;
  c.vocab = kVocab;
  c.context = kContext;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 32;
  c.attention_only = true;
  c.layer_norm = false;
  c.init_std = 0.25f;  // no LayerNorm: a larger init leaves the plateau sooner (gpt.h, Init)
  c.seed = seed;
  std::unique_ptr<attnlab::Gpt> model;
  pt::die(attnlab::Gpt::create(c, &model), kTool);

  attnlab::GptTrainOptions o;
  o.adamw.lr = 1e-3;
  o.adamw.weight_decay = 0.0;  // Adam, as the reference PyTorch run
  o.max_grad_norm = 1.0f;

  // Held-out sequences: inductionTask().heldOut(64)'s stream (its default seed 1234 ^ its salt), so
  // the ratio logged here is measured on the sequences the page evaluates.
  Mulberry32 train{seed}, held{pt::kHeldOutSeed};
  constexpr int kHeld = 64;
  std::vector<int> hid(kHeld * kContext), htg(kHeld * kContext), hp(kHeld);
  for (int b = 0; b < kHeld; ++b) hp[b] = induction_sequence(held, &hid[b * kContext], &htg[b * kContext]);

  // Snapshots: dense while the loss falls and the heads form, sparser after.
  std::vector<size_t> at;
  for (size_t s = 0; s <= steps; s += s < 1000 ? 250 : s < 2000 ? 100 : 250) at.push_back(s);
  if (at.back() != steps) at.push_back(steps);

  std::string index = "{\n  \"task\": \"induction\",\n  \"taskOptions\": {\"period\": [4, 11]},\n  \"seed\": " + std::to_string(seed) +
                      ",\n  \"config\": {\"vocab\": 16, \"context\": 23, \"layers\": 2, \"heads\": 2, "
                      "\"dModel\": 32, \"attentionOnly\": true, \"layerNorm\": false, \"initStd\": 0.25},\n"
                      "  \"optimizer\": {\"lr\": 0.001, \"weightDecay\": 0, \"maxGradNorm\": 1}, \"batch\": 16,\n"
                      // evalSize: the held-out batch the losses below are measured on (openPretrained measures on it too)
                      "  \"evalSize\": " + std::to_string(kHeld) + ",\n"
                      "  \"snapshots\": [\n";
  constexpr int kBatch = 16;  // sequences per step (as <attn-train>'s induction preset)
  int ids[kBatch * kContext], targets[kBatch * kContext];
  size_t next = 0;
  float train_loss = NAN, smooth = NAN;
  for (size_t s = 0; s <= steps; ++s) {
    if (next < at.size() && at[next] == s) {
      float eval = 0.0f;
      pt::die(model->forward(hid.data(), htg.data(), kHeld, kContext, &eval), kTool);
      const float* tl = model->token_losses();
      double first = 0, rep = 0;
      size_t nf = 0, nr = 0;
      for (int b = 0; b < kHeld; ++b)
        for (int i = 0; i < kContext; ++i)
          (i > hp[b] ? (rep += tl[b * kContext + i], ++nr) : (first += tl[b * kContext + i], ++nf));
      const double ratio = (rep / nr) / (first / nf);
      const std::string file = pt::write_gpt_snapshot(*model, out, s, kTool);
      char row[256];
      std::snprintf(row, sizeof row,
                    "    {\"step\": %zu, \"file\": \"%s\", \"trainLoss\": %s, \"evalLoss\": %.6g, \"ratio\": %.6g}%s\n",
                    s, file.c_str(), pt::train_loss_json(smooth).c_str(), eval, ratio,
                    next + 1 < at.size() ? "," : "");
      index += row;
      std::printf("step %5zu  train %.4f  held-out %.4f  repeat/first %.3f\n", s, smooth, eval, ratio);
      ++next;
    }
    if (s == steps) break;
    for (int b = 0; b < kBatch; ++b) induction_sequence(train, ids + b * kContext, targets + b * kContext);
    float norm = 0.0f;
    pt::die(model->train_step(ids, targets, kBatch, kContext, o, &train_loss, &norm), kTool);
    smooth = pt::smoothed_loss(smooth, train_loss);
  }
  index += "  ]\n}\n";
  pt::write_or_die(out, "index.json", index.data(), index.size(), kTool);
  return 0;
}
