// attnlab/gpt.h — a small decoder-only Transformer (GPT) that trains: forward with every activation
// kept, backward, AdamW (core/src/model/gpt.cc), sampling with a KV cache (generate.cc). Built only
// from the ops of ops.h and backward.h, so the numbers a widget shows for a trained model come from
// the same code as the rest of attnlab; its layer is one function, layer_forward (core/src/model/
// layer.h), for the training forward, the prefill and the one-row decode alike.
//
//   ids [B, T] → x = W_E[ids] + W_pos[0:T]                                   (embed, pos_embed)
//   for each layer l (pre-LN; `layer_norm = false` drops every LN; `attention_only` drops the MLP):
//     x = x + MHA_l(LN1_l(x))      causal, heads of d_head = d_model / heads, biases
//     x = x + MLP_l(LN2_l(x))      W_in [d_model, d_ff], activation, W_out [d_ff, d_model]
//   logits = LN_final(x)·W_Eᵀ + b_U                                          (tied unembedding)
//   loss = mean over the B·T positions of −log softmax(logits)[target]
//
// Parameters live in ONE flat float array (llm.c's layout) so the optimizer is one call; each tensor
// is a named slice of it. Names follow TransformerLens (the interpretability literature's 2-layer
// attention-only models use them), with attnlab's x·W layout ([in, out]: head h of W_Q is columns
// [h·d_head, (h+1)·d_head)):
//   embed.W_E [vocab, d_model]        pos_embed.W_pos [context, d_model]
//   blocks.{l}.ln1.w, blocks.{l}.ln1.b [d_model]                              (layer_norm)
//   blocks.{l}.attn.W_Q, .W_K, .W_V, .W_O [d_model, d_model]; .b_Q, .b_K, .b_V, .b_O [d_model]
//   blocks.{l}.ln2.w, .b [d_model]                                   (layer_norm, !attention_only)
//   blocks.{l}.mlp.W_in [d_model, d_ff], .b_in [d_ff], .W_out [d_ff, d_model], .b_out [d_model]
//                                                                                (!attention_only)
//   ln_final.w, ln_final.b [d_model]                                          (layer_norm)
//   unembed.b_U [vocab]
// in exactly this order (per layer: ln1, attn, ln2, mlp). Weight decay applies to the tensors of rank
// 2 (the W_*), as nanoGPT does, not to biases and LN gains.
//
// Init, deterministic from `seed`: every W_* ~ N(0, σ²) with σ = init_std (0.02 as GPT-2), W_O and
// W_out ~ N(0, (σ/√(2·layers))²) (GPT-2's residual scaling), biases 0, LN gains 1 and biases 0.
// Without LayerNorm nothing rescales the residual stream, so σ = 0.02 leaves logits and gradients
// tiny and the 2-layer attention-only model sits on its plateau for thousands of steps; σ ≈ 0.25 (near
// PyTorch's default nn.Linear/nn.Embedding scales) forms induction in ~3,000 single-sequence steps.
//
// Errors: a Status naming the argument in the facade's words ("createModel: heads = 3 does not
// divide dModel = 32, …", "trainStep: targets[5] is 16, expected a token id in [0, vocab = 16)").
// Memory comes from malloc with a size checked first: a too-large model is a Status, never an abort.
#pragma once

#include <cstddef>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/ops.h"
#include "attnlab/optimizer.h"
#include "attnlab/status.h"

namespace attnlab {

struct GptConfig {
  size_t vocab = 0;       // token ids are [0, vocab)
  size_t context = 0;     // the longest sequence (learned positions)
  size_t layers = 0;
  size_t heads = 0;       // divides d_model
  size_t d_model = 0;
  size_t d_ff = 0;        // 0: 4·d_model; ignored when attention_only
  bool attention_only = false;
  bool layer_norm = true;
  Activation activation = Activation::gelu;
  float ln_eps = 1e-5f;
  float init_std = 0.02f;  // σ of the W_* init: finite, in (0, 10]
  uint64_t seed = 0;
  // Inference only (a pretrained model, e.g. GPT-2 from its safetensors file): the parameters alone,
  // 4 bytes each — no gradients, no Adam moments, no backward scratch; parameters start at zero (the
  // loader fills them). forward, generate, set_head_mask and save work; backward and train_step refuse.
  bool inference_only = false;
};

// The limits createModel enforces (each dimension ≥ 1): vocab ≤ 65536, context ≤ 4096, layers ≤ 64,
// d_model ≤ 4096, d_ff ≤ 16384, and at most kMaxGptParams parameters.
constexpr size_t kMaxGptParams = size_t(1) << 26;  // 64 M floats: 256 MiB, ×4 with grads and moments
// An inference-only model holds its parameters alone: up to 2^30 − 2^26 floats (3.75 GiB, what wasm32's
// 4 GiB can hold beside the activations; GPT-2 medium is 355 M).
constexpr uint64_t kMaxInferenceGptParams = (uint64_t(1) << 30) - (uint64_t(1) << 26);
Status check_gpt_config(const GptConfig& c);       // "createModel: <field> …, expected …"

// One named slice of the flat parameter array.
struct GptTensor {
  std::string name;     // "blocks.0.attn.W_Q"
  size_t offset = 0;    // in floats, into params()
  size_t rows = 1, cols = 0;  // shape [rows, cols]; rank 1 tensors have rank = 1 and shape [cols]
  int rank = 1;
  // Stored transposed, [cols, rows]: element (r, c) at params()[offset + c·rows + r]. An inference-only
  // model keeps attn.W_O, mlp.W_in and mlp.W_out so (its forward reads each output's weights as one
  // contiguous row); save() writes, and the JS parameters()/setParameters() take, the [rows, cols] layout.
  bool transposed = false;
  size_t size() const { return rows * cols; }
  size_t index(size_t r, size_t c) const { return transposed ? c * rows + r : r * cols + c; }
};

struct GptTrainOptions {
  AdamWConfig adamw;                    // torch.optim.AdamW defaults (lr 1e-3, wd 0.01 on rank-2 tensors)
  float max_grad_norm = INFINITY;       // clip_grad_norm_ threshold; +∞: measure only
};

struct GptSampling {
  float temperature = 1.0f;  // > 0 finite; 0 means greedy (argmax)
  size_t top_k = 0;          // 0: the whole vocabulary
  uint64_t seed = 0;
};

class Gpt {
 public:
  // A model with freshly initialised parameters (see Init above) and zero optimizer state.
  static Status create(const GptConfig& c, std::unique_ptr<Gpt>* out);
  ~Gpt();
  Gpt(const Gpt&) = delete;
  Gpt& operator=(const Gpt&) = delete;

