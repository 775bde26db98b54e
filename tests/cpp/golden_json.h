// A small JSON reader for the native tests that replay tests/golden/*.json (objects, arrays, numbers,
// strings, true/false/null; "-Infinity" stays a string). Enough for generator output, not a general parser:
// a malformed file fails the test that reads it with the offset where reading stopped.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab_test {

struct Json {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  double num = 0;
  std::string str;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json& operator[](const std::string& key) const {
    auto it = fields.find(key);
    if (kind != Kind::object || it == fields.end()) throw std::runtime_error("golden json: no key " + key);
    return it->second;
  }
  const Json& operator[](size_t i) const {
    if (kind != Kind::array || i >= items.size()) throw std::runtime_error("golden json: no index " + std::to_string(i));
    return items[i];
  }
  size_t size() const { return kind == Kind::array ? items.size() : fields.size(); }
  double number() const {
    if (kind != Kind::number) throw std::runtime_error("golden json: not a number");
    return num;
  }
  // A flat array of numbers as float32 (the generators store float32 values exactly).
  std::vector<float> floats() const {
    std::vector<float> v;
    for (const Json& j : items) v.push_back(static_cast<float>(j.number()));
    return v;
  }

  static Json parse(const std::string& text) {
    size_t at = 0;
    Json j = value(text, at);
    skip(text, at);
    if (at != text.size()) fail(at);
    return j;
  }
  // tests/golden/<name>, located by ATTNLAB_GOLDEN_DIR (CMakeLists.txt).
  static Json load(const std::string& name) {
    std::ifstream f(std::string(ATTNLAB_GOLDEN_DIR) + "/" + name);
    if (!f) throw std::runtime_error("golden json: cannot open " + name);
    std::stringstream ss;
    ss << f.rdbuf();
    return parse(ss.str());
  }

 private:
  [[noreturn]] static void fail(size_t at) {
    throw std::runtime_error("golden json: unexpected input at offset " + std::to_string(at));
  }
  static void skip(const std::string& s, size_t& at) {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) ++at;
  }
  static bool literal(const std::string& s, size_t& at, const char* word) {
    const std::string w = word;
    if (s.compare(at, w.size(), w) != 0) return false;
    at += w.size();
    return true;
  }
  static std::string string_at(const std::string& s, size_t& at) {
    std::string r;
    ++at;  // opening quote
    while (at < s.size() && s[at] != '"') {
      if (s[at] == '\\') ++at;  // generator output escapes only quotes and backslashes
      if (at < s.size()) r += s[at++];
    }
    if (at >= s.size()) fail(at);
    ++at;
    return r;
  }
  static Json value(const std::string& s, size_t& at) {
    skip(s, at);
    if (at >= s.size()) fail(at);
    Json j;
    const char c = s[at];
    if (c == '{') {
      j.kind = Kind::object;
      ++at;
      skip(s, at);
      if (s[at] == '}') return ++at, j;
      for (;;) {
        skip(s, at);
        if (s[at] != '"') fail(at);
        std::string key = string_at(s, at);
        skip(s, at);
        if (s[at++] != ':') fail(at);
        j.fields[key] = value(s, at);
        skip(s, at);
        if (s[at] == ',') { ++at; continue; }
        if (s[at] == '}') { ++at; return j; }
        fail(at);
      }
    }
    if (c == '[') {
      j.kind = Kind::array;
      ++at;
      skip(s, at);
      if (s[at] == ']') return ++at, j;
      for (;;) {
        j.items.push_back(value(s, at));
        skip(s, at);
        if (s[at] == ',') { ++at; continue; }
        if (s[at] == ']') { ++at; return j; }
        fail(at);
      }
    }
    if (c == '"') {
      j.kind = Kind::string;
      j.str = string_at(s, at);
      return j;
    }
    if (literal(s, at, "true")) { j.kind = Kind::boolean; j.num = 1; return j; }
    if (literal(s, at, "false")) { j.kind = Kind::boolean; return j; }
    if (literal(s, at, "null")) return j;
    char* end = nullptr;
    j.num = std::strtod(s.c_str() + at, &end);
    if (end == s.c_str() + at) fail(at);
    at = static_cast<size_t>(end - s.c_str());
    j.kind = Kind::number;
    return j;
  }
};

}  // namespace attnlab_test
