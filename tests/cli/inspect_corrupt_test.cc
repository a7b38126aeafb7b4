// `ckpt inspect` on a damaged `_metadata`: the library's error reaches the user intact.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "command.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("ckpt inspect on a corrupted copy exits 2 naming the file and the offset", "[corpus][corrupt][cli]") {
  // Proves the library error reaches the user unchanged: "ckpt: error: '<path>': ... at offset 0x..".
  CKPT_REQUIRE_SHARED();
  test::ScratchDir dir;
  std::string bytes = test::read_file(test::corpus_dir() +
                                      "/type-serializer-snapshot-migration-itcase-flink1.16-rocksdb-checkpoint/_metadata");
  REQUIRE(bytes.size() > 0x41);
  std::string path = dir / "_metadata";
  bytes[0x41] = 0x2a;  // the managed keyed state's type byte
  test::write_file(path, bytes);
  std::ostringstream out, err;
  cli::Io io{out, err};
  int status = cli::run({"inspect", path}, io);
  CHECK(status == cli::kExitError);
  CHECK(err.str().find("ckpt: error: '" + path + "': ") == 0);
  CHECK(err.str().find("unknown keyed state handle type 0x2a at offset 0x41") != std::string::npos);
}
