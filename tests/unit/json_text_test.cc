// The in-place JSON text helpers print exactly what nlohmann's dump (with replace) prints.
#include <catch2/catch.hpp>

#include <limits>

#include "support/json_text.h"

using namespace ckpt;
using nlohmann::json;

TEST_CASE("append_json_string escapes like nlohmann - invalid UTF-8 and lone surrogates replaced", "[unit][support]") {
  // Plain ASCII takes the fast path; escapes, control bytes, DEL, UTF-8, WTF-8 and broken
  // sequences must come out as nlohmann's serializer writes them.
  const std::vector<std::string> cases = {
      "", "plain", "with \"quotes\"", "back\\slash", std::string("nul\0byte", 8), "tab\tnew\nline\rcr",
      "\x01\x1f\x7f", "caf\xc3\xa9", "\xf0\x9f\x98\x80", "\xed\xb0\x80 lone surrogate", "\xff\xfe broken",
      "cut \xe2\x82", "/slash/",
  };
  for (const std::string& s : cases) {
    INFO(json(s).dump(-1, ' ', true, json::error_handler_t::replace));
    std::string out = "x";
    append_json_string(out, s);
    CHECK(out == "x" + json_text(json(s)));
  }
}

TEST_CASE("append_json_text prints trees as json_text does - numbers at their limits - members in order", "[unit][support]") {
  // Integers of both signs at their limits, unsigned, floats (nlohmann's shortest form), nested
  // arrays and objects (std::map order), null and booleans.
  json tree = {
      {"min", std::numeric_limits<int64_t>::min()}, {"max", std::numeric_limits<int64_t>::max()},
      {"umax", std::numeric_limits<uint64_t>::max()}, {"float", 0.1}, {"big", 1e300}, {"neg", -2.5},
      {"z", nullptr}, {"t", true}, {"f", false}, {"arr", json::array({1, json::array(), json::object(), "s"})},
      {"obj", {{"b", 2}, {"a", {{"x\"y", "\xc3\xa9"}}}}},
  };
  std::string out;
  append_json_text(out, tree);
  CHECK(out == json_text(tree));
  out.clear();
  append_json_integer(out, -42);
  CHECK(out == "-42");
}
