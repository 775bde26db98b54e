// GPT checkpoints (save_safetensors / load_safetensors, core/src/model/safetensors.cc): round trips
// that are bit-identical for every variant with and without optimizer state, the file's bytes checked
// by hand against the safetensors layout, and every refusal of the loader with its message.
// (tests/golden/read_safetensors.py reads the same files with nothing but Python's stdlib; the JS
// test runs it on a checkpoint written through the WebAssembly build.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "attnlab/gpt.h"

namespace {

using attnlab::Activation;
using attnlab::Gpt;
using attnlab::GptConfig;
using attnlab::GptTensor;
using attnlab::Status;
using Bytes = std::vector<uint8_t>;

// Two layers, two heads; ln_eps is a float whose shortest decimal form needs all 9 digits' care.
GptConfig small_config(bool attention_only, bool layer_norm) {
  GptConfig c;
  c.vocab = 13;
  c.context = 8;
  c.layers = 2;
  c.heads = 2;
  c.d_model = 8;
  c.d_ff = attention_only ? 0 : 12;
  c.attention_only = attention_only;
  c.layer_norm = layer_norm;
  c.activation = attention_only ? Activation::relu : Activation::gelu_tanh;
  c.ln_eps = 3.3e-6f;
  c.seed = 7;
  return c;
}

const char* variant_name(bool attention_only, bool layer_norm) {
  return attention_only ? (layer_norm ? "attention_only+LN" : "attention_only") : (layer_norm ? "MLP+LN" : "MLP");
}

// A fixed batch [2, 5] of token ids and next-token targets.
void batch(const GptConfig& c, int step, std::vector<int>* ids, std::vector<int>* targets) {
  ids->resize(10);
  targets->resize(10);
  for (int i = 0; i < 10; ++i) {
    (*ids)[i] = (i * 5 + step * 3 + 1) % static_cast<int>(c.vocab);
    (*targets)[i] = (i * 7 + step + 2) % static_cast<int>(c.vocab);
  }
}

Status train(Gpt& m, int steps) {
  for (int s = 0; s < steps; ++s) {
    std::vector<int> ids, targets;
    batch(m.config(), static_cast<int>(m.steps_taken()), &ids, &targets);
    attnlab::GptTrainOptions o;
    o.adamw.lr = 1e-2;
    float loss = 0, norm = 0;
    const Status st = m.train_step(ids.data(), targets.data(), 2, 5, o, &loss, &norm);
    if (!st.ok) return st;
  }
  return Status::Ok();
}

std::unique_ptr<Gpt> trained_model(const GptConfig& c, int steps) {
  std::unique_ptr<Gpt> m;
  const Status s = Gpt::create(c, &m);
  EXPECT_TRUE(s.ok) << s.message;
  if (!s.ok) return nullptr;
  const Status t = train(*m, steps);
  EXPECT_TRUE(t.ok) << t.message;
  return m;
}

Bytes save(const Gpt& m, bool with_optimizer) {
  Bytes b;
  const Status s = attnlab::save_safetensors(m, with_optimizer, &b);
  EXPECT_TRUE(s.ok) << s.message;
  return b;
}

bool same_floats(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

bool all_zero(const float* a, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != 0.0f) return false;
  return true;
}

uint64_t header_length(const Bytes& b) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[i];
  return n;
}

// ---- A checkpoint taken apart and put back together (to make malformed ones) ----
struct File {
  std::string header;  // the JSON, without its padding
  Bytes data;
};

File split(const Bytes& b) {
  File f;
  const size_t n = static_cast<size_t>(header_length(b));
  f.header.assign(reinterpret_cast<const char*>(b.data()) + 8, n);
  while (!f.header.empty() && f.header.back() == ' ') f.header.pop_back();
  f.data.assign(b.begin() + 8 + static_cast<std::ptrdiff_t>(n), b.end());
  return f;
}

Bytes join(const std::string& header, const Bytes& data) {
  std::string h = header;
  while ((8 + h.size()) % 8) h += ' ';
  Bytes b(8 + h.size() + data.size());
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(static_cast<uint64_t>(h.size()) >> (8 * i));
  std::copy(h.begin(), h.end(), b.begin() + 8);
  std::copy(data.begin(), data.end(), b.begin() + 8 + static_cast<std::ptrdiff_t>(h.size()));
  return b;
}
Bytes join(const File& f) { return join(f.header, f.data); }

// Replaces the only occurrence of `from`.
void replace_once(std::string* s, const std::string& from, const std::string& to) {
  const size_t at = s->find(from);
  ASSERT_NE(at, std::string::npos) << "no " << from << " in " << *s;
  ASSERT_EQ(s->find(from, at + 1), std::string::npos) << from << " twice";
  s->replace(at, from.size(), to);
}

