// A key is read by one function whatever command it is given to: every form ckpt dump prints a
// key in (with or without --plan, with or without the row kind) becomes the value the key
// decoders produce.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ops/key_spelling.h"

using ckpt::GivenKey;
using ckpt::parse_given_key;

namespace {

nlohmann::json last_spelling(const std::string& text) {
  auto k = parse_given_key(text, "--key");
  REQUIRE(k.ok());
  REQUIRE(!k->spellings.empty());
  CHECK(k->text == text);
  return k->spellings.back();
}

}  // namespace

TEST_CASE("a key row in any form dump prints reads as the row the decoders produce", "[ops]") {
  const nlohmann::json row = nlohmann::json::parse(R"({"fields":[6,"c"],"kind":"+I"})");
  CHECK(last_spelling(R"({"fields":[6,"c"],"kind":"+I"})") == row);
  CHECK(last_spelling(R"({"fields":[6,"c"]})") == row);
  // Named by --plan: the members' written order is the columns' order (not sorted by name).
  CHECK(last_spelling(R"({"fields":{"b":6,"a":"c"},"kind":"+I"})") == row);
  CHECK(last_spelling(R"({"fields":{"b":6,"a":"c"}})") == row);
  CHECK(last_spelling(R"({"fields":[1],"kind":"-U"})") == nlohmann::json::parse(R"({"fields":[1],"kind":"-U"})"));
}

TEST_CASE("other keys read as the JSON value they are and bad text is refused naming the option", "[ops]") {
  CHECK(last_spelling("[1,\"a\"]") == nlohmann::json::parse("[1,\"a\"]"));
  CHECK(last_spelling("[ 3 ]") == nlohmann::json::array({3}));
  CHECK(last_spelling("\"user-7\"") == "user-7");
  // A POJO or a map is not a row: one spelling, as written.
  auto pojo = parse_given_key(R"({"class":"Order","fields":{"id":1}})", "--key");
  REQUIRE(pojo.ok());
  CHECK(pojo->spellings.size() == 1);
  auto other = parse_given_key(R"({"fields":[1],"kind":"x"})", "--key");
  REQUIRE(other.ok());
  CHECK(other->spellings.size() == 1);
  for (const char* bad : {"not json", "1 2", "", "[1,"}) {
    auto r = parse_given_key(bad, "--delete-keys");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("--delete-keys: key") == 0);
  }
  auto twice = ckpt::parse_given_keys({R"({"fields":[2]})", R"({"fields":{"b":2},"kind":"+I"})", "3"}, "--key");
  REQUIRE(twice.ok());
  CHECK(twice->size() == 2);
}
