// JsonWriter (ckpt/json.h) writes what nlohmann's dump() would for the same document, compact
// and indented, so the documents it took over kept their bytes; inline containers and the
// streaming form as the inspect document uses them.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/json.h"

using ckpt::JsonWriter;
using nlohmann::ordered_json;

namespace {

void write_tree(JsonWriter& w, const ordered_json& j) {
  if (j.is_object()) {
    w.begin_object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      w.key(it.key());
      write_tree(w, it.value());
    }
    w.end_object();
  } else if (j.is_array()) {
    w.begin_array();
    for (const ordered_json& e : j) write_tree(w, e);
    w.end_array();
  } else if (j.is_string()) {
    w.value(j.get_ref<const std::string&>());
  } else if (j.is_boolean()) {
    w.value(j.get<bool>());
  } else if (j.is_number_unsigned()) {
    w.value(j.get<uint64_t>());
  } else if (j.is_number_integer()) {
    w.value(j.get<int64_t>());
  } else {
    w.null();
  }
}

std::string written(const ordered_json& j, int indent) {
  std::string out;
  JsonWriter w(out, indent);
  write_tree(w, j);
  return out;
}

std::string dumped(const ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("JsonWriter writes nlohmann's compact and indented text", "[unit][ops]") {
  ordered_json doc = ordered_json::parse(R"({"schema":"ckpt.x/1","n":-3,"big":18446744073709551615,"ok":true,
    "none":null,"empty_object":{},"empty_array":[],"list":[1,[2,[]],{"a":{"b":[{}]}}],
    "text":"tab\t quote\" slash\\ \u00e9 \u0001"})");
  doc["broken"] = std::string(
      "a\xff\xfe"
      "b");  // invalid UTF-8: replaced, never thrown
  for (const ordered_json& j :
       {doc, ordered_json::array(), ordered_json::object(), ordered_json(7), ordered_json("s")}) {
    CHECK(written(j, 0) == dumped(j, -1));
    CHECK(written(j, 2) == dumped(j, 2));
    CHECK(written(j, 4) == dumped(j, 4));
  }
}

TEST_CASE("JsonWriter keeps an inline container on one line inside an indented document", "[unit][ops]") {
  std::string out;
  JsonWriter w(out, 2);
  w.begin_object();
  w.key("head");
  w.begin_inline_object();
  w.key("list");
  w.value(std::vector<int>{1, 2});
  w.member("empty", std::vector<int>{});
  w.end_object();
  w.key("rows");
  w.begin_array();
  w.begin_inline_array();
  w.value(std::optional<int>());
  w.end_array();
  w.end_array();
  w.member("after", 1);
  w.end_object();
  CHECK(out == "{\n  \"head\": {\"list\":[1,2],\"empty\":[]},\n  \"rows\": [\n    [null]\n  ],\n  \"after\": 1\n}");
}

TEST_CASE("JsonWriter on a stream hands its text over in pieces and all of it at the end", "[unit][ops]") {
  std::ostringstream stream;
  std::string whole;
  {
    JsonWriter streamed(stream, 2);
    JsonWriter kept(whole, 2);
    for (JsonWriter* w : {&streamed, &kept}) w->begin_array();
    const std::string element(1000, 'x');
    for (int i = 0; i < 3000; ++i)
      for (JsonWriter* w : {&streamed, &kept}) w->value(element);
    // Three MB written: the stream has had most of it already, not only at the end.
    CHECK(stream.str().size() >= (size_t{1} << 20));
    for (JsonWriter* w : {&streamed, &kept}) w->end_array();
  }
  CHECK(stream.str() == whole);
}
