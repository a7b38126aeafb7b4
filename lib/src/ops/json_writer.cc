// JsonWriter's string escaping: plain ASCII is copied; anything else goes through nlohmann so
// escapes and the replacement of invalid UTF-8 stay exactly as before.
#include "ops/json_writer.h"

#include <nlohmann/json.hpp>

namespace ckpt {

void JsonWriter::string_value(std::string_view s) {
  bool plain = true;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out_ += '"';
    out_ += s;
    out_ += '"';
    return;
  }
  // Metadata strings may hold WTF-8 (lone surrogates): replace rather than throw.
  out_ += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ckpt
