// kv_cache.h — the keys and values a decoder keeps while it generates, one [capacity, d_model] pair
// per layer (layer_forward fills them: layer.h). A view over memory its owner allocates (the model's
// generation block); the layout is [layers][K, V][capacity, d_model], row p holding position p.
#pragma once

#include <cstddef>

namespace attnlab::model {

struct KvCache {
  float* data = nullptr;  // floats(layers, capacity, d_model) floats
  size_t layers = 0, capacity = 0, d_model = 0;
  size_t length = 0;      // rows 0 … length − 1 of every layer hold positions 0 … length − 1

  float* keys(size_t layer) const { return data + (2 * layer) * capacity * d_model; }
  float* values(size_t layer) const { return data + (2 * layer + 1) * capacity * d_model; }
};

}  // namespace attnlab::model
