// support/json_input.h - JSON that came from a file (the Avro schema of a serializer snapshot).
//
// nlohmann's throwing API is for JSON the program built itself. Text from input is parsed with
// exceptions off, its nesting is bounded before any tree exists (copying, comparing and
// printing a tree recurse once per level), and members are looked up without operator[],
// whose const form on a missing key is undefined behaviour; callers check a member's type
// before reading it.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"

namespace ckpt {

// Deeper JSON is refused. Jackson, which parses Avro schemas in Flink's JVM, refuses 1000
// levels (StreamReadConstraints); an Avro schema needs about three per level of records, and
// no real one comes near this.
inline constexpr int kMaxJsonInputNesting = 256;

// The value of `text`, or a kCorruption error without offset (the caller knows where the text
// lies in its file): "not valid JSON (syntax error at byte 12 of the text: ...)", "JSON nested
// deeper than 256 levels (at byte 300 of the text)".
Result<nlohmann::json> parse_json_input(std::string_view text, int max_nesting = kMaxJsonInputNesting);

// The value of `text` built into `out`, reusing the memory of what it held (a string's, an
// object's members', an array's elements'), if `text` is the plain JSON most input is (ASCII
// strings without unicode escapes, numbers, objects, arrays); false otherwise, also for
// any error, `out` then left holding anything: parse_json_input() then says what the text is.
bool parse_plain_json_into(std::string_view text, nlohmann::json* out, int max_nesting = kMaxJsonInputNesting);

// The member `key` of `object`, or nullptr if `object` is not an object or has no such member.
const nlohmann::json* json_member(const nlohmann::json& object, std::string_view key);

}  // namespace ckpt
