// gpt2_checkpoint.cc — GPT-2 from Hugging Face's safetensors file, and back (attnlab/gpt.h).
//
// A GPT-2 checkpoint is the same architecture as attnlab's Gpt (learned positions, pre-LN, causal
// multi-head attention with biases, an MLP, LN_final, the unembedding tied to wte), under other names
// and with Q, K, V fused into one Conv1D: c_attn.weight [D, 3D] is x·W with columns Q | K | V. So a
// GPT-2 file becomes an inference-only Gpt whose tensors are filled from the file — the model's one
// forward (layer_forward) runs it; nothing here computes a layer.
//
//   HF name (prefix "" or "transformer.")      attnlab tensor
//   wte.weight [V, D]                           embed.W_E            (and the tied head)
//   wpe.weight [C, D]                           pos_embed.W_pos
//   h.{l}.ln_1.weight / .bias [D]               blocks.{l}.ln1.w / .b
//   h.{l}.attn.c_attn.weight [D, 3D]            blocks.{l}.attn.W_Q | W_K | W_V   (columns split)
//   h.{l}.attn.c_attn.bias [3D]                 blocks.{l}.attn.b_Q | b_K | b_V
//   h.{l}.attn.c_proj.weight [D, D] / .bias     blocks.{l}.attn.W_O / b_O
//   h.{l}.ln_2.weight / .bias                   blocks.{l}.ln2.w / .b
//   h.{l}.mlp.c_fc.weight [D, F] / .bias [F]    blocks.{l}.mlp.W_in / b_in
//   h.{l}.mlp.c_proj.weight [F, D] / .bias [D]  blocks.{l}.mlp.W_out / b_out
//   ln_f.weight / .bias                         ln_final.w / .b
//   (none)                                      unembed.b_U = 0
//
// Loading streams: the header is read first (names, shapes, dtypes, offsets checked, the model
// allocated at 4 bytes per parameter), then the data section's bytes are converted into the
// parameters as they arrive, in file order, whatever the chunking.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/gpt.h"
#include "common.h"
#include "../ops/check.h"
#include "safetensors_header.h"

namespace attnlab {

using model::Entry;
using model::Header;
using model::quoted;

// ---- F16 / BF16 → F32, exactly ----------------------------------------------------------------------

float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // ±inf, NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // 112 = 127 − 15
  } else if (mant == 0) {
    bits = sign;  // ±0
  } else {
    // Subnormal: mant · 2^−24, normalised (exact in float32).
    int e = -1;
    uint32_t m = mant;
    do {
      ++e;
      m <<= 1;
    } while ((m & 0x400u) == 0);
    bits = sign | (uint32_t(112 - e) << 23) | ((m & 0x3FFu) << 13);
  }
  return __builtin_bit_cast(float, bits);
}

float bf16_to_f32(uint16_t b) { return __builtin_bit_cast(float, uint32_t(b) << 16); }