// The JSON text of one entry, as the safetensors layout and attnlab's writer (compact) have it.
std::string entry_text(const std::string& name, const GptTensor& t, uint64_t begin) {
  const std::string shape = t.rank == 2 ? "[" + std::to_string(t.rows) + "," + std::to_string(t.cols) + "]"
                                        : "[" + std::to_string(t.cols) + "]";
  return "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":" + shape + ",\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(begin + 4 * t.size()) + "]}";
}

// Removes the entry of `name` (with the comma before it) from the header.
void remove_entry(std::string* h, const std::string& name) {
  const size_t at = h->find(",\"" + name + "\":{");
  ASSERT_NE(at, std::string::npos) << name;
  const size_t end = h->find('}', at);
  h->erase(at, end + 1 - at);
}

// Moves the data of every tensor that begins at or after `from` by delta bytes (to open a gap).
void shift_offsets(std::string* h, uint64_t from, uint64_t delta) {
  const std::string key = "\"data_offsets\":[";
  for (size_t at = h->find(key); at != std::string::npos; at = h->find(key, at + 1)) {
    const size_t p = at + key.size(), comma = h->find(',', p), close = h->find(']', comma);
    const uint64_t begin = std::stoull(h->substr(p, comma - p)), end = std::stoull(h->substr(comma + 1, close - comma - 1));
    if (begin >= from)
      h->replace(p, close - p, std::to_string(begin + delta) + "," + std::to_string(end + delta));
  }
}

// Byte offset of tensor `name`'s data in a file written by attnlab (from the model's layout).
uint64_t data_offset_of(const Gpt& m, const std::string& name, bool with_optimizer_block, int set) {
  uint64_t off = 0;
  const int sets = with_optimizer_block ? 3 : 1;
  for (int s = 0; s < sets; ++s)
    for (const GptTensor& t : m.tensors()) {
      if (s == set && t.name == name) return off;
      off += 4 * t.size();
    }
  ADD_FAILURE() << "no tensor " << name;
  return 0;
}

void put_float(Bytes* data, uint64_t at, float x) { std::memcpy(data->data() + at, &x, 4); }

std::string load_error(const Bytes& b) {
  std::unique_ptr<Gpt> m;
  const Status s = attnlab::load_safetensors(b.data(), b.size(), &m);
  EXPECT_FALSE(s.ok) << "accepted";
  EXPECT_EQ(m, nullptr);
  return s.message;
}

std::string load_error(const std::string& header, const Bytes& data) { return load_error(join(header, data)); }

// ---------------------------------------------------------------------------------------------------

class CheckpointRoundTrip : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(CheckpointRoundTrip, BitIdenticalWithAndWithoutOptimizerState) {
  const auto [attention_only, layer_norm] = GetParam();
  const GptConfig c = small_config(attention_only, layer_norm);
  auto m = trained_model(c, 2);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->steps_taken(), 2u);
  const size_t P = m->num_params();
  ASSERT_FALSE(all_zero(m->adam_v(), P)) << "two steps leave second moments";

  for (const bool with_opt : {false, true}) {
    SCOPED_TRACE(with_opt ? "with optimizer" : "weights only");
    const Bytes a = save(*m, with_opt), again = save(*m, with_opt);
    EXPECT_EQ(a, again) << "saving twice gives the same bytes";

    std::unique_ptr<Gpt> l;
    const Status s = attnlab::load_safetensors(a.data(), a.size(), &l);
    ASSERT_TRUE(s.ok) << s.message;
    const GptConfig& lc = l->config();
    const GptConfig& mc = m->config();
    EXPECT_EQ(lc.vocab, mc.vocab);
    EXPECT_EQ(lc.context, mc.context);
    EXPECT_EQ(lc.layers, mc.layers);
    EXPECT_EQ(lc.heads, mc.heads);
    EXPECT_EQ(lc.d_model, mc.d_model);
    EXPECT_EQ(lc.d_ff, mc.d_ff);
    EXPECT_EQ(lc.attention_only, mc.attention_only);
    EXPECT_EQ(lc.layer_norm, mc.layer_norm);
    EXPECT_EQ(lc.activation, mc.activation);
    EXPECT_EQ(std::memcmp(&lc.ln_eps, &mc.ln_eps, sizeof(float)), 0) << lc.ln_eps << " vs " << mc.ln_eps;
    ASSERT_EQ(l->num_params(), P);
    EXPECT_TRUE(same_floats(l->params(), m->params(), P)) << "parameters bit-identical";
    if (with_opt) {
      EXPECT_TRUE(same_floats(l->adam_m(), m->adam_m(), P)) << "first moments";
      EXPECT_TRUE(same_floats(l->adam_v(), m->adam_v(), P)) << "second moments";
      EXPECT_EQ(l->steps_taken(), m->steps_taken());
    } else {
      EXPECT_TRUE(all_zero(l->adam_m(), P) && all_zero(l->adam_v(), P)) << "a fresh optimizer";
      EXPECT_EQ(l->steps_taken(), 0u);
    }
    EXPECT_EQ(save(*l, with_opt), a) << "load(save(m)) saves to the same bytes";
  }
}

