// json_header.h — the JSON of a safetensors header, read strictly, without recursion and without
// exceptions (core/src/model/safetensors.cc). Two passes over bytes that are never trusted:
//   1. check_json: is this one valid JSON value (RFC 8259) in valid UTF-8, nested at most
//      kMaxJsonDepth deep? An explicit fixed-size stack, no allocation, O(n).
//   2. JsonCursor: the schema reader walks the now-known-valid text token by token (strings,
//      non-negative integers, punctuation); it still checks every index against the end.
// Splitting them keeps the messages apart: "not valid JSON" (pass 1) vs "valid JSON, wrong shape of
// header" (the schema reader's "…has dtype 5, expected a string").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attnlab::detail {

// A safetensors header is 3 levels deep ({name: {shape: [..]}}); anything deeper is refused by the
// schema anyway, so this only bounds the validator's stack.
constexpr size_t kMaxJsonDepth = 32;

struct JsonError {
  size_t pos = 0;              // byte offset into the text
  const char* expected = "";   // "',' or '}'", "a JSON value", …
};

// Index of the first byte that is not part of well-formed UTF-8 (overlong forms, surrogates and
// code points past U+10FFFF are malformed), or n when all of s is.
inline size_t first_invalid_utf8(const unsigned char* s, size_t n) {
  size_t i = 0;
  while (i < n) {
    const unsigned c = s[i];
    if (c < 0x80) { ++i; continue; }
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c == 0xED) len = 3, hi = 0x9F;          // no UTF-16 surrogates
    else if (c >= 0xE1 && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c == 0xF4) len = 4, hi = 0x8F;          // ≤ U+10FFFF
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else return i;
    if (n - i < len) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += len;
  }
  return n;
}

inline bool json_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool json_digit(char c) { return c >= '0' && c <= '9'; }
inline int json_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Pass 1 helpers: each scans one token starting at s[*i] and leaves *i after it; false at the first
// byte that does not fit (*i then points at it).
inline bool scan_json_string(const char* s, size_t n, size_t* i) {
  size_t k = *i;
  if (k >= n || s[k] != '"') return false;
  ++k;
  while (k < n) {
    const unsigned char c = static_cast<unsigned char>(s[k]);
    if (c == '"') { *i = k + 1; return true; }
    if (c < 0x20) { *i = k; return false; }  // raw control characters must be escaped
    if (c != '\\') { ++k; continue; }
    if (k + 1 >= n) { *i = k; return false; }
    const char e = s[k + 1];
    if (e == 'u') {
      if (n - k < 6) { *i = k; return false; }
      for (size_t h = 2; h < 6; ++h)
        if (json_hex(s[k + h]) < 0) { *i = k + h; return false; }
      k += 6;
    } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
      k += 2;
    } else {
      *i = k + 1;
      return false;
    }
  }
  *i = n;
  return false;
}

inline bool scan_json_number(const char* s, size_t n, size_t* i) {
  size_t k = *i;
  if (k < n && s[k] == '-') ++k;
  if (k >= n || !json_digit(s[k])) { *i = k; return false; }
  if (s[k] == '0') ++k;
  else while (k < n && json_digit(s[k])) ++k;
  if (k < n && s[k] == '.') {
    ++k;
    if (k >= n || !json_digit(s[k])) { *i = k; return false; }
    while (k < n && json_digit(s[k])) ++k;
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    ++k;
    if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
    if (k >= n || !json_digit(s[k])) { *i = k; return false; }
    while (k < n && json_digit(s[k])) ++k;
  }
  *i = k;
  return true;
}

inline bool scan_json_literal(const char* s, size_t n, size_t* i, const char* word) {
  size_t k = *i;
  for (; *word; ++word, ++k)
    if (k >= n || s[k] != *word) { *i = k; return false; }
  *i = k;
  return true;
}

// Pass 1: s[0:n] is exactly one JSON value, optionally surrounded by whitespace. Strings must be valid
// UTF-8 (checked over the whole text first). Iterative: containers push one byte on a fixed stack.
inline bool check_json(const char* s, size_t n, JsonError* err) {
  const size_t bad = first_invalid_utf8(reinterpret_cast<const unsigned char*>(s), n);
  if (bad != n) {
    *err = {bad, "UTF-8 text"};
    return false;
  }
  char stack[kMaxJsonDepth];  // '{' or '['
  size_t depth = 0, i = 0;
  auto skip = [&] { while (i < n && json_ws(s[i])) ++i; };
  auto fail = [&](const char* what) {
    *err = {i, what};
    return false;
  };
  for (;;) {
    // A value is expected at s[i].
    skip();
    if (i >= n) return fail("a JSON value");
    const char c = s[i];
    bool opened = false;
    if (c == '{' || c == '[') {
      if (depth == kMaxJsonDepth) return fail("at most 32 nested objects or arrays");
      stack[depth++] = c;
      ++i;
      skip();
      if (i < n && s[i] == (c == '{' ? '}' : ']')) {
        --depth;
        ++i;
      } else {
        opened = true;
      }
    } else if (c == '"') {
      if (!scan_json_string(s, n, &i)) return fail("a valid JSON string");
    } else if (c == '-' || json_digit(c)) {
      if (!scan_json_number(s, n, &i)) return fail("a valid JSON number");
    } else if (c == 't' || c == 'f' || c == 'n') {
      if (!scan_json_literal(s, n, &i, c == 't' ? "true" : c == 'f' ? "false" : "null"))
        return fail("true, false or null");
    } else {
      return fail("a JSON value");
    }
    if (opened && stack[depth - 1] == '[') continue;  // the first element is a value
    if (opened) {                                       // the first member of an object: "key":
      if (!scan_json_string(s, n, &i)) return fail("a string key");
      skip();
      if (i >= n || s[i] != ':') return fail("':'");
      ++i;
      continue;
    }
    // After a complete value: close containers, or move to the next element or member.
    for (;;) {
      skip();
      if (depth == 0) {
        if (i != n) return fail("the end of the text (one JSON value)");
        return true;
      }
      const char close = stack[depth - 1] == '{' ? '}' : ']';
      if (i < n && s[i] == close) {
        --depth;
        ++i;
        continue;
      }
      if (i < n && s[i] == ',') {
        ++i;
        if (stack[depth - 1] == '{') {
          skip();
          if (!scan_json_string(s, n, &i)) return fail("a string key");
          skip();
          if (i >= n || s[i] != ':') return fail("':'");
          ++i;
        }
        break;  // a value follows
      }
      return fail(close == '}' ? "',' or '}'" : "',' or ']'");
    }
  }
}

