// A RocksDB key that does not split into key and namespace, in an SST of a native savepoint:
// convert's transcoder meets it after the instance has merged its files, so the reader has to
// say which SST holds it (the message named only an offset within the key before).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <rocksdb/db.h>

#include "ckpt/metadata.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "state/rocksdb/rocks_instance_writer.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Every pair of column family `cf` of the instance in `dir`, in key order.
KeyValues instance_pairs(const std::string& dir, const std::string& cf) {
  FlinkInstance in;
  REQUIRE(open_flink_instance(dir, true, in).ok());
  auto at = std::find(in.names.begin(), in.names.end(), cf);
  REQUIRE(at != in.names.end());
  std::unique_ptr<rocksdb::Iterator> it(in.db->NewIterator(rocksdb::ReadOptions(), in.handles[at - in.names.begin()]));
  KeyValues pairs;
  for (it->SeekToFirst(); it->Valid(); it->Next()) pairs.emplace_back(it->key().ToString(), it->value().ToString());
  REQUIRE(it->status().ok());
  it.reset();
  REQUIRE(in.close().ok());
  return pairs;
}

}  // namespace

TEST_CASE("convert names the sst file of a rocksdb key that does not split into key and namespace", "[corrupt][cli]") {
  test::ScratchDir scratch;
  const std::string sp = scratch / "sp";
  test::run_cli_ok({"generate", "--output", sp, "--backend", "rocksdb", "--parallelism", "1", "--keys", "20",
                    "--states", "value", "--value-size", "0", "-q"});
  Result<Metadata> read = read_metadata_file(sp + "/_metadata");
  REQUIRE(read.ok());
  Metadata m = std::move(read).value();
  KeyedHandle* handle = nullptr;
  for (OperatorState& op : m.operators)
    for (SubtaskState& st : op.subtasks)
      if (!st.managed_keyed.private_files.empty()) handle = &st.managed_keyed;
  REQUIRE(handle != nullptr);
  const std::string instance = fs::path(handle->private_files.front().handle.path).parent_path().string();
  REQUIRE_FALSE(instance.empty());

  // The instance rewritten with its last key's string length one too large (StringValue's
  // length + 1 after the key-group byte): the key then swallows the namespace's byte, and the
  // namespace finds none. Still the largest key, so the family stays sorted.
  fs::copy(sp + "/" + instance, scratch / "copy", fs::copy_options::recursive);
  KeyValues pairs = instance_pairs(scratch / "copy", "value-state");
  REQUIRE(pairs.size() == 20);
  pairs.back().first[1] = static_cast<char>(pairs.back().first[1] + 1);
  auto writer = RocksInstanceWriter::create(scratch / "build", {"value-state"});
  REQUIRE(writer.ok());
  for (const auto& [key, value] : pairs) REQUIRE((*writer)->add(0, key, value).ok());
  auto files = (*writer)->finish(scratch / "rewritten");
  REQUIRE(files.ok());
  fs::remove_all(sp + "/" + instance);
  fs::rename(scratch / "rewritten", sp + "/" + instance);
  handle->private_files.clear();
  std::string sst;
  for (const RocksInstanceFile& f : files->files) {
    StreamHandle h;
    h.type = handle_type::kRelativeFile;
    h.path = instance + "/" + f.name;
    h.size = static_cast<int64_t>(f.size);
    handle->private_files.push_back({f.name, h});
    if (f.is_sst()) sst = f.name;
  }
  REQUIRE_FALSE(sst.empty());
  Result<std::string> bytes = encode_metadata(m);
  REQUIRE(bytes.ok());
  test::write_file(sp + "/_metadata", *bytes);

  test::CliResult converted = test::run_cli({"convert", sp, "--to", "heap", "--output", scratch / "heap"});
  INFO(converted.err);
  CHECK(converted.status == 2);
  CHECK(converted.err.find(instance + "/" + sst + "'") != std::string::npos);
  CHECK(converted.err.find("_metadata'") == std::string::npos);
}