TEST_P(CheckpointRoundTrip, TrainingResumesExactlyFromACheckpointWithOptimizerState) {
  // The next AdamW step depends on m, v and t: a resumed model takes the very same step.
  const auto [attention_only, layer_norm] = GetParam();
  auto m = trained_model(small_config(attention_only, layer_norm), 2);
  ASSERT_TRUE(m);
  const Bytes b = save(*m, true);
  std::unique_ptr<Gpt> l;
  ASSERT_TRUE(attnlab::load_safetensors(b.data(), b.size(), &l).ok);
  ASSERT_TRUE(train(*m, 1).ok);
  ASSERT_TRUE(train(*l, 1).ok);
  EXPECT_TRUE(same_floats(l->params(), m->params(), m->num_params()));
  EXPECT_EQ(save(*l, true), save(*m, true));
}

TEST_P(CheckpointRoundTrip, TheLoaderNeedsExactlyTheConfigsParameterCount) {
  // Before allocating, the loader bounds the data from the config with gpt.h's documented layout;
  // one float short must say so with the model's own num_params (so the two layouts agree).
  const auto [attention_only, layer_norm] = GetParam();
  auto m = trained_model(small_config(attention_only, layer_norm), 0);
  ASSERT_TRUE(m);
  File f = split(save(*m, false));
  ASSERT_GE(f.data.size(), 4u);
  f.data.erase(f.data.end() - 4, f.data.end());  // (resize(size - 4) made GCC warn of a huge memset bound)
  const size_t need = 4 * m->num_params();
  EXPECT_EQ(load_error(join(f)), "loadModel: bytes hold " + std::to_string(need - 4) +
                                     " bytes of tensor data, expected at least 4·num_params = " +
                                     std::to_string(need) + " for the config in __metadata__");
}

INSTANTIATE_TEST_SUITE_P(Variants, CheckpointRoundTrip,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           std::string n = variant_name(std::get<0>(info.param), std::get<1>(info.param));
                           for (char& ch : n)
                             if (ch == '+') ch = '_';
                           return n;
                         });

TEST(Checkpoint, BytesFollowTheSafetensorsLayout) {
  const GptConfig c = small_config(false, true);
  auto m = trained_model(c, 2);
  ASSERT_TRUE(m);
  const Bytes b = save(*m, true);
  const size_t P = m->num_params();

  // 8-byte little-endian N; 8 + N a multiple of 8; the data right after, 3 arrays of P floats.
  const uint64_t N = header_length(b);
  ASSERT_LE(8 + N, b.size());
  EXPECT_EQ((8 + N) % 8, 0u);
  EXPECT_EQ(b.size(), 8 + N + 3 * 4 * P);
  const std::string header(reinterpret_cast<const char*>(b.data()) + 8, static_cast<size_t>(N));
  const size_t json_end = header.find_last_not_of(' ') + 1;
  EXPECT_LT(header.size() - json_end, 8u) << "at most 7 spaces of padding";
  EXPECT_EQ(header[json_end - 1], '}');

  // __metadata__ first, its values strings, in gpt.h's order.
  const std::string meta =
      "{\"__metadata__\":{\"format\":\"attnlab-gpt\",\"version\":\"1\",\"vocab\":\"13\",\"context\":\"8\","
      "\"layers\":\"2\",\"heads\":\"2\",\"d_model\":\"8\",\"d_ff\":\"12\",\"attention_only\":\"false\","
      "\"layer_norm\":\"true\",\"activation\":\"gelu_tanh\",\"ln_eps\":\"3.3e-06\",\"init_std\":\"0.02\",\"steps_taken\":\"2\"},";
  EXPECT_EQ(header.substr(0, meta.size()), meta);
  EXPECT_EQ(std::strtof("3.3e-06", nullptr), c.ln_eps) << "the metadata's ln_eps reads back exactly";

  // Every tensor: params, then optimizer.m.*, then optimizer.v.*, each in tensors() order, with
  // contiguous data_offsets; and the data at those offsets is the model's memory.
  const uint8_t* data = b.data() + 8 + N;
  const float* arrays[3] = {m->params(), m->adam_m(), m->adam_v()};
  const char* prefix[3] = {"", "optimizer.m.", "optimizer.v."};
  uint64_t off = 0;
  size_t last_pos = meta.size() - 1;
  for (int s = 0; s < 3; ++s)
    for (const GptTensor& t : m->tensors()) {
      const std::string e = "," + entry_text(prefix[s] + t.name, t, off);
      const size_t pos = header.find(e);
      ASSERT_NE(pos, std::string::npos) << e;
      EXPECT_EQ(pos, last_pos) << "entries follow each other: " << e;
      last_pos = pos + e.size();
      EXPECT_EQ(std::memcmp(data + off, arrays[s] + t.offset, 4 * t.size()), 0) << prefix[s] << t.name;
      off += 4 * t.size();
    }
  EXPECT_EQ(last_pos + 1, json_end) << "the object closes after the last tensor";
  EXPECT_EQ(off, 3 * 4 * P);
  // gpt.h's first tensors, spelled out.
  EXPECT_NE(header.find("\"embed.W_E\":{\"dtype\":\"F32\",\"shape\":[13,8],\"data_offsets\":[0,416]}"),
            std::string::npos);
  EXPECT_NE(header.find("\"pos_embed.W_pos\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[416,672]}"),
            std::string::npos);
}

