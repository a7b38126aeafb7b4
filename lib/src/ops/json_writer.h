// A JSON writer that appends compact JSON text to a string, byte-identical to nlohmann's
// dump(-1) with error_handler_t::replace, without building a tree per element.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace ckpt {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  // Objects: the caller writes members in sorted key order, as nlohmann's std::map does.
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // `k` is one of the writer's own member names, plain ASCII: written without escaping.
  void key(std::string_view k) {
    comma();
    out_ += '"';
    out_ += k;
    out_ += "\":";
    fresh_ = true;
  }

  void value(std::string_view s) {
    comma();
    string_value(s);
  }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(const char* s) { value(std::string_view(s)); }
  void value(bool b) {
    comma();
    out_ += b ? "true" : "false";
  }
  template <class T, class = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  void value(T n) {
    comma();
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
    out_.append(buf, end);
  }
  // The shortest text that reads back as `d` ("0.25", "4096"); null where JSON has no number.
  void value(double d) {
    comma();
    if (!std::isfinite(d)) {
      out_ += "null";
      return;
    }
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    out_.append(buf, end);
  }
  void null() {
    comma();
    out_ += "null";
  }
  // "" as null, as the report's optional strings are printed.
  void string_or_null(const std::string& s) {
    if (s.empty()) null();
    else value(s);
  }

  template <class V>
  void member(std::string_view k, const V& v) {
    key(k);
    value(v);
  }

 private:
  void open(char c) {
    comma();
    out_ += c;
    fresh_ = true;
  }
  void close(char c) {
    out_ += c;
    fresh_ = false;
  }
  // A separator before every element except the first of a container or a member's value.
  void comma() {
    if (!fresh_) out_ += ',';
    fresh_ = false;
  }
  void string_value(std::string_view s);

  std::string& out_;
  bool fresh_ = true;
};

}  // namespace ckpt
