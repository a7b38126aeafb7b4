// The serializer snapshots a load spec writes for a type are the bytes Flink wrote for the same
// type: compared with the proxies of Flink's own snapshots (a SQL group aggregate's RowData key
// and accumulator, a DataStream job's Tuple1<Long> key and Long value).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/proxy_reader.h"
#include "ops/load/spec_types.h"
#include "state/raw_keyed_reader.h"
#include "state/stream_opener.h"
#include "testlib/snapshot_metadata.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// The keyed proxy of the first subtask with keyed state of operator `op_hex` in `dir`.
KeyedBackendMeta proxy_of(const std::string& dir, const std::string& op_hex) {
  Metadata m = test::metadata_of(dir);
  auto where = locate_snapshot(dir);
  REQUIRE(where.ok());
  for (const OperatorState& op : m.operators) {
    if (operator_id_hex(op.id) != op_hex) continue;
    for (const SubtaskState& st : op.subtasks) {
      if (st.managed_keyed.is_null()) continue;
      auto source = open_raw_keyed(st.managed_keyed, StreamOpener::for_snapshot(*where, {}), op.max_parallelism);
      INFO(dir << ": " << (source.ok() ? "" : source.error().to_string()));
      REQUIRE(source.ok());
      return source->meta;
    }
  }
  FAIL("no keyed state of operator " << op_hex << " in " << dir);
  return {};
}

std::string spec_bytes(const char* type) {
  auto s = spec_type_snapshot(type);
  INFO(type << ": " << (s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
  return s->raw;
}

}  // namespace

TEST_CASE("load spec types write the snapshot bytes of a SQL group aggregate's key and accumulator", "[ops][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/group-aggregate-simple/savepoint";
  KeyedBackendMeta meta = proxy_of(dir, "23eaad2bb152dd975bbc63554c2ca61f");
  CHECK(spec_bytes("ROW<b BIGINT>") == meta.key_serializer.raw);
  const StateMetaInfo* acc = meta.find("accState");
  REQUIRE(acc);
  REQUIRE(acc->value_serializer());
  CHECK(spec_bytes("ROW<a BIGINT, b BIGINT, c BIGINT, d STRING>") == acc->value_serializer()->raw);
  // The same types with another nullability are other bytes: NOT NULL is written.
  CHECK(spec_bytes("ROW<a BIGINT NOT NULL, b BIGINT, c BIGINT, d STRING>") != acc->value_serializer()->raw);
}

TEST_CASE("load spec types write the snapshot bytes of a DataStream Tuple1 key and Long value", "[ops][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-hashmap-savepoint";
  KeyedBackendMeta meta = proxy_of(dir, "d5c8b168c6cbfe8c507a10f88b325243");
  CHECK(spec_bytes("TUPLE<BIGINT>") == meta.key_serializer.raw);
  const StateMetaInfo* state = meta.find("state-name");
  REQUIRE(state);
  REQUIRE(state->value_serializer());
  CHECK(spec_bytes("BIGINT") == state->value_serializer()->raw);
}

namespace {

// The spec text of a SQL logical type, or "" where the spec does not write that type.
std::string spec_word(const LogicalType& t) {
  static const std::map<std::string, std::string> plain = {
      {"BOOLEAN", "BOOLEAN"}, {"TINYINT", "TINYINT"}, {"SMALLINT", "SMALLINT"}, {"INTEGER", "INT"},
      {"BIGINT", "BIGINT"},   {"FLOAT", "FLOAT"},     {"DOUBLE", "DOUBLE"}};
  std::string w;
  if (auto it = plain.find(t.root); it != plain.end()) w = it->second;
  else if (t.root == "VARCHAR") w = t.length == INT32_MAX ? "STRING" : "VARCHAR(" + std::to_string(t.length) + ")";
  else if (t.root == "DECIMAL") w = "DECIMAL(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) + ")";
  else if (t.root == "TIMESTAMP_WITHOUT_TIME_ZONE") w = "TIMESTAMP(" + std::to_string(t.precision) + ")";
  else if (t.root == "TIMESTAMP_WITH_LOCAL_TIME_ZONE") w = "TIMESTAMP_LTZ(" + std::to_string(t.precision) + ")";
  if (!t.timestamp_kind.empty() && t.timestamp_kind != "REGULAR") w += " *" + t.timestamp_kind + "*";
  if (w.empty() || t.java_class.find("org.apache.flink.table.types.logical.") != 0) return "";
  return w + (t.nullable ? "" : " NOT NULL");
}

// Every RowDataSerializer snapshot among `s` and its nested snapshots.
void row_data_snapshots(const SerializerSnapshot& s, std::vector<const SerializerSnapshot*>& out) {
  if (s.form == SnapshotForm::kRowData) out.push_back(&s);
  for (const SerializerSnapshot& n : s.nested) row_data_snapshots(n, out);
}

}  // namespace

