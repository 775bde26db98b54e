// safetensors.cc — GPT checkpoints in Hugging Face's safetensors format (attnlab/gpt.h):
//
//   [0, 8)           N, a little-endian u64
//   [8, 8 + N)       a UTF-8 JSON object, padded with spaces so that 8 + N is a multiple of 8:
//                    {"__metadata__": {str: str}, "<name>": {"dtype": "F32", "shape": [..],
//                     "data_offsets": [begin, end]}, …}
//   [8 + N, size)    the data: each tensor's float32 values, little-endian, at [begin, end) of it
//
// attnlab writes one compact line: the metadata, then the parameters in the order of tensors()
// (= their order in params()), then with the optimizer "optimizer.m.<name>" for each, then
// "optimizer.v.<name>" for each, their data back to back. Nothing else goes in, so the bytes are a
// function of the model alone (saving twice, or saving what was loaded, gives the same bytes).
//
// The reader trusts nothing: every length and offset is checked against the bytes before it is used,
// the JSON is validated without recursion (json_header.h), the model is only allocated once the header
// promises enough tensor data for its config, and the data of the tensors must tile the data section
// exactly (no overlap, no gap, nothing after the last tensor), as the reference implementation asks.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnlab/gpt.h"
#include "../ops/check.h"
#include "json_header.h"
#include "safetensors_header.h"

namespace attnlab {
namespace {

// The data section is the host's float32 memory, copied as is: the host must be little-endian, as
// WebAssembly and x86 are.
static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");
static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559, "F32 is IEEE binary32");

constexpr const char* kFn = "loadModel: bytes ";
constexpr std::string_view kFormat = "attnlab-gpt";
constexpr std::string_view kVersion = "1";
constexpr std::string_view kOptM = "optimizer.m.";
constexpr std::string_view kOptV = "optimizer.v.";
// A header is kilobytes (~0.4 MB for the largest config with its optimizer state); the reference
// reader's own limit is 100 MB. Beyond it the length field is garbage, not a header.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
using model::kMaxRank;  // attnlab's tensors have rank ≤ 2; other files' may have more

Status fail(const std::string& what) { return Status::Fail(kFn + what); }

}  // namespace

namespace model {
// A name from the file, for a message: JSON-quoted (control characters escaped), at most ~64 bytes.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  size_t i = 0;
  for (; i < s.size() && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (i < s.size()) {
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
    out += "…";
  }
  return out + "\"";
}
}  // namespace model

namespace {
using model::quoted;

// JSON string content (the writer's names and values are ASCII, but escape anyway).
void append_json_string(std::string& h, std::string_view s) {
  h += '"';
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      h += '\\';
      h += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      h += buf;
    } else {
      h += ch;
    }
  }
  h += '"';
}

// The shortest "%.<p>g" that reads back as exactly x (1e-5f → "1e-05"), so ln_eps round-trips.
std::string float_text(float x) {
  char buf[40];
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(x));
    if (std::strtof(buf, nullptr) == x) break;  // p = 9 always does (float32 needs ≤ 9 digits)
  }
  return buf;
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
  }
  return "gelu";
}

// "[16, 32]" in messages, "[16,32]" in the file.
std::string shape_text(const uint64_t* dims, size_t rank, const char* sep = ", ") {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) s += (i ? sep : "") + std::to_string(dims[i]);
  return s + "]";
}

// ---------------------------------------------------------------------------------------------------
// Reading the header (Entry, Header: safetensors_header.h).

using model::Entry;
using model::Header;
using model::kMaxEntries;
using model::kMaxMetadata;