  const GptConfig& config() const;  // d_ff resolved (4·d_model when 0 was given)
  size_t d_head() const;

  // ---- Parameters, gradients, optimizer state: four arrays of num_params() floats ----
  size_t num_params() const;
  float* params();
  const float* params() const;
  const float* grads() const;       // of the last backward()/train_step(); nullptr when inference-only
  bool inference_only() const;
  float* adam_m();                  // Adam's first and second moments (nullptr when inference-only)
  float* adam_v();
  const float* adam_m() const;
  const float* adam_v() const;
  size_t steps_taken() const;       // optimizer steps so far (AdamW's t of the next step is this + 1)
  void set_steps_taken(size_t t);   // a checkpoint restoring optimizer state
  const std::vector<GptTensor>& tensors() const;  // in the order above
  const GptTensor* tensor(std::string_view name) const;  // nullptr: no such tensor

  // ---- Head ablation (forward and generate only; train_step ignores it) ----
  // mask: [layers·heads], multiplies head h of layer l's output (before W_O): 1 keeps it, 0 ablates.
  // nullptr restores every head. Finite values only.
  Status set_head_mask(const float* mask);
  bool heads_ablated() const;

  // ---- Forward: ids [batch, t], 1 ≤ t ≤ context, ids in [0, vocab) ----
  // targets: [batch, t] or nullptr. With targets, *loss (may be nullptr) is the mean cross-entropy
  // and token_losses() the loss at each position. Keeps every activation for backward().
  // last_logits_only (no targets): the tied head runs on each sequence's last row only, and logits()
  // is [batch, vocab] — what generation and the next-token distribution need, without t·vocab·d_model
  // of the head's work per sequence (the residual stream, attention and the logit lens are unchanged).
  Status forward(const int* ids, const int* targets, size_t batch, size_t t, float* loss,
                 bool last_logits_only = false);
  size_t batch() const;                          // of the last forward
  size_t length() const;                         // t of the last forward
  const float* logits() const;                   // [batch·t, vocab] ([batch, vocab]: last_logits_only)
  const float* attention(size_t layer) const;    // [batch, heads, t, t], softmax weights
  const float* token_losses() const;             // [batch·t] (forward with targets)
  const float* residual(size_t layer) const;     // [batch·t, d_model], the stream entering layer l
                                                 // (l = layers: after the last layer, before LN_final)

  // ---- Logit lens, on the last forward: sequence b's residual stream at `position` after each of
  // 0 … layers layers (residual(l) above; 0 = embeddings + positions), each put through LN_final and
  // the tied unembedding (+ b_U) and softmaxed; the k most probable tokens of each, most probable
  // first (ties: the lower id first). ids, probs: [layers + 1, k]. Row `layers` is the forward's own
  // next-token distribution at that position, bit for bit: the same row through the same unembedding
  // (each logit is one dot product in a fixed order, whatever the number of rows).
  Status logit_lens(size_t b, size_t position, size_t k, int* ids, float* probs);

  // ---- Backward: the gradient of the last forward's mean loss (it needed targets, no ablation),
  // written to grads() (zeroed first). ----
  Status backward();

  // ---- One training step: forward, loss, backward, clip, AdamW (step t = steps_taken() + 1) ----
  // On a loss or gradient norm that is not finite the Status fails ("trainStep: the loss is NaN …")
  // and the parameters, the moments and steps_taken() are exactly as before.
  Status train_step(const int* ids, const int* targets, size_t batch, size_t t,
                    const GptTrainOptions& o, float* loss, float* grad_norm);

