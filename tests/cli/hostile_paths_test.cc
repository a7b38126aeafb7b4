// Paths a `_metadata` could use to make ckpt read, copy or block on files that are no part of
// the snapshot: relative handles that leave the snapshot directory, FIFOs, absolute handles
// outside the job directory.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/walk.h"
#include "testlib/absolute_snapshot.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;
using test::CliResult;
using test::contains;
using test::run_cli;
using test::run_cli_process;
using test::sample_savepoint_dir;

namespace {

// A copy of the snapshot `src` at `dst` whose first managed keyed relative handle is rewritten
// to climb out of `dst` to a byte copy of its file at `outside`/secret, so that the snapshot
// reads exactly as before wherever the path is followed. Returns the path stored.
std::string escaping_copy(const std::string& src, const std::string& dst, const std::string& outside) {
  fs::create_directories(dst);
  fs::copy(src, dst, fs::copy_options::recursive);
  Result<Metadata> m = read_metadata_file(dst + "/_metadata");
  REQUIRE(m.ok());
  std::string stored;
  for_each_stream(*m, [&](StreamHandle& s, const StreamSite& site) {
    if (!stored.empty() || s.type != handle_type::kRelativeFile || site.slot != HandleSlot::kManagedKeyed) return;
    fs::create_directories(outside);
    fs::copy_file(dst + "/" + s.path, outside + "/secret");
    std::string up;
    for (int i = 0; i < 24; ++i) up += "../";  // more than the depth: ".." of "/" is "/"
    stored = up + outside.substr(1) + "/secret";
    s.path = stored;
  });
  REQUIRE_FALSE(stored.empty());
  Result<std::string> bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(dst + "/_metadata", *bytes);
  return stored;
}

// Refused before anything is read or written: exit 2, the path, `_metadata` and the handle named.
void check_escape_refused(const CliResult& r, const std::string& stored, const std::string& snapshot) {
  INFO(r.out + r.err);
  CHECK(r.status == 2);
  CHECK(
      contains(r.err, "relative handle path '" + stored + "' leaves the snapshot directory: it has a '..' component"));
  CHECK(contains(r.err, "'" + snapshot + "/_metadata'"));
  CHECK(contains(r.err, ": operator "));
}

std::string relative_file_of_subtask0(const std::string& dir) {
  Result<Metadata> m = read_metadata_file(dir + "/_metadata");
  REQUIRE(m.ok());
  for (const OperatorState& op : m->operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.index == 0 && st.managed_keyed.delegate.type == handle_type::kRelativeFile)
        return dir + "/" + st.managed_keyed.delegate.path;
  FAIL("no relative keyed handle");
  return {};
}

}  // namespace

