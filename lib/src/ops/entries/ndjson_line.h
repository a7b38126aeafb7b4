// ops/entries/ndjson_line.h - the one definition of a dump line's fields, their names and order.
//
// A line is built from a head (operator, subtask, state) that repeats for many entries and is
// rendered once, then the kind, key group and JSON-valued fields. The fields are JSON text
// already (a dump's text path) or decoded values appended as text on a worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/json_text.h"

namespace ckpt {

// {"operator":"<hex>",["uid":<uid>,]"subtask":<n>,"state":<state> : the part shared by a
// state's entries; the uid only when known.
inline std::string ndjson_line_head(std::string_view operator_hex, std::string_view uid, int32_t subtask,
                                    std::string_view state) {
  std::string head = "{\"operator\":\"";
  head += operator_hex;
  head += '"';
  if (!uid.empty()) {
    head += ",\"uid\":";
    append_json_string(head, uid);
  }
  head += ",\"subtask\":";
  head += std::to_string(subtask);
  head += ",\"state\":";
  append_json_string(head, state);
  return head;
}

// The rest of the line after the head, without a newline. `put(out, field)` appends a field's
// JSON text; absent fields (nullptr) are left out.
template <class Field, class Put>
void append_ndjson_tail(std::string& out, std::string_view kind, const int32_t* key_group, const Field* key,
                        const Field* ns, const Field* user_key, const Field& value, Put&& put) {
  out += ",\"kind\":\"";
  out += kind;
  out += '"';
  if (key_group) {
    out += ",\"key_group\":";
    append_json_integer(out, *key_group);
  }
  if (key) {
    out += ",\"key\":";
    put(out, *key);
  }
  if (ns) {
    out += ",\"namespace\":";
    put(out, *ns);
  }
  if (user_key) {
    out += ",\"user_key\":";
    put(out, *user_key);
  }
  out += ",\"value\":";
  put(out, value);
  out += '}';
}

}  // namespace ckpt
