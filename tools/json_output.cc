// The --json documents' version member and the error object (formats/json.md §1, §3).
#include "json_output.h"

#include <ostream>

#include "ckpt/error_codes.h"

namespace ckpt::cli {

nlohmann::ordered_json json_document(const std::string& command) {
  nlohmann::ordered_json doc;
  doc["schema"] = "ckpt." + command + "/1";
  return doc;
}

void print_json(Io& io, const nlohmann::ordered_json& doc) {
  // Paths and names may hold invalid UTF-8 (WTF-8 from Java strings): replaced, never thrown.
  io.out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  io.json_written = true;
}

const char* json_error_code(ErrorCode code) { return error_code_id(code); }

nlohmann::ordered_json json_error(const std::string& code, const std::string& message, const std::string& file,
                                  std::optional<uint64_t> offset, const std::string& context) {
  nlohmann::ordered_json error;
  error["code"] = code;
  error["message"] = message;
  error["file"] = file.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(file);
  error["offset"] = offset ? nlohmann::ordered_json(*offset) : nlohmann::ordered_json();
  error["context"] = context.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(context);
  nlohmann::ordered_json doc = json_document("error");
  doc["error"] = std::move(error);
  return doc;
}

}  // namespace ckpt::cli