TEST_CASE("a relative handle that leaves the snapshot directory is refused by every command and flagged by verify", "[cli][safety]") {
  // Before, convert copied the outside file into its output and exited 0, and verify saw nothing
  // wrong: the copy has the size the handle declares.
  test::ScratchDir scratch;
  const std::string snap = scratch / "job/snap";
  const std::string stored = escaping_copy(sample_savepoint_dir(), snap, scratch / "outside");
  REQUIRE(fs::exists(snap + "/" + stored));  // the path does lead to a readable file

  check_escape_refused(run_cli({"inspect", snap}), stored, snap);
  check_escape_refused(run_cli({"inspect", "--json", snap}), stored, snap);
  check_escape_refused(run_cli({"inspect", "--count", snap}), stored, snap);
  check_escape_refused(run_cli({"dump", snap, "--format", "ndjson"}), stored, snap);
  check_escape_refused(run_cli({"dump", snap, "--format", "ndjson", "--keep-going"}), stored, snap);
  check_escape_refused(run_cli({"convert", snap, "--to", "rocksdb", "--output", scratch / "converted"}), stored, snap);
  CHECK_FALSE(fs::exists(scratch / "converted"));
  check_escape_refused(run_cli({"convert", sample_savepoint_dir(), "--to", "rocksdb", "--output", scratch / "keys-from",
                                "--key-serializers-from", snap}),
                       stored, snap);
  CHECK_FALSE(fs::exists(scratch / "keys-from"));
  check_escape_refused(run_cli({"restore", snap, "--output", scratch / "restored"}), stored, snap);
  CHECK_FALSE(fs::exists(scratch / "restored"));
  check_escape_refused(run_cli({"compact", snap, "--output", scratch / "compacted"}), stored, snap);
  CHECK_FALSE(fs::exists(scratch / "compacted"));
  check_escape_refused(run_cli({"diff", snap, sample_savepoint_dir()}), stored, snap);
  check_escape_refused(run_cli({"diff", sample_savepoint_dir(), snap}), stored, snap);
  check_escape_refused(run_cli({"diff", "--keys", sample_savepoint_dir(), snap}), stored, snap);

  for (bool deep : {false, true}) {
    CliResult v = run_cli(deep ? std::vector<std::string>{"verify", "--deep", snap} : std::vector<std::string>{"verify", snap});
    INFO(v.out + v.err);
    CHECK(v.status == 1);
    CHECK(contains(v.out, "operator 20ba6b65f97481d5570070de90e4e791, subtask 0, managed-keyed, file '" + stored +
                              "': path-outside-snapshot: relative handle path '" + stored +
                              "' leaves the snapshot directory"));
    CHECK_FALSE(contains(v.out, "size-mismatch"));
    CHECK(contains(v.out, ": 1 problem ("));
  }
  CliResult j = run_cli({"verify", "--json", snap});
  REQUIRE(j.status == 1);
  nlohmann::json doc = nlohmann::json::parse(j.out);
  REQUIRE(doc["problems"].size() == 1);
  CHECK(doc["problems"][0]["kind"] == "path-outside-snapshot");
  CHECK(doc["problems"][0]["file"] == stored);
}

TEST_CASE("compact refuses a native savepoint whose relative handle leaves its directory", "[cli][safety]") {
  // RocksDB native layout: compact would otherwise copy the outside file into its savepoint.
  test::ScratchDir scratch;
  GenerateOptions g;
  g.output = scratch / "native";
  g.keys = 50;
  REQUIRE(generate_snapshot(g).ok());
  const std::string snap = scratch / "job/snap";
  const std::string stored = escaping_copy(g.output, snap, scratch / "outside");
  check_escape_refused(run_cli({"compact", snap, "--output", scratch / "compacted"}), stored, snap);
  CHECK_FALSE(fs::exists(scratch / "compacted"));
  check_escape_refused(run_cli({"restore", snap, "--output", scratch / "restored"}), stored, snap);
  CHECK_FALSE(fs::exists(scratch / "restored"));
}

TEST_CASE("a FIFO named as _metadata is refused promptly by every reading command", "[cli][safety]") {
  // Before, inspect, dump, verify and convert blocked in open() waiting for a writer.
  test::ScratchDir scratch;
  const std::string dir = scratch / "snap";
  fs::create_directories(dir);
  const std::string fifo = dir + "/_metadata";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  for (const std::string& named : {fifo, dir}) {
    std::vector<std::vector<std::string>> commands = {
        {"inspect", named},
        {"dump", named},
        {"verify", named},
        {"convert", named, "--to", "heap", "--output", scratch / "converted"},
        {"restore", named, "--output", scratch / "restored"},
        {"compact", named, "--output", scratch / "compacted"},
        {"diff", named, sample_savepoint_dir()},
        {"relocate", named, "--output", scratch / "relocated"},
    };
    for (const auto& args : commands) {
      INFO(args[0] + " " + named);
      CliResult r = run_cli_process(args);
      INFO(r.err);
      CHECK(r.status == 2);
      CHECK(r.err == "ckpt: error: '" + fifo + "': not a regular file: a FIFO\n");
    }
  }
  CHECK_FALSE(fs::exists(scratch / "converted"));
  CHECK_FALSE(fs::exists(scratch / "relocated"));
}

TEST_CASE("a dangling symbolic link as _metadata is named as such", "[cli][safety]") {
  test::ScratchDir scratch;
  const std::string dir = scratch / "snap";
  fs::create_directories(dir);
  fs::create_symlink(scratch / "gone", dir + "/_metadata");
  for (const std::string& named : {dir + "/_metadata", dir}) {
    CliResult r = run_cli({"inspect", named});
    CHECK(r.status == 2);
    CHECK(r.err == "ckpt: error: '" + dir + "/_metadata': dangling symbolic link\n");
  }
}