namespace {

constexpr const char* kOp = "loadModel";
Status fail(const std::string& what) { return Status::Fail(std::string(kOp) + ": " + what); }

enum class DType { f32, f16, bf16 };
size_t dtype_size(DType d) { return d == DType::f32 ? 4 : 2; }

std::string shape_str(const uint64_t* s, size_t rank) {
  std::string out = "[";
  for (size_t i = 0; i < rank; ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// n values of dtype d at src (little-endian, any alignment) → float32 at dst.
void convert(DType d, const uint8_t* src, size_t n, float* dst) {
  if (d == DType::f32) {
    std::memcpy(dst, src, 4 * n);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint16_t u = uint16_t(src[2 * i] | (uint16_t(src[2 * i + 1]) << 8));
    dst[i] = d == DType::f16 ? f16_to_f32(u) : bf16_to_f32(u);
  }
}

// Where one file tensor's values go: element e (row-major) of a tensor whose rows hold `parts` pieces
// of `cols` values each lands in dst[part][row·cols + col] — c_attn's Q | K | V split (parts 3,
// cols D); every other tensor is one piece (parts 1, cols = its size).
struct Target {
  std::string name;  // the file's
  DType dtype = DType::f32;
  uint64_t begin = 0, end = 0;  // bytes, in the data section
  size_t parts = 1, cols = 0;
  float* dst[3] = {};
  std::string dst_name[3];  // attnlab's
  const GptTensor* dst_t[3] = {};  // their table entries (a transposed one takes its values scattered)
  size_t count() const { return size_t((end - begin) / dtype_size(dtype)); }
};

// GPT-2's tensors (Hugging Face names, without the optional "transformer." prefix) and where each goes
// in attnlab's model: one table for loading and saving. c_attn holds W_Q | W_K | W_V side by side
// (Conv1D, [in, out]), so it has three destinations, each D columns of every row.
struct Gpt2Tensor {
  std::string name;
  std::vector<uint64_t> shape;
  size_t parts;         // 1, or 3 for c_attn's fused Q|K|V
  std::string dst[3];   // attnlab's tensor names
};

std::vector<Gpt2Tensor> gpt2_tensors(uint64_t L, uint64_t D, uint64_t F, uint64_t V, uint64_t C) {
  std::vector<Gpt2Tensor> all;
  auto add = [&](std::string n, std::vector<uint64_t> sh, std::string d0, std::string d1 = "", std::string d2 = "") {
    all.push_back({std::move(n), std::move(sh), d1.empty() ? size_t(1) : size_t(3), {std::move(d0), std::move(d1), std::move(d2)}});
  };
  add("wte.weight", {V, D}, "embed.W_E");
  add("wpe.weight", {C, D}, "pos_embed.W_pos");
  for (uint64_t l = 0; l < L; ++l) {
    const std::string p = "h." + std::to_string(l) + ".", b = "blocks." + std::to_string(l) + ".";
    add(p + "ln_1.weight", {D}, b + "ln1.w");
    add(p + "ln_1.bias", {D}, b + "ln1.b");
    add(p + "attn.c_attn.weight", {D, 3 * D}, b + "attn.W_Q", b + "attn.W_K", b + "attn.W_V");
    add(p + "attn.c_attn.bias", {3 * D}, b + "attn.b_Q", b + "attn.b_K", b + "attn.b_V");
    add(p + "attn.c_proj.weight", {D, D}, b + "attn.W_O");
    add(p + "attn.c_proj.bias", {D}, b + "attn.b_O");
    add(p + "ln_2.weight", {D}, b + "ln2.w");
    add(p + "ln_2.bias", {D}, b + "ln2.b");
    add(p + "mlp.c_fc.weight", {D, F}, b + "mlp.W_in");
    add(p + "mlp.c_fc.bias", {F}, b + "mlp.b_in");
    add(p + "mlp.c_proj.weight", {F, D}, b + "mlp.W_out");
    add(p + "mlp.c_proj.bias", {D}, b + "mlp.b_out");
  }
  add("ln_f.weight", {D}, "ln_final.w");
  add("ln_f.bias", {D}, "ln_final.b");
  return all;
}

uint64_t element_count(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}
}  // namespace

struct Gpt2Loader::Impl {
  std::unique_ptr<Gpt> m;
  std::vector<Target> targets;  // sorted by begin
  uint64_t header = 0, data = 0, pos = 0;
  size_t ti = 0;          // the target pos is in or before
  uint8_t carry[4] = {};  // a value split across chunks
  size_t carried = 0;
  bool failed = false;
  // A transposed destination (GptTensor::transposed: W_O and W_out of an inference-only model) stores
  // value (r, q) at q·rows + r. Its values arrive row by row: kTile rows are gathered here, then written
  // column by column, kTile contiguous floats each. One value at a time, each to another row of the
  // stored matrix, doubled the whole load's time (GPT-2-small-sized file, Node, load 8-9: ~1.3 ->
  // ~2.6 s); through 16 rows ~1.3x, 64 rows ~1.25x the load before the transposed layout (~0.6 s).
  static constexpr size_t kTile = 64;
  std::vector<float> tile;  // [kTile, cols]
  void to_tile(const Target& t, size_t e, const float* v, size_t n) {
    const GptTensor& tt = *t.dst_t[0];
    if (tile.size() < kTile * tt.cols) tile.resize(kTile * tt.cols);
    size_t r = e / tt.cols, q = e % tt.cols;
    for (size_t i = 0; i < n; ++i) {
      tile[(r % kTile) * tt.cols + q] = v[i];
      if (++q < tt.cols) continue;
      q = 0;
      if ((r + 1) % kTile == 0 || r + 1 == tt.rows) {  // rows r0 … r of the tile are complete
        const size_t r0 = r - r % kTile, nr = r - r0 + 1;
        for (size_t c = 0; c < tt.cols; ++c)
          for (size_t j = 0; j < nr; ++j) t.dst[0][c * tt.rows + r0 + j] = tile[j * tt.cols + c];
      }
      ++r;
    }
  }
};

Gpt2Loader::Gpt2Loader() : impl_(new Impl()) {}
Gpt2Loader::~Gpt2Loader() = default;
uint64_t Gpt2Loader::header_bytes() const { return impl_->header; }
uint64_t Gpt2Loader::file_bytes() const { return impl_->header + impl_->data; }
uint64_t Gpt2Loader::data_written() const { return impl_->pos; }

namespace {

std::string detect_prefix(const Header& h) {
  for (const Entry& e : h.entries)
    if (e.name == "transformer.wte.weight") return "transformer.";
  return "";
}

const Entry* find(const Header& h, const std::string& name) {
  for (const Entry& e : h.entries)
    if (e.name == name) return &e;
  return nullptr;
}

// The layer count: 1 + the largest l of "<prefix>h.<l>.…".
size_t count_layers(const Header& h, const std::string& prefix) {
  size_t layers = 0;
  const std::string p = prefix + "h.";
  for (const Entry& e : h.entries) {
    if (e.name.compare(0, p.size(), p) != 0) continue;
    size_t i = p.size(), l = 0;
    bool digits = false;
    while (i < e.name.size() && e.name[i] >= '0' && e.name[i] <= '9' && l < 100000) {
      l = l * 10 + size_t(e.name[i] - '0');
      ++i;
      digits = true;
    }
    if (digits && i < e.name.size() && e.name[i] == '.') layers = std::max(layers, l + 1);
  }
  return layers;
}

Status check_config_dim(const char* key, size_t given, size_t found, const std::string& from) {
  if (given == 0 || given == found) return Status::Ok();
  return fail("config " + std::string(key) + " is " + std::to_string(given) + " but the file has " +
              std::to_string(found) + " (" + from + "), expected the config.json of this file");
}

}  // namespace

bool is_gpt2_safetensors(const uint8_t* bytes, size_t n) {
  Header h;
  size_t hn = 0;
  if (!model::read_safetensors_header(bytes, n, &hn, &h).ok) return false;
  return find(h, "wte.weight") || find(h, "transformer.wte.weight");
}

Status Gpt2Loader::begin(const uint8_t* head, size_t n, const Gpt2Config& cfg) {
  Impl fresh;
  Impl& s = *impl_;
  s = std::move(fresh);
  s.failed = true;  // until begin succeeds
  Header h;
  size_t hn = 0;
  ATTNLAB_CHECK(model::read_safetensors_header(head, n, &hn, &h));
  if (h.entries_seen > model::kMaxEntries)
    return fail("bytes header lists " + std::to_string(h.entries_seen) + " tensors, expected at most " +
                std::to_string(model::kMaxEntries));
  const std::string pre = detect_prefix(h);
  const Entry* wte = find(h, pre + "wte.weight");
  if (!wte)
    return fail("bytes have no tensor \"wte.weight\" (nor \"transformer.wte.weight\"), so they are not a GPT-2 "
                "checkpoint, expected Hugging Face's GPT-2 layout (wte, wpe, h.{i}.…, ln_f)");
  if (wte->rank != 2)
    return fail("tensor " + quoted(wte->name) + " has shape " + shape_str(wte->shape, wte->rank) +
                ", expected [vocab, n_embd]");
  const uint64_t V = wte->shape[0], D = wte->shape[1];
  const Entry* wpe = find(h, pre + "wpe.weight");
  if (!wpe) return fail("bytes have no tensor " + quoted(pre + "wpe.weight") + ", expected every tensor of GPT-2");
  if (wpe->rank != 2 || wpe->shape[1] != D)
    return fail("tensor " + quoted(wpe->name) + " has shape " + shape_str(wpe->shape, wpe->rank) +
                ", expected [n_positions, " + std::to_string(D) + "] (n_embd from wte.weight)");
  const uint64_t C = wpe->shape[0];
  const size_t L = count_layers(h, pre);
  if (L == 0) return fail("bytes have no tensor " + quoted(pre + "h.0.ln_1.weight") + ", expected at least one layer");
  const Entry* fc = find(h, pre + "h.0.mlp.c_fc.weight");
  if (!fc) return fail("bytes have no tensor " + quoted(pre + "h.0.mlp.c_fc.weight") + ", expected every tensor of GPT-2");
  if (fc->rank != 2 || fc->shape[0] != D)
    return fail("tensor " + quoted(fc->name) + " has shape " + shape_str(fc->shape, fc->rank) + ", expected [" +
                std::to_string(D) + ", n_inner] (n_embd from wte.weight)");
  const uint64_t F = fc->shape[1];
  if (V == 0 || D == 0 || C == 0 || F == 0 || V > (1u << 20) || D > 65536 || C > 65536 || F > 1u << 20)
    return fail("bytes have dimensions vocab " + std::to_string(V) + ", n_embd " + std::to_string(D) +
                ", n_positions " + std::to_string(C) + ", n_inner " + std::to_string(F) +
                ", expected positive sizes a GPT-2 can have");
  ATTNLAB_CHECK(check_config_dim("vocab_size", cfg.vocab_size, V, "wte.weight's rows"));
  ATTNLAB_CHECK(check_config_dim("n_embd", cfg.n_embd, D, "wte.weight's columns"));
  ATTNLAB_CHECK(check_config_dim("n_positions", cfg.n_positions, C, "wpe.weight's rows"));
  ATTNLAB_CHECK(check_config_dim("n_layer", cfg.n_layer, L, "layers h.0 … h." + std::to_string(L - 1)));
  ATTNLAB_CHECK(check_config_dim("n_inner", cfg.n_inner, F, "mlp.c_fc.weight's columns"));
  size_t H = cfg.n_head;
  if (H == 0) {
    if (D % 64 != 0)
      return fail("no config n_head, and n_embd = " + std::to_string(D) +
                  " is not a multiple of 64 (GPT-2's head width), expected { config: { n_head } }");
    H = size_t(D / 64);
  }
  if (D % H != 0)
    return fail("config n_head = " + std::to_string(H) + " does not divide n_embd = " + std::to_string(D) +
                ", expected the config.json of this file");

  GptConfig c;
  c.vocab = size_t(V), c.context = size_t(C), c.layers = L, c.heads = H, c.d_model = size_t(D), c.d_ff = size_t(F);
  c.activation = cfg.activation;
  c.ln_eps = cfg.layer_norm_epsilon;
  c.inference_only = true;
  {
    Status st = check_gpt_config(c);
    if (!st.ok) {
      // "createModel: vocab is …" → "loadModel: this GPT-2's vocab is …"
      const size_t colon = st.message.find(": ");
      return fail("this GPT-2's " + (colon == std::string::npos ? st.message : st.message.substr(colon + 2)));
    }
  }

  // Every tensor GPT-2 has: present, a float dtype, the shape the dimensions ask, the right length.
  const std::vector<Gpt2Tensor> want = gpt2_tensors(L, D, F, V, C);

  std::map<std::string_view, const Entry*> by_name;
  for (const Entry& e : h.entries) by_name.emplace(e.name, &e);
  std::vector<Target> targets;
  targets.reserve(want.size());
  for (const Gpt2Tensor& w : want) {
    auto it = by_name.find(pre + w.name);
    if (it == by_name.end())
      return fail("bytes have no tensor " + quoted(pre + w.name) + ", expected every tensor of GPT-2's layout (" +
                  std::to_string(L) + " layers, from the h.{i} names present)");
    const Entry& e = *it->second;
    Target t;
    t.name = e.name;
    if (e.dtype == "F32") t.dtype = DType::f32;
    else if (e.dtype == "F16") t.dtype = DType::f16;
    else if (e.dtype == "BF16") t.dtype = DType::bf16;
    else
      return fail("tensor " + quoted(e.name) + " has dtype " + quoted(e.dtype) + ", expected \"F32\", \"F16\" or \"BF16\"");
    const bool same = e.rank == w.shape.size() && std::equal(w.shape.begin(), w.shape.end(), e.shape);
    if (!same)
      return fail("tensor " + quoted(e.name) + " has shape " + shape_str(e.shape, e.rank) + ", expected " +
                  shape_str(w.shape.data(), w.shape.size()) + " (vocab " + std::to_string(V) + ", n_embd " +
                  std::to_string(D) + ", n_positions " + std::to_string(C) + ", n_inner " + std::to_string(F) +
                  " from wte, wpe and h.0.mlp.c_fc)");
    const uint64_t count = element_count(w.shape);
    const uint64_t bytes = count * dtype_size(t.dtype);
    if (e.begin > e.end || e.end - e.begin != bytes)
      return fail("tensor " + quoted(e.name) + " has data_offsets [" + std::to_string(e.begin) + ", " +
                  std::to_string(e.end) + "], expected " + std::to_string(bytes) + " bytes for its shape and dtype");
    t.begin = e.begin, t.end = e.end;
    t.parts = w.parts;
    t.cols = size_t(w.parts == 3 ? D : count);
    for (size_t k = 0; k < w.parts; ++k) t.dst_name[k] = w.dst[k];
    targets.push_back(std::move(t));
  }

  // Every entry's data (ignored ones too) tiles the data section: no overlap, no gap.
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const Entry& e : h.entries) {
    if (e.begin > e.end)
      return fail("tensor " + quoted(e.name) + " has data_offsets [" + std::to_string(e.begin) + ", " +
                  std::to_string(e.end) + "], expected begin ≤ end");
    spans.emplace_back(e.begin, e.end);
  }
  std::sort(spans.begin(), spans.end());
  uint64_t at = 0;
  for (const auto& [b, e] : spans) {
    if (b != at)
      return fail("bytes' tensors " + std::string(b < at ? "overlap" : "leave a gap") + " at byte " +
                  std::to_string(std::min(b, at)) + " of the data, expected data_offsets that tile the data");
    at = e;
  }

  // The model: 4 bytes per parameter (Gpt::create says how much it could not get).
  std::unique_ptr<Gpt> m;
  {
    Status st = Gpt::create(c, &m);
    if (!st.ok) {
      const size_t colon = st.message.find(": ");
      return fail("this GPT-2 (" + std::to_string(L) + " layers, n_embd " + std::to_string(D) + ", vocab " +
                  std::to_string(V) + "): " + (colon == std::string::npos ? st.message : st.message.substr(colon + 2)));
    }
  }
  for (Target& t : targets)
    for (size_t k = 0; k < t.parts; ++k) {
      t.dst_t[k] = m->tensor(t.dst_name[k]);
      t.dst[k] = m->params() + t.dst_t[k]->offset;
    }
  std::sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) { return a.begin < b.begin; });

  s.m = std::move(m);
  s.targets = std::move(targets);
  s.header = 8 + uint64_t(hn);
  s.data = at;
  s.failed = false;
  return Status::Ok();
}

