// Formatting of errors for people.
#include "ckpt/error.h"

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

std::string Error::to_string() const {
  std::string out;
  if (!file.empty()) out += fmt::format("'{}': ", file);
  if (!context.empty()) out += context + ": ";
  out += message;
  if (offset) out += fmt::format(" at offset {:#x}", *offset);
  return out;
}

}  // namespace ckpt