// The schema reader over JSON that detail::check_json accepted. Memory: at most kMaxEntries entries
// and kMaxMetadata pairs are kept, and their strings are pieces of the header, so it holds O(N)
// bytes (N ≤ kMaxHeaderBytes, a header the caller already holds in memory).
Status read_header(const char* text, size_t n, Header* h) {
  detail::JsonCursor j(text, n);
  auto wrong = [&](const std::string& where, const char* expected) {
    const size_t at = j.pos();
    return fail("header " + where + " at byte " + std::to_string(8 + at) + " is " + j.excerpt() +
                ", expected " + expected);
  };
  if (!j.eat('{')) return wrong("", "a JSON object");
  std::string key;
  bool first = true;
  while (!j.eat('}')) {
    if (!first && !j.eat(',')) return wrong("", "',' or '}'");
    first = false;
    if (!j.string(&key)) return wrong("key", "a string");
    if (!j.eat(':')) return wrong("", "':'");
    if (key == "__metadata__") {
      if (h->has_metadata) return fail("header has __metadata__ twice, expected it once");
      h->has_metadata = true;
      if (!j.eat('{')) return wrong("__metadata__", "an object of strings");
      bool first_kv = true;
      std::string k, v;
      while (!j.eat('}')) {
        if (!first_kv && !j.eat(',')) return wrong("__metadata__", "',' or '}'");
        first_kv = false;
        if (!j.string(&k) || !j.eat(':')) return wrong("__metadata__ key", "a string");
        if (!j.string(&v))
          return wrong("__metadata__ " + quoted(k), "a string (safetensors metadata maps strings to strings)");
        if (++h->metadata_seen > kMaxMetadata) continue;
        if (h->meta(k)) return fail("header __metadata__ has " + quoted(k) + " twice, expected each key once");
        h->metadata.emplace_back(k, v);
      }
      continue;
    }
    Entry e;
    e.name = key;
    e.header_pos = j.pos();
    const std::string where = "tensor " + quoted(key);
    if (!j.eat('{')) return wrong(where, "an object {\"dtype\", \"shape\", \"data_offsets\"}");
    bool have_dtype = false, have_shape = false, have_offsets = false, first_field = true;
    std::string field;
    while (!j.eat('}')) {
      if (!first_field && !j.eat(',')) return wrong(where, "',' or '}'");
      first_field = false;
      if (!j.string(&field) || !j.eat(':')) return wrong(where, "a field name");
      if (field == "dtype") {
        if (have_dtype) return fail(where + " has dtype twice, expected it once");
        have_dtype = true;
        if (!j.string(&e.dtype)) return wrong(where + " dtype", "a string");
      } else if (field == "shape") {
        if (have_shape) return fail(where + " has shape twice, expected it once");
        have_shape = true;
        if (!j.eat('[')) return wrong(where + " shape", "an array of non-negative integers");
        if (!j.eat(']')) {
          do {
            if (e.rank == kMaxRank) return wrong(where + " shape", "at most 8 dimensions");
            if (!j.uint(&e.shape[e.rank])) return wrong(where + " shape", "a non-negative integer");
            ++e.rank;
          } while (j.eat(','));
          if (!j.eat(']')) return wrong(where + " shape", "',' or ']'");
        }
      } else if (field == "data_offsets") {
        if (have_offsets) return fail(where + " has data_offsets twice, expected it once");
        have_offsets = true;
        if (!j.eat('[')) return wrong(where + " data_offsets", "[begin, end]");
        if (!j.uint(&e.begin)) return wrong(where + " data_offsets", "a non-negative integer");
        if (!j.eat(',')) return wrong(where + " data_offsets", "',' (two offsets, [begin, end])");
        if (!j.uint(&e.end)) return wrong(where + " data_offsets", "a non-negative integer");
        if (!j.eat(']')) return wrong(where + " data_offsets", "']' (two offsets, [begin, end])");
      } else {
        return fail(where + " has a field " + quoted(field) +
                    ", expected only \"dtype\", \"shape\" and \"data_offsets\"");
      }
    }
    if (!have_dtype || !have_shape || !have_offsets)
      return fail(where + " has no " + (!have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets") +
                  ", expected \"dtype\", \"shape\" and \"data_offsets\"");
    if (++h->entries_seen <= kMaxEntries) h->entries.push_back(std::move(e));
  }
  if (!j.at_end()) return wrong("after the object", "only spaces");
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------------
// The config from __metadata__.

Status meta_string(const Header& h, const char* key, const std::string** out) {
  *out = h.meta(key);
  if (*out) return Status::Ok();
  return fail(std::string("__metadata__ has no \"") + key +
              "\", expected every config field (vocab, context, layers, heads, d_model, d_ff, "
              "attention_only, layer_norm, activation, ln_eps) and steps_taken");
}

Status meta_size(const Header& h, const char* key, size_t* out) {
  const std::string* s;
  ATTNLAB_CHECK(meta_string(h, key, &s));
  uint64_t v = 0;
  bool ok = !s->empty() && s->size() <= 20 && !(s->size() > 1 && (*s)[0] == '0');
  for (size_t i = 0; ok && i < s->size(); ++i) {
    const char c = (*s)[i];
    const uint64_t d = static_cast<uint64_t>(c - '0');
    ok = c >= '0' && c <= '9' && v <= (UINT64_MAX - d) / 10;
    if (ok) v = v * 10 + d;
  }
  if (!ok || v > std::numeric_limits<size_t>::max())
    return fail(std::string("__metadata__ ") + key + " is " + quoted(*s) +
                ", expected a decimal integer" + (ok ? " that fits in size_t" : ""));
  *out = static_cast<size_t>(v);
  return Status::Ok();
}

Status meta_bool(const Header& h, const char* key, bool* out) {
  const std::string* s;
  ATTNLAB_CHECK(meta_string(h, key, &s));
  if (*s == "true" || *s == "false") {
    *out = *s == "true";
    return Status::Ok();
  }
  return fail(std::string("__metadata__ ") + key + " is " + quoted(*s) + ", expected \"true\" or \"false\"");
}

Status meta_activation(const Header& h, Activation* out) {
  const std::string* s;
  ATTNLAB_CHECK(meta_string(h, "activation", &s));
  for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh})
    if (*s == activation_name(a)) {
      *out = a;
      return Status::Ok();
    }
  return fail("__metadata__ activation is " + quoted(*s) + ", expected one of \"relu\", \"gelu\", \"gelu_tanh\"");
}