TEST(Checkpoint, WeightsOnlyFilesSayStepsTakenZero) {
  auto m = trained_model(small_config(true, false), 3);
  ASSERT_TRUE(m);
  const File f = split(save(*m, false));
  EXPECT_NE(f.header.find("\"steps_taken\":\"0\""), std::string::npos);
  EXPECT_EQ(f.header.find("optimizer."), std::string::npos);
  EXPECT_NE(split(save(*m, true)).header.find("\"steps_taken\":\"3\""), std::string::npos);
}

TEST(Checkpoint, ReadsAnyValidLayoutOfTheHeader) {
  // Another writer may indent, reorder keys, escape characters and add metadata of its own.
  auto m = trained_model(small_config(false, false), 1);
  ASSERT_TRUE(m);
  File f = split(save(*m, true));
  std::string pretty;
  for (const char ch : f.header) {
    pretty += ch;
    if (ch == ',' || ch == '{') pretty += "\n  ";
    if (ch == ':') pretty += ' ';
  }
  replace_once(&pretty, "\"unembed.b_U\"", "\"unembed.b\\u005fU\"");
  replace_once(&pretty, "\"format\"", "\"note\": \"by hand \\u00e9\\ud83d\\ude00\",\n\t\"format\"");
  // A tensor entry with its fields in another order.
  const GptTensor* w = m->tensor("embed.W_E");
  ASSERT_TRUE(w);
  replace_once(&pretty, "\"embed.W_E\": {\n  \"dtype\": \"F32\",\n  \"shape\": [13,\n  8],\n  \"data_offsets\": [0,\n  416]}",
               "\"embed.W_E\": {\"data_offsets\": [0, 416], \"shape\": [13, 8], \"dtype\": \"F32\"}");
  std::unique_ptr<Gpt> l;
  const Bytes b = join(pretty, f.data);
  const Status s = attnlab::load_safetensors(b.data(), b.size(), &l);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_TRUE(same_floats(l->params(), m->params(), m->num_params()));
  EXPECT_TRUE(same_floats(l->adam_v(), m->adam_v(), m->num_params()));
  EXPECT_EQ(save(*l, true), save(*m, true)) << "and writes attnlab's own layout back";
}

// ---- Refusals ----

TEST(CheckpointRefuses, FewerThanEightBytes) {
  for (size_t n = 0; n < 8; ++n)
    EXPECT_EQ(load_error(Bytes(n, 0)), "loadModel: bytes are " + std::to_string(n) +
                                           " bytes long, expected at least 8 (a safetensors file starts with its "
                                           "header length, a little-endian u64)");
}

TEST(CheckpointRefuses, AHeaderLengthPastTheEndOrAbsurd) {
  auto m = trained_model(small_config(true, true), 0);
  ASSERT_TRUE(m);
  Bytes b = save(*m, false);
  const uint64_t N = header_length(b);
  b.resize(8 + N - 1);  // cut inside the header
  EXPECT_EQ(load_error(b), "loadModel: bytes header length is " + std::to_string(N) + ", past the end of the " +
                               std::to_string(b.size()) + " bytes, expected at most " + std::to_string(b.size() - 8) +
                               " (is the file truncated?)");
  Bytes huge(16, ' ');
  for (int i = 0; i < 8; ++i) huge[i] = 0;
  huge[7] = 0x80;  // 2^63
  EXPECT_EQ(load_error(huge), "loadModel: bytes header length is 9223372036854775808, past the end of the 16 "
                              "bytes, expected at most 8 (is the file truncated?)");
  // Inside the bytes but more than any header: 100 MB + 1 of spaces.
  Bytes big(8 + 100'000'001, ' ');
  const uint64_t n = 100'000'001;
  for (int i = 0; i < 8; ++i) big[i] = static_cast<uint8_t>(n >> (8 * i));
  EXPECT_EQ(load_error(big), "loadModel: bytes header length is 100000001, expected at most 100000000 (a "
                             "safetensors header)");
}

