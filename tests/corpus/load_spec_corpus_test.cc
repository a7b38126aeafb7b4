// The serializer snapshots a load spec writes for a type are the bytes Flink wrote for the same
// type: compared with the proxies of Flink's own snapshots (a SQL group aggregate's RowData key
// and accumulator, a DataStream job's Tuple1<Long> key and Long value).
#include <catch2/catch.hpp>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
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