// A decimal number as JSON writes it (no "nan", "inf", hex or spaces, which strtof would take),
// finite in float32.
Status meta_float(const Header& h, const char* key, float* out) {
  const std::string* s;
  ATTNLAB_CHECK(meta_string(h, key, &s));
  size_t i = 0;
  bool ok = s->size() <= 64 && detail::scan_json_number(s->data(), s->size(), &i) && i == s->size();
  float v = 0;
  if (ok) {
    char* end = nullptr;
    v = std::strtof(s->c_str(), &end);
    ok = end == s->c_str() + s->size() && std::isfinite(v);
  }
  if (!ok) return fail(std::string("__metadata__ ") + key + " is " + quoted(*s) + ", expected a finite decimal number");
  *out = v;
  return Status::Ok();
}

Status read_config(const Header& h, GptConfig* c, size_t* steps) {
  if (!h.has_metadata)
    return fail("have no __metadata__, so they are not an attnlab GPT checkpoint, expected __metadata__ "
                "with format \"attnlab-gpt\"");
  const std::string* format = h.meta("format");
  if (!format)
    return fail("have no format in __metadata__, so they are not an attnlab GPT checkpoint, expected format "
                "\"attnlab-gpt\"");
  if (*format != kFormat) {
    const bool hf = *format == "pt" || *format == "tf" || *format == "flax" || *format == "np" || *format == "mlx";
    return fail("have __metadata__ format " + quoted(*format) +
                (hf ? " (a Hugging Face checkpoint, e.g. GPT-2's model.safetensors)" : "") +
                ", which is not an attnlab GPT checkpoint, expected format \"attnlab-gpt\"");
  }
  const std::string* version = h.meta("version");
  if (!version || *version != kVersion)
    return fail("are an attnlab GPT checkpoint of version " + (version ? quoted(*version) : "(none)") +
                ", expected version \"1\"");
  ATTNLAB_CHECK(meta_size(h, "vocab", &c->vocab));
  ATTNLAB_CHECK(meta_size(h, "context", &c->context));
  ATTNLAB_CHECK(meta_size(h, "layers", &c->layers));
  ATTNLAB_CHECK(meta_size(h, "heads", &c->heads));
  ATTNLAB_CHECK(meta_size(h, "d_model", &c->d_model));
  ATTNLAB_CHECK(meta_size(h, "d_ff", &c->d_ff));
  ATTNLAB_CHECK(meta_bool(h, "attention_only", &c->attention_only));
  ATTNLAB_CHECK(meta_bool(h, "layer_norm", &c->layer_norm));
  ATTNLAB_CHECK(meta_activation(h, &c->activation));
  ATTNLAB_CHECK(meta_float(h, "ln_eps", &c->ln_eps));
  // init_std only records how the weights began (the file holds the weights): optional, 0.02 when absent.
  if (h.meta("init_std")) ATTNLAB_CHECK(meta_float(h, "init_std", &c->init_std));
  ATTNLAB_CHECK(meta_size(h, "steps_taken", steps));
  return check_gpt_config(*c);  // its own message ("createModel: heads = 3 does not divide …")
}

