// ckpt compact on a chain grown from a real RocksDB checkpoint: every entry rewritten several
// times in SSTs of its own, as later incremental checkpoints leave them; compaction folds them
// back into one SST per column family with the same entries.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>

#include <rocksdb/db.h>
#include <rocksdb/utilities/checkpoint.h>

#include "ckpt/compact.h"
#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/walk.h"
#include "support/dump_lines.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

using ckpt::test::dump_lines;

// Rewrites every entry of every column family `rounds` times, one flush (one SST) per round,
// then checkpoints the instance into `out`. Returns the files of the checkpoint.
std::vector<std::string> grow(const std::string& db_dir, const std::string& out, int rounds) {
  rocksdb::DBOptions options;
  std::vector<std::string> families;
  REQUIRE(rocksdb::DB::ListColumnFamilies(options, db_dir, &families).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& f : families) descriptors.emplace_back(f, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  REQUIRE(rocksdb::DB::Open(options, db_dir, descriptors, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int round = 0; round < rounds; ++round) {
    for (auto* h : handles) {
      std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), h));
      std::vector<std::pair<std::string, std::string>> pairs;
      for (it->SeekToFirst(); it->Valid(); it->Next()) pairs.emplace_back(it->key().ToString(), it->value().ToString());
      for (const auto& [k, v] : pairs) REQUIRE(db->Put(rocksdb::WriteOptions(), h, k, v).ok());
      REQUIRE(db->Flush(rocksdb::FlushOptions(), h).ok());
    }
  }
  rocksdb::Checkpoint* cp = nullptr;
  REQUIRE(rocksdb::Checkpoint::Create(db.get(), &cp).ok());
  REQUIRE(cp->CreateCheckpoint(out).ok());
  delete cp;
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(out)) {
    std::string n = e.path().filename().string();
    if (n.ends_with(".sst") || n.rfind("MANIFEST-", 0) == 0 || n == "CURRENT" || n.rfind("OPTIONS-", 0) == 0)
      files.push_back(n);
  }
  return files;
}

}  // namespace

TEST_CASE("compact folds rewritten entries of a grown chain into fewer SSTs - entries unchanged", "[corpus]") {
  // Operator state values are unaffected; keyed entries (values of Long serializers) are
  // overwritten with themselves, so the logical content stays that of the original checkpoint.
  CKPT_REQUIRE_SHARED();
  std::string input = ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.16-rocksdb-checkpoint";
  ckpt::test::ScratchDir scratch;
  auto where = locate_snapshot(input);
  REQUIRE(where.ok());
  auto m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  FileResolver resolver(where->directory, {});
  std::string chk = scratch / "chk-2";
  fs::create_directories(chk);
  size_t grown_ssts = 0;
  int instance = 0;
  for (auto& op : m->operators) {
    for (auto& st : op.subtasks) {
      KeyedHandle& h = st.managed_keyed;
      if (h.type != handle_type::kIncremental) continue;
      std::string db = scratch / ("db-" + std::to_string(instance));
      fs::create_directories(db);
      for (auto* list : {&h.shared_files, &h.private_files})
        for (const NamedStream& n : *list) {
          auto found = resolver.find(n.handle.type, n.handle.path);
          REQUIRE(found);
          fs::copy_file(found->path, db + "/" + n.name);
        }
      std::string out = scratch / ("cp-" + std::to_string(instance));
      std::vector<std::string> files = grow(db, out, 3);
      h.shared_files.clear();
      h.private_files.clear();
      for (const std::string& f : files) {
        std::string name = "i" + std::to_string(instance) + "-" + f;
        fs::copy_file(out + "/" + f, chk + "/" + name);
        StreamHandle s;
        s.type = handle_type::kRelativeFile;
        s.path = name;
        s.size = static_cast<int64_t>(fs::file_size(chk + "/" + name));
        (f.ends_with(".sst") ? h.shared_files : h.private_files).push_back({f, s});
        grown_ssts += f.ends_with(".sst") ? 1 : 0;
      }
      // The meta stream and every other file stay where the original is.
      ++instance;
    }
  }
  REQUIRE(instance > 0);
  for_each_stream(*m, [&](StreamHandle& s, const StreamSite&) {
    if (s.type == handle_type::kRelativeFile && !fs::exists(chk + "/" + s.path)) {
      s.type = handle_type::kFile;
      s.path = "file:" + fs::absolute(where->directory).string() + "/" + s.path;
    }
  });
  auto bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  ckpt::test::write_file(chk + "/_metadata", *bytes);

  // The grown chain's SSTs of one column family overlap, so the dump layer reads it through
  // the RocksDB instance; it must show the original's entries, each once.
  std::vector<std::string> original = dump_lines(input);
  CHECK(dump_lines(chk) == original);
  auto r = compact_snapshot(chk, scratch / "compacted", CompactOptions{});
  REQUIRE(r.ok());
  CHECK(r->sst_files_before == grown_ssts);
  CHECK(r->sst_files_after < r->sst_files_before);
  CHECK(r->files_after < r->files_before);
  CHECK(r->bytes_after < r->bytes_before);
  CHECK(dump_lines(scratch / "compacted") == original);
}
