// The columns of a state's table from its value serializer, on the serializer snapshots and
// values of Flink's own upgrade tests (flink-serializers): a POJO's fields, an Avro record's
// fields, a Row's and a Tuple's positions, a TTL value's timestamp beside its value. Each
// column's path is found in the value Flink wrote, and they leave none of its fields out.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/query/state_columns.h"
#include "testlib/test_support.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::query_detail;

namespace {

struct SerializerSample {
  SerializerSnapshot snapshot;
  nlohmann::json value;
};

SerializerSample serializer_sample(const std::string& name) {
  const std::string dir = test::shared_dir() + "/testdata/flink-serializers/" + name;
  std::string snapshot = test::read_file(dir + "/serializer-snapshot");
  ByteReader sr(snapshot);
  auto s = read_serializer_snapshot(sr, SnapshotFraming::kProxy);
  REQUIRE(s.ok());
  auto d = make_decoder(*s);
  REQUIRE(d.ok());
  std::string data = test::read_file(dir + "/test-data");
  ByteReader r(data);
  auto v = decode_framed(**d, r, data.size());
  REQUIRE(v.ok());
  return {std::move(*s), std::move(*v)};
}

// The value columns of a VALUE state whose serializer is `s`.
std::vector<StateColumn> value_columns(const SerializerSnapshot& s) {
  StateMetaInfo info;
  info.name = "s";
  info.options = {{"KEYED_STATE_TYPE", "VALUE"}};
  info.serializers = {{"VALUE_SERIALIZER", s}};
  StateLayout layout = state_layout(info, nullptr, nullptr);
  std::vector<StateColumn> out;
  for (const StateColumn& c : layout.columns)
    if (c.field == EntryField::kValue) out.push_back(c);
  return out;
}

const nlohmann::json* json_at_steps(const nlohmann::json& v, const std::vector<PathStep>& path) {
  const nlohmann::json* at = &v;
  for (const PathStep& step : path) {
    if (!step.member.empty())
      at = at->is_object() && at->contains(step.member) ? &(*at)[step.member] : nullptr;
    else
      at = at->is_array() && step.index < at->size() ? &(*at)[step.index] : nullptr;
    if (!at) return nullptr;
  }
  return at;
}

std::vector<std::string> names_of(const std::vector<StateColumn>& columns) {
  std::vector<std::string> out;
  for (const StateColumn& c : columns) out.push_back(c.name);
  return out;
}

}  // namespace

TEST_CASE("A state table splits POJO - Avro - Row - Tuple and TTL values into their fields", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  for (const char* name :
       {"pojo-serializer-identical-schema-1.20", "specific-avro-serializer-1.20", "generic-avro-serializer-1.20"}) {
    INFO(name);
    SerializerSample sample = serializer_sample(name);
    std::vector<StateColumn> columns = value_columns(sample.snapshot);
    INFO(sample.value.dump());
    REQUIRE(sample.value.contains("fields"));
    std::set<std::string> fields, named;
    for (auto it = sample.value["fields"].begin(); it != sample.value["fields"].end(); ++it) fields.insert(it.key());
    for (const StateColumn& c : columns) {
      REQUIRE(c.path.size() == 2);
      CHECK(c.path[0].member == "fields");
      CHECK(c.path[1].member == c.name);
      named.insert(c.name);
    }
    CHECK(named == fields);
  }
  for (const char* name : {"row-serializer-1.20", "tuple-serializer-1.20"}) {
    INFO(name);
    SerializerSample sample = serializer_sample(name);
    std::vector<StateColumn> columns = value_columns(sample.snapshot);
    INFO(sample.value.dump());
    const nlohmann::json& positions = sample.value.is_array() ? sample.value : sample.value["fields"];
    REQUIRE(positions.size() == columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      CHECK(columns[i].name == "f" + std::to_string(i));
      CHECK(json_at_steps(sample.value, columns[i].path) == &positions[i]);
    }
  }
  SerializerSample ttl = serializer_sample("ttl-serializer-1.20");
  std::vector<StateColumn> columns = value_columns(ttl.snapshot);
  INFO(ttl.value.dump());
  REQUIRE(!columns.empty());
  CHECK(columns[0].name == "ttl_ts");
  CHECK(columns[0].type == "INTEGER");
  for (const StateColumn& c : columns) {
    CHECK(json_at_steps(ttl.value, c.path) != nullptr);
    if (c.name != "ttl_ts") CHECK(c.path.at(0).member == "value");
  }
  CHECK(names_of(columns).size() >= 2);
}
