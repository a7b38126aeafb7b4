// Formatting of errors for people.
#include "ckpt/error.h"
#include "ckpt/error_codes.h"

#include <fmt/format.h>

namespace ckpt {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCorruption: return "corruption";
    case ErrorCode::kNotSupported: return "not supported";
    case ErrorCode::kIOError: return "i/o error";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
  }
  return "error";
}

const char* error_code_id(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCorruption: return "corruption";
    case ErrorCode::kNotSupported: return "not_supported";
    case ErrorCode::kIOError: return "io_error";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
  }
  return "corruption";
}

std::string Error::to_string() const {
  std::string out;
  if (!file.empty()) out += fmt::format("'{}': ", file);
  if (!context.empty()) out += context + ": ";
  out += message;
  if (offset) out += fmt::format(" at offset {:#x}", *offset);
  return out;
}

}  // namespace ckpt