TEST_CASE("load spec types write the bytes Flink wrote for every SQL row of the corpus whose field types they name",
          "[ops][corpus][sql]") {
  // Each RowDataSerializer snapshot of the SQL corpus' keyed and operator state whose fields are
  // all types a spec writes (numbers, strings, DECIMAL, TIMESTAMP, TIMESTAMP_LTZ, with their
  // nullability) is written back byte for byte from its spec text.
  CKPT_REQUIRE_SHARED();
  int compared = 0;
  std::set<std::string> roots;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    auto where = locate_snapshot(dir);
    REQUIRE(where.ok());
    ProxyReader proxies(StreamOpener::for_snapshot(*where, {}));
    std::vector<SerializerSnapshot> found;
    for (const OperatorState& op : test::metadata_of(dir).operators)
      for (const SubtaskState& st : op.subtasks) {
        (void)proxies.keyed(st.managed_keyed, [&](const KeyedBackendMeta& m) {
          found.push_back(m.key_serializer);
          for (const StateMetaInfo& info : m.states)
            for (const auto& [role, s] : info.serializers) found.push_back(s);
        });
        for (const OperatorHandle& h : st.managed_operator) {
          if (h.is_null()) continue;
          auto meta = proxies.operator_state(h);
          if (!meta.ok()) continue;
          for (const auto* states : {&meta->list_states, &meta->broadcast_states})
            for (const StateMetaInfo& info : *states)
              for (const auto& [role, s] : info.serializers) found.push_back(s);
        }
      }
    std::vector<const SerializerSnapshot*> rows;
    for (const SerializerSnapshot& s : found) row_data_snapshots(s, rows);
    for (const SerializerSnapshot* row : rows) {
      if (!row->logical_types_decoded || row->logical_types.empty()) continue;
      std::string text = "ROW<";
      bool writable = true;
      for (size_t i = 0; i < row->logical_types.size() && writable; ++i) {
        const std::string word = spec_word(row->logical_types[i]);
        writable = !word.empty();
        text += (i ? ", f" : "f") + std::to_string(i) + " " + word;
      }
      if (!writable) continue;
      text += ">";
      INFO(dir << ": " << text);
      const std::string mine = spec_bytes(text.c_str());
      size_t at = 0;
      while (at < mine.size() && at < row->raw.size() && mine[at] == row->raw[at]) ++at;
      auto hex = [](const std::string& b, size_t from) {
        std::string out;
        for (size_t i = from; i < b.size() && i < from + 48; ++i) out += fmt::format("{:02x}", static_cast<uint8_t>(b[i]));
        return out;
      };
      INFO("first difference at " << at << ": " << hex(mine, at > 16 ? at - 16 : 0) << " against Flink's "
                                  << hex(row->raw, at > 16 ? at - 16 : 0));
      CHECK(mine == row->raw);
      ++compared;
      for (const LogicalType& t : row->logical_types) roots.insert(t.root);
    }
  }
  CHECK(compared >= 20);
  CHECK(roots.count("DECIMAL") == 1);
  CHECK(roots.count("TIMESTAMP_WITHOUT_TIME_ZONE") == 1);
  CHECK(roots.count("TIMESTAMP_WITH_LOCAL_TIME_ZONE") == 1);
}