TEST(CheckpointRefuses, AHeaderThatIsNotAJsonObject) {
  EXPECT_EQ(load_error("[]", {}), "loadModel: bytes header starts with \"[\", expected '{' (a JSON object)");
  EXPECT_EQ(load_error(Bytes(8, 0)), "loadModel: bytes header starts with nothing, expected '{' (a JSON object)");
  EXPECT_EQ(load_error("{\"__metadata__\":{\"format\":\"attnlab-gpt\"}", {}),
            "loadModel: bytes header is not valid JSON at byte 48 (at its end), expected ',' or '}'");
  EXPECT_EQ(load_error("{} x", {}),
            "loadModel: bytes header is not valid JSON at byte 11 (at \"x\"), expected the end of the text "
            "(one JSON value)");
  EXPECT_EQ(load_error("{\"a\":01}", {}),
            "loadModel: bytes header is not valid JSON at byte 14 (at \"1}\"), expected ',' or '}'");
  EXPECT_EQ(load_error("{\"a\":\"tab\there\"}", {}),
            "loadModel: bytes header is not valid JSON at byte 17 (at \"\\u0009here\\\"}\"), expected a valid "
            "JSON string");
  EXPECT_EQ(load_error(std::string("{\"\xff\":1}"), {}),
            "loadModel: bytes header is not valid UTF-8 at byte 10 (0xff), expected UTF-8 JSON text");
  // Nesting is bounded (the validator keeps a fixed stack, never recursion).
  std::string deep = "{\"a\":" + std::string(40, '[') + std::string(40, ']') + "}";
  EXPECT_EQ(load_error(deep, {}),
            "loadModel: bytes header is not valid JSON at byte 44 (at \"[[[[[[[[[]]]…\"), expected at most 32 nested "
            "objects or arrays");
  // Valid JSON, but not a safetensors header.
  EXPECT_EQ(load_error("{\"x\":5}", {}),
            "loadModel: bytes header tensor \"x\" at byte 13 is 5}, expected an object {\"dtype\", \"shape\", "
            "\"data_offsets\"}");
  EXPECT_EQ(load_error("{\"__metadata__\":{\"vocab\":13}}", {}),
            "loadModel: bytes header __metadata__ \"vocab\" at byte 33 is 13}}, expected a string (safetensors "
            "metadata maps strings to strings)");
  EXPECT_EQ(load_error("{\"w\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", {}),
            "loadModel: bytes header tensor \"w\" shape at byte 37 is 1.5],\"data_offsets\":[0,4…, expected a "
            "non-negative integer");
  EXPECT_EQ(load_error("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", {}),
            "loadModel: bytes header tensor \"w\" data_offsets at byte 59 is ,8]}}, expected ']' (two offsets, "
            "[begin, end])");
  EXPECT_EQ(load_error("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", {}),
            "loadModel: bytes tensor \"w\" has no shape, expected \"dtype\", \"shape\" and \"data_offsets\"");
  EXPECT_EQ(load_error("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", {}),
            "loadModel: bytes tensor \"w\" has a field \"x\", expected only \"dtype\", \"shape\" and \"data_offsets\"");
}

TEST(CheckpointRefuses, FilesThatAreNotAttnlabGptCheckpoints) {
  // A Hugging Face GPT-2 file as safetensors' torch writer makes it: format "pt".
  const Bytes four(16, 0);
  EXPECT_EQ(load_error("{\"__metadata__\":{\"format\":\"pt\"},\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],"
                       "\"data_offsets\":[0,16]}}",
                       four),
            "loadModel: bytes have __metadata__ format \"pt\" (a Hugging Face checkpoint, e.g. GPT-2's "
            "model.safetensors), which is not an attnlab GPT checkpoint, expected format \"attnlab-gpt\"");
  EXPECT_EQ(load_error("{\"__metadata__\":{\"format\":\"gguf\"}}", {}),
            "loadModel: bytes have __metadata__ format \"gguf\", which is not an attnlab GPT checkpoint, expected "
            "format \"attnlab-gpt\"");
  EXPECT_EQ(load_error("{\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", four),
            "loadModel: bytes have no __metadata__, so they are not an attnlab GPT checkpoint, expected "
            "__metadata__ with format \"attnlab-gpt\"");
  EXPECT_EQ(load_error("{\"__metadata__\":{}}", {}),
            "loadModel: bytes have no format in __metadata__, so they are not an attnlab GPT checkpoint, expected "
            "format \"attnlab-gpt\"");
  EXPECT_EQ(load_error("{\"__metadata__\":{\"format\":\"attnlab-gpt\",\"version\":\"2\"}}", {}),
            "loadModel: bytes are an attnlab GPT checkpoint of version \"2\", expected version \"1\"");
}

