// pretrain_names — trains a small character-level GPT on the names list natively, with the same C++ core
// the page runs, and writes its snapshots (web/train/pretrained/names/: step-<N>.safetensors +
// index.json, the format of pretrain_induction.cc). <attn-model> offers the last snapshot as attnlab's
// names model when no GPT-2 file is given. Seeded: the same command writes the same bytes. Run by
// scripts/pretrain-names.sh; the output is committed.
//
//   attnlab_pretrain_names NAMES_TXT OUT_DIR [steps] [seed]
//
// The data is web/train/tasks.js's namesTask({ context: 32 }) bit for bit: the names of names.txt, the
// distinct ones shuffled by mulberry32(20220609) (Fisher–Yates from the end) and the last 1000 held
// out; the training names keep the file's repeats, packed as ".emma.olivia.…." ('.' = 0,
// 'a'…'z' = 1…26); a row is a random window of 33 characters of the stream (ids = window[0:32],
// targets = window[1:33]), drawn with the same PRNG in the same order as the task's batch(). The
// held-out batch is namesTask().heldOut(256)'s (its default seed 1234 ^ its salt), so the losses
// logged here are the ones the page measures.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "attnlab/gpt.h"
#include "pretrain_common.h"

namespace {

namespace pt = attnlab::pretrain;
using pt::Mulberry32;

constexpr char kTool[] = "pretrain_names";  // how its errors begin
constexpr int kVocab = 27, kContext = 32, kHeldOutNames = 1000, kEval = 256, kBatch = 32;

// ".emma.olivia." → ids ('.' = 0, 'a' = 1, …).
std::vector<int> pack(const std::vector<std::string>& names) {
  std::vector<int> s{0};
  for (const auto& n : names) {
    for (char c : n) s.push_back(c - 'a' + 1);
    s.push_back(0);
  }
  return s;
}

// batch rows of random windows of `stream` (tasks.js namesTask windows()).
void windows(const std::vector<int>& stream, Mulberry32& rng, int batch, int* ids, int* targets) {
  for (int b = 0; b < batch; ++b) {
    const size_t s = rng.below(stream.size() - kContext);
    for (int i = 0; i < kContext; ++i) {
      ids[b * kContext + i] = stream[s + i];
      targets[b * kContext + i] = stream[s + i + 1];
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!pt::has_args(argc, argv, 2, "NAMES_TXT OUT_DIR [steps] [seed]")) return 2;
  const std::string out = argv[2];
  const size_t steps = pt::arg_or(argc, argv, 3, 3000);
  const uint32_t seed = static_cast<uint32_t>(pt::arg_or(argc, argv, 4, 1));

  // The list and namesTask's fixed split.
  std::vector<std::string> all;
  {
    std::ifstream in(argv[1]);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", kTool, argv[1]);
      return 1;
    }
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      for (char c : line)
        if (c < 'a' || c > 'z') {
          std::fprintf(stderr, "%s: %s line %zu is not a-z only\n", kTool, argv[1], all.size() + 1);
          return 1;
        }
      all.push_back(line);
    }
  }
  std::vector<std::string> distinct;
  {
    std::unordered_set<std::string> seen;
    for (const auto& n : all)
      if (seen.insert(n).second) distinct.push_back(n);
  }
  Mulberry32 split{20220609u};
  pt::shuffle(distinct, split);
  const std::unordered_set<std::string> test(distinct.end() - kHeldOutNames, distinct.end());
  std::vector<std::string> train_names, test_names(distinct.end() - kHeldOutNames, distinct.end());
  for (const auto& n : all)
    if (!test.count(n)) train_names.push_back(n);
  // The training names are shuffled before packing, by this run's seed (the task shuffles them too, by a
  // fixed seed, so the streams differ; the held-out data is the same). The
  // list's order is partly alphabetical (the rarer names), and a 32-character window sees the name
  // before: kept in order, the model learns that the next name starts near the last one (seed 1, 3000
  // steps: train loss 1.71, held-out 2.34 — the held-out names are shuffled) and samples drift
  // alphabetically. Shuffled, it learns names.
  Mulberry32 order{seed ^ 0x6e616d65u};
  pt::shuffle(train_names, order);
  const std::vector<int> train_stream = pack(train_names), test_stream = pack(test_names);

