// support/json_text.h - JSON text that never throws: strings decoded from Flink's bytes may hold
// lone surrogates (kept in their 3-byte form), which nlohmann's default dump() rejects by throwing.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
// The reports' documents keep their members in the order written, `schema` first.
inline std::string json_text(const nlohmann::ordered_json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The project's one JSON string escaper: appends `s` quoted, byte-identical to json_text() of
// the string (plain ASCII copied as is; anything else escaped and invalid UTF-8 replaced as
// nlohmann does).
void append_json_string(std::string& out, std::string_view s);

// An integer as JSON text (what json_text() prints for it).
inline void append_json_integer(std::string& out, int64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, end);
}

// Appends json_text(j) to `out` without a temporary string per value (hot in ckpt dump).
void append_json_text(std::string& out, const nlohmann::json& j);

}  // namespace ckpt
