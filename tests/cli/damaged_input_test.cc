// convert, compact and restore on input that verify rejects (issue 11): each exits 2 naming the
// file and offset, and writes nothing. The base is the sample savepoint converted to a RocksDB
// native savepoint (keyed state behind a meta stream, a list operator state in its own file);
// each case damages one part of a private copy of it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "ckpt/convert.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "testlib/cli_run.h"
#include "testlib/sample_savepoint.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// The sample savepoint as a RocksDB native savepoint at scratch/base.
std::string rocks_base(const test::ScratchDir& scratch) {
  REQUIRE(test::write_sample_savepoint(scratch / "heap").ok());
  ConvertOptions o;
  o.to = ConvertTarget::kRocksDb;
  o.output = scratch / "base";
  Result<ConvertSummary> s = convert_snapshot(scratch / "heap", o);
  INFO((s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
  return o.output;
}

Metadata read_model(const std::string& dir) {
  Result<Metadata> m = read_metadata_file(dir + "/_metadata");
  REQUIRE(m.ok());
  return std::move(m).value();
}

void write_model(const std::string& dir, const Metadata& m) {
  Result<std::string> bytes = encode_metadata(m);
  REQUIRE(bytes.ok());
  test::write_file(dir + "/_metadata", *bytes);
}

// The keyed operator (the one whose subtasks have RocksDB handles) of the model.
OperatorState& keyed_operator(Metadata& m) {
  for (OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == handle_type::kIncremental) return op;
  FAIL("no keyed operator");
  return m.operators.front();
}

// The local file behind the first handle matching `pick`.
std::string file_of(const std::string& dir, const std::function<const StreamHandle*(const SubtaskState&)>& pick) {
  Metadata m = read_model(dir);
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (const StreamHandle* h = pick(st); h && h->type == handle_type::kRelativeFile) return dir + "/" + h->path;
  FAIL("no such file");
  return {};
}

std::string operator_state_file(const std::string& dir) {
  return file_of(dir, [](const SubtaskState& st) -> const StreamHandle* {
    return st.managed_operator.empty() ? nullptr : &st.managed_operator.front().delegate;
  });
}

std::string meta_stream_file(const std::string& dir) {
  return file_of(dir, [](const SubtaskState& st) -> const StreamHandle* {
    return st.managed_keyed.type == handle_type::kIncremental ? &st.managed_keyed.delegate : nullptr;
  });
}

// The first private file of subtask 0's RocksDB handle whose name starts with `prefix`.
std::string instance_file(const std::string& dir, const std::string& prefix) {
  Metadata m = read_model(dir);
  for (const NamedStream& f : keyed_operator(m).subtasks.front().managed_keyed.private_files)
    if (f.name.rfind(prefix, 0) == 0) return dir + "/" + f.handle.path;
  FAIL("no " << prefix << " file");
  return {};
}

void truncate_to_half(const std::string& file) { fs::resize_file(file, fs::file_size(file) / 2); }

void flip_at(const std::string& file, size_t at) {
  std::string bytes = test::read_file(file);
  REQUIRE(at < bytes.size());
  bytes[at] ^= 0x40;
  test::write_file(file, bytes);
}

// Flips a byte inside the first occurrence of `name` in `file`.
void flip_in_name(const std::string& file, const std::string& name) {
  std::string bytes = test::read_file(file);
  size_t at = bytes.find(name);
  REQUIRE(at != std::string::npos);
  bytes[at + name.size() / 2] ^= 0x01;
  test::write_file(file, bytes);
}

// The first state name the operator state file's proxy lists (as the model names it).
std::string operator_state_name(const std::string& dir) {
  Metadata m = read_model(dir);
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (!st.managed_operator.empty() && !st.managed_operator.front().states.empty())
        return st.managed_operator.front().states.front().name;
  FAIL("no operator state");
  return {};
}

// verify --deep rejects `dir`, and every writing command exits 2 naming a file and an offset
// and leaves no output.
// `sst_blocks`: the damage lies inside an SST's blocks, which restore checksums only with
// --full-check (by default it opens each SST, footer and properties, and links or copies it unread).
void require_refused_by_all(const test::ScratchDir& scratch, const std::string& dir, bool sst_blocks = false) {
  {
    VerifyOptions o;
    o.deep = true;
    Result<VerifyReport> r = verify_snapshot(dir, o);
    CHECK((!r.ok() || !r->clean()));
  }
  const std::string out = scratch / "out";
  const std::vector<std::vector<std::string>> commands = {
      {"convert", dir, "--to", "heap", "--output", out},
      {"convert", dir, "--to", "canonical", "--output", out},
      {"compact", dir, "--output", out},
      sst_blocks ? std::vector<std::string>{"restore", dir, "--output", out, "--full-check"}
                 : std::vector<std::string>{"restore", dir, "--output", out},
      {"edit", dir, "--output", out},
      {"edit", dir, "--dry-run"},
      // Regrouped, the SSTs are checked by the read of every entry, not whole first.
      {"edit", dir, "--max-parallelism", "256", "--output", out},
  };
  for (const std::vector<std::string>& args : commands) {
    test::CliResult r = test::run_cli(args);
    INFO(args[0] << " " << args[2] << ": exit " << r.status << "\n" << r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("ckpt: error: '") != std::string::npos);
    CHECK(r.err.find(" at offset 0x") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    fs::remove_all(out);
  }
}

// The sample's RocksDB form with its `_metadata` model changed by `edit`: refused by every writer.
void require_model_edit_refused(const std::function<void(Metadata&)>& edit) {
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  Metadata m = read_model(dir);
  edit(m);
  write_model(dir, m);
  require_refused_by_all(scratch, dir);
}

}  // namespace

TEST_CASE("convert compact restore and edit refuse a truncated operator state file", "[damage][cli]") {
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  truncate_to_half(operator_state_file(dir));
  require_refused_by_all(scratch, dir);
}

TEST_CASE("convert compact restore and edit refuse a truncated meta stream", "[damage][cli]") {
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  truncate_to_half(meta_stream_file(dir));
  require_refused_by_all(scratch, dir);
}

TEST_CASE("convert compact restore and edit refuse a flipped byte in an operator state name", "[damage][cli]") {
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  flip_in_name(operator_state_file(dir), operator_state_name(dir));
  require_refused_by_all(scratch, dir);
}

TEST_CASE("convert compact restore and edit refuse a flipped byte in a keyed state name", "[damage][cli]") {
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  // The keyed proxy names the sample's one keyed state.
  flip_in_name(meta_stream_file(dir), "count");
  require_refused_by_all(scratch, dir);
}

TEST_CASE("convert compact restore and edit refuse max parallelism 0", "[damage][cli]") {
  require_model_edit_refused([](Metadata& m) { keyed_operator(m).max_parallelism = 0; });
}

TEST_CASE("convert compact restore and edit refuse max parallelism -1", "[damage][cli]") {
  require_model_edit_refused([](Metadata& m) { keyed_operator(m).max_parallelism = -1; });
}

TEST_CASE("convert compact restore and edit refuse parallelism -5", "[damage][cli]") {
  require_model_edit_refused([](Metadata& m) { keyed_operator(m).parallelism = -5; });
}

TEST_CASE("convert compact restore and edit refuse the key-group range 0+2147483647", "[damage][cli]") {
  require_model_edit_refused([](Metadata& m) { keyed_operator(m).subtasks.front().managed_keyed.range = {0, 2147483647}; });
}

TEST_CASE("convert compact restore and edit refuse a max parallelism above 32768", "[damage][cli]") {
  // Flink's decoder reads it; KeyGroupRangeAssignment's UPPER_BOUND_MAX_PARALLELISM forbids it.
  require_model_edit_refused([](Metadata& m) { keyed_operator(m).max_parallelism = 65536; });
}

TEST_CASE("convert compact restore and edit refuse a flipped byte in an SST data block", "[damage][cli]") {
  // The first data block starts at offset 0: only a checksum finds the flip, and restore places
  // SSTs without reading them.
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  flip_at(instance_file(dir, "0"), 12);
  require_refused_by_all(scratch, dir, true);
}

TEST_CASE("verify convert compact and restore find a flipped byte in a MANIFEST at its record", "[damage][cli]") {
  // RocksDB refuses to open the instance; its message names a temporary copy and no offset.
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  std::string manifest = instance_file(dir, "MANIFEST-");
  flip_at(manifest, 10);
  VerifyOptions o;
  o.deep = true;
  Result<VerifyReport> r = verify_snapshot(dir, o);
  REQUIRE(r.ok());
  REQUIRE(r->problems.size() == 1);
  const VerifyProblem& p = r->problems[0];
  INFO(format_problem(p));
  CHECK(p.kind == ProblemKind::kChecksumMismatch);  // RocksDB log records carry a CRC32C
  CHECK(p.error.message.find("log record checksum mismatch") != std::string::npos);
  CHECK(p.error.offset == 0u);  // the first record's header holds the checksum the flip breaks
  CHECK(p.error.file.ends_with(fs::path(manifest).filename().string()));
  require_refused_by_all(scratch, dir);
}

TEST_CASE("dump refuses a truncated MANIFEST although it reads the SSTs directly", "[damage][cli]") {
  test::ScratchDir scratch;
  std::string dir = rocks_base(scratch);
  std::string manifest = instance_file(dir, "MANIFEST-");
  const uint64_t size = fs::file_size(manifest);
  truncate_to_half(manifest);
  test::CliResult r = test::run_cli({"dump", dir});
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("size-mismatch") != std::string::npos);
  CHECK(r.err.find(fmt::format(" at offset {:#x}", size / 2)) != std::string::npos);
  test::CliResult going = test::run_cli({"dump", dir, "--keep-going"});
  CHECK(going.status == 1);
  CHECK(going.out.find("\"state\":\"count\"") != std::string::npos);  // the rest is dumped
}
