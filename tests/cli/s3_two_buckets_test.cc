// Two snapshots in different buckets open side by side in one process: the store's file system
// serves every bucket the credentials reach (ckpt/file_system.h), with no per-command staging.
#include <catch2/catch.hpp>

#include <string>

#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"

using namespace ckpt;

TEST_CASE("s3 diff of two snapshots in different buckets prints what the disk diff prints", "[cli][s3]") {
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-b1"));
  REQUIRE(m->create_bucket("ckpt-b2"));
  test::ScratchDir dir;
  const std::string a = dir / "a", b = dir / "b";
  test::run_cli_ok({"generate", "--keys", "20", "--states", "value,map", "--output", a});
  test::run_cli_ok({"generate", "--keys", "30", "--states", "value,map", "--output", b});
  REQUIRE(m->upload_tree(a, "ckpt-b1", "jobs/a"));
  REQUIRE(m->upload_tree(b, "ckpt-b2", "jobs/b"));
  const std::string ua = "s3://ckpt-b1/jobs/a", ub = "s3://ckpt-b2/jobs/b";
  for (const char* keys : {"", "--keys"}) {
    std::vector<std::string> disk_args{"diff", a, b}, store_args{"diff", ua, ub};
    if (*keys) {
      disk_args.push_back(keys);
      store_args.push_back(keys);
    }
    test::CliResult disk = test::run_cli(disk_args);
    test::CliResult store = test::run_cli(store_args);
    INFO(keys << "\n" << store.err);
    CHECK(disk.status == 1);  // 10 keys more in b
    CHECK(store.status == disk.status);
    CHECK(store.out == test::replaced(test::replaced(disk.out, a, ua), b, ub));
  }
}
