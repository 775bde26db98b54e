// The logit lens of attnlab/gpt.h (Gpt::logit_lens; nostalgebraist 2020): what the model would predict
// if it stopped after layer l. No layer is computed here: the rows are the residual stream the last
// forward kept, and they go through the same unembedding as the forward's own logits (Impl::unembed:
// LN_final, then output_head_forward), so the last row is the model's next-token distribution to the
// bit.
//
// Letters: D = d_model, V = vocab, L = layers, k = how many tokens per row.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../ops/check.h"
#include "gpt_impl.h"

namespace attnlab {

using namespace model;

Status Gpt::logit_lens(size_t b, size_t position, size_t k, int* ids, float* probs) {
  constexpr const char* op = "forward";
  Impl& s = *impl_;
  if (!s.valid) return fail(op, "lens: no forward to read, expected forward(ids) first");
  if (b >= s.B)
    return fail(op, "lens: sequence " + std::to_string(b) + " is past batch = " + std::to_string(s.B) +
                        ", expected a sequence of the last forward");
  if (position >= s.T)
    return fail(op, "lens.position is " + std::to_string(position) + ", expected an integer in [0, t = " +
                        std::to_string(s.T) + ")");
  if (k < 1 || k > s.V)
    return fail(op, "lens.k is " + std::to_string(k) + ", expected an integer in [1, vocab = " + std::to_string(s.V) + "]");
  if (!ids || !probs) return fail(op, "lens: an output buffer is missing");
  const size_t D = s.D, V = s.V, R = s.L + 1;
  // Scratch: rows [R, D] | ln [R, D] | logits [R, V] | p [R, V] | order [V] (ints, as floats' room).
  Carve size;
  size.take(R, D);
  size.take(R, D);
  size.take(R, V);
  size.take(R, V);
  size.take(V);
  if (!size.fits()) return fail(op, "lens: the readout of " + std::to_string(R) + " rows is too large");
  if (size.total > s.lens_floats) {
    std::free(s.lens_ws);
    s.lens_floats = 0;
    s.lens_ws = static_cast<float*>(std::malloc(size.total * sizeof(float)));
    if (!s.lens_ws)
      return fail(op, "lens: could not get " + mib(size.total * sizeof(float)) + " MiB for the readout");
    s.lens_floats = size.total;
  }
  Carve at;
  at.base = s.lens_ws;
  float* rows = at.take(R, D);
  float* ln = at.take(R, D);
  float* logits = at.take(R, V);
  float* p = at.take(R, V);
  int* order = reinterpret_cast<int*>(at.take(V));

  // rows[l] = the residual stream after l layers at (b, position): all R rows in one unembedding.
  const size_t row = b * s.T + position;
  for (size_t l = 0; l < R; ++l) std::memcpy(rows + l * D, residual(l) + row * D, D * sizeof(float));
  ATTNLAB_CHECK(s.unembed(op, rows, R, ln, nullptr, nullptr, logits, p));

  for (size_t l = 0; l < R; ++l) {
    const float* pl = p + l * V;
    for (size_t i = 0; i < V; ++i) order[i] = static_cast<int>(i);
    std::partial_sort(order, order + k, order + V, [pl](int x, int y) {
      return pl[x] > pl[y] || (pl[x] == pl[y] && x < y);  // a strict total order: the same k on every build
    });
    for (size_t j = 0; j < k; ++j) {
      ids[l * k + j] = order[j];
      probs[l * k + j] = pl[order[j]];
    }
  }
  return Status::Ok();
}

}  // namespace attnlab