// The parameter count of the layout gpt.h documents, in 64 bits: only a bound checked before the
// model is allocated (a 100-byte file claiming a 64 M-parameter config must not cost 1 GiB). The
// tensors themselves are then checked one by one against the model's own tensors().
uint64_t documented_param_count(const GptConfig& c) {
  const uint64_t V = c.vocab, T = c.context, L = c.layers, D = c.d_model;
  const uint64_t F = c.d_ff ? c.d_ff : 4 * D;
  uint64_t per_layer = 4 * D * D + 4 * D;            // attention
  if (c.layer_norm) per_layer += 2 * D;              // ln1
  if (!c.attention_only) {
    per_layer += D * F + F + F * D + D;              // mlp
    if (c.layer_norm) per_layer += 2 * D;            // ln2
  }
  return V * D + T * D + L * per_layer + (c.layer_norm ? 2 * D : 0) + V;
}

// The expected shape of t, as the file writes it: [rows, cols] or [cols].
bool same_shape(const Entry& e, const GptTensor& t) {
  if (t.rank == 2) return e.rank == 2 && e.shape[0] == t.rows && e.shape[1] == t.cols;
  return e.rank == 1 && e.shape[0] == t.cols;
}

std::string tensor_shape_text(const GptTensor& t, const char* sep = ", ") {
  const uint64_t dims[2] = {t.rows, t.cols};
  return t.rank == 2 ? shape_text(dims, 2, sep) : shape_text(dims + 1, 1, sep);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------

Status save_safetensors(const Gpt& m, bool with_optimizer, std::vector<uint8_t>* bytes) {
  if (!bytes) return Status::Fail("saveModel: bytes is null, expected a vector to write to");
  const GptConfig& c = m.config();
  const std::vector<GptTensor>& ts = m.tensors();
  const size_t P = m.num_params();
  // The loader refuses non-finite values; a file it would refuse is not written.
  const float* arrays[3] = {m.params(), m.adam_m(), m.adam_v()};
  const char* prefixes[3] = {"", "optimizer.m.", "optimizer.v."};
  const size_t sets = with_optimizer ? 3 : 1;
  if (with_optimizer && m.inference_only())
    return Status::Fail("saveModel: optimizer is true but this model is inference-only (no optimizer state), "
                        "expected optimizer: false");
  for (size_t s = 0; s < sets; ++s)
    for (const GptTensor& t : ts) {
      const float* x = arrays[s] + t.offset;
      const size_t i = first_non_finite(x, t.size());
      if (i != t.size())
        return Status::Fail("saveModel: " + std::string(prefixes[s]) + t.name + "[" + std::to_string(i) + "] is " +
                            detail::value_str(x[i]) + ", expected finite values (a checkpoint holds no NaN or ±Infinity)");
    }

  // Header: one line, keys in a fixed order. Without the optimizer, steps_taken is 0: the file then
  // describes a model with a fresh optimizer, which is what loading it gives.
  std::string h = "{\"__metadata__\":{";
  auto meta = [&](const char* key, const std::string& value, bool last = false) {
    append_json_string(h, key);
    h += ':';
    append_json_string(h, value);
    if (!last) h += ',';
  };
  meta("format", std::string(kFormat));
  meta("version", std::string(kVersion));
  meta("vocab", std::to_string(c.vocab));
  meta("context", std::to_string(c.context));
  meta("layers", std::to_string(c.layers));
  meta("heads", std::to_string(c.heads));
  meta("d_model", std::to_string(c.d_model));
  meta("d_ff", std::to_string(c.d_ff));
  meta("attention_only", c.attention_only ? "true" : "false");
  meta("layer_norm", c.layer_norm ? "true" : "false");
  meta("activation", activation_name(c.activation));
  meta("ln_eps", float_text(c.ln_eps));
  meta("init_std", float_text(c.init_std));
  meta("steps_taken", std::to_string(with_optimizer ? m.steps_taken() : 0), true);
  h += '}';
  uint64_t offset = 0;  // bytes into the data section
  for (size_t s = 0; s < sets; ++s)
    for (const GptTensor& t : ts) {
      h += ',';
      append_json_string(h, std::string(prefixes[s]) + t.name);
      h += ":{\"dtype\":\"F32\",\"shape\":" + tensor_shape_text(t, ",") + ",\"data_offsets\":[" +
           std::to_string(offset) + ",";
      offset += uint64_t{4} * t.size();
      h += std::to_string(offset) + "]}";
    }
  h += '}';
  while ((8 + h.size()) % 8 != 0) h += ' ';

  // Sizes: P ≤ kMaxGptParams = 2^26 (createModel's limit), so the data is ≤ 3·4·2^26 B = 768 MiB and
  // the total fits a 32-bit size_t; checked anyway, before any allocation.
  const uint64_t data_bytes = offset;
  if (data_bytes != uint64_t{4} * P * sets || P > kMaxGptParams)
    return Status::Fail("saveModel: the model's tensors cover " + std::to_string(data_bytes / 4) +
                        " floats per array, expected num_params = " + std::to_string(P));
  const uint64_t total = 8 + h.size() + data_bytes;
  if (total > std::numeric_limits<size_t>::max() / 2)
    return Status::Fail("saveModel: the checkpoint needs " + std::to_string(total) +
                        " bytes, expected at most half the address space");
  // Out of memory must be a Status, not an abort: in WebAssembly (exceptions off) a failed
  // operator new aborts. So ask malloc first — single-threaded, and the block just freed is what
  // the vector's one allocation below gets back. Natively a failure there throws std::bad_alloc.
  void* probe = std::malloc(static_cast<size_t>(total));
  if (!probe)
    return Status::Fail("saveModel: could not get " + std::to_string(total >> 20) +
                        " MiB for the checkpoint, expected memory for the whole file");
  std::free(probe);
  std::vector<uint8_t> out(static_cast<size_t>(total));  // the one allocation, exact size
  const uint64_t N = h.size();
  for (size_t b = 0; b < 8; ++b) out[b] = static_cast<uint8_t>(N >> (8 * b));
  std::memcpy(out.data() + 8, h.data(), h.size());
  uint8_t* d = out.data() + 8 + h.size();
  std::vector<float> row;
  for (size_t s = 0; s < sets; ++s)
    for (const GptTensor& t : ts) {
      if (t.transposed) {  // an inference-only model's W_O and W_out: written [rows, cols], as always
        row.resize(t.cols);
        for (size_t r = 0; r < t.rows; ++r, d += 4 * t.cols) {
          model::logical_row(t, arrays[s], r, row.data());
          std::memcpy(d, row.data(), 4 * t.cols);
        }
        continue;
      }
      std::memcpy(d, arrays[s] + t.offset, 4 * t.size());
      d += 4 * t.size();
    }
  *bytes = std::move(out);
  return Status::Ok();
}

Status model::read_safetensors_header(const uint8_t* bytes, size_t n, size_t* header_len, Header* hp) {
  if (!bytes && n) return fail("is null with length " + std::to_string(n) + ", expected a byte array");
  if (n < 8)
    return fail("are " + std::to_string(n) + " bytes long, expected at least 8 (a safetensors file starts with "
                "its header length, a little-endian u64)");
  uint64_t N = 0;
  for (int b = 7; b >= 0; --b) N = (N << 8) | bytes[b];
  if (N > n - 8)
    return fail("header length is " + std::to_string(N) + ", past the end of the " + std::to_string(n) +
                " bytes, expected at most " + std::to_string(n - 8) + " (is the file truncated?)");
  if (N > kMaxHeaderBytes)
    return fail("header length is " + std::to_string(N) + ", expected at most " +
                std::to_string(kMaxHeaderBytes) + " (a safetensors header)");
  const char* text = reinterpret_cast<const char*>(bytes + 8);
  const size_t hn = static_cast<size_t>(N);
  if (hn == 0 || text[0] != '{')
    return fail("header starts with " + (hn ? quoted(std::string_view(text, 1)) : std::string("nothing")) +
                ", expected '{' (a JSON object)");
  detail::JsonError je;
  if (!detail::check_json(text, hn, &je)) {
    if (std::strcmp(je.expected, "UTF-8 text") == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[je.pos]));
      return fail("header is not valid UTF-8 at byte " + std::to_string(8 + je.pos) + " (" + hex +
                  "), expected UTF-8 JSON text");
    }
    detail::JsonCursor at(text + je.pos, hn - je.pos);
    return fail("header is not valid JSON at byte " + std::to_string(8 + je.pos) + " (" +
                (je.pos < hn ? "at " + quoted(at.excerpt(12)) : std::string("at its end")) + "), expected " +
                je.expected);
  }
  ATTNLAB_CHECK(read_header(text, hn, hp));
  *header_len = hn;
  return Status::Ok();
}