TEST(CheckpointRefuses, MissingOrBadConfigFields) {
  auto m = trained_model(small_config(false, true), 0);
  ASSERT_TRUE(m);
  const File f = split(save(*m, false));
  auto with = [&](const std::string& from, const std::string& to) {
    std::string h = f.header;
    replace_once(&h, from, to);
    return load_error(h, f.data);
  };
  const std::string fields =
      "expected every config field (vocab, context, layers, heads, d_model, d_ff, attention_only, layer_norm, "
      "activation, ln_eps) and steps_taken";
  EXPECT_EQ(with("\"heads\":\"2\",", ""), "loadModel: bytes __metadata__ has no \"heads\", " + fields);
  EXPECT_EQ(with("\"ln_eps\":\"3.3e-06\",", ""), "loadModel: bytes __metadata__ has no \"ln_eps\", " + fields);
  EXPECT_EQ(with("\"heads\":\"2\"", "\"heads\":\"two\""),
            "loadModel: bytes __metadata__ heads is \"two\", expected a decimal integer");
  EXPECT_EQ(with("\"vocab\":\"13\"", "\"vocab\":\"-13\""),
            "loadModel: bytes __metadata__ vocab is \"-13\", expected a decimal integer");
  EXPECT_EQ(with("\"vocab\":\"13\"", "\"vocab\":\"013\""),
            "loadModel: bytes __metadata__ vocab is \"013\", expected a decimal integer");
  EXPECT_EQ(with("\"layers\":\"2\"", "\"layers\":\"99999999999999999999999\""),
            "loadModel: bytes __metadata__ layers is \"99999999999999999999999\", expected a decimal integer");
  EXPECT_EQ(with("\"layer_norm\":\"true\"", "\"layer_norm\":\"yes\""),
            "loadModel: bytes __metadata__ layer_norm is \"yes\", expected \"true\" or \"false\"");
  EXPECT_EQ(with("\"activation\":\"gelu_tanh\"", "\"activation\":\"swish\""),
            "loadModel: bytes __metadata__ activation is \"swish\", expected one of \"relu\", \"gelu\", \"gelu_tanh\"");
  for (const char* eps : {"nan", "inf", "1e999", "0x1p-3", " 1e-5", "1e-5x", ""})
    EXPECT_EQ(with("\"ln_eps\":\"3.3e-06\"", std::string("\"ln_eps\":\"") + eps + "\""),
              std::string("loadModel: bytes __metadata__ ln_eps is \"") + eps + "\", expected a finite decimal number");
  // A config createModel refuses: its own message.
  GptConfig bad = m->config();
  bad.heads = 3;
  const Status check = attnlab::check_gpt_config(bad);
  ASSERT_FALSE(check.ok);
  EXPECT_EQ(with("\"heads\":\"2\"", "\"heads\":\"3\""), check.message);
  // Metadata of its own is ignored.
  std::string extra = f.header;
  replace_once(&extra, "\"format\"", "\"note\":\"hi\",\"format\"");
  std::unique_ptr<Gpt> l;
  const Bytes b = join(extra, f.data);
  EXPECT_TRUE(attnlab::load_safetensors(b.data(), b.size(), &l).ok);
}

TEST(CheckpointRefuses, AConfigWhoseTensorsTheDataCannotHoldBeforeAllocatingThem) {
  auto m = trained_model(small_config(true, true), 0);
  ASSERT_TRUE(m);
  File f = split(save(*m, false));
  // ~50 M parameters (the model and its moments would take 800 MB): refused from the header alone.
  replace_once(&f.header, "\"vocab\":\"13\"", "\"vocab\":\"8192\"");
  replace_once(&f.header, "\"d_model\":\"8\"", "\"d_model\":\"2048\"");
  const std::string msg = load_error(join(f));
  EXPECT_EQ(msg.rfind("loadModel: bytes hold " + std::to_string(f.data.size()) +
                          " bytes of tensor data, expected at least 4·num_params = ",
                      0),
            0u)
      << msg;
}

