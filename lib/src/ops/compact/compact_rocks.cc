// Restoring, compacting and checkpointing one RocksDB instance with RocksDB's own API.
#include "ops/compact/compact_rocks.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/checkpoint.h>

#include "ckpt/io.h"
#include "s3/output_directory.h"
#include "support/fs_listing.h"

namespace fs = std::filesystem;

namespace ckpt {

namespace {

// Flink's list-state merge operator: RocksDB's StringAppendTESTOperator with delimiter ','.
// Its name must match the one recorded in the column families' SST properties.
class FlinkListMerge : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    new_value->clear();
    if (existing) {
      new_value->assign(existing->data(), existing->size());
      new_value->push_back(',');
    }
    new_value->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "stringappendtest"; }
};

rocksdb::CompressionType compression_type(CompactCompression c) {
  switch (c) {
    case CompactCompression::kZstd: return rocksdb::kZSTD;
    case CompactCompression::kLz4: return rocksdb::kLZ4Compression;
    case CompactCompression::kSnappy: return rocksdb::kSnappyCompression;
    case CompactCompression::kNone: return rocksdb::kNoCompression;
  }
  return rocksdb::kNoCompression;
}

Error compact_rocks_error(const rocksdb::Status& s, const std::string& what) {
  return Error(ErrorCode::kIOError, what + ": rocksdb: " + s.ToString());
}

bool is_instance_file(const std::string& name) {
  return (name.size() > 4 && name.ends_with(".sst")) || name.starts_with("MANIFEST-") || name == "CURRENT" ||
         name.starts_with("OPTIONS-");
}

}  // namespace

Result<std::vector<std::string>> compact_instance(const RocksCompactJob& job) {
  std::error_code ec;
  fs::path db_dir = fs::path(job.work_dir) / "db";
  fs::create_directories(db_dir, ec);
  if (ec) return Error(ErrorCode::kIOError, "cannot create '" + db_dir.string() + "': " + ec.message());
  for (const auto& [name, source] : job.files) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      return Error(ErrorCode::kCorruption, "unexpected RocksDB file name '" + name + "'");
    if (!is_object_store_uri(source)) CKPT_RETURN_IF_ERROR(check_regular_input(source));
    CKPT_RETURN_IF_ERROR(copy_to_local(source, (db_dir / name).string()));
    if (job.progress) {
      uintmax_t size = fs::file_size(db_dir / name, ec);
      if (!ec) job.progress->add_bytes(size);
    }
  }

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = false;
  db_options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  std::vector<std::string> families;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, db_dir.string(), &families);
  if (!s.ok()) return compact_rocks_error(s, "cannot list the column families");
  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.merge_operator = std::make_shared<FlinkListMerge>();
  cf_options.compression = compression_type(job.compression);
  cf_options.bottommost_compression = compression_type(job.compression);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& f : families) descriptors.emplace_back(f, cf_options);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(db_options, db_dir.string(), descriptors, &handles, &raw);
  if (!s.ok()) return compact_rocks_error(s, "cannot open the restored instance");
  std::unique_ptr<rocksdb::DB> db(raw);
  auto close = [&] {
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    handles.clear();
  };
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (size_t i = 0; i < handles.size(); ++i) {
    s = db->CompactRange(cro, handles[i], nullptr, nullptr);
    if (!s.ok()) {
      close();
      return compact_rocks_error(s, "cannot compact column family '" + families[i] + "'");
    }
  }
  rocksdb::Checkpoint* cp_raw = nullptr;
  s = rocksdb::Checkpoint::Create(db.get(), &cp_raw);
  std::unique_ptr<rocksdb::Checkpoint> cp(cp_raw);
  if (s.ok()) s = cp->CreateCheckpoint(job.out_dir);
  close();
  if (!s.ok()) return compact_rocks_error(s, "cannot checkpoint the compacted instance");
  s = db->Close();
  if (!s.ok()) return compact_rocks_error(s, "cannot close the compacted instance");

  std::vector<std::string> out;
  CKPT_ASSIGN_OR_RETURN(std::vector<fs::directory_entry> entries, list_directory(job.out_dir));
  for (const auto& e : entries) {
    std::string name = e.path().filename().string();
    if (is_instance_file(name)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ckpt