Status Gpt2Loader::write(const uint8_t* p, size_t n) {
  Impl& s = *impl_;
  if (!s.m || s.failed) return fail("write before a successful begin, expected begin(header) first");
  if (n > s.data - s.pos) {
    s.failed = true;
    return fail("bytes go on past the " + std::to_string(s.header + s.data) +
                " bytes the header describes, expected the file to end with its last tensor");
  }
  while (n > 0) {
    while (s.ti < s.targets.size() && s.pos >= s.targets[s.ti].end) ++s.ti;
    if (s.ti == s.targets.size() || s.pos < s.targets[s.ti].begin) {  // an ignored tensor's bytes
      const uint64_t next = s.ti == s.targets.size() ? s.data : s.targets[s.ti].begin;
      const size_t skip = size_t(std::min<uint64_t>(n, next - s.pos));
      s.pos += skip, p += skip, n -= skip;
      continue;
    }
    const Target& t = s.targets[s.ti];
    const size_t es = dtype_size(t.dtype);
    const uint64_t rel = s.pos - t.begin;
    size_t e = size_t(rel / es);
    const size_t row_len = t.parts * t.cols;
    const bool transposed = t.dst_t[0]->transposed;  // one part (c_proj): through s.tile
    auto dest = [&](size_t idx) {
      const size_t row = idx / row_len, c = idx % row_len;
      return t.dst[c / t.cols] + row * t.cols + c % t.cols;
    };
    if (s.carried > 0 || n < es) {  // one value, byte by byte
      const size_t take = std::min(n, es - s.carried);
      std::memcpy(s.carry + s.carried, p, take);
      s.carried += take, s.pos += take, p += take, n -= take;
      if (s.carried == es) {
        const size_t at = size_t((s.pos - t.begin) / es) - 1;
        float v;
        convert(t.dtype, s.carry, 1, transposed ? &v : dest(at));
        if (transposed) s.to_tile(t, at, &v, 1);
        s.carried = 0;
      }
      continue;
    }
    // Whole values: up to the end of this chunk, this tensor and this row piece.
    size_t run = std::min<uint64_t>(n / es, t.count() - e);
    if (transposed) {
      float buf[1024];
      run = std::min<size_t>(run, 1024);
      convert(t.dtype, p, run, buf);
      s.to_tile(t, e, buf, run);
    } else {
      const size_t within = (e % row_len) % t.cols;
      run = std::min(run, t.cols - within);
      convert(t.dtype, p, run, dest(e));
    }
    s.pos += run * es, p += run * es, n -= run * es;
  }
  return Status::Ok();
}