// Pass 2: a cursor over text that check_json accepted. Every method is still bounds-checked, so a
// caller that skipped pass 1 gets false, never an out-of-range read.
class JsonCursor {
 public:
  JsonCursor(const char* s, size_t n) : s_(s), n_(n) {}

  size_t pos() { skip(); return i_; }
  // The next token starts with c (after whitespace); consumes it.
  bool eat(char c) {
    skip();
    if (i_ < n_ && s_[i_] == c) { ++i_; return true; }
    return false;
  }
  bool at(char c) { skip(); return i_ < n_ && s_[i_] == c; }
  bool at_end() { skip(); return i_ == n_; }

  // A JSON string, decoded (escapes → UTF-8; a lone surrogate escape → U+FFFD) into *out.
  bool string(std::string* out) {
    skip();
    if (i_ >= n_ || s_[i_] != '"') return false;
    out->clear();
    size_t k = i_ + 1;
    while (k < n_ && s_[k] != '"') {
      if (s_[k] != '\\') { out->push_back(s_[k++]); continue; }
      if (k + 1 >= n_) return false;
      const char e = s_[k + 1];
      if (e != 'u') {
        const char* from = "\"\\/bfnrt";
        const char* to = "\"\\/\b\f\n\r\t";
        size_t j = 0;
        while (from[j] && from[j] != e) ++j;
        if (!from[j]) return false;
        out->push_back(to[j]);
        k += 2;
        continue;
      }
      uint32_t cp;
      if (!hex4(k + 2, &cp)) return false;
      k += 6;
      if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: its pair follows as \uDC00–\uDFFF
        uint32_t low;
        if (k + 1 < n_ && s_[k] == '\\' && s_[k + 1] == 'u' && hex4(k + 2, &low) && low >= 0xDC00 &&
            low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          k += 6;
        } else {
          cp = 0xFFFD;
        }
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        cp = 0xFFFD;
      }
      put_utf8(cp, out);
    }
    if (k >= n_) return false;
    i_ = k + 1;
    return true;
  }

  // A JSON number that is a non-negative integer ≤ 2^64 − 1, written without fraction or exponent
  // (safetensors' shape and data_offsets are unsigned integers).
  bool uint(uint64_t* out) {
    skip();
    size_t k = i_;
    if (k >= n_ || !json_digit(s_[k])) return false;
    uint64_t v = 0;
    if (s_[k] == '0') {
      ++k;
    } else {
      while (k < n_ && json_digit(s_[k])) {
        const uint64_t d = static_cast<uint64_t>(s_[k] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
        ++k;
      }
    }
    if (k < n_ && (s_[k] == '.' || s_[k] == 'e' || s_[k] == 'E' || json_digit(s_[k]))) return false;
    *out = v;
    i_ = k;
    return true;
  }

  // Up to `max` bytes of the text from the cursor on (no whitespace skipped: after pos(), the next
  // token), cut at a UTF-8 character boundary: what a message shows of an unexpected value.
  std::string excerpt(size_t max = 24) const {
    size_t e = i_ + (n_ - i_ < max ? n_ - i_ : max);
    while (e > i_ && e < n_ && (static_cast<unsigned char>(s_[e]) & 0xC0) == 0x80) --e;
    size_t last = e;  // the padding spaces of a header are not part of what is shown
    while (last > i_ && json_ws(s_[last - 1])) --last;
    bool more = false;
    for (size_t k = e; k < n_ && !more; ++k) more = !json_ws(s_[k]);
    std::string out(s_ + i_, last - i_);
    if (more) out += "…";
    return out;
  }

 private:
  void skip() { while (i_ < n_ && json_ws(s_[i_])) ++i_; }
  bool hex4(size_t k, uint32_t* cp) const {
    if (k > n_ || n_ - k < 4) return false;
    uint32_t v = 0;
    for (size_t h = 0; h < 4; ++h) {
      const int d = json_hex(s_[k + h]);
      if (d < 0) return false;
      v = v * 16 + static_cast<uint32_t>(d);
    }
    *cp = v;
    return true;
  }
  static void put_utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  const char* s_;
  size_t n_;
  size_t i_ = 0;
};

}  // namespace attnlab::detail
