// Outputs never are, contain or lie inside what a command reads: every command with --output
// refuses such an output, --force or not, before writing anything, and the input survives.
#include <catch2/catch.hpp>

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/resolve.h"
#include "testlib/absolute_snapshot.h"
#include "testlib/cli_run.h"
#include "testlib/job_dir.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::read_file;
using ckpt::test::run_cli;
using ckpt::test::tree_of;

namespace {

// A file of shared/ that the checkpoint `chk` references.
std::string shared_file_of(const std::string& chk) {
  auto where = ckpt::locate_snapshot(chk);
  auto m = ckpt::read_metadata_file(where->metadata_path);
  ckpt::Result<std::vector<ckpt::ReferencedFile>> files = ckpt::resolve_files(*m, *where, {});
  REQUIRE(files.ok());
  for (const ckpt::ReferencedFile& f : *files)
    if (f.path && f.path->find("/shared/") != std::string::npos) return *f.path;
  return {};
}

std::vector<std::string> with_output(const std::string& cmd, const std::string& input, const std::string& output,
                                     bool force) {
  std::vector<std::string> args = {cmd, input, "--output", output};
  if (cmd == "convert") args.insert(args.end(), {"--to", "heap"});
  if (force) args.push_back("--force");
  return args;
}

}  // namespace

TEST_CASE("restore convert compact and edit refuse an output that is or holds the snapshot even with --force",
          "[cli][output]") {
  // `restore job/chk-3 --output job --force` once removed every checkpoint of the job. Each
  // spelling of the job, the checkpoint, a directory inside it or one holding its shared files
  // is refused with both paths named, and nothing under the job changes.
  ckpt::test::ScratchDir s;
  const std::string job = s / "job";
  ckpt::test::write_job_dir(job);
  fs::create_directory_symlink(job, s / "link-to-job");
  const std::string chk = job + "/chk-3";
  const auto before = tree_of(job);
  struct Case {
    std::string output;
    const char* says;
  };
  const std::vector<Case> cases = {
      {job, "output contains the snapshot directory"},
      {job + "/", "output contains the snapshot directory"},
      {chk + "/..", "output contains the snapshot directory"},
      {s / "link-to-job", "output contains the snapshot directory"},
      {chk, "output is the snapshot directory"},
      {chk + "/", "output is the snapshot directory"},
      {job + "/chk-1/../chk-3", "output is the snapshot directory"},
      {s / "link-to-job/chk-3", "output is the snapshot directory"},
      {chk + "/new", "output lies inside the snapshot directory"},
      {job + "/shared", "a file the snapshot references"},
  };
  for (const char* cmd : {"restore", "convert", "compact", "edit"}) {
    for (const Case& c : cases) {
      for (bool force : {false, true}) {
        INFO(cmd << " --output " << c.output << (force ? " --force" : ""));
        auto r = run_cli(with_output(cmd, chk, c.output, force));
        CHECK(r.status == 2);
        CHECK(r.err.find(c.says) != std::string::npos);
        CHECK(r.err.find("'" + c.output + "'") != std::string::npos);
        CHECK(r.err.find(std::string(c.says) == cases.back().says ? job + "/shared/" : chk) != std::string::npos);
        REQUIRE(tree_of(job) == before);
      }
    }
  }
  // Beside the job is fine, and leaves the job as it was.
  auto ok = run_cli(with_output("restore", chk, s / "restored", true));
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(tree_of(job) == before);
}

TEST_CASE("relocate refuses an output that is a file the snapshot references even with --force", "[cli][output]") {
  // relocate writes one file: never the input _metadata nor an SST of shared/, which a rename
  // over it would replace. A new file inside the snapshot directory is fine.
  ckpt::test::ScratchDir s;
  const std::string job = s / "job";
  ckpt::test::write_job_dir(job);
  const std::string chk = job + "/chk-3";
  const std::string sst = shared_file_of(chk);
  REQUIRE(!sst.empty());
  const auto before = tree_of(job);
  for (bool force : {false, true}) {
    auto r = run_cli(with_output("relocate", chk, sst, force));
    CHECK(r.status == 2);
    CHECK(r.err == "ckpt: error: '" + sst + "': output is '" + sst + "', a file the snapshot references\n");
    auto m = run_cli(with_output("relocate", chk, job + "/chk-2/../chk-3/_metadata", force));
    CHECK(m.status == 2);
    CHECK(m.err.find("output is the input _metadata '" + chk + "/_metadata'") != std::string::npos);
    REQUIRE(tree_of(job) == before);
  }
  auto inside = run_cli(with_output("relocate", chk, chk + "/_metadata.relocated", false));
  CHECK(inside.status == 0);
  CHECK(read_file(chk + "/_metadata.relocated") == read_file(chk + "/_metadata"));
}

TEST_CASE("an output holding a file found through --remap or a --key-serializers-from snapshot is refused",
          "[cli][output]") {
  // The shared file of this snapshot is found only through --remap: an output above it would
  // remove it. The snapshot that --key-serializers-from names is an input too.
  ckpt::test::ScratchDir s;
  const std::string snap = s / "chk-11";
  ckpt::test::write_absolute_snapshot(snap, "hdfs://nn:8020/flink/job/shared", s / "remote/job/shared");
  const std::string remap = "hdfs://nn:8020/flink=" + (s / "remote");
  for (const char* cmd : {"restore", "convert", "compact"}) {
    INFO(cmd);
    std::vector<std::string> args = with_output(cmd, snap, s / "remote/job", true);
    args.insert(args.end(), {"--remap", remap});
    auto r = run_cli(args);
    CHECK(r.status == 2);
    CHECK(r.err.find("output contains '" + (s / "remote/job/shared/sst-1") + "', a file the snapshot references") !=
          std::string::npos);
    CHECK(fs::exists(s / "remote/job/shared/sst-1"));
  }
  const std::string job = s / "job";
  ckpt::test::write_job_dir(job);
  const auto before = tree_of(job);
  for (const char* cmd : {"restore", "convert"}) {
    INFO(cmd);
    std::vector<std::string> args = with_output(cmd, job + "/chk-3", job + "/chk-1", true);
    args.insert(args.end(), {"--key-serializers-from", job + "/chk-1"});
    auto r = run_cli(args);
    CHECK(r.status == 2);
    CHECK(r.err.find("output is the snapshot directory '" + job + "/chk-1'") != std::string::npos);
    CHECK(tree_of(job) == before);
  }
}

