// ckpt dump end to end: exit statuses, error messages naming file and offset, --keep-going.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "ckpt/metadata.h"
#include "command.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

struct Run {
  int status = 0;
  std::string out, err;
};

Run dump(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  cli::Io io{out, err};
  Run r;
  std::vector<std::string> all{"dump"};
  all.insert(all.end(), args.begin(), args.end());
  r.status = cli::run(all, io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// A copy of a heap checkpoint whose first file-backed keyed stream lost its last 3 bytes;
// returns that file's name.
std::string damaged_copy(const test::ScratchDir& scratch) {
  std::string src = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint";
  fs::copy(src, scratch.path(), fs::copy_options::recursive);
  for (const auto& e : fs::directory_iterator(scratch.path())) fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  Result<Metadata> m = read_metadata_file(scratch.path());
  REQUIRE(m.ok());
  for (const OperatorState& op : m->operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == handle_type::kKeyGroupsWithId &&
          st.managed_keyed.delegate.type == handle_type::kRelativeFile) {
        std::string victim = scratch / st.managed_keyed.delegate.path;
        fs::resize_file(victim, fs::file_size(victim) - 3);
        return st.managed_keyed.delegate.path;
      }
  FAIL("no file-backed heap keyed stream in the checkpoint");
  return {};
}

}  // namespace

TEST_CASE("ckpt dump prints NDJSON - honours filters and the limit", "[cli]") {
  // The savepoint holds 40 entries; filters and --limit cut them down as documented.
  CKPT_REQUIRE_SHARED();
  std::string sp = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint";
  Run all = dump({sp, "-j", "2"});
  REQUIRE(all.status == 0);
  CHECK(lines(all.out) == 40);
  CHECK(all.out.rfind("{\"operator\":\"", 0) == 0);
  Run timers = dump({sp, "--state", "_timer_state/event_timer", "--format", "ndjson"});
  REQUIRE(timers.status == 0);
  CHECK(lines(timers.out) > 0);
  CHECK(timers.out.find("\"kind\":\"timer\"") != std::string::npos);
  CHECK(timers.out.find("\"state\":\"state-name\"") == std::string::npos);
  Run limited = dump({sp, "--limit", "3"});
  CHECK(limited.status == 0);
  CHECK(lines(limited.out) == 3);
  Run kg = dump({sp, "--key-group", "2-2"});
  CHECK(kg.status == 0);
  CHECK(kg.out.find("\"kind\":\"operator\"") == std::string::npos);
  CHECK(kg.out.find("\"key_group\":1,") == std::string::npos);
  CHECK(kg.out.find("\"key_group\":2,") != std::string::npos);
  Run none = dump({sp, "--operator", "00000000000000000000000000000000"});
  CHECK(none.status == 2);
  CHECK(none.err.find("no operator with id or uid") != std::string::npos);
  Run bad = dump({sp, "--key-group", "5-2"});
  CHECK(bad.status == 2);
}

TEST_CASE("a damaged state file stops ckpt dump with exit 2 naming file and offset", "[cli][corrupt]") {
  // Truncating a heap keyed stream makes its last key group unreadable.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string victim = damaged_copy(scratch);
  Run r = dump({scratch.path()});
  CHECK(r.status == 2);
  INFO(r.err);
  CHECK(r.err.rfind("ckpt: error: '", 0) == 0);
  CHECK(r.err.find(victim) != std::string::npos);
  // Short of its declared size: found before decoding, as verify finds it.
  CHECK(r.err.find("size-mismatch") != std::string::npos);
  CHECK(r.err.find(" at offset 0x") != std::string::npos);
}

TEST_CASE("with --keep-going a damaged state file is reported - the rest dumped - exit 1", "[cli][corrupt]") {
  // All other subtasks and key groups still come out: more lines than the run that stopped.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string victim = damaged_copy(scratch);
  Run stop = dump({scratch.path()});
  Run go = dump({scratch.path(), "--keep-going"});
  CHECK(go.status == 1);
  CHECK(go.err.find(victim) != std::string::npos);
  CHECK(lines(go.err) == 1);
  CHECK(lines(go.out) > lines(stop.out));
  CHECK(lines(go.out) < 40);
}