TEST(CheckpointRefuses, MissingExtraOrMisdescribedTensors) {
  auto m = trained_model(small_config(false, true), 1);
  ASSERT_TRUE(m);
  const File f = split(save(*m, true));
  const GptTensor* b_U = m->tensor("unembed.b_U");
  ASSERT_TRUE(b_U);
  const uint64_t bu = data_offset_of(*m, "unembed.b_U", true, 0);
  const std::string bu_range = "[" + std::to_string(bu) + "," + std::to_string(bu + 52) + "]";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string h = f.header;
    replace_once(&h, from, to);
    return load_error(h, f.data);
  };
  EXPECT_EQ(with("\"unembed.b_U\"", "\"unembed.b_X\""),
            "loadModel: bytes have a tensor \"unembed.b_X\" that this config does not have, expected only "
            "embed.W_E … unembed.b_U (" + std::to_string(m->tensors().size()) +
            " tensors) and their optimizer.m. / optimizer.v. moments");
  EXPECT_EQ(with("\"blocks.0.attn.W_K\"", "\"blocks.0.attn.W_Q\""),
            "loadModel: bytes header lists \"blocks.0.attn.W_Q\" twice, expected each tensor once");
  EXPECT_EQ(with("\"unembed.b_U\":{\"dtype\":\"F32\"", "\"unembed.b_U\":{\"dtype\":\"F16\""),
            "loadModel: bytes tensor \"unembed.b_U\" has dtype \"F16\", expected \"F32\"");
  EXPECT_EQ(with("\"unembed.b_U\":{\"dtype\":\"F32\",\"shape\":[13]", "\"unembed.b_U\":{\"dtype\":\"F32\",\"shape\":[1,13]"),
            "loadModel: bytes tensor \"unembed.b_U\" has shape [1, 13], expected [13] (the config's)");
  EXPECT_EQ(with("\"embed.W_E\":{\"dtype\":\"F32\",\"shape\":[13,8]", "\"embed.W_E\":{\"dtype\":\"F32\",\"shape\":[8,13]"),
            "loadModel: bytes tensor \"embed.W_E\" has shape [8, 13], expected [13, 8] (the config's)");
  const std::string past = std::to_string(f.data.size() + 4);
  EXPECT_EQ(with(bu_range, "[" + std::to_string(f.data.size() - 48) + "," + past + "]"),
            "loadModel: bytes tensor \"unembed.b_U\" has data_offsets [" + std::to_string(f.data.size() - 48) + ", " +
                past + "], past the end of the " + std::to_string(f.data.size()) + " bytes of data, expected end ≤ " +
                std::to_string(f.data.size()));
  EXPECT_EQ(with(bu_range, "[" + std::to_string(bu + 52) + "," + std::to_string(bu) + "]"),
            "loadModel: bytes tensor \"unembed.b_U\" has data_offsets [" + std::to_string(bu + 52) + ", " +
                std::to_string(bu) + "], expected begin ≤ end");
  EXPECT_EQ(with(bu_range, "[" + std::to_string(bu) + "," + std::to_string(bu + 48) + "]"),
            "loadModel: bytes tensor \"unembed.b_U\" has data_offsets [" + std::to_string(bu) + ", " +
                std::to_string(bu + 48) + "] (48 bytes), expected 4·13 = 52 bytes for its shape");

  std::string h = f.header;
  remove_entry(&h, "unembed.b_U");
  EXPECT_EQ(load_error(h, f.data),
            "loadModel: bytes have no tensor \"unembed.b_U\", expected every tensor of the config");
  h = f.header;
  remove_entry(&h, "optimizer.v.blocks.1.mlp.W_in");
  EXPECT_EQ(load_error(h, f.data),
            "loadModel: bytes have optimizer state but no tensor \"optimizer.v.blocks.1.mlp.W_in\", expected "
            "optimizer.m. and optimizer.v. for every tensor, or none");
}