TEST_CASE("an existing output is replaced only with --force by every command that writes one", "[cli][output]") {
  // One rule for restore, convert, compact, generate and relocate: an existing output (a
  // non-empty directory, or relocate's file) is refused unless --force, which replaces it.
  ckpt::test::ScratchDir s;
  const std::string snap = s / "snap";
  REQUIRE(run_cli({"generate", "--output", snap, "--keys", "200", "--parallelism", "1"}).status == 0);
  struct Run {
    std::vector<std::string> args;
    std::string output;
  };
  const std::vector<Run> runs = {
      {{"restore", snap, "--output", s / "restored"}, s / "restored"},
      {{"convert", snap, "--to", "canonical", "--output", s / "converted"}, s / "converted"},
      {{"compact", snap, "--output", s / "compacted"}, s / "compacted"},
      {{"generate", "--keys", "50", "--output", s / "generated"}, s / "generated"},
  };
  for (const Run& run : runs) {
    INFO(run.args[0]);
    fs::create_directories(run.output);
    ckpt::test::write_file(run.output + "/old", "old");
    auto refused = run_cli(run.args);
    CHECK(refused.status == 2);
    CHECK(refused.err.find("'" + run.output + "'") != std::string::npos);
    CHECK(refused.err.find("not empty (--force replaces it)") != std::string::npos);
    CHECK(read_file(run.output + "/old") == "old");
    std::vector<std::string> forced = run.args;
    forced.push_back("--force");
    auto replaced = run_cli(forced);
    INFO(replaced.err);
    CHECK(replaced.status == 0);
    CHECK_FALSE(fs::exists(run.output + "/old"));
    CHECK(!fs::is_empty(run.output));
  }
  const std::string file = s / "relocated";
  ckpt::test::write_file(file, "old");
  auto refused = run_cli({"relocate", snap, "--output", file});
  CHECK(refused.status == 2);
  CHECK(refused.err == "ckpt: error: '" + file + "': output exists (--force replaces it)\n");
  CHECK(read_file(file) == "old");
  auto replaced = run_cli({"relocate", snap, "--output", file, "--force"});
  CHECK(replaced.status == 0);
  CHECK(read_file(file) == read_file(snap + "/_metadata"));
  for (const auto& e : fs::directory_iterator(s.path()))
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
}

TEST_CASE("an output reached through a bind mount of the input's parent is refused by device and inode",
          "[cli][output]") {
  // ALIAS, a bind mount of the job's parent, names the same directories under paths that no
  // resolving of symbolic links relates: `restore job/chk-3 --output ALIAS/job/chk-3 --force`
  // deleted the input, and `relocate --output ALIAS/job/shared/<sst> --force` replaced an SST.
  ckpt::test::ScratchDir s;
  const std::string parent = s / "jobs";
  const std::string job = parent + "/job";
  fs::create_directories(parent);
  ckpt::test::write_job_dir(job);
  const std::string chk = job + "/chk-3";
  const std::string sst = shared_file_of(chk);
  REQUIRE(!sst.empty());
  const std::string alias = s / "alias";
  fs::create_directories(alias);
  // Bind mounts need root (and a mount namespace of one's own to leave the host's alone).
  if (::mount(parent.c_str(), alias.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    CKPT_SKIP("cannot bind-mount a directory (" << std::strerror(errno) << "); this needs root");
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
  } unmount{alias};
  const auto before = tree_of(job);
  const std::string via = alias + "/job";
  const std::vector<std::pair<std::string, const char*>> cases = {
      {via + "/chk-3", "output is the snapshot directory"},
      {via, "output contains the snapshot directory"},
      {via + "/chk-3/new", "output lies inside the snapshot directory"},
      {via + "/shared", "a file the snapshot references"},
  };
  for (const char* cmd : {"restore", "convert", "compact", "edit"}) {
    for (const auto& [output, says] : cases) {
      INFO(cmd << " --output " << output << " --force");
      auto r = run_cli(with_output(cmd, chk, output, true));
      CHECK(r.status == 2);
      CHECK(r.err.find(says) != std::string::npos);
      REQUIRE(tree_of(job) == before);
    }
  }
  const std::string sst_via = via + sst.substr(job.size());
  auto r = run_cli(with_output("relocate", chk, sst_via, true));
  CHECK(r.status == 2);
  CHECK(r.err == "ckpt: error: '" + sst_via + "': output is '" + sst + "', a file the snapshot references\n");
  auto m = run_cli(with_output("relocate", chk, via + "/chk-3/_metadata", true));
  CHECK(m.status == 2);
  CHECK(m.err.find("output is the input _metadata '" + chk + "/_metadata'") != std::string::npos);
  CHECK(tree_of(job) == before);
  // Beside the job, through the alias too, is fine.
  auto ok = run_cli(with_output("restore", chk, alias + "/restored", true));
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(tree_of(job) == before);
}