TEST_CASE("a FIFO standing for a state file is refused promptly and named", "[cli][safety]") {
  // Before, it was reported as "not found" although something stands there; every reader now
  // checks the type before it opens anything that could block.
  test::ScratchDir scratch;
  const std::string snap = scratch / "snap";
  fs::copy(sample_savepoint_dir(), snap, fs::copy_options::recursive);
  const std::string state = relative_file_of_subtask0(snap);
  fs::remove(state);
  REQUIRE(::mkfifo(state.c_str(), 0644) == 0);
  const std::string named = "'" + state + "': not a regular file: a FIFO";
  const std::string what = "not a regular file: a FIFO";

  for (const auto& args : std::vector<std::vector<std::string>>{
           {"dump", snap, "--format", "ndjson"},
           {"convert", snap, "--to", "rocksdb", "--output", scratch / "converted"},
           {"restore", snap, "--output", scratch / "restored"},
           {"compact", snap, "--output", scratch / "compacted"}}) {
    INFO(args[0]);
    CliResult r = run_cli_process(args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, "'" + state + "': "));
    CHECK(contains(r.err, what));
  }
  CHECK_FALSE(fs::exists(scratch / "converted"));
  CHECK_FALSE(fs::exists(scratch / "restored"));
  CHECK_FALSE(fs::exists(scratch / "compacted"));

  // inspect and verify report it as a problem of the snapshot: exit 1.
  CliResult i = run_cli_process({"inspect", snap});
  INFO(i.out + i.err);
  CHECK(i.status == 1);
  CHECK(contains(i.out, "REFUSED (not a regular file: a FIFO) " + fs::path(state).filename().string()));
  CliResult v = run_cli_process({"verify", "--deep", snap});
  INFO(v.out + v.err);
  CHECK(v.status == 1);
  CHECK(contains(v.out, "not-regular-file: " + named));
  CHECK(contains(v.out, ": 1 problem ("));
}

TEST_CASE("an absolute handle outside the job directory is marked by inspect and warned about by verify", "[cli][safety]") {
  // The shared file lives under elsewhere/, not under job/ (the parent of the snapshot): Flink
  // may have written it there, so exit statuses do not change, but it is said.
  test::ScratchDir scratch;
  const std::string snap = scratch / "job/chk-11";
  const std::string elsewhere = scratch / "elsewhere/shared";
  test::write_absolute_snapshot(snap, "file:" + elsewhere, elsewhere);

  // The fixture's state files are placeholders whose states cannot be read: --allow-unread.
  CliResult r = run_cli({"inspect", "--json", "--allow-unread", snap});
  INFO(r.err);
  REQUIRE(r.status == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc["outside_file_count"] == 1);
  CHECK(doc["job_directory"] == scratch / "job");
  size_t outside = 0;
  for (const auto& f : doc["files"]) {
    bool shared = f["uri"] == "file:" + elsewhere + "/sst-1";
    bool marked = f.value("outside", false);
    CHECK(marked == shared);
    outside += marked ? 1 : 0;
  }
  CHECK(outside == 1);
  CHECK(contains(r.err, "1 file is read from outside the job directory " + (scratch / "job")));

  CliResult text = run_cli({"inspect", "--allow-unread", snap});
  CHECK(text.status == 0);
  CHECK(contains(text.out, "files outside the job directory " + (scratch / "job") +
                               " and every --remap target:\n  file:" + elsewhere +
                               "/sst-1 (operator 00112233445566778899aabbccddeeff, subtask 1, managed-keyed) at " +
                               elsewhere + "/sst-1\n"));

  CliResult v = run_cli({"verify", snap});
  INFO(v.out + v.err);
  CHECK(v.status == 0);
  CHECK(contains(
      v.out,
      "warning: operator 00112233445566778899aabbccddeeff, subtask 1, managed-keyed shared 000007.sst, file 'file:" +
          elsewhere + "/sst-1': outside-job-directory: read from " + elsewhere + "/sst-1"));
  CliResult vj = run_cli({"verify", "--json", snap});
  nlohmann::json vdoc = nlohmann::json::parse(vj.out);
  REQUIRE(vdoc["warnings"].size() == 1);
  CHECK(vdoc["warnings"][0]["kind"] == "outside-job-directory");
  CHECK(vdoc["clean"] == true);

  // A --remap target is where the user says the files are: not outside.
  const std::string rule = "file:" + (scratch / "elsewhere") + "=" + (scratch / "elsewhere");
  CliResult remapped = run_cli({"inspect", "--json", "--allow-unread", snap, "--remap", rule});
  REQUIRE(remapped.status == 0);
  CHECK(nlohmann::json::parse(remapped.out)["outside_file_count"] == 0);
  CliResult vr = run_cli({"verify", snap, "--remap", rule});
  CHECK(vr.status == 0);
  CHECK_FALSE(contains(vr.out, "warning:"));
}

