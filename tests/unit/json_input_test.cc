// JSON from input: parsed without exceptions, nesting bounded before parsing, members looked up
// without operator[].
#include <catch2/catch.hpp>

#include <string>

#include "support/json_input.h"

using namespace ckpt;

TEST_CASE("json input is parsed without exceptions and its nesting is bounded before parsing", "[support][unit][corrupt]") {
  auto ok = parse_json_input(R"({"a":[1,{"b":"x"}]})");
  REQUIRE(ok.ok());
  CHECK((*ok)["a"][1]["b"] == "x");

  auto bad = parse_json_input("{\"a\":");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kCorruption);
  CHECK(bad.error().message.find("not valid JSON (") == 0);
  CHECK(bad.error().message.find("parse error") != std::string::npos);
  CHECK_FALSE(parse_json_input("").ok());
  CHECK_FALSE(parse_json_input("\"\xff\"").ok());  // invalid UTF-8 is a parse error, not a throw

  // Exactly the limit parses; one more level is refused, at the byte that opened it.
  std::string at_limit = std::string(256, '[') + std::string(256, ']');
  CHECK(parse_json_input(at_limit).ok());
  auto deep = parse_json_input(std::string(257, '[') + std::string(257, ']'));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().message == "JSON nested deeper than 256 levels (at byte 256 of the text)");
  CHECK_FALSE(deep.error().offset.has_value());  // the caller knows where the text lies
  CHECK(parse_json_input(std::string(10000, '{')).error().message.find("nested deeper than 256") != std::string::npos);
  // Brackets inside strings (escaped quotes included) are not nesting.
  CHECK(parse_json_input("[\"" + std::string(300, '[') + "\\\"" + std::string(300, '{') + "\"]").ok());
  CHECK(parse_json_input("[[[1]]]", 2).error().message == "JSON nested deeper than 2 levels (at byte 2 of the text)");
}

TEST_CASE("json members are looked up without inserting or throwing", "[support][unit]") {
  const nlohmann::json o = {{"k", 1}};
  REQUIRE(json_member(o, "k"));
  CHECK(*json_member(o, "k") == 1);
  CHECK(json_member(o, "missing") == nullptr);
  CHECK(json_member(nlohmann::json::array({1, 2}), "k") == nullptr);
  CHECK(json_member(nlohmann::json("text"), "k") == nullptr);
  CHECK(o.size() == 1);
}