Status load_safetensors(const uint8_t* bytes, size_t n, std::unique_ptr<Gpt>* out) {
  if (!out) return Status::Fail("loadModel: out is null, expected a place for the model");
  out->reset();
  Header h;
  size_t hn = 0;
  ATTNLAB_CHECK(model::read_safetensors_header(bytes, n, &hn, &h));

  GptConfig c;
  size_t steps = 0;
  if (h.metadata_seen > kMaxMetadata)
    return fail("header __metadata__ has " + std::to_string(h.metadata_seen) + " keys, expected at most " +
                std::to_string(kMaxMetadata));
  ATTNLAB_CHECK(read_config(h, &c, &steps));
  if (h.entries_seen > kMaxEntries)
    return fail("header lists " + std::to_string(h.entries_seen) + " tensors, expected at most " +
                std::to_string(kMaxEntries) + " (an attnlab GPT has 3·(5 + 16·layers) at most)");

  const uint8_t* data = bytes + 8 + hn;
  const uint64_t data_n = n - 8 - hn;
  const uint64_t need = 4 * documented_param_count(c);  // ≤ 4·2^26·(1 + ε) after check_gpt_config
  if (data_n < need)
    return fail("hold " + std::to_string(data_n) + " bytes of tensor data, expected at least 4·num_params = " +
                std::to_string(need) + " for the config in __metadata__");

  std::unique_ptr<Gpt> m;
  ATTNLAB_CHECK(Gpt::create(c, &m));
  const std::vector<GptTensor>& ts = m->tensors();

  // Each entry: which tensor of which array (0 params, 1 m, 2 v), dtype, shape, offsets.
  std::vector<int> seen(3 * ts.size(), -1);  // entry index per (array, tensor)
  std::vector<std::pair<uint64_t, size_t>> spans;  // (begin, entry) for the tiling check
  spans.reserve(h.entries.size());
  for (size_t k = 0; k < h.entries.size(); ++k) {
    const Entry& e = h.entries[k];
    std::string_view base = e.name;
    size_t set = 0;
    if (base.substr(0, kOptM.size()) == kOptM) set = 1, base.remove_prefix(kOptM.size());
    else if (base.substr(0, kOptV.size()) == kOptV) set = 2, base.remove_prefix(kOptV.size());
    const GptTensor* t = m->tensor(base);
    if (!t)
      return fail("have a tensor " + quoted(e.name) + " that this config does not have, expected only " +
                  ts.front().name + " … " + ts.back().name + " (" + std::to_string(ts.size()) +
                  " tensors) and their optimizer.m. / optimizer.v. moments");
    const size_t ti = static_cast<size_t>(t - ts.data());
    if (seen[set * ts.size() + ti] >= 0)
      return fail("header lists " + quoted(e.name) + " twice, expected each tensor once");
    seen[set * ts.size() + ti] = static_cast<int>(k);
    if (e.dtype != "F32")
      return fail("tensor " + quoted(e.name) + " has dtype " + quoted(e.dtype) + ", expected \"F32\"");
    if (!same_shape(e, *t))
      return fail("tensor " + quoted(e.name) + " has shape " + shape_text(e.shape, e.rank) + ", expected " +
                  tensor_shape_text(*t) + " (the config's)");
    const std::string range = "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    if (e.begin > e.end)
      return fail("tensor " + quoted(e.name) + " has data_offsets " + range + ", expected begin ≤ end");
    if (e.end > data_n)
      return fail("tensor " + quoted(e.name) + " has data_offsets " + range + ", past the end of the " +
                  std::to_string(data_n) + " bytes of data, expected end ≤ " + std::to_string(data_n));
    if (e.end - e.begin != uint64_t{4} * t->size())
      return fail("tensor " + quoted(e.name) + " has data_offsets " + range + " (" +
                  std::to_string(e.end - e.begin) + " bytes), expected 4·" + std::to_string(t->size()) + " = " +
                  std::to_string(uint64_t{4} * t->size()) + " bytes for its shape");
    spans.emplace_back(e.begin, k);
  }
  for (size_t ti = 0; ti < ts.size(); ++ti)
    if (seen[ti] < 0) return fail("have no tensor " + quoted(ts[ti].name) + ", expected every tensor of the config");
  bool with_optimizer = false;
  for (size_t i = ts.size(); i < seen.size(); ++i) with_optimizer |= seen[i] >= 0;
  if (with_optimizer)
    for (size_t s = 1; s <= 2; ++s)
      for (size_t ti = 0; ti < ts.size(); ++ti)
        if (seen[s * ts.size() + ti] < 0)
          return fail("have optimizer state but no tensor " +
                      quoted(std::string(s == 1 ? kOptM : kOptV) + ts[ti].name) +
                      ", expected optimizer.m. and optimizer.v. for every tensor, or none");

  // The tensors tile [0, data_n): sorted by begin, each starts where the previous one ended.
  std::sort(spans.begin(), spans.end());
  uint64_t at = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Entry& e = h.entries[spans[i].second];
    if (e.begin < at) {
      const Entry& prev = h.entries[spans[i - 1].second];
      return fail("tensors " + quoted(prev.name) + " [" + std::to_string(prev.begin) + ", " +
                  std::to_string(prev.end) + "] and " + quoted(e.name) + " [" + std::to_string(e.begin) + ", " +
                  std::to_string(e.end) + "] overlap, expected disjoint data_offsets");
    }
    if (e.begin > at)
      return fail("[" + std::to_string(at) + ", " + std::to_string(e.begin) +
                  ") of the data belong to no tensor, expected the tensors' data_offsets to cover the data without gaps");
    at = e.end;
  }
  if (at != data_n)
    return fail("[" + std::to_string(at) + ", " + std::to_string(data_n) +
                ") of the data belong to no tensor, expected the data to end with the last tensor");

  // Copy, then check what was copied: finite everywhere, second moments ≥ 0 (AdamW takes √v).
  float* arrays[3] = {m->params(), m->adam_m(), m->adam_v()};
  for (size_t s = 0; s < (with_optimizer ? 3u : 1u); ++s)
    for (size_t ti = 0; ti < ts.size(); ++ti) {
      const GptTensor& t = ts[ti];
      const Entry& e = h.entries[static_cast<size_t>(seen[s * ts.size() + ti])];
      float* dst = arrays[s] + t.offset;
      std::memcpy(dst, data + e.begin, 4 * t.size());
      const size_t i = first_non_finite(dst, t.size());
      if (i != t.size())
        return fail("tensor " + quoted(e.name) + "[" + std::to_string(i) + "] is " + detail::value_str(dst[i]) +
                    ", expected finite values");
      if (s == 2)
        for (size_t q = 0; q < t.size(); ++q)
          if (dst[q] < 0.0f)
            return fail("tensor " + quoted(e.name) + "[" + std::to_string(q) + "] is " + detail::value_str(dst[q]) +
                        ", expected a second moment ≥ 0");
    }
  if (with_optimizer) m->set_steps_taken(steps);
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace attnlab
