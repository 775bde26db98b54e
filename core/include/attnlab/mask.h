// attnlab/mask.h — which keys each query may attend to.
//
//   none      every key
//   causal    key j ≤ query i                      (decoder self-attention: no peeking ahead)
//   window    |i − j| ≤ w                          (local / sliding-window attention)
//   window + causal   0 ≤ i − j ≤ w                (causal local attention)
//   additive  a [t_q, t_k] array added to the scaled scores: 0 keeps a key, −∞ removes it, any
//             finite value biases it (padding masks, hand-edited masks, ALiBi-style biases)
//
// A mask is applied to the scaled scores before the softmax: M with −∞ above the diagonal is the
// lecture's causal mask. Causal and window masks need t_q = t_k (self-attention).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace attnlab {

struct Mask {
  enum class Kind { none, causal, window, additive };

  Kind kind = Kind::none;
  int window = 0;                  // Kind::window: the half-width w
  bool causal = false;             // Kind::window: only look back
  const float* additive = nullptr; // Kind::additive: [t_q, t_k], not owned; the caller keeps it alive

  static Mask None() { return {}; }
  static Mask Causal() { return {Kind::causal, 0, true, nullptr}; }
  static Mask Window(int w, bool causal_window = false) {
    return {Kind::window, w, causal_window, nullptr};
  }
  static Mask Additive(const float* values) { return {Kind::additive, 0, false, values}; }

  // The term added to scaled score (i, j): 0, −∞, or the additive value. t_k is the row length.
  float bias(size_t i, size_t j, size_t t_k) const {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    switch (kind) {
      case Kind::none: return 0.0f;
      case Kind::causal: return j <= i ? 0.0f : kNegInf;
      case Kind::window: {
        const long d = static_cast<long>(i) - static_cast<long>(j);
        const bool ok = causal ? (d >= 0 && d <= window) : (d >= -window && d <= window);
        return ok ? 0.0f : kNegInf;
      }
      case Kind::additive: return additive[i * t_k + j];
    }
    return 0.0f;
  }

  // Causal and window masks are defined on positions of one sequence.
  bool needs_square() const { return kind == Kind::causal || kind == Kind::window; }
};

}  // namespace attnlab
