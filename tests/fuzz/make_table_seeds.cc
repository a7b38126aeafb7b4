// Writes fuzz_serializer seeds for the table runtime's serializers into a directory: each a
// snapshot in proxy framing followed by values, built with tests/testlib/table_bytes (the
// bytes the unit tests decode). Usage: make_table_seeds OUT_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/byte_writer.h"
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
  std::printf("make_table_seeds: %d seeds in %s\n", written, out_dir.c_str());
  return 0;
}
