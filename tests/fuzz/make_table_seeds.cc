// Writes fuzz_serializer seeds into a directory: the table runtime's and the CEP library's
// serializers, each a snapshot in proxy framing followed by values, built with
// tests/testlib/table_bytes and cep_bytes (the bytes the unit tests decode), and the backend
// proxies of Flink 1.2-1.6 (tests/testlib/legacy_proxy_bytes). Usage: make_table_seeds OUT_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/byte_writer.h"
#include "testlib/cep_bytes.h"
#include "testlib/legacy_proxy_bytes.h"
#include "testlib/table_bytes.h"

using namespace ckpt::test;
namespace fs = std::filesystem;

namespace {

fs::path out_dir;
int written = 0;

void seed(const std::string& name, const std::string& snapshot, const std::string& values) {
  std::ofstream(out_dir / ("table-" + name), std::ios::binary) << proxy(snapshot) << values;
  ++written;
}

std::string map_value() {
  BinaryArray keys(2, 8), values(2, 4);
  keys.binary(0, "a").binary(1, "a key over 7");
  values.slot(0, 10).null(1);
  return sized(binary_map(keys.bytes(), values.bytes()));
}

std::string sorted_map_value() {
  ckpt::ByteWriter w;
  w.i32(1);
  w.i64(1);
  w.boolean(false);
  w.i32(5);
  return w.take();
}

void raw_seed(const std::string& name, const std::string& bytes) {
  std::ofstream(out_dir / name, std::ios::binary) << bytes;
  ++written;
}

void write_cep_and_legacy_seeds() {
  cep::NodeId node{{3, 1700000000000}, "start"};
  cep::ComputationState running{"middle", node, {1, 0}, 1700000000000, 1700000000500, cep::EventId{3, 1700000000000}};
  cep::ComputationState start{"start", std::nullopt, {2}, -1, -1, std::nullopt};
  raw_seed("cep-nfa-state-v2",
           proxy(cep::nfa_state_snapshot(2, true)) + cep::nfa_state({running, start}, {start}, true));
  raw_seed("cep-nfa-state-v1", proxy(cep::nfa_state_snapshot(1, false)) + cep::nfa_state({start}, {}, false));
  raw_seed("cep-shared-buffer-entry",
           proxy(cep::lockable_snapshot(cep::node_snapshot_v2())) +
               cep::lockable(2, cep::node_v2({{1, cep::edge(node, {1, 0})}, {0, cep::edge(std::nullopt, {1})}})));
  raw_seed("cep-shared-buffer-node-v1",
           proxy(cep::node_snapshot_v1()) + std::string("\0\0\0\1", 4) + cep::edge(node, {2}));
  raw_seed("cep-node-id", proxy(cep::node_id_snapshot()) + cep::node_id(node) + cep::node_id(std::nullopt));
  raw_seed("legacy-keyed-v1", legacy::keyed_v1(1));
  raw_seed("legacy-keyed-v4", legacy::keyed_v3(4));
  raw_seed("legacy-keyed-v5", legacy::keyed_v5());
  raw_seed("legacy-operator-v1", legacy::operator_v1());
  raw_seed("legacy-operator-v3", legacy::operator_v2(3));
  raw_seed("legacy-operator-v4", legacy::operator_v4());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_table_seeds OUT_DIR\n");
    return 2;
  }
  out_dir = argv[1];
  fs::create_directories(out_dir);
  std::string row = every_type_row();
  seed("every-type-row", every_type_row_snapshot(), sized(row) + sized(row));
  BinaryArray longs(3, 8);
  longs.slot(0, 1).null(1).slot(2, 7);
  seed("array-data", array_data_snapshot(from_hex(java_streams::kArrayConfig)), sized(longs.bytes()));
  seed("map-data", map_data_snapshot(from_hex(java_streams::kMapConfig)), map_value());
  BinaryRow point(2);
  point.f64(0, 1.5).f64(1, -0.5);
  seed("external-structured",
       external_snapshot(from_hex(java_streams::kPointDataType),
                         row_data_snapshot(from_hex(java_streams::kTwoDoubles), 2, {double_snapshot(), double_snapshot()})),
       sized(point.bytes()));
  seed("raw-null", raw_value_snapshot(null_serializer_snapshot()), sized(std::string(1, '\0')));
  seed("raw-long", raw_value_snapshot(long_snapshot()), sized(big_endian64(42)));
  seed("decimal-compact", decimal_snapshot(10, 2), big_endian64(-12345));
  seed("decimal-big", decimal_snapshot(25, 3), sized(std::string(kBigUnscaled)));
  seed("timestamp-compact", timestamp_snapshot(3), big_endian64(1700000000123));
  seed("timestamp-nanos", timestamp_snapshot(9), big_endian64(-2) + std::string("\0\x0f\x42\x3f", 4));
  seed("string-data", string_data_snapshot(), sized("h\xc3\xa9llo"));
  seed("sorted-map", sorted_map_snapshot(from_hex(java_streams::kComparator), long_snapshot(), int_snapshot()),
       sorted_map_value());
  seed("window-key",
       composite_snapshot("org.apache.flink.table.runtime.typeutils.WindowKeySerializer$WindowKeySerializerSnapshot",
                          1, {}, {string_data_snapshot()}),
       big_endian64(1000) + sized("k"));
  // The legacy form's payload is unframed: values after it are taken for payload, so none.
  seed("legacy-array-data",
       legacy_config_snapshot("org.apache.flink.table.runtime.typeutils.ArrayDataSerializer$LegacyConfigSnapshot",
                              from_hex(java_streams::kLegacyArraySerializer)),
       {});
  write_cep_and_legacy_seeds();
  std::printf("make_table_seeds: %d seeds in %s\n", written, out_dir.c_str());
  return 0;
}
