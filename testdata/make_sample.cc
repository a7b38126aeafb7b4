// ckpt_make_sample DIR: writes the sample savepoint (testdata/README.md) into DIR.
#include <iostream>

#include "testlib/sample_savepoint.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ckpt_make_sample DIR\n";
    return 2;
  }
  ckpt::Status s = ckpt::test::write_sample_savepoint(argv[1]);
  if (!s.ok()) {
    std::cerr << "ckpt_make_sample: error: " << s.error().to_string() << "\n";
    return 2;
  }
  return 0;
}
