// safetensors_header.h — the safetensors header as safetensors.cc reads it (validated JSON, every
// entry's dtype, shape and data_offsets), shared by the attnlab checkpoint reader and the GPT-2 one
// (gpt2_checkpoint.cc), and the row reader both writers use. Internal to core/src/model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnlab/gpt.h"
#include "attnlab/status.h"

namespace attnlab::model {

constexpr size_t kMaxRank = 8;
// More than a checkpoint can have (an attnlab GPT: 3 arrays × (5 + 16·64) = 3087 tensors at most;
// GPT-2 XL: 580): beyond these the reader keeps counting but stores nothing.
constexpr size_t kMaxEntries = 4096;
constexpr size_t kMaxMetadata = 256;

struct Entry {
  std::string name;
  std::string dtype;
  uint64_t shape[kMaxRank] = {};
  size_t rank = 0;
  uint64_t begin = 0, end = 0;
  size_t header_pos = 0;  // where its value starts in the header (messages)
};

struct Header {
  bool has_metadata = false;
  size_t entries_seen = 0, metadata_seen = 0;  // including those not stored
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<Entry> entries;

  const std::string* meta(std::string_view key) const {
    for (const auto& kv : metadata)
      if (kv.first == key) return &kv.second;
    return nullptr;
  }
};

// The file's first n bytes hold the 8-byte length N and the header: *header_len = N and *h its
// entries. Refusals start "loadModel: bytes …" (fewer than 8 bytes, N past the end, not JSON, …).
Status read_safetensors_header(const uint8_t* bytes, size_t n, size_t* header_len, Header* h);
// A name from the file, for a message: JSON-quoted, at most ~64 bytes.
std::string quoted(std::string_view s);

// Row r of tensor t in its [rows, cols] layout (GptTensor::transposed or not), from the flat array P,
// into dst [cols]: what a saved file holds (both writers).
inline void logical_row(const GptTensor& t, const float* P, size_t r, float* dst) {
  const float* x = P + t.offset;
  if (!t.transposed) {
    for (size_t c = 0; c < t.cols; ++c) dst[c] = x[r * t.cols + c];
    return;
  }
  for (size_t c = 0; c < t.cols; ++c) dst[c] = x[c * t.rows + r];
}

}  // namespace attnlab::model