TEST(CheckpointRefuses, DataOffsetsThatOverlapOrLeaveGaps) {
  auto m = trained_model(small_config(true, false), 1);
  ASSERT_TRUE(m);
  const File f = split(save(*m, false));
  const uint64_t q = data_offset_of(*m, "blocks.0.attn.W_Q", false, 0);
  const uint64_t k = data_offset_of(*m, "blocks.0.attn.W_K", false, 0);
  ASSERT_EQ(k, q + 256);
  std::string h = f.header;
  replace_once(&h, "\"blocks.0.attn.W_K\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[" + std::to_string(k),
               "\"blocks.0.attn.W_K\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[" + std::to_string(q + 4));
  replace_once(&h, std::to_string(k + 256) + "]}", std::to_string(q + 260) + "]}");
  EXPECT_EQ(load_error(h, f.data),
            "loadModel: bytes tensors \"blocks.0.attn.W_Q\" [" + std::to_string(q) + ", " + std::to_string(q + 256) +
                "] and \"blocks.0.attn.W_K\" [" + std::to_string(q + 4) + ", " + std::to_string(q + 260) +
                "] overlap, expected disjoint data_offsets");

  // A gap: 4 bytes inserted after W_Q's data, every later offset moved by 4.
  h = f.header;
  shift_offsets(&h, k, 4);
  Bytes data = f.data;
  data.insert(data.begin() + static_cast<std::ptrdiff_t>(k), 4, 0);
  EXPECT_EQ(load_error(h, data),
            "loadModel: bytes [" + std::to_string(k) + ", " + std::to_string(k + 4) +
                ") of the data belong to no tensor, expected the tensors' data_offsets to cover the data without "
                "gaps");
  // Bytes after the last tensor.
  data = f.data;
  data.insert(data.end(), 8, 0);
  EXPECT_EQ(load_error(f.header, data),
            "loadModel: bytes [" + std::to_string(f.data.size()) + ", " + std::to_string(f.data.size() + 8) +
                ") of the data belong to no tensor, expected the data to end with the last tensor");
  // Swapping two tensors' places is fine: order in the data is the file's business.
  h = f.header;
  replace_once(&h, "\"blocks.0.attn.W_Q\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[" + std::to_string(q) +
                       "," + std::to_string(q + 256),
               "\"blocks.0.attn.W_Q\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[X");
  replace_once(&h, "\"blocks.0.attn.W_K\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[" + std::to_string(k) +
                       "," + std::to_string(k + 256),
               "\"blocks.0.attn.W_K\":{\"dtype\":\"F32\",\"shape\":[8,8],\"data_offsets\":[" + std::to_string(q) + "," +
                   std::to_string(q + 256));
  replace_once(&h, "[X", "[" + std::to_string(k) + "," + std::to_string(k + 256));
  std::unique_ptr<Gpt> l;
  const Bytes b = join(h, f.data);
  const Status s = attnlab::load_safetensors(b.data(), b.size(), &l);
  ASSERT_TRUE(s.ok) << s.message;
  const GptTensor* wq = l->tensor("blocks.0.attn.W_Q");
  const GptTensor* wk = m->tensor("blocks.0.attn.W_K");
  ASSERT_TRUE(wq && wk);
  EXPECT_TRUE(same_floats(l->params() + wq->offset, m->params() + wk->offset, 64)) << "W_Q read from W_K's place";
}

TEST(CheckpointRefuses, NonFiniteValuesAndNegativeSecondMoments) {
  auto m = trained_model(small_config(false, false), 1);
  ASSERT_TRUE(m);
  const File f = split(save(*m, true));
  Bytes data = f.data;
  put_float(&data, data_offset_of(*m, "blocks.1.attn.W_V", true, 0) + 4 * 5, std::nanf(""));
  EXPECT_EQ(load_error(f.header, data),
            "loadModel: bytes tensor \"blocks.1.attn.W_V\"[5] is NaN, expected finite values");
  data = f.data;
  put_float(&data, data_offset_of(*m, "embed.W_E", true, 1) + 4 * 17, -INFINITY);
  EXPECT_EQ(load_error(f.header, data),
            "loadModel: bytes tensor \"optimizer.m.embed.W_E\"[17] is -Infinity, expected finite values");
  data = f.data;
  put_float(&data, data_offset_of(*m, "unembed.b_U", true, 2) + 4 * 2, -0.5f);
  EXPECT_EQ(load_error(f.header, data),
            "loadModel: bytes tensor \"optimizer.v.unembed.b_U\"[2] is -0.5, expected a second moment ≥ 0");
}

TEST(CheckpointRefuses, SavingNonFiniteParametersOrNoOutput) {
  auto m = trained_model(small_config(true, true), 0);
  ASSERT_TRUE(m);
  Bytes b;
  EXPECT_EQ(attnlab::save_safetensors(*m, false, nullptr).message,
            "saveModel: bytes is null, expected a vector to write to");
  m->params()[m->tensor("pos_embed.W_pos")->offset + 3] = std::nanf("");
  const Status s = attnlab::save_safetensors(*m, false, &b);
  EXPECT_EQ(s.message,
            "saveModel: pos_embed.W_pos[3] is NaN, expected finite values (a checkpoint holds no NaN or ±Infinity)");
  EXPECT_TRUE(b.empty());
}

}  // namespace
