// Publishing an output: nothing that appears in the output directory meanwhile is removed, and
// everything is on disk before the rename that publishes it (support/io_hooks.h observes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/compact.h"
#include "ckpt/convert.h"
#include "ckpt/generate.h"
#include "ckpt/io.h"
#include "ckpt/relocate.h"
#include "ckpt/restore.h"
#include "support/io_hooks.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

// Installs hooks for one scope; operations outside it run without.
struct HookScope {
  HookScope() = default;
  ~HookScope() { io_hooks() = IoHooks{}; }
};

std::string normal(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

// Records every sync and, at the moment of the rename, what of the output was not yet synced.
struct SyncRecorder {
  std::mutex mutex;
  std::vector<std::string> events;  // synced paths in order, "<commit>" where a rename happened
  std::vector<std::string> unsynced;
  HookScope scope;

  SyncRecorder() {
    io_hooks().synced = [this](const std::string& p) {
      std::lock_guard<std::mutex> lock(mutex);
      events.push_back(normal(p));
    };
    io_hooks().before_commit = [this](const std::string& temp, const std::string&) {
      std::lock_guard<std::mutex> lock(mutex);
      std::set<std::string> synced(events.begin(), events.end());
      if (!synced.count(normal(temp))) unsynced.push_back(temp);
      for (const auto& e : fs::recursive_directory_iterator(temp))
        if (!synced.count(normal(e.path().string()))) unsynced.push_back(e.path().string());
      events.push_back("<commit>");
    };
  }
  // The parent directory synced after the last rename.
  bool parent_synced_after_commit(const std::string& output) {
    auto commit = std::find(events.rbegin(), events.rend(), "<commit>");
    if (commit == events.rend()) return false;
    return std::find(events.rbegin(), commit, normal(fs::absolute(output).parent_path().string())) != commit;
  }
};

GenerateOptions small_snapshot(const std::string& out) {
  GenerateOptions o;
  o.output = out;
  o.parallelism = 2;
  o.keys = 300;
  return o;
}

}  // namespace

TEST_CASE("restore keeps a file that appears in its empty output while it runs", "[ops][unit][output]") {
  // The output was empty when restore started; a file written into it before the rename
  // publishes the instances must survive, and the restore fails naming the directory.
  test::ScratchDir s;
  REQUIRE(generate_snapshot(small_snapshot(s / "snap")).ok());
  fs::create_directory(s / "out");
  HookScope scope;
  bool written = false;
  io_hooks().before_commit = [&](const std::string&, const std::string& final_path) {
    if (written) return;
    written = true;
    test::write_file(final_path + "/arrived-meanwhile", "precious");
  };
  RestoreOptions options;
  options.output = s / "out";
  Result<RestoreReport> r = restore_snapshot(s / "snap", options);
  REQUIRE(written);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == s / "out");
  CHECK(r.error().message.find("Directory not empty") != std::string::npos);
  CHECK(test::read_file(s / "out/arrived-meanwhile") == "precious");
  CHECK(std::distance(fs::directory_iterator(s / "out"), fs::directory_iterator()) == 1);
  for (const auto& e : fs::directory_iterator(s.path()))
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
}

TEST_CASE("every file of an output is synced before its rename and the parent after", "[ops][unit][output]") {
  // restore, convert, compact and generate (one snapshot, a chain) publish durable outputs.
  test::ScratchDir s;
  const std::string snap = s / "snap";
  REQUIRE(generate_snapshot(small_snapshot(snap)).ok());
  const std::vector<std::pair<std::string, std::function<bool(const std::string&)>>> publishers = {
      {"restore",
       [&](const std::string& out) {
         RestoreOptions o;
         o.output = out;
         return restore_snapshot(snap, o).ok();
       }},
      {"convert",
       [&](const std::string& out) {
         ConvertOptions o;
         o.to = ConvertTarget::kHeap;
         o.output = out;
         return convert_snapshot(snap, o).ok();
       }},
      {"compact", [&](const std::string& out) { return compact_snapshot(snap, out, CompactOptions{}).ok(); }},
      {"generate", [&](const std::string& out) { return generate_snapshot(small_snapshot(out)).ok(); }},
      {"generate-chain",
       [&](const std::string& out) {
         GenerateOptions o = small_snapshot(out);
         o.chain = 2;
         return generate_snapshot(o).ok();
       }},
  };
  for (const auto& [name, publish] : publishers) {
    INFO(name);
    const std::string out = s / name;
    SyncRecorder rec;
    REQUIRE(publish(out));
    CHECK(rec.unsynced.empty());
    CHECK(rec.parent_synced_after_commit(out));
  }
  // relocate writes one file: synced under its temporary name, then its directory after the rename.
  SyncRecorder rec;
  REQUIRE(relocate_snapshot(snap, s / "relocated", RelocateOptions{}).ok());
  REQUIRE(rec.events.size() >= 2);
  CHECK(rec.events.front().find(normal(s / "relocated") + ".ckpt-tmp-") == 0);
  CHECK(rec.events.back() == normal(s.path()));
}

