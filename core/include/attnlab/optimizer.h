// attnlab/optimizer.h — the training step's arithmetic on flat float arrays: AdamW, gradient-norm
// clipping, the warm-up + cosine learning-rate schedule (core/src/ops/optimizer.cc).
//
// A model keeps all its parameters in one flat array, its gradients, Adam's first and second moments
// m and v in three more of the same length (llm.c's layout), so one call updates every parameter.
// Pointer level, as ops.h: no allocation, no exceptions, a Status naming the argument on bad input.
#pragma once

#include <cstddef>

#include "attnlab/status.h"

namespace attnlab {

// torch.optim.AdamW (Loshchilov & Hutter), for step t = 1, 2, … (t counts this step):
//   θ ← θ·(1 − lr·weight_decay)                         decoupled weight decay, before the Adam step
//   m ← β1·m + (1 − β1)·g          v ← β2·v + (1 − β2)·g²
//   θ ← θ − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + eps)   bias-corrected
// Defaults are torch's. lr ≥ 0 finite, 0 ≤ β < 1, eps > 0, weight_decay ≥ 0. The hyperparameters are
// doubles, as torch's Python floats: 1 − β2 from β2 = 0.999f would be 1.3e-5 off in relative terms.
struct AdamWConfig {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 1e-2;
};
// The hyperparameter rules above, with messages under `op` ("trainStep: lr is NaN, expected …"):
// adamw_step applies them, and a caller (the GPT's training step) checks them before its own work.
Status check_adamw_config(const char* op, const AdamWConfig& c);

// params, grads, m, v: [n]; m and v start at 0 and are updated in place, as params.
Status adamw_step(float* params, const float* grads, float* m, float* v, size_t n, size_t step,
                  const AdamWConfig& c);

// Whether adamw_step with these arguments would leave every parameter and moment finite: the same
// float32 arithmetic, nothing written. A training step asks this of every tensor before updating any,
// so a step whose update would overflow (a huge lr, a gradient whose square overflows) is refused with
// everything unchanged. False also for arguments adamw_step would refuse.
bool adamw_step_stays_finite(const float* params, const float* grads, const float* m, const float* v,
                             size_t n, size_t step, const AdamWConfig& c);

// Global L2 norm of grads [n], ‖g‖ = √Σg² (summed in double), written to *norm; when it exceeds
// max_norm, every gradient is scaled by max_norm/(‖g‖ + 1e-6), as torch.nn.utils.clip_grad_norm_.
// max_norm > 0 (+∞: only measure). A non-finite norm leaves grads unchanged (and is reported in
// *norm: the caller refuses the step).
Status clip_grad_norm(float* grads, size_t n, float max_norm, float* norm);

// Learning rate at step s = 0, 1, …:
//   s < warmup:            max_lr·(s + 1)/warmup                                        (linear)
//   warmup ≤ s < total:    min_lr + ½(max_lr − min_lr)(1 + cos(π·(s − warmup)/(total − warmup)))
//   s ≥ total:             min_lr
// 0 ≤ min_lr ≤ max_lr finite, warmup ≤ total, total > 0.
struct LrSchedule {
  float max_lr = 1e-3f, min_lr = 0.0f;
  size_t warmup_steps = 0, total_steps = 1;
};
Status lr_warmup_cosine(const LrSchedule& s, size_t step, float* lr);

}  // namespace attnlab