  attnlab::GptConfig c;
  c.vocab = kVocab;
  c.context = kContext;
  c.layers = 2;
  c.heads = 4;
  c.d_model = 32;
  c.d_ff = 128;
  c.seed = seed;
  std::unique_ptr<attnlab::Gpt> model;
  pt::die(attnlab::Gpt::create(c, &model), kTool);

  attnlab::GptTrainOptions o;
  o.adamw.lr = 3e-3;
  o.adamw.weight_decay = 0.01;
  o.max_grad_norm = 1.0f;

  Mulberry32 train{seed}, held{pt::kHeldOutSeed};
  std::vector<int> hid(kEval * kContext), htg(kEval * kContext);
  windows(test_stream, held, kEval, hid.data(), htg.data());

  std::vector<size_t> at = {0, steps / 4, steps};
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::string index = "{\n  \"task\": \"names\",\n  \"taskOptions\": {\"context\": " + std::to_string(kContext) +
                      "},\n  \"seed\": " + std::to_string(seed) +
                      ",\n  \"config\": {\"vocab\": 27, \"context\": 32, \"layers\": 2, \"heads\": 4, \"dModel\": 32, "
                      "\"dFF\": 128, \"attentionOnly\": false, \"layerNorm\": true},\n"
                      "  \"optimizer\": {\"lr\": 0.003, \"weightDecay\": 0.01, \"maxGradNorm\": 1}, \"batch\": " +
                      std::to_string(kBatch) + ",\n  \"evalSize\": " + std::to_string(kEval) + ",\n  \"snapshots\": [\n";
  std::vector<int> ids(kBatch * kContext), targets(kBatch * kContext);
  size_t next = 0;
  float train_loss = NAN, smooth = NAN;
  for (size_t s = 0; s <= steps; ++s) {
    // Learning rate: constant, then ×0.1 for the last fifth (the loss settles).
    o.adamw.lr = s < steps - steps / 5 ? 3e-3 : 3e-4;
    if (next < at.size() && at[next] == s) {
      float eval = 0.0f;
      pt::die(model->forward(hid.data(), htg.data(), kEval, kContext, &eval), kTool);
      const std::string file = pt::write_gpt_snapshot(*model, out, s, kTool);
      char row[256];
      std::snprintf(row, sizeof row, "    {\"step\": %zu, \"file\": \"%s\", \"trainLoss\": %s, \"evalLoss\": %.6g}%s\n", s,
                    file.c_str(), pt::train_loss_json(smooth).c_str(), eval,
                    next + 1 < at.size() ? "," : "");
      index += row;
      std::printf("step %5zu  train %.4f  held-out %.4f  (uniform ln 27 = %.4f)\n", s, smooth, eval, std::log(27.0));
      ++next;
    }
    if (s == steps) break;
    windows(train_stream, train, kBatch, ids.data(), targets.data());
    float norm = 0.0f;
    pt::die(model->train_step(ids.data(), targets.data(), kBatch, kContext, o, &train_loss, &norm), kTool);
    smooth = pt::smoothed_loss(smooth, train_loss);
  }
  index += "  ]\n}\n";
  pt::write_or_die(out, "index.json", index.data(), index.size(), kTool);
  // A few samples from '.', temperature 1 (printed only: the page samples its own).
  const int prompt = 0;
  int sample[200];
  attnlab::GptSampling g;
  g.seed = seed;
  pt::die(model->generate(&prompt, 1, 200, g, sample), kTool);
  std::string text = ".";
  for (int id : sample) text += id == 0 ? '.' : static_cast<char>('a' + id - 1);
  std::printf("samples: %s\n", text.c_str());
  return 0;
}
