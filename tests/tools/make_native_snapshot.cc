// ckpt_make_native_snapshot: a large RocksDB native snapshot for bench/restore_bench.sh
// (tests/testlib/native_snapshot.h says what it holds).
#include <iostream>
#include <string>

#include "testlib/native_snapshot.h"

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::cerr << "usage: ckpt_make_native_snapshot TEMPLATE OUT_DIR BYTES SUBTASKS [VALUE_SIZE]\n";
    return 2;
  }
  ckpt::test::NativeSnapshotSpec spec;
  spec.template_dir = argv[1];
  spec.out = argv[2];
  spec.bytes = std::stoull(argv[3]);
  spec.subtasks = std::stoi(argv[4]);
  // With VALUE_SIZE (dump_bench.sh: 8, Long values that decode) instances are compacted, so
  // that their SSTs do not overlap; without, 1000 bytes of incompressible values (restore_bench.sh).
  spec.value_size = argc == 6 ? std::stoull(argv[5]) : 1000;
  spec.compact = argc == 6;
  ckpt::Status s = ckpt::test::write_native_snapshot(spec);
  if (!s.ok()) {
    std::cerr << "ckpt_make_native_snapshot: error: " << s.error().to_string() << "\n";
    return 2;
  }
  return 0;
}
