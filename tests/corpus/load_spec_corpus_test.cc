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
#include "ops/load/spec_types.h"
#include "state/proxy_reader.h"
#include "state/raw_keyed_reader.h"
#include "state/stream_opener.h"
#include "testlib/java_streams.h"
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

// The spec text of a SQL logical type, or "" where the spec does not write that type. A ROW's
// field names are quoted as Flink's escapeIdentifier quotes them.
std::string spec_word(const LogicalType& t) {
  static const std::map<std::string, std::string> plain = {
      {"BOOLEAN", "BOOLEAN"}, {"TINYINT", "TINYINT"}, {"SMALLINT", "SMALLINT"}, {"INTEGER", "INT"},
      {"BIGINT", "BIGINT"},   {"FLOAT", "FLOAT"},     {"DOUBLE", "DOUBLE"},     {"DATE", "DATE"}};
  const std::string n = std::to_string(t.length), p = std::to_string(t.precision);
  std::string w;
  if (auto it = plain.find(t.root); it != plain.end()) w = it->second;
  else if (t.root == "VARCHAR")
    w = t.length == INT32_MAX ? "STRING" : "VARCHAR(" + n + ")";
  else if (t.root == "VARBINARY")
    w = t.length == INT32_MAX ? "BYTES" : "VARBINARY(" + n + ")";
  else if (t.root == "CHAR" || t.root == "BINARY")
    w = t.root + "(" + n + ")";
  else if (t.root == "DECIMAL")
    w = "DECIMAL(" + p + ", " + std::to_string(t.scale) + ")";
  else if (t.root == "TIME_WITHOUT_TIME_ZONE")
    w = "TIME(" + p + ")";
  else if (t.root == "TIMESTAMP_WITHOUT_TIME_ZONE")
    w = "TIMESTAMP(" + p + ")";
  else if (t.root == "TIMESTAMP_WITH_LOCAL_TIME_ZONE")
    w = "TIMESTAMP_LTZ(" + p + ")";
  else if (t.root == "ROW" && t.field_names.size() == t.children.size() && !t.children.empty()) {
    w = "ROW<";
    for (size_t i = 0; i < t.children.size(); ++i) {
      const std::string f = spec_word(t.children[i]);
      if (f.empty()) return "";
      std::string name;
      for (char c : t.field_names[i]) name += c == '`' ? std::string("``") : std::string(1, c);
      w += (i ? ", `" : "`") + name + "` " + f;
    }
    w += ">";
  }
  if (!t.timestamp_kind.empty() && t.timestamp_kind != "REGULAR") w += " *" + t.timestamp_kind + "*";
  if (w.empty() || t.java_class.find("org.apache.flink.table.types.logical.") != 0) return "";
  return w + (t.nullable ? "" : " NOT NULL");
}

// Every RowDataSerializer snapshot among `s` and its nested snapshots.
void row_data_snapshots(const SerializerSnapshot& s, std::vector<const SerializerSnapshot*>& out) {
  if (s.form == SnapshotForm::kRowData) out.push_back(&s);
  for (const SerializerSnapshot& n : s.nested) row_data_snapshots(n, out);
}

// The serializer snapshots of every keyed and operator state of the snapshot in `dir`.
std::vector<SerializerSnapshot> state_serializers(const std::string& dir) {
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
  return found;
}

// Where `mine` first differs from Flink's `theirs`, with the bytes around it.
std::string first_difference(const std::string& mine, const std::string& theirs) {
  size_t at = 0;
  while (at < mine.size() && at < theirs.size() && mine[at] == theirs[at]) ++at;
  auto hex = [](const std::string& b, size_t from) {
    std::string out;
    for (size_t i = from; i < b.size() && i < from + 48; ++i) out += fmt::format("{:02x}", static_cast<uint8_t>(b[i]));
    return out;
  };
  const size_t from = at > 16 ? at - 16 : 0;
  return fmt::format("first difference at {}: {} against Flink's {}", at, hex(mine, from), hex(theirs, from));
}

}  // namespace

TEST_CASE("load spec types write the bytes Flink wrote for every SQL row of the corpus whose field types they name",
          "[ops][corpus][sql]") {
  // Each RowDataSerializer snapshot of the SQL corpus' keyed and operator state whose fields are
  // all types a spec writes (numbers, strings, bytes, DECIMAL, DATE, TIME, TIMESTAMP,
  // TIMESTAMP_LTZ, nested ROWs, with their nullability) is written back byte for byte from its
  // spec text.
  CKPT_REQUIRE_SHARED();
  int compared = 0;
  std::set<std::string> roots;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    const std::vector<SerializerSnapshot> found = state_serializers(dir);
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
      INFO(first_difference(mine, row->raw));
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

TEST_CASE("load spec types write the LogicalType Flink serialized for every field of the corpus' SQL rows they name",
          "[ops][corpus][sql]") {
  // Field by field: each Java-serialized LogicalType of a RowData snapshot of the SQL corpus whose
  // type a spec names is the stream the spec writes for it, even where another field of its row
  // (a RAW data view) is not. This reaches the corpus' nested ROW (a rank accumulator of
  // stream-exec-expand_1: ROW<firstValue STRING, firstOrder BIGINT> beside a RAW field), whose
  // RowType, RowFields, UnmodifiableList and ArrayList and their handles are Flink's bytes.
  CKPT_REQUIRE_SHARED();
  std::map<std::string, int> compared;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    const std::vector<SerializerSnapshot> found = state_serializers(dir);
    std::vector<const SerializerSnapshot*> rows;
    for (const SerializerSnapshot& s : found) row_data_snapshots(s, rows);
    for (const SerializerSnapshot* row : rows) {
      if (!row->logical_types_decoded) continue;
      const std::vector<std::string> streams = test::row_data_type_streams(row->raw);
      REQUIRE(streams.size() == row->logical_types.size());
      for (size_t i = 0; i < streams.size(); ++i) {
        const std::string word = spec_word(row->logical_types[i]);
        if (word.empty()) continue;
        const std::string text = "ROW<f " + word + ">";
        INFO(dir << ": field " << i << ": " << text);
        auto s = spec_type_snapshot(text);
        INFO((s.ok() ? "" : s.error().to_string()));
        REQUIRE(s.ok());
        const std::vector<std::string> mine = test::row_data_type_streams(s->raw);
        REQUIRE(mine.size() == 1);
        INFO(first_difference(mine[0], streams[i]));
        CHECK(mine[0] == streams[i]);
        ++compared[row->logical_types[i].root];
      }
    }
  }
  std::string counts;
  for (const auto& [root, n] : compared) counts += fmt::format(" {}: {}", root, n);
  INFO("compared" << counts);
  CHECK(compared["ROW"] >= 1);
  CHECK(compared["BIGINT"] >= 20);
  CHECK(compared["VARCHAR"] >= 20);
}
