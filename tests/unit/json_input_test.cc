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

namespace {

// Equal as values and as types: nlohmann's == calls unsigned 1 and signed 1 equal.
bool same_json(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
      if (it.key() != jt.key() || !same_json(*it, *jt)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_json(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

}  // namespace

TEST_CASE("json input parsed in place equals nlohmann's parse of the same text", "[support][unit]") {
  // The in-place parser takes what dump prints; the rest goes to nlohmann's, and every text
  // must come out as nlohmann's DOM parser builds it, types included.
  const char* texts[] = {
      R"({"operator":"241db2","subtask":0,"state":"s","kind":"keyed","key_group":127,"key":"user-1","value":{"bytes":"df96"}})",
      " \t\r\n[ 1 , 2 ,{ } , [ ] ,\"\" ] \n",
      R"({"a":1,"a":{"b":2}})",  // a repeated member: the last wins
      R"({"b":[true,false,null],"a":"x\"\\\/\b\f\n\r\ty"})",
      R"([0,7,123456789012345678,1234567890123456789,18446744073709551615,18446744073709551616])",
      R"([-0,-1,-9223372036854775808,1.5,1e3,-2.5E-3,0.0])",
      R"(["\u00e9\ud83d\ude00","caf)"
      "\xc3\xa9"
      R"("])",
      R"({"k":"v"})",
      "[]",
      "\"\"",
      "42",
      "true",
  };
  for (const char* text : texts) {
    INFO(text);
    auto ours = parse_json_input(text);
    REQUIRE(ours.ok());
    CHECK(same_json(*ours, nlohmann::json::parse(text)));
  }
  // What nlohmann refuses is refused, with nlohmann's explanation.
  const char* bad[] = {"[01]",       "[1,]", "{\"a\" 1}", "[\"a\tb\"]", "[tru]", "[1 2]",
                       "{\"a\":1}x", "[-]",  "[1.]",      "[\"\\x\"]",  "{,}",   "[\"\\ud800\"]"};
  for (const char* text : bad) {
    INFO(text);
    auto ours = parse_json_input(text);
    REQUIRE_FALSE(ours.ok());
    CHECK(ours.error().message.find("not valid JSON (") == 0);
  }
}

TEST_CASE("json parsed into another value's tree equals nlohmann's parse of the text alone", "[support][unit]") {
  // parse_plain_json_into reuses what the tree held (load parses each line's members into the
  // last line's): members dropped, added and repeated, arrays shorter and longer, a kind changed,
  // objects of more members than it tracks.
  const char* texts[] = {
      R"({"bytes":"df96782297ab","extra":[1,2,{"x":"y"}]})",
      R"({"bytes":"6f25"})",
      R"({"extra":[3],"bytes":"","more":{"a":null}})",
      R"({"extra":[4,5,6,[7]],"extra":{"b":true}})",
      // More members than are tracked, the first ones repeated after the 16th and some of the
      // tree's before it left out.
      R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17})",
      R"({"q":0,"b":[2],"r":3,"s":4,"t":5,"u":6,"v":7,"w":8,"x":9,"y":10,"z":11,"A":12,"B":13,"C":14,"D":15,"E":16,"F":17,"a":18,"b":{}})",
      R"(["x",["y"],{}])",
      R"(["longer than the small string buffer of a std::string",[],{"z":[]}])",
      "\"a string\"",
      "12",
      "{}",
      "[]",
  };
  for (const char* before : texts)
    for (const char* text : texts) {
      INFO(before << " then " << text);
      nlohmann::json tree;
      REQUIRE(parse_plain_json_into(before, &tree));
      REQUIRE(parse_plain_json_into(text, &tree));
      CHECK(same_json(tree, nlohmann::json::parse(text)));
    }
  // What the in-place parser hands back to nlohmann's (an escape it does not take, an error).
  nlohmann::json tree = nlohmann::json::parse(R"({"a":"b"})");
  CHECK_FALSE(parse_plain_json_into(R"({"a":"\u00e9"})", &tree));
  CHECK_FALSE(parse_plain_json_into(R"({"a":"b")", &tree));
  CHECK_FALSE(parse_plain_json_into("[1,]", &tree));
}
