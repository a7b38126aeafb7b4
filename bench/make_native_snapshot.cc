// ckpt_make_native_snapshot: a large RocksDB native snapshot for bench/restore_bench.sh
// (tests/support/native_snapshot.h says what it holds).
#include <iostream>
#include <string>

#include "support/native_snapshot.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: ckpt_make_native_snapshot TEMPLATE OUT_DIR BYTES SUBTASKS\n";
    return 2;
  }
  ckpt::test::NativeSnapshotSpec spec;
  spec.template_dir = argv[1];
  spec.out = argv[2];
  spec.bytes = std::stoull(argv[3]);
  spec.subtasks = std::stoi(argv[4]);
  spec.value_size = 1000;
  ckpt::Status s = ckpt::test::write_native_snapshot(spec);
  if (!s.ok()) {
    std::cerr << "ckpt_make_native_snapshot: error: " << s.error().to_string() << "\n";
    return 2;
  }
  return 0;
}