TEST_CASE(
    "a RocksDB file name that is not a plain file name is refused by every writer and flagged by verify and inspect",
    "[cli][safety]") {
  // One check of the names an incremental handle gives its files: verify --deep and inspect
  // used to exit 0 on what restore, convert, compact and edit refuse.
  test::ScratchDir scratch;
  const std::string src = scratch / "src";
  GenerateOptions o;
  o.output = src;
  o.backend = GenerateBackend::kRocksDb;
  o.keys = 100;
  REQUIRE(generate_snapshot(o).ok());
  const std::vector<std::string> names = {"../../../../tmp/PWNED", "/tmp/PWNED", "a/b", "..", ""};
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    INFO("name '" << name << "'");
    const std::string dir = scratch / ("snap-" + std::to_string(i));
    fs::copy(src, dir, fs::copy_options::recursive);
    Result<Metadata> m = read_metadata_file(dir + "/_metadata");
    REQUIRE(m.ok());
    bool renamed = false;
    for (OperatorState& op : m->operators)
      for (SubtaskState& st : op.subtasks)
        for (auto* files : {&st.managed_keyed.private_files, &st.managed_keyed.shared_files})
          for (NamedStream& f : *files)
            if (!renamed && f.handle.is_file()) {
              f.name = name;
              renamed = true;
            }
    REQUIRE(renamed);
    Result<std::string> bytes = encode_metadata(*m);
    REQUIRE(bytes.ok());
    test::write_file(dir + "/_metadata", *bytes);
    const std::string why = "rocksdb file name '" + name + "' is not a plain file name";

    CliResult v = run_cli({"verify", "--deep", dir});
    INFO(v.out + v.err);
    CHECK(v.status == 1);
    CHECK(contains(v.out, "bad-file-name: " + why));
    CliResult in = run_cli({"inspect", dir});
    INFO(in.out + in.err);
    CHECK(in.status == 1);
    CHECK(contains(in.out, "REFUSED (" + why + ")"));
    const std::vector<std::vector<std::string>> refusing = {
        {"restore", dir, "--output", scratch / "restored"},
        {"convert", dir, "--to", "heap", "--output", scratch / "converted"},
        {"compact", dir, "--output", scratch / "compacted"},
        {"edit", dir, "--max-parallelism", "256", "--output", scratch / "edited"},
        {"dump", dir}};
    for (const std::vector<std::string>& args : refusing) {
      CliResult r = run_cli(args);
      INFO(args[0] << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(contains(r.err, why));
      if (args[0] != "dump") CHECK_FALSE(fs::exists(args.back()));
    }
    CHECK_FALSE(fs::exists("/tmp/PWNED"));
  }
}

