// pretrain_common.h — what the native pretraining tools (tools/pretrain_*.cc) share: web/train/tasks.js's
// PRNG and shuffle (a tool draws the page's data bit for bit, so the losses it logs are the ones the page
// measures), the command line, and writing the shipped files. What differs — the task, the model, the
// schedule, the index.json fields — stays in each tool. Header-only: each tool is one file.
//
// The tools' outputs are committed (web/train/pretrained/): a change here must leave every byte they
// write the same (re-run the scripts/pretrain*.sh commands into a scratch dir and cmp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/gpt.h"
#include "attnlab/status.h"

namespace attnlab::pretrain {

// tasks.js's mulberry32, bit for bit (JS's Math.imul is a wrapping 32-bit multiply).
struct Mulberry32 {
  uint32_t state;
  double next() {
    state += 0x6d2b79f5u;
    uint32_t z = state;
    z = (z ^ (z >> 15)) * (z | 1u);
    z ^= z + (z ^ (z >> 7)) * (z | 61u);
    return static_cast<double>(z ^ (z >> 14)) / 4294967296.0;
  }
  // tasks.js randInt: an integer in [0, n). The product is taken in double whatever Int is, as in JS.
  template <class Int>
  Int below(Int n) {
    return static_cast<Int>(std::floor(next() * static_cast<double>(n)));
  }
};

// The stream tasks.js's heldOut() draws from with its default seed (1234 ^ its salt): evaluating on it
// measures a tool's model on the sequences the page evaluates.
constexpr uint32_t kHeldOutSeed = 1234u ^ 0x5eed0ff5u;

// Fisher–Yates from the end, as tasks.js shuffles (one below() per position, last to second).
template <class T>
void shuffle(std::vector<T>& v, Mulberry32& rng) {
  for (size_t k = v.size() - 1; k > 0; --k) std::swap(v[k], v[rng.below(k + 1)]);
}

// ---- Command line: positional arguments, the optional ones with their defaults -----------------------

// False (after printing the usage line) when fewer than `required` arguments were given.
inline bool has_args(int argc, char** argv, int required, const char* usage) {
  if (argc > required) return true;
  std::fprintf(stderr, "usage: %s %s\n", argv[0], usage);
  return false;
}

// argv[i] as a number, or `fallback` when it was not given.
inline unsigned long arg_or(int argc, char** argv, int i, unsigned long fallback) {
  return argc > i ? std::strtoul(argv[i], nullptr, 10) : fallback;
}

// ---- Failing: a tool stops at the first error, saying which tool and (optionally) which call ----------

inline void die(const Status& s, const char* tool, const char* where = nullptr) {
  if (s.ok) return;
  if (where) std::fprintf(stderr, "%s: %s: %s\n", tool, where, s.message.c_str());
  else std::fprintf(stderr, "%s: %s\n", tool, s.message.c_str());
  std::exit(1);
}

// ---- Output files --------------------------------------------------------------------------------------

inline bool write_file(const std::string& path, const void* data, size_t n) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(data, 1, n, f) == n;
  return std::fclose(f) == 0 && ok;
}

// Writes out/<name> or stops the tool (exit 1) saying which file.
inline void write_or_die(const std::string& out, const std::string& name, const void* data, size_t n,
                         const char* tool) {
  if (write_file(out + "/" + name, data, n)) return;
  std::fprintf(stderr, "%s: cannot write %s/%s\n", tool, out.c_str(), name.c_str());
  std::exit(1);
}

// A GPT's snapshot at `step` as out/step-<step>.safetensors (weights only: the page resumes nothing);
// returns the file name index.json lists.
inline std::string write_gpt_snapshot(const Gpt& model, const std::string& out, size_t step, const char* tool) {
  std::vector<uint8_t> bytes;
  die(save_safetensors(model, false, &bytes), tool);
  const std::string file = "step-" + std::to_string(step) + ".safetensors";
  write_or_die(out, file, bytes.data(), bytes.size(), tool);
  return file;
}

// ---- The logged training loss ------------------------------------------------------------------------

// The GPT tools' smoothed training loss (an exponential average, 0.98 kept: one batch's loss is noisy).
// Float arithmetic, as the shipped index.json files were written with.
inline float smoothed_loss(float smooth, float loss) {
  return std::isnan(smooth) ? loss : 0.98f * smooth + 0.02f * loss;
}

// index.json's "trainLoss": null before the first step (nothing trained yet), else std::to_string's
// six decimals.
inline std::string train_loss_json(float smooth) { return std::isnan(smooth) ? "null" : std::to_string(smooth); }

}  // namespace attnlab::pretrain
