// Parsing JSON from input without exceptions and without unbounded nesting.
#include "support/json_input.h"

#include <fmt/format.h>

namespace ckpt {
namespace {

// Where the nesting of `text` first exceeds `max_nesting`, or npos. Brackets inside strings
// do not count; the text need not be valid (the parser judges that afterwards).
size_t too_deep_at(std::string_view text, int max_nesting) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_nesting) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

Result<nlohmann::json> parse_json_input(std::string_view text, int max_nesting) {
  if (size_t at = too_deep_at(text, max_nesting); at != std::string_view::npos)
    return Error(ErrorCode::kCorruption,
                 fmt::format("JSON nested deeper than {} levels (at byte {} of the text)", max_nesting, at));
  // A parse error message names the byte; the SAX interface gets it without an exception.
  struct ErrorOnly : nlohmann::json_sax<nlohmann::json> {
    std::string message;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
      message = e.what();
      return false;
    }
  };
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) return value;
  ErrorOnly why;
  (void)nlohmann::json::sax_parse(text, &why);
  return Error(ErrorCode::kCorruption, fmt::format("not valid JSON ({})", why.message));
}

const nlohmann::json* json_member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace ckpt