TEST_CASE("control characters in paths names and uids from _metadata are printed escaped by every text printer",
          "[cli][safety]") {
  // Printed raw, a newline forged an "ok" line and ESC/OSC sequences cleared a line and set the
  // terminal's title.
  test::ScratchDir scratch;
  const std::string dir = scratch / "snap";
  GenerateOptions o;
  o.output = dir;
  o.keys = 20;
  REQUIRE(generate_snapshot(o).ok());
  Result<Metadata> m = read_metadata_file(dir + "/_metadata");
  REQUIRE(m.ok());
  const std::string hostile = "x\n" + dir + "/_metadata: ok (deep)\x1b]0;owned\x07\x1b[2K\r\xc2\x9b";
  bool changed = false;
  for_each_stream(*m, [&](StreamHandle& s, const StreamSite&) {
    if (changed || !s.is_file()) return;
    s.path = s.type == handle_type::kRelativeFile ? hostile : dir + "/" + hostile;
    changed = true;
  });
  REQUIRE(changed);
  m->version = 5;  // the first version whose operators carry names and uids
  m->operators.at(0).uid = "uid\x1b[31m\nforged";
  m->operators.at(0).name = "name\x1b]0;title\x07";
  Result<std::string> bytes = encode_metadata(*m);
  INFO((bytes.ok() ? std::string() : bytes.error().to_string()));
  REQUIRE(bytes.ok());
  test::write_file(dir + "/_metadata", *bytes);

  auto raw_control = [](const std::string& text) {
    for (char c : text)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == '\x7f' || static_cast<unsigned char>(c) == 0x9b)
        return true;
    return false;
  };
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"inspect", dir, "-v"},
                                             {"verify", dir},
                                             {"verify", "--deep", dir},
                                             {"dump", dir, "--format", "table"},
                                             {"restore", dir, "--output", scratch / "out"}}) {
    CliResult r = run_cli(args);
    INFO(args[0] << " -> " << r.status << "\n" << r.out << r.err);
    CHECK(r.status != 0);
    CHECK_FALSE(raw_control(r.out));
    CHECK_FALSE(raw_control(r.err));
    CHECK_FALSE(contains(r.out + r.err, "\n" + dir + "/_metadata: ok"));
    CHECK(contains(r.out + r.err, "x\\n" + dir + "/_metadata: ok (deep)\\x1b]0;owned\\x07\\x1b[2K\\r\\u009b"));
  }
  CliResult in = run_cli({"inspect", dir});
  CHECK(contains(in.out, "uid\\x1b[31m\\nforged"));
  CHECK(contains(in.out, "name\\x1b]0;title\\x07"));
  // JSON needs no such step: its writer escapes every control character.
  CliResult j = run_cli({"inspect", dir, "--json"});
  CHECK(std::none_of(j.out.begin(), j.out.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 && c != '\n'; }));
  CHECK(nlohmann::json::parse(j.out)["operators"][0]["uid"] == "uid\x1b[31m\nforged");
}

namespace {

// What every command says of `path`, a state file reached through a link to `target`.
std::string link_refusal(const std::string& path, const std::string& target, const std::string& root) {
  return "'" + path + "': leads through a symbolic link to '" + fs::canonical(target).string() + "', outside " + root;
}

// A copy of the sample savepoint at `snap` and an empty directory `outside` beside it.
void sample_and_outside(const std::string& snap, const std::string& outside) {
  fs::create_directories(snap);
  fs::copy(sample_savepoint_dir(), snap, fs::copy_options::recursive);
  fs::create_directories(outside);
}

}  // namespace