TEST_CASE("TempDir commit replaces only an empty output and keeps what appeared meanwhile", "[ops][unit][output]") {
  test::ScratchDir s;
  const std::string out = s / "out";
  SECTION("an empty output directory is replaced and the lock file stays out of it") {
    fs::create_directory(out);
    Result<TempDir> t = TempDir::create_beside(out);
    REQUIRE(t.ok());
    CHECK(fs::exists(fs::path(t->path()).parent_path() / TempDir::kLockName));
    CHECK_FALSE(fs::exists(t->path() + "/" + TempDir::kLockName));
    test::write_file(t->path() + "/new", "new");
    REQUIRE(t->commit().ok());
    CHECK(test::read_file(out + "/new") == "new");
    CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 1);
  }
  SECTION("a file written into the output before the rename survives and commit fails") {
    Result<TempDir> t = TempDir::create_beside(out + "/");
    REQUIRE(t.ok());
    test::write_file(t->path() + "/new", "new");
    HookScope scope;
    io_hooks().before_commit = [&](const std::string&, const std::string& final_path) {
      CHECK(final_path == out);
      fs::create_directory(out);
      test::write_file(out + "/arrived", "precious");
    };
    Status committed = t->commit();
    REQUIRE_FALSE(committed.ok());
    CHECK(committed.error().file == out);
    CHECK(committed.error().message.find("Directory not empty") != std::string::npos);
    CHECK(test::read_file(out + "/arrived") == "precious");
    CHECK_FALSE(fs::exists(out + "/new"));
  }
  SECTION("with replace the old output stays whole until the new one is in place") {
    fs::create_directories(out + "/old-dir");
    test::write_file(out + "/old-dir/old", "old");
    Result<TempDir> t = TempDir::create_beside(out);
    REQUIRE(t.ok());
    test::write_file(t->path() + "/new", "new");
    HookScope scope;
    bool seen = false;
    io_hooks().before_commit = [&](const std::string&, const std::string&) {
      seen = true;
      CHECK(test::read_file(out + "/old-dir/old") == "old");
    };
    REQUIRE(t->commit(true).ok());
    CHECK(seen);
    CHECK(test::read_file(out + "/new") == "new");
    CHECK_FALSE(fs::exists(out + "/old-dir"));
  }
  for (const auto& e : fs::directory_iterator(s.path()))
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
}

TEST_CASE("publish_file replaces an existing file only when told to", "[ops][unit][output]") {
  test::ScratchDir s;
  const std::string out = s / "file";
  REQUIRE(publish_file(out, "one", false).ok());
  Status again = publish_file(out, "two", false);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().to_string() == "'" + out + "': output exists (--force replaces it)");
  CHECK(test::read_file(out) == "one");
  REQUIRE(publish_file(out, "two", true).ok());
  CHECK(test::read_file(out) == "two");
  CHECK(std::distance(fs::directory_iterator(s.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("copy_file_contents reports a full device as no space left naming the target", "[ops][unit][output]") {
  // /dev/full fails every write with ENOSPC: what a full disk says, without needing one.
  test::ScratchDir s;
  test::write_file(s / "source", std::string(1 << 16, 'x'));
  Status full = copy_file_contents(s / "source", "/dev/full");
  REQUIRE_FALSE(full.ok());
  CHECK(full.error().file == "/dev/full");
  CHECK(full.error().message == "cannot copy '" + (s / "source") + "': No space left on device");
  REQUIRE(copy_file_contents(s / "source", s / "copy").ok());
  CHECK(test::read_file(s / "copy") == test::read_file(s / "source"));
  Status missing = copy_file_contents(s / "absent", s / "copy2");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().file == s / "absent");
  CHECK_FALSE(fs::exists(s / "copy2"));
}
