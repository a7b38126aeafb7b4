// The error object of --json (formats/json.md §3).
#include "json_output.h"

namespace ckpt::cli {

void print_json_error(Io& io, std::string_view code, const Error& e) {
  print_json(io, [&](JsonWriter& w) { write_error_json(code, e, w); });
}

}  // namespace ckpt::cli