TEST_CASE("a state file or directory that is a symbolic link out of the snapshot is refused unless --follow-symlinks",
          "[cli][safety]") {
  // Before, a state file replaced by a link to a file elsewhere (/etc/passwd, another job's
  // state) was opened, read and copied into outputs as if it were the snapshot's.
  test::ScratchDir scratch;
  const std::string snap = scratch / "job/snap";
  sample_and_outside(snap, scratch / "outside");
  const std::string file = relative_file_of_subtask0(snap);
  const std::string secret = scratch / "outside/secret";
  fs::rename(file, secret);
  fs::create_symlink(secret, file);
  const std::string says = link_refusal(file, secret, "the snapshot directory '" + snap + "'");

  const std::vector<std::vector<std::string>> readers = {
      {"dump", snap, "--format", "ndjson"},
      {"verify", "--deep", snap},
      {"verify", snap},
      {"convert", snap, "--to", "rocksdb", "--output", scratch / "converted"},
      {"restore", snap, "--output", scratch / "restored"},
      {"edit", snap, "--max-parallelism", "256", "--output", scratch / "edited"},
      {"compact", snap, "--output", scratch / "compacted"}};
  for (const std::vector<std::string>& args : readers) {
    CliResult r = run_cli(args);
    INFO(args[0] << ": " << r.out << r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, says));
    CHECK(contains(r.err, "not followed without --follow-symlinks"));
    if (args.size() > 4) CHECK_FALSE(fs::exists(args.back()));
  }
  CliResult in = run_cli({"inspect", snap});
  INFO(in.out + in.err);
  CHECK(in.status == 1);
  CHECK(contains(in.out, "REFUSED (leads through a symbolic link to '" + fs::canonical(secret).string() + "'"));

  // --follow-symlinks, anywhere on the line: read as the snapshot it was copied from.
  const std::string want = test::run_cli_ok({"dump", sample_savepoint_dir(), "--format", "ndjson"}).out;
  CHECK(test::run_cli_ok({"--follow-symlinks", "dump", snap, "--format", "ndjson"}).out == want);
  CHECK(test::run_cli_ok({"dump", snap, "--follow-symlinks", "--format", "ndjson"}).out == want);
  test::run_cli_ok({"verify", "--deep", snap, "--follow-symlinks"});
  test::run_cli_ok({"convert", snap, "--to", "rocksdb", "--output", scratch / "converted", "--follow-symlinks"});
  CHECK(test::run_cli_ok({"dump", scratch / "converted", "--format", "ndjson"}).out ==
        test::run_cli_ok({"dump", snap, "--format", "ndjson", "--follow-symlinks"}).out);
  test::run_cli_ok({"--follow-symlinks", "restore", snap, "--output", scratch / "restored"});
  // The setting lasts for its command only.
  CHECK(run_cli({"dump", snap}).status == 2);

  // A link that stays inside the snapshot is followed.
  fs::remove(file);
  fs::rename(secret, snap + "/moved-inside");
  fs::create_symlink(snap + "/moved-inside", file);
  CHECK(test::run_cli_ok({"dump", snap, "--format", "ndjson"}).out == want);
  test::run_cli_ok({"verify", "--deep", snap});
}

TEST_CASE("a sub-directory or a --remap target's file that links out of where it is looked up is refused",
          "[cli][safety]") {
  test::ScratchDir scratch;
  // A relative handle "sub/<name>" whose sub/ is a link to a directory elsewhere.
  const std::string snap = scratch / "snap", elsewhere = scratch / "elsewhere";
  sample_and_outside(snap, elsewhere);
  Result<Metadata> m = read_metadata_file(snap + "/_metadata");
  REQUIRE(m.ok());
  std::string moved;
  for_each_stream(*m, [&](StreamHandle& s, const StreamSite& site) {
    if (!moved.empty() || s.type != handle_type::kRelativeFile || site.slot != HandleSlot::kManagedKeyed) return;
    moved = s.path;
    fs::rename(snap + "/" + s.path, elsewhere + "/" + s.path);
    s.path = "sub/" + s.path;
  });
  REQUIRE_FALSE(moved.empty());
  Result<std::string> bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(snap + "/_metadata", *bytes);
  fs::create_directory_symlink(elsewhere, snap + "/sub");
  const std::string says =
      link_refusal(snap + "/sub/" + moved, elsewhere + "/" + moved, "the snapshot directory '" + snap + "'");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"dump", snap}, {"verify", "--deep", snap}, {"restore", snap, "--output", scratch / "restored"}}) {
    CliResult r = run_cli(args);
    INFO(args[0] << ": " << r.out << r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, says));
  }
  test::run_cli_ok({"verify", "--deep", snap, "--follow-symlinks"});

  // An absolute handle found under a --remap target, where the file is a link out of it.
  const std::string job = scratch / "job/chk-11";
  test::write_absolute_snapshot(job, "file:/nonexistent/shared", "");
  const std::string target = scratch / "remapped", outside = scratch / "outside";
  fs::create_directories(target);
  fs::create_directories(outside);
  test::write_file(outside + "/sst-1", std::string(300, 'x'));
  fs::create_symlink(outside + "/sst-1", target + "/sst-1");
  const std::string rule = "file:/nonexistent/shared=" + target;
  CliResult v = run_cli({"verify", job, "--remap", rule});
  INFO(v.out + v.err);
  CHECK(v.status == 2);
  CHECK(contains(v.err, link_refusal(target + "/sst-1", outside + "/sst-1", "the --remap target '" + target + "'")));
  CliResult i = run_cli({"inspect", "--allow-unread", job, "--remap", rule});
  CHECK(contains(i.out, "REFUSED (leads through a symbolic link"));
  CHECK(run_cli({"verify", job, "--remap", rule, "--follow-symlinks"}).status == 0);
}
