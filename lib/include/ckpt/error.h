// ckpt/error.h - errors as values: what went wrong, in which file, at which byte.
//
// libckpt never throws across its API, never prints and never exits. Every fallible call
// returns a Result<T> (a value or an Error) or a Status. An Error carries the context that the
// layer raising it knows: the decoder knows the offset and what it expected, the file layer
// adds the path, an operation adds the operator / subtask / handle it was working on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ckpt/export.h"

namespace ckpt {

enum class ErrorCode {
  kCorruption,       // the bytes contradict the format
  kNotSupported,     // valid but unknown version or feature
  kIOError,          // the file system said no
  kInvalidArgument,  // the caller asked for something impossible
  kNotFound,         // a named thing (file, operator, state) does not exist
};

CKPT_API const char* error_code_name(ErrorCode code);

struct CKPT_API Error {
  ErrorCode code = ErrorCode::kCorruption;
  std::string message;            // lower-case, no trailing period: "unknown keyed state handle type 0x2a"
  std::string file;               // the file the bytes came from, as the user named it; may be empty
  std::optional<uint64_t> offset; // absolute byte offset in `file` where the problem was found
  std::string context;            // outermost-first chain such as "operator 1f2b..., subtask 0"

  Error() = default;
  Error(ErrorCode c, std::string msg) : code(c), message(std::move(msg)) {}
  Error(ErrorCode c, std::string msg, uint64_t off) : code(c), message(std::move(msg)), offset(off) {}

  // "'chk-42/_metadata': operator 1f2b...: unknown keyed state handle type 0x2a at offset 0x1f3"
  std::string to_string() const;

  Error&& with_file(std::string f) && {
    if (file.empty()) file = std::move(f);
    return std::move(*this);
  }
  Error&& with_context(const std::string& c) && {
    context = context.empty() ? c : c + ": " + context;
    return std::move(*this);
  }
};

// A value or an Error. Deliberately small: std::expected is C++23.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  Error& error() & { return std::get<1>(v_); }
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

// Success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : e_(std::move(error)) {}      // NOLINT(google-explicit-constructor)
  static Status OK() { return Status(); }
  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }
  Error& error() & { return *e_; }
  const Error& error() const& { return *e_; }
  Error&& error() && { return std::move(*e_); }

 private:
  std::optional<Error> e_;
};

}  // namespace ckpt

// One-line guards in the spirit of zstd's FORWARD_IF_ERROR.
#define CKPT_RETURN_IF_ERROR(expr)                \
  do {                                            \
    auto _ckpt_s = (expr);                        \
    if (!_ckpt_s.ok()) return std::move(_ckpt_s).error(); \
  } while (0)

#define CKPT_CONCAT_INNER_(a, b) a##b
#define CKPT_CONCAT_(a, b) CKPT_CONCAT_INNER_(a, b)
#define CKPT_ASSIGN_OR_RETURN(lhs, expr) CKPT_ASSIGN_OR_RETURN_IMPL_(CKPT_CONCAT_(_ckpt_r, __LINE__), lhs, expr)
#define CKPT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return std::move(tmp).error();     \
  lhs = std::move(tmp).value()
