// support/json_text.h - JSON text that never throws: strings decoded from Flink's bytes may hold
// lone surrogates (kept in their 3-byte form), which nlohmann's default dump() rejects by throwing.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ckpt {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ckpt
