// tools/json_output.h - printing the library's --json documents (ckpt/json.h, formats/json.md).
#pragma once

#include <ostream>

#include "ckpt/error.h"
#include "ckpt/json.h"
#include "command.h"

namespace ckpt::cli {

// The document `write(JsonWriter&)` writes, on io.out as --json prints it, marked as written.
template <class Write>
void print_json(Io& io, Write write) {
  {
    JsonWriter w(io.out, kJsonIndent);
    write(w);
  }
  io.out << '\n';
  io.json_written = true;
}

// {"schema":"ckpt.error/1","error":{...}} for `e`, under `code` (formats/json.md §3).
void print_json_error(Io& io, std::string_view code, const Error& e);

}  // namespace ckpt::cli
