// What the value encoders share: the default (not writable yet), and the checks that turn a
// JSON value of the wrong shape into an error saying what was expected and where.
#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "types/value_decoders.h"
#include "support/json_input.h"
#include "support/json_text.h"

namespace ckpt {

Status ValueDecoder::encode(const nlohmann::json&, ByteWriter&) const {
  return Error(ErrorCode::kNotSupported, fmt::format("ckpt cannot write values of {} yet", serializer_class()));
}

namespace decoders {

Error encode_expected(std::string_view expected, const nlohmann::json& got) {
  std::string text = json_text(got);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return Error(ErrorCode::kInvalidArgument, fmt::format("expected {}, got {}", expected, text));
}

Status encode_at(Status s, std::string_view step) {
  if (s.ok()) return s;
  Error e = std::move(s).error();
  bool path = !e.message.empty() && (e.message[0] == '[' || e.message[0] == '.');
  e.message = fmt::format("{}{}{}", step, path ? "" : ": ", e.message);
  return e;
}

Result<int64_t> encode_integer(const nlohmann::json& v, int64_t lo, int64_t hi, std::string_view what) {
  if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi))) {
    int64_t x = v.get<int64_t>();
    if (x >= lo && x <= hi) return x;
  }
  return encode_expected(what, v);
}

Result<double> encode_floating(const nlohmann::json& v, std::string_view what) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return encode_expected(what, v);
}

Result<const nlohmann::json*> encode_member(const nlohmann::json& v, std::string_view key, std::string_view what) {
  const nlohmann::json* m = json_member(v, key);
  if (!m) return encode_expected(fmt::format("{} with a member \"{}\"", what, key), v);
  return m;
}

bool from_hex(std::string_view hex, std::string* out) {
  out->clear();
  return append_from_hex(hex, out);
}

bool append_from_hex(std::string_view hex, std::string* out) {
  if (hex.size() % 2) return false;
  // One lookup per byte in a table of every pair of digits (128 KiB, -1 where a character is
  // no hex digit): a value's bytes are most of what load reads.
  static const auto kPair = [] {
    std::array<int8_t, 256> digit{};
    digit.fill(-1);
    for (int c = 0; c < 10; ++c) digit['0' + c] = static_cast<int8_t>(c);
    for (int c = 0; c < 6; ++c) digit['a' + c] = digit['A' + c] = static_cast<int8_t>(10 + c);
    auto t = std::make_unique<std::array<int16_t, 65536>>();
    for (int hi = 0; hi < 256; ++hi)
      for (int lo = 0; lo < 256; ++lo)
        (*t)[hi << 8 | lo] = static_cast<int16_t>((digit[hi] | digit[lo]) < 0 ? -1 : digit[hi] * 16 + digit[lo]);
    return t;
  }();
  const size_t had = out->size();
  out->resize(had + hex.size() / 2);
  char* o = out->data() + had;
  const auto* in = reinterpret_cast<const unsigned char*>(hex.data());
  int bad = 0;  // any -1 among the pairs: checked once at the end
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int v = (*kPair)[in[i] << 8 | in[i + 1]];
    bad |= v;
    *o++ = static_cast<char>(v);
  }
  return bad >= 0;
}

Result<std::string> encode_opaque_hex(const nlohmann::json& v, const std::string& serializer_class) {
  const nlohmann::json* hex = json_member(v, "hex");
  std::string bytes;
  if (!hex || !hex->is_string() || !from_hex(hex->get_ref<const std::string&>(), &bytes))
    return encode_expected(fmt::format("the {{\"hex\":..}} ckpt dump shows for {} values (ckpt cannot write a new "
                                       "one without the job's classes)",
                                       serializer_class),
                           v);
  return bytes;
}

}  // namespace decoders
}  // namespace ckpt
