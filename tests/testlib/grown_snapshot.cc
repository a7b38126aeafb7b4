// Growing a real RocksDB checkpoint's instances into overlapping SSTs, for tests of merged reads.
#include "testlib/grown_snapshot.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/utilities/checkpoint.h>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/walk.h"
#include "testlib/test_support.h"

namespace ckpt::test {
namespace {

namespace fs = std::filesystem;

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs read_all(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* h) {
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), h));
  Pairs pairs;
  for (it->SeekToFirst(); it->Valid(); it->Next()) pairs.emplace_back(it->key().ToString(), it->value().ToString());
  REQUIRE(it->status().ok());
  return pairs;
}

// One round of writes to every family, then a flush per family (a new SST each).
template <typename Write>
void round(rocksdb::DB& db, const std::vector<rocksdb::ColumnFamilyHandle*>& handles,
           const std::vector<Pairs>& originals, Write write) {
  for (size_t f = 0; f < handles.size(); ++f) {
    for (size_t i = 0; i < originals[f].size(); ++i) write(handles[f], originals[f], i);
    REQUIRE(db.Flush(rocksdb::FlushOptions(), handles[f]).ok());
  }
}

// Grows the instance in `db_dir` and checkpoints it into `out`; returns the checkpoint's files.
std::vector<std::string> grow(const std::string& db_dir, const std::string& out, int rounds, bool shadowed) {
  rocksdb::DBOptions options;
  std::vector<std::string> families;
  REQUIRE(rocksdb::DB::ListColumnFamilies(options, db_dir, &families).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& f : families) descriptors.emplace_back(f, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  REQUIRE(rocksdb::DB::Open(options, db_dir, descriptors, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<Pairs> originals;
  for (auto* h : handles) originals.push_back(read_all(*db, h));
  const rocksdb::WriteOptions w;
  if (shadowed) {
    round(*db, handles, originals, [&](rocksdb::ColumnFamilyHandle* h, const Pairs& p, size_t i) {
      REQUIRE(db->Put(w, h, p[i].first, p[(i + 1) % p.size()].second).ok());
    });
    round(*db, handles, originals, [&](rocksdb::ColumnFamilyHandle* h, const Pairs& p, size_t i) {
      if (i % 2 == 0) REQUIRE(db->Delete(w, h, p[i].first).ok());
    });
  }
  for (int r = 0; r < rounds; ++r)
    round(*db, handles, originals, [&](rocksdb::ColumnFamilyHandle* h, const Pairs& p, size_t i) {
      REQUIRE(db->Put(w, h, p[i].first, p[i].second).ok());
    });
  rocksdb::Checkpoint* cp = nullptr;
  REQUIRE(rocksdb::Checkpoint::Create(db.get(), &cp).ok());
  REQUIRE(cp->CreateCheckpoint(out).ok());
  delete cp;
  for (auto* h : handles) REQUIRE(db->DestroyColumnFamilyHandle(h).ok());
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(out)) {
    std::string n = e.path().filename().string();
    if (n.ends_with(".sst") || n.rfind("MANIFEST-", 0) == 0 || n == "CURRENT" || n.rfind("OPTIONS-", 0) == 0)
      files.push_back(n);
  }
  return files;
}

}  // namespace

GrownSnapshot grow_snapshot(const std::string& input, const std::string& scratch, int rounds, bool shadowed) {
  auto where = locate_snapshot(input);
  REQUIRE(where.ok());
  auto m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  FileResolver resolver(where->directory, {});
  GrownSnapshot grown;
  grown.dir = scratch + "/chk-2";
  fs::create_directories(grown.dir);
  int instance = 0;
  for (auto& op : m->operators) {
    for (auto& st : op.subtasks) {
      KeyedHandle& h = st.managed_keyed;
      if (h.type != handle_type::kIncremental) continue;
      std::string db = scratch + "/db-" + std::to_string(instance);
      fs::create_directories(db);
      for (auto* list : {&h.shared_files, &h.private_files})
        for (const NamedStream& n : *list) {
          auto found = resolver.find(n.handle.type, n.handle.path);
          REQUIRE(found);
          fs::copy_file(found->path, db + "/" + n.name);
        }
      std::string out = scratch + "/cp-" + std::to_string(instance);
      h.shared_files.clear();
      h.private_files.clear();
      for (const std::string& f : grow(db, out, rounds, shadowed)) {
        std::string name = "i" + std::to_string(instance) + "-" + f;
        fs::copy_file(out + "/" + f, grown.dir + "/" + name);
        StreamHandle s;
        s.type = handle_type::kRelativeFile;
        s.path = name;
        s.size = static_cast<int64_t>(fs::file_size(grown.dir + "/" + name));
        (f.ends_with(".sst") ? h.shared_files : h.private_files).push_back({f, s});
        grown.ssts += f.ends_with(".sst") ? 1 : 0;
      }
      // The meta stream and every other file stay where the original is.
      ++instance;
    }
  }
  REQUIRE(instance > 0);
  for_each_stream(*m, [&](StreamHandle& s, const StreamSite&) {
    if (s.type == handle_type::kRelativeFile && !fs::exists(grown.dir + "/" + s.path)) {
      s.type = handle_type::kFile;
      s.path = "file:" + fs::absolute(where->directory).string() + "/" + s.path;
    }
  });
  auto bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  write_file(grown.dir + "/_metadata", *bytes);
  return grown;
}

}  // namespace ckpt::test