Status Gpt2Loader::finish(std::unique_ptr<Gpt>* out) {
  Impl& s = *impl_;
  if (!out) return fail("out is null, expected a place for the model");
  out->reset();
  if (!s.m || s.failed) return fail("finish before a successful begin, expected begin(header) and write(data) first");
  if (s.pos != s.data) {
    const uint64_t got = s.header + s.pos, total = s.header + s.data;
    s.m.reset();
    s.failed = true;
    return fail("bytes end after " + std::to_string(got) + " of the " + std::to_string(total) +
                " bytes the header describes (is the file truncated?), expected the whole file");
  }
  for (const Target& t : s.targets) {
    const size_t per = t.count() / t.parts;
    for (size_t k = 0; k < t.parts; ++k) {
      size_t i = first_non_finite(t.dst[k], per);
      if (i != per) {
        const float v = t.dst[k][i];
        const GptTensor& tt = *t.dst_t[k];
        if (tt.transposed) i = (i % tt.rows) * tt.cols + i / tt.rows;  // stored (c, r): the value (r, c)
        s.m.reset();
        s.failed = true;
        return fail("tensor " + quoted(t.name) + " holds " + (std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity") +
                    " (" + t.dst_name[k] + "[" + std::to_string(i) + "]), expected finite values");
      }
    }
  }
  *out = std::move(s.m);
  s.targets.clear();
  return Status::Ok();
}

Status load_gpt2_safetensors(const uint8_t* bytes, size_t n, const Gpt2Config& c, std::unique_ptr<Gpt>* out) {
  if (!out) return fail("out is null, expected a place for the model");
  out->reset();
  Gpt2Loader loader;
  ATTNLAB_CHECK(loader.begin(bytes, n, c));
  const uint64_t h = loader.header_bytes();
  const uint64_t data = std::min<uint64_t>(n - h, loader.file_bytes() - h);
  ATTNLAB_CHECK(loader.write(bytes + h, size_t(data)));
  if (n > loader.file_bytes())
    return fail("bytes go on past the " + std::to_string(loader.file_bytes()) +
                " bytes the header describes, expected the file to end with its last tensor");
  return loader.finish(out);
}

// ---- Export ----------------------------------------------------------------------------------------

namespace {
void json_string(std::string& h, std::string_view s) {
  h += '"';
  h += s;  // names and values written here are ASCII without quotes or backslashes
  h += '"';
}
std::string float_text(float x) {
  char buf[40];
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(x));
    if (std::strtof(buf, nullptr) == x) break;
  }
  return buf;
}
}  // namespace