  // ---- Sampling with a KV cache: the prompt [n] (1 ≤ n ≤ context) is run once, then each new token
  // costs one row per layer. out: [steps] new tokens. Past the context the cache is rebuilt from the
  // last `context − 1` tokens (learned positions end there), so a long generation stays correct.
  Status generate(const int* prompt, size_t n, size_t steps, const GptSampling& s, int* out);

 private:
  Gpt();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- Checkpoints: safetensors (core/src/model/safetensors.cc) ----
// The format (huggingface/safetensors): 8 bytes little-endian u64 N, then N bytes of JSON header
// {"__metadata__": {str: str}, "<name>": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, …}
// padded with spaces to a multiple of 8, then the raw little-endian tensor bytes. attnlab writes the
// parameters under the names above (ordered by offset), metadata {"format": "attnlab-gpt", "version":
// "1", "vocab", "context", "layers", "heads", "d_model", "d_ff", "attention_only", "layer_norm",
// "activation", "ln_eps", "init_std" (optional on load), "steps_taken"}, and with_optimizer adds "optimizer.m.<name>" and
// "optimizer.v.<name>". Saving twice gives the same bytes; load(save(m)) saves to the same bytes.
Status save_safetensors(const Gpt& m, bool with_optimizer, std::vector<uint8_t>* bytes);
// Refuses, naming what is wrong ("loadModel: bytes …"): fewer than 8 bytes, a header length past the
// end, a header that is not JSON, not format attnlab-gpt, a missing or extra tensor, a dtype other
// than F32, a shape other than the config's, overlapping or out-of-range data_offsets, non-finite
// values. Optimizer tensors, when present, restore the moments and steps_taken.
Status load_safetensors(const uint8_t* bytes, size_t n, std::unique_ptr<Gpt>* out);

// ---- GPT-2 from Hugging Face's safetensors (core/src/model/gpt2_checkpoint.cc) ----
// The gpt2 / gpt2-medium / distilgpt2 layout, with or without a "transformer." prefix:
//   wte.weight [V, D]   wpe.weight [C, D]   ln_f.{weight, bias} [D]
//   h.{i}.ln_1.{weight, bias} [D]           h.{i}.ln_2.{weight, bias} [D]
//   h.{i}.attn.c_attn.weight [D, 3D] (Conv1D: x·W, [in, out], Q | K | V side by side), .bias [3D]
//   h.{i}.attn.c_proj.weight [D, D], .bias [D]
//   h.{i}.mlp.c_fc.weight [D, F], .bias [F]     h.{i}.mlp.c_proj.weight [F, D], .bias [D]
// Other tensors (attn.bias, attn.masked_bias, lm_head.weight: tied to wte) are ignored. Dimensions
// come from the shapes; F32, F16 and BF16 are converted to float32. The result is an inference-only
// Gpt (activation, ln_eps and heads from the config), c_attn split into W_Q/W_K/W_V and b_Q/b_K/b_V,
// b_U = 0. One forward: the Gpt's.
struct Gpt2Config {  // config.json's fields; 0 = not given (then taken from the shapes)
  size_t n_head = 0;  // 0: d_model / 64 (GPT-2's 64-wide heads)
  size_t n_layer = 0, n_embd = 0, n_positions = 0, vocab_size = 0, n_inner = 0;  // checked against the file
  float layer_norm_epsilon = 1e-5f;
  Activation activation = Activation::gelu_tanh;  // "gelu_new"
};

// Streams a file into the model as its bytes arrive: begin(header) allocates the model (4 bytes per
// parameter) once names, shapes, dtypes and offsets check out; write(data) converts the data section's
// bytes in order into the parameters (any chunking, chunks may split a value); finish() checks that
// every byte came and every value is finite, and hands the model over. Any refusal leaves nothing.
class Gpt2Loader {
 public:
  Gpt2Loader();
  ~Gpt2Loader();
  // head: the file's first n ≥ 8 + header-length bytes (more is fine: only the header is read).
  Status begin(const uint8_t* head, size_t n, const Gpt2Config& c);
  uint64_t header_bytes() const;  // 8 + N: where the data starts
  uint64_t file_bytes() const;    // 8 + N + the data section's length
  uint64_t data_written() const;
  Status write(const uint8_t* data, size_t n);  // the next n bytes of the data section
  Status finish(std::unique_ptr<Gpt>* out);
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when the header's tensors are GPT-2's (wte.weight or transformer.wte.weight).
bool is_gpt2_safetensors(const uint8_t* bytes, size_t n);
// The whole file in memory: begin, write, finish.
Status load_gpt2_safetensors(const uint8_t* bytes, size_t n, const Gpt2Config& c, std::unique_ptr<Gpt>* out);
// The model under GPT-2's names (F32, no prefix, metadata {"format": "pt"} as transformers expects) and
// its config.json text. Refuses models GPT-2 cannot express: no LayerNorm, attention-only, or a
// nonzero output bias b_U (GPT-2's head has none).
Status save_gpt2_safetensors(const Gpt& m, std::vector<uint8_t>* bytes, std::string* config_json);

// Half-precision values as float32, exactly (subnormals, ±inf and NaN kept).
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t b);

}  // namespace attnlab
