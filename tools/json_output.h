// tools/json_output.h - the documents of --json: their `schema` member and the error object
// (formats/json.md §1, §3).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"
#include "command.h"

namespace ckpt::cli {

// {"schema":"ckpt.<command>/1"}: a document's first member, the rest appended in order.
nlohmann::ordered_json json_document(const std::string& command);

// `doc` on io.out, two-space indented, marked as written.
void print_json(Io& io, const nlohmann::ordered_json& doc);

// The stable code of formats/json.md §3 ("corruption", "not_found", ...).
const char* json_error_code(ErrorCode code);

// {"schema":"ckpt.error/1","error":{"code":..,"message":..,"file":..,"offset":..,"context":..}}
nlohmann::ordered_json json_error(const std::string& code, const std::string& message, const std::string& file,
                                  std::optional<uint64_t> offset, const std::string& context);

}  // namespace ckpt::cli