Status save_gpt2_safetensors(const Gpt& m, std::vector<uint8_t>* bytes, std::string* config_json) {
  constexpr const char* op = "save";
  if (!bytes || !config_json) return Status::Fail("save: bytes is null, expected a vector to write to");
  const GptConfig& c = m.config();
  if (!c.layer_norm || c.attention_only)
    return Status::Fail(std::string(op) + ": layout 'gpt2' needs LayerNorm and an MLP in every layer (GPT-2's), this model is " +
                        (c.attention_only ? "attention-only" : "without LayerNorm") + ", expected layout 'attnlab'");
  const float* P = m.params();
  const GptTensor* bu = m.tensor("unembed.b_U");
  for (size_t i = 0; i < bu->size(); ++i)
    if (P[bu->offset + i] != 0.0f)
      return Status::Fail(std::string(op) + ": layout 'gpt2' has no output bias, but unembed.b_U[" + std::to_string(i) +
                          "] is " + float_text(P[bu->offset + i]) +
                          ", expected b_U = 0 (set it to zero with setParameters, or save with layout 'attnlab')");
  for (const GptTensor& t : m.tensors()) {
    const size_t i = first_non_finite(P + t.offset, t.size());
    if (i != t.size())
      return Status::Fail(std::string(op) + ": " + t.name + "[" + std::to_string(i) + "] is not finite, expected finite values");
  }
  const size_t D = c.d_model, F = c.d_ff, L = c.layers;
  std::vector<float> row(std::max(D, F));
  // Each tensor of the file: its rows are its pieces' rows side by side (c_attn: W_Q | W_K | W_V).
  const std::vector<Gpt2Tensor> outs = gpt2_tensors(L, D, F, c.vocab, c.context);

  std::string h = "{\"__metadata__\":{\"format\":\"pt\"}";
  uint64_t offset = 0;
  for (const Gpt2Tensor& o : outs) {
    const uint64_t count = element_count(o.shape);
    h += ',';
    json_string(h, o.name);
    h += ":{\"dtype\":\"F32\",\"shape\":[";
    for (size_t i = 0; i < o.shape.size(); ++i) h += (i ? "," : "") + std::to_string(o.shape[i]);
    h += "],\"data_offsets\":[" + std::to_string(offset) + ",";
    offset += 4 * count;
    h += std::to_string(offset) + "]}";
  }
  h += '}';
  while ((8 + h.size()) % 8 != 0) h += ' ';
  const uint64_t total = 8 + h.size() + offset;
  if (total > std::numeric_limits<size_t>::max() / 2)
    return Status::Fail("save: the file needs " + std::to_string(total) + " bytes, expected at most half the address space");
  void* probe = std::malloc(static_cast<size_t>(total));
  if (!probe)
    return Status::Fail("save: could not get " + std::to_string(total >> 20) + " MiB for the file, expected memory for the whole file");
  std::free(probe);
  std::vector<uint8_t> out(static_cast<size_t>(total));
  const uint64_t N = h.size();
  for (size_t b = 0; b < 8; ++b) out[b] = static_cast<uint8_t>(N >> (8 * b));
  std::memcpy(out.data() + 8, h.data(), h.size());
  uint8_t* d = out.data() + 8 + h.size();
  for (const Gpt2Tensor& o : outs) {  // its rows: the pieces' rows side by side, [rows, cols] each
    const GptTensor* t[3] = {};
    for (size_t k = 0; k < o.parts; ++k) t[k] = m.tensor(o.dst[k]);
    for (size_t r = 0; r < t[0]->rows; ++r)
      for (size_t k = 0; k < o.parts; ++k) {
        model::logical_row(*t[k], P, r, row.data());  // whatever the storage (GptTensor::transposed)
        std::memcpy(d, row.data(), 4 * t[k]->cols);
        d += 4 * t[k]->cols;
      }
  }


  const char* act = c.activation == Activation::gelu_tanh ? "gelu_new" : c.activation == Activation::gelu ? "gelu" : "relu";
  std::string j = "{\n  \"architectures\": [\"GPT2LMHeadModel\"],\n  \"model_type\": \"gpt2\",\n";
  j += "  \"vocab_size\": " + std::to_string(c.vocab) + ",\n  \"n_positions\": " + std::to_string(c.context) +
       ",\n  \"n_ctx\": " + std::to_string(c.context) + ",\n  \"n_embd\": " + std::to_string(D) +
       ",\n  \"n_layer\": " + std::to_string(L) + ",\n  \"n_head\": " + std::to_string(c.heads) +
       ",\n  \"n_inner\": " + (F == 4 * D ? std::string("null") : std::to_string(F)) +
       ",\n  \"activation_function\": \"" + act + "\",\n  \"layer_norm_epsilon\": " + float_text(c.ln_eps) +
       ",\n  \"tie_word_embeddings\": true,\n  \"resid_pdrop\": 0.0,\n  \"embd_pdrop\": 0.0,\n  \"attn_pdrop\": 0.0\n}\n";
  *bytes = std::move(out);
  *config_json = std::move(j);
  return Status::Ok();
}

}  // namespace attnlab
