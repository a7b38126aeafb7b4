// Restored instances open anywhere: their OPTIONS files name no directory of the machine that
// wrote them (a TaskManager's `wal_dir`), so RocksDB's LoadLatestOptions + DB::Open and `ldb`
// work on them as they are.
#include <catch2/catch.hpp>

#include <filesystem>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/options_util.h>

#include "state/rocksdb/rocks_options_file.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// Every instance directory (one holding CURRENT) under `root`.
std::vector<std::string> instances(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename() == "CURRENT") out.push_back(e.path().parent_path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// As a RocksDB program would open it: the options it was written with, then every family.
void opens_with_its_own_options(const std::string& dir) {
  INFO(dir);
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions db;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  rocksdb::Status s = rocksdb::LoadLatestOptions(config, dir, &db, &families);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(db.wal_dir.empty());
  CHECK(db.db_log_dir.empty());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::OpenForReadOnly(db, dir, families, &handles, &raw);
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::unique_ptr<rocksdb::DB> opened(raw);
  CHECK(handles.size() == families.size());
  for (auto* h : handles) CHECK(opened->DestroyColumnFamilyHandle(h).ok());
}

void ldb_is_quiet(const std::string& dir) {
  REQUIRE(test::program_available("/usr/bin/ldb"));
  test::CliResult r = test::run_program({"ldb", "--db=" + dir, "list_column_families"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("wal_dir") == std::string::npos);
}

}  // namespace

TEST_CASE("portable OPTIONS text empties wal_dir and db_log_dir and keeps every other byte", "[state][rocksdb]") {
  const std::string in =
      "[DBOptions]\n  wal_dir=/var/tm_0/tmp/job_x/db\n  max_open_files=-1\n  db_log_dir=/x/log\r\n"
      "  wal_dir_not=keep\n[CFOptions \"default\"]\n  comparator=leveldb.BytewiseComparator";
  CHECK(portable_options_text(in) ==
        "[DBOptions]\n  wal_dir=\n  max_open_files=-1\n  db_log_dir=\r\n"
        "  wal_dir_not=keep\n[CFOptions \"default\"]\n  comparator=leveldb.BytewiseComparator");
  CHECK(portable_options_text("") == "");
  CHECK(portable_options_text("  wal_dir=") == "  wal_dir=");
}

TEST_CASE("instances restored from Flink's RocksDB savepoint open with LoadLatestOptions and ldb", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  const std::string snap =
      test::corpus_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.16-rocksdb-savepoint-native";
  // Flink's files name the TaskManager's directory: the test is about something real.
  bool machine_path = false;
  for (const auto& e : fs::directory_iterator(snap))
    machine_path = machine_path || test::read_file(e.path().string()).find("wal_dir=/var/folders/") != std::string::npos;
  REQUIRE(machine_path);
  const std::string out = scratch / "out";
  REQUIRE(test::run_cli({"restore", snap, "--output", out}).status == 0);
  const std::vector<std::string> dirs = instances(out);
  REQUIRE(dirs.size() == 8);
  for (const std::string& d : dirs) {
    opens_with_its_own_options(d);
    ldb_is_quiet(d);
  }
}

TEST_CASE("instances restored from a generated snapshot - whole and clipped - open with their own options", "[cli]") {
  test::ScratchDir scratch;
  const std::string snap = scratch / "snap";
  REQUIRE(test::run_cli({"generate", "--output", snap, "--keys", "300", "--parallelism", "2", "--max-parallelism", "16"})
              .status == 0);
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--key-groups", "2-5"}}) {
    const std::string out = scratch / (extra.empty() ? "whole" : "clipped");
    std::vector<std::string> args = {"restore", snap, "--output", out};
    args.insert(args.end(), extra.begin(), extra.end());
    REQUIRE(test::run_cli(args).status == 0);
    const std::vector<std::string> dirs = instances(out);
    REQUIRE_FALSE(dirs.empty());
    for (const std::string& d : dirs) {
      opens_with_its_own_options(d);
      ldb_is_quiet(d);
    }
  }
}
