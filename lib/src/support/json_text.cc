// Compact JSON text appended in place, byte-identical to nlohmann's dump(-1) with replace.
#include "support/json_text.h"

#include "support/ascii_scan.h"

namespace ckpt {

void append_json_string(std::string& out, std::string_view s) {
  // Checked a word at a time: at a million paths per `inspect --json` a byte loop showed.
  if (is_json_plain(s)) {
    out += '"';
    out += s;
    out += '"';
    return;
  }
  // Rare (escapes, non-ASCII, WTF-8): nlohmann's escaping and replacement are the reference.
  out += json_text(nlohmann::json(std::string(s)));
}

void append_json_text(std::string& out, const nlohmann::json& j) {
  using V = nlohmann::json::value_t;
  switch (j.type()) {
    case V::null: out += "null"; return;
    case V::boolean: out += j.get_ref<const bool&>() ? "true" : "false"; return;
    case V::number_integer: append_json_integer(out, j.get_ref<const int64_t&>()); return;
    case V::number_unsigned: {
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, j.get_ref<const uint64_t&>());
      out.append(buf, end);
      return;
    }
    case V::string: append_json_string(out, j.get_ref<const std::string&>()); return;
    case V::array: {
      out += '[';
      bool first = true;
      for (const auto& e : j.get_ref<const nlohmann::json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        append_json_text(out, e);
      }
      out += ']';
      return;
    }
    case V::object: {
      // nlohmann's object is a std::map: iteration is its dump order.
      out += '{';
      bool first = true;
      for (const auto& [k, v] : j.get_ref<const nlohmann::json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, k);
        out += ':';
        append_json_text(out, v);
      }
      out += '}';
      return;
    }
    default:
      // Floats (nlohmann's shortest round-trip form), binary, discarded: its own dump.
      out += json_text(j);
      return;
  }
}

}  // namespace ckpt
