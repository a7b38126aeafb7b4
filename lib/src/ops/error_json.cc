// The `ckpt.error/1` document (formats/json.md §3).
#include "ckpt/error.h"
#include "ckpt/json.h"

namespace ckpt {

void write_error_json(std::string_view code, const Error& e, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.error/1");
  w.key("error");
  w.begin_object();
  w.member("code", code);
  w.member("message", e.message);
  w.key("file");
  w.string_or_null(e.file);
  w.member("offset", e.offset);
  w.key("context");
  w.string_or_null(e.context);
  w.end_object();
  w.end_object();
}

}  // namespace ckpt
