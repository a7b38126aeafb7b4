// A line of dump's NDJSON is split into its members without a tree of the whole line; what it
// holds and every error it gets must be what the whole line's parse gives.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "ops/load/entry_line.h"

using ckpt::EntryLine;

TEST_CASE("an entry line split in place holds what the whole line's parse holds", "[ops]") {
  EntryLine line;
  REQUIRE(line.assign(R"( {"operator":"ab","subtask":0,"state":"s","kind":"keyed","key_group":3,)"
                      R"("key":{"fields":[1,"a\"}"],"kind":"+I"},"namespace":"VoidNamespace",)"
                      R"("user_key":[[1],{"x":"]"}],"value":{"bytes":"df96"}} )")
              .ok());
  CHECK(*line.find("operator") == "ab");
  CHECK(line.find("subtask")->is_number_unsigned());
  CHECK(*line.find("key_group") == 3);
  CHECK(*line.find("key") == nlohmann::json::parse(R"({"fields":[1,"a\"}"],"kind":"+I"})"));
  CHECK(*line.find("user_key") == nlohmann::json::parse(R"([[1],{"x":"]"}])"));
  CHECK(*line.find("value") == nlohmann::json::parse(R"({"bytes":"df96"})"));
  CHECK(line.find("uid") == nullptr);
  CHECK(line.find("nonsense") == nullptr);

  // The next line keeps nothing of the last; a member given twice is the last one.
  REQUIRE(line.assign(R"({"state":"a","state":"b","value":null})").ok());
  CHECK(*line.find("state") == "b");
  CHECK(line.find("value")->is_null());
  CHECK(line.find("operator") == nullptr);
  REQUIRE(line.assign("{}").ok());
  CHECK(line.find("state") == nullptr);
  REQUIRE(line.assign(R"({"st\u0061te":"c"})").ok());  // an escaped name: the whole line's parse
  CHECK(*line.find("state") == "c");
}

TEST_CASE("an entry line read after another holds what its own parse holds - repeated members kept and the rest reparsed", "[ops]") {
  const std::string lines[] = {
      R"({"operator":"ab","subtask":0,"state":"s","kind":"keyed","key":"k1","namespace":"VoidNamespace","value":{"bytes":"df96"}})",
      R"({"operator":"ab","subtask":0,"state":"s","kind":"keyed","key":"k2","namespace":"VoidNamespace","value":{"bytes":"6f25aa"}})",
      R"({"operator":"ab","state":"s","kind":"keyed","key":{"f0":1,"f1":[2,3]},"value":[{"bytes":"00"},null]})",
      R"({"operator":"ab","state":"t","kind":"timer","key":{"f0":1},"namespace":"VoidNamespace","value":12})",
      R"({"operator":"ab","state":"t","kind":"timer","key":{"f0":1},"namespace":"VoidNamespace","value":12})",
      R"({"st\u0061te":"c","value":"v"})",  // the whole line's parse: nothing of the last kept
      R"({"operator":"ab","state":"c","value":"v"})",
  };
  EntryLine line;
  for (const std::string& text : lines) {
    INFO(text);
    REQUIRE(line.assign(text).ok());
    const nlohmann::json whole = nlohmann::json::parse(text);
    for (std::string_view name : ckpt::kEntryMembers) {
      auto it = whole.find(std::string(name));
      const nlohmann::json* ours = line.find(name);
      INFO(name);
      REQUIRE((it == whole.end()) == (ours == nullptr));
      if (ours) CHECK(*ours == *it);
    }
  }
  // A refused line leaves nothing behind for the next.
  REQUIRE_FALSE(line.assign(R"({"operator":"ab","state":)").ok());
  REQUIRE(line.assign(R"({"state":"s"})").ok());
  CHECK(line.find("operator") == nullptr);
  CHECK(*line.find("state") == "s");
}

TEST_CASE("an entry line that is not an object of dump's members is refused saying why", "[ops][corrupt]") {
  EntryLine line;
  const std::string not_object = "expected a JSON object as ckpt dump prints entries";
  CHECK(line.assign("[1]").error().message == not_object);
  CHECK(line.assign(R"({"state":"a",})").error().message.find(not_object + ": not valid JSON (") == 0);
  CHECK(line.assign(R"({"state":"a"} x)").error().message.find(not_object + ": not valid JSON (") == 0);
  CHECK(line.assign(R"({"state":01})").error().message.find(not_object + ": not valid JSON (") == 0);
  // An unknown member is named only when the line is JSON, the first in name order.
  CHECK(line.assign(R"({"zz":1,"bogus":2,"state":"a"})")
            .error()
            .message.find("bogus: not a member of dump's entries (") == 0);
  CHECK(line.assign(R"({"bogus":2,"state":)").error().message.find(not_object + ": not valid JSON (") == 0);
  CHECK(line.assign(R"({"state":"a"})").ok());
}
