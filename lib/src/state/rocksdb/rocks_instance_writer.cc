// RocksDB instances in Flink's layout: SstFileWriter per column family, ingestion, Checkpoint.
#include "state/rocksdb/rocks_instance_writer.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/utilities/checkpoint.h>

#include "support/fs_listing.h"

namespace ckpt {

namespace fs = std::filesystem;

namespace {

Error writer_rocks_error(const std::string& where, const rocksdb::Status& s) {
  Error e(s.IsIOError() ? ErrorCode::kIOError : ErrorCode::kCorruption, fmt::format("rocksdb: {}", s.ToString()));
  e.file = where;
  return e;
}

// The options Flink's backend gives every column family, as far as the files record them.
Result<rocksdb::ColumnFamilyOptions> flink_cf_options() {
  rocksdb::ColumnFamilyOptions o;
  rocksdb::ConfigOptions config;
  rocksdb::Status s = rocksdb::MergeOperator::CreateFromString(config, "stringappendtest", &o.merge_operator);
  if (!s.ok() || !o.merge_operator)
    return Error(ErrorCode::kNotSupported, fmt::format("rocksdb has no StringAppendTESTOperator: {}", s.ToString()));
  return o;
}

// Opens (creating) a DB with "default" plus one family per name, all with Flink's options.
Status open_flink_db(const std::string& dir, const rocksdb::Options& options, const std::vector<std::string>& names,
                     std::unique_ptr<rocksdb::DB>* db, std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
  rocksdb::DBOptions db_options(options);
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.info_log_level = rocksdb::InfoLogLevel::HEADER_LEVEL;
  // No periodic statistics: their timer thread makes every close wait for its next tick.
  db_options.stats_dump_period_sec = 0;
  db_options.stats_persist_period_sec = 0;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  rocksdb::ColumnFamilyOptions cf_options(options);
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, cf_options);
  for (const std::string& n : names) descriptors.emplace_back(n, cf_options);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, dir, descriptors, handles, &raw);
  if (!s.ok()) return writer_rocks_error(dir, s);
  db->reset(raw);
  return Status::OK();
}

rocksdb::Status close_flink_db(std::unique_ptr<rocksdb::DB>* db, std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
  if (!*db) return rocksdb::Status::OK();
  for (auto* h : *handles) (*db)->DestroyColumnFamilyHandle(h);
  handles->clear();
  rocksdb::Status s = (*db)->Close();
  db->reset();
  return s;
}

// RocksDB's files with their syncs skipped, for writers whose caller syncs the whole output
// once at the end (create(..., deferred_sync)): durability is the caller's, not lost.
class DeferredSyncFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  using FSWritableFileOwnerWrapper::FSWritableFileOwnerWrapper;
  rocksdb::IOStatus Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override { return {}; }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override { return {}; }
  rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return {};
  }
  // Nor preallocated: a MANIFEST reserves 4 MiB ahead (fallocate, which tmpfs fills with zeroed
  // pages) and its close trims them again, a quarter of a small instance's cost; the file's
  // bytes are the same without.
  void PrepareWrite(size_t, size_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {}
};

class DeferredSyncDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  using FSDirectoryWrapper::FSDirectoryWrapper;
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override { return {}; }
  rocksdb::IOStatus FsyncWithDirOptions(const rocksdb::IOOptions&, rocksdb::IODebugContext*,
                                        const rocksdb::DirFsyncOptions&) override {
    return {};
  }
};

class DeferredSyncFileSystem : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "CkptDeferredSyncFileSystem"; }
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override {
    return wrap(target()->NewWritableFile(f, o, r, dbg), r);
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* dbg) override {
    return wrap(target()->ReopenWritableFile(f, o, r, dbg), r);
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* dbg) override {
    return wrap(target()->ReuseWritableFile(f, old, o, r, dbg), r);
  }
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r, rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewDirectory(name, o, r, dbg);
    if (s.ok() && *r) *r = std::make_unique<DeferredSyncDirectory>(std::move(*r));
    return s;
  }

 private:
  static rocksdb::IOStatus wrap(rocksdb::IOStatus s, std::unique_ptr<rocksdb::FSWritableFile>* r) {
    if (s.ok() && *r) *r = std::make_unique<DeferredSyncFile>(std::move(*r));
    return s;
  }
};

// One for the process: RocksDB keeps a raw pointer to the Env of every open DB.
rocksdb::Env* deferred_sync_env() {
  static const std::unique_ptr<rocksdb::Env> env =
      rocksdb::NewCompositeEnv(std::make_shared<DeferredSyncFileSystem>(rocksdb::FileSystem::Default()));
  return env.get();
}

Status check_unique(const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j])
        return Error(ErrorCode::kInvalidArgument, fmt::format("column family '{}' named twice", names[i]));
  return Status::OK();
}

}  // namespace

bool RocksInstanceFile::is_sst() const { return name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0; }

struct RocksInstanceWriter::Rep {
  std::string scratch;
  std::vector<std::string> names;
  rocksdb::Options options;
  std::unique_ptr<rocksdb::DB> db;  // open from create() on: the SST files name its families
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // [0] is "default"
  // Per family, per lane: the open writer (opened on first add), the file it writes, and the
  // last key of the lane's last finished file.
  struct Lane {
    std::unique_ptr<rocksdb::SstFileWriter> writer;
    std::string path;
    std::string rolled_after;
    bool rolled = false;
  };
  std::vector<std::vector<Lane>> lanes;
  std::vector<std::vector<std::string>> finished_files;  // per family: key ranges that never overlap
  std::vector<size_t> files_named;                       // per family: the next file's number
  uint64_t target_file_bytes = kRocksTargetFileBytes;
  size_t file_buffer_bytes = 0;  // 0: RocksDB's default
  std::atomic<uint64_t> entries{0};  // add() of different families may run at once
  bool finished = false;

  std::string next_sst_path(size_t cf) { return fmt::format("{}/cf-{}-{}.sst", scratch, cf, files_named[cf]++); }
  std::string db_dir() const { return scratch + "/db"; }

  Status open_db() { return open_flink_db(db_dir(), options, names, &db, &handles); }

  rocksdb::Status close_db() { return close_flink_db(&db, &handles); }
};

Result<std::unique_ptr<RocksInstanceWriter>> RocksInstanceWriter::create(const std::string& scratch_dir,
                                                                         std::vector<std::string> column_families,
                                                                         bool deferred_sync,
                                                                         uint64_t target_file_bytes) {
  std::error_code ec;
  if (fs::exists(scratch_dir, ec))
    return Error(ErrorCode::kInvalidArgument, "scratch directory exists already").with_file(scratch_dir);
  fs::create_directories(scratch_dir, ec);
  if (ec) return Error(ErrorCode::kIOError, "cannot create the directory: " + ec.message()).with_file(scratch_dir);
  CKPT_RETURN_IF_ERROR(check_unique(column_families));
  std::unique_ptr<RocksInstanceWriter> w(new RocksInstanceWriter());
  w->rep_ = std::make_unique<Rep>();
  Rep& rep = *w->rep_;
  rep.scratch = scratch_dir;
  CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyOptions cf, flink_cf_options());
  rep.options = rocksdb::Options(rocksdb::DBOptions(), cf);
  if (deferred_sync) rep.options.env = deferred_sync_env();
  rep.lanes.resize(column_families.size());
  rep.target_file_bytes = std::max<uint64_t>(1, target_file_bytes);
  rep.finished_files.resize(column_families.size());
  rep.files_named.resize(column_families.size());
  rep.names = std::move(column_families);
  CKPT_RETURN_IF_ERROR(rep.open_db());
  return w;
}

RocksInstanceWriter::~RocksInstanceWriter() {
  if (!rep_) return;
  rep_->lanes.clear();
  (void)rep_->close_db();
  std::error_code ec;
  fs::remove_all(rep_->scratch, ec);
}

void RocksInstanceWriter::set_file_buffer_bytes(size_t bytes) { rep_->file_buffer_bytes = bytes; }

Status RocksInstanceWriter::add(size_t cf, std::string_view key, std::string_view value) {
  return add_to_lane(cf, 0, key, value);
}

Status RocksInstanceWriter::add_to_lane(size_t cf, size_t lane, std::string_view key, std::string_view value) {
  Rep& rep = *rep_;
  if (rep.finished) return Error(ErrorCode::kInvalidArgument, "instance writer already finished");
  if (cf >= rep.names.size())
    return Error(ErrorCode::kInvalidArgument, fmt::format("column family index {} out of range", cf));
  if (lane >= kMostLanes) return Error(ErrorCode::kInvalidArgument, fmt::format("lane {} out of range", lane));
  if (rep.lanes[cf].size() <= lane) rep.lanes[cf].resize(lane + 1);
  Rep::Lane& l = rep.lanes[cf][lane];
  auto& writer = l.writer;
  if (!writer) {
    // Given the family's handle, the file records the family's name and id in its table
    // properties, as Flink's flushed files do (readers map files to states by them).
    rocksdb::EnvOptions env;
    if (rep.file_buffer_bytes > 0) env.writable_file_max_buffer_size = rep.file_buffer_bytes;
    writer = std::make_unique<rocksdb::SstFileWriter>(env, rep.options, rep.handles[cf + 1]);
    l.path = rep.next_sst_path(cf);
    rocksdb::Status s = writer->Open(l.path);
    if (!s.ok()) return writer_rocks_error(l.path, s);
    if (l.rolled && key <= std::string_view(l.rolled_after))
      return Error(ErrorCode::kInvalidArgument, fmt::format("keys of column family '{}' out of order", rep.names[cf]));
  }
  // SstFileWriter refuses a key not above its last one (it keeps that key anyway): a second
  // copy here for our own check cost 1-2% of heap -> rocksdb.
  rocksdb::Status s = writer->Put(rocksdb::Slice(key.data(), key.size()), rocksdb::Slice(value.data(), value.size()));
  if (s.IsInvalidArgument())
    return Error(ErrorCode::kInvalidArgument, fmt::format("keys of column family '{}' out of order", rep.names[cf]));
  if (!s.ok()) return writer_rocks_error(l.path, s);
  ++rep.entries;
  // A family's file is closed at Flink's target file size: SstFileWriter holds a file's whole
  // index and filter until Finish, which would make memory grow with the state.
  if (writer->FileSize() >= rep.target_file_bytes) {
    s = writer->Finish();
    if (!s.ok()) return writer_rocks_error(l.path, s);
    writer.reset();
    rep.finished_files[cf].push_back(l.path);
    l.rolled_after.assign(key);
    l.rolled = true;
  }
  return Status::OK();
}

Result<RocksInstanceFiles> RocksInstanceWriter::finish(const std::string& instance_dir) {
  Rep& rep = *rep_;
  if (rep.finished) return Error(ErrorCode::kInvalidArgument, "instance writer already finished");
  rep.finished = true;
  for (size_t i = 0; i < rep.lanes.size(); ++i)
    for (Rep::Lane& l : rep.lanes[i]) {
      if (!l.writer) continue;
      rocksdb::Status s = l.writer->Finish();
      if (!s.ok()) return writer_rocks_error(l.path, s);
      l.writer.reset();
      rep.finished_files[i].push_back(l.path);
    }

  rocksdb::DB* db = rep.db.get();
  rocksdb::Status s;
  for (size_t i = 0; i < rep.names.size() && s.ok(); ++i) {
    if (rep.finished_files[i].empty()) continue;
    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;
    s = db->IngestExternalFile(rep.handles[i + 1], rep.finished_files[i], ingest);
  }
  rocksdb::Status closed = rep.close_db();
  if (!s.ok()) return writer_rocks_error(instance_dir, s);
  if (!closed.ok()) return writer_rocks_error(rep.db_dir(), closed);
  // The closed DB directory is the instance: nothing was put through the write-ahead log and
  // nothing is left in a memtable, so its SSTs, MANIFEST, CURRENT and latest OPTIONS are the
  // whole state (what RocksDB's Checkpoint would copy, without waiting for a flush).
  std::error_code ec;
  fs::rename(rep.db_dir(), instance_dir, ec);
  if (ec)
    return Error(ErrorCode::kIOError, "cannot create the instance directory: " + ec.message()).with_file(instance_dir);
  fs::remove_all(rep.scratch, ec);
  std::string latest_options;
  CKPT_ASSIGN_OR_RETURN(std::vector<fs::directory_entry> entries, list_directory(instance_dir));
  for (const auto& entry : entries) {
    const std::string n = entry.path().filename().string();
    if (n.starts_with("OPTIONS-") && n > latest_options) latest_options = n;
  }
  std::vector<fs::path> extra;
  for (const auto& entry : entries) {
    const std::string n = entry.path().filename().string();
    const bool keep = RocksInstanceFile{n, 0}.is_sst() || n.starts_with("MANIFEST-") || n == "CURRENT" ||
                      n == latest_options;
    if (!keep) extra.push_back(entry.path());
  }
  for (const fs::path& p : extra) fs::remove_all(p, ec);
  CKPT_ASSIGN_OR_RETURN(RocksInstanceFiles files, list_instance_files(instance_dir));
  files.entries = rep.entries;
  return files;
}

Result<RocksInstanceFiles> list_instance_files(const std::string& instance_dir) {
  RocksInstanceFiles out;
  std::error_code ec;
  CKPT_ASSIGN_OR_RETURN(std::vector<fs::directory_entry> entries, list_directory(instance_dir));
  for (const auto& entry : entries) {
    if (!entry.is_regular_file(ec)) continue;
    RocksInstanceFile f;
    f.name = entry.path().filename().string();
    if (!(f.is_sst() || f.name.starts_with("MANIFEST-") || f.name == "CURRENT" || f.name.starts_with("OPTIONS-")))
      continue;
    f.size = entry.file_size(ec);
    out.files.push_back(std::move(f));
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const RocksInstanceFile& a, const RocksInstanceFile& b) { return a.name < b.name; });
  return out;
}

struct RocksLiveInstance::Rep {
  std::string dir;
  rocksdb::Options options;
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  uint64_t next_file = 0;
};

Result<std::unique_ptr<RocksLiveInstance>> RocksLiveInstance::open(const std::string& dir,
                                                                   std::vector<std::string> column_families) {
  CKPT_RETURN_IF_ERROR(check_unique(column_families));
  std::unique_ptr<RocksLiveInstance> li(new RocksLiveInstance());
  li->rep_ = std::make_unique<Rep>();
  Rep& rep = *li->rep_;
  rep.dir = dir;
  CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyOptions cf, flink_cf_options());
  rep.options = rocksdb::Options(rocksdb::DBOptions(), cf);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIOError, "cannot create the directory: " + ec.message()).with_file(dir);
  CKPT_RETURN_IF_ERROR(open_flink_db(dir + "/db", rep.options, column_families, &rep.db, &rep.handles));
  return li;
}

RocksLiveInstance::~RocksLiveInstance() {
  if (!rep_) return;
  (void)close_flink_db(&rep_->db, &rep_->handles);
}

Status RocksLiveInstance::replace_range(size_t cf, const std::string& begin, const std::string& end,
                                        const std::vector<std::pair<std::string, std::string>>& sorted) {
  Rep& rep = *rep_;
  if (cf + 1 >= rep.handles.size())
    return Error(ErrorCode::kInvalidArgument, fmt::format("column family index {} out of range", cf));
  rocksdb::ColumnFamilyHandle* h = rep.handles[cf + 1];
  rocksdb::Slice b(begin), e(end);
  rocksdb::Status s = rocksdb::DeleteFilesInRange(rep.db.get(), h, &b, &e, /*include_end=*/false);
  if (!s.ok()) return writer_rocks_error(rep.dir, s);
  if (sorted.empty()) return Status::OK();
  const std::string path = fmt::format("{}/ingest-{}.sst", rep.dir, rep.next_file++);
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), rep.options, h);
  s = writer.Open(path);
  for (size_t i = 0; i < sorted.size() && s.ok(); ++i) {
    const auto& [k, v] = sorted[i];
    if (k < begin || k >= end || (i > 0 && k <= sorted[i - 1].first))
      return Error(ErrorCode::kInvalidArgument, "keys out of order or outside the replaced range");
    s = writer.Put(k, v);
  }
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) return writer_rocks_error(path, s);
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  s = rep.db->IngestExternalFile(h, {path}, ingest);
  if (!s.ok()) return writer_rocks_error(path, s);
  return Status::OK();
}

Result<RocksInstanceFiles> RocksLiveInstance::checkpoint(const std::string& dir) {
  rocksdb::Checkpoint* cp = nullptr;
  rocksdb::Status s = rocksdb::Checkpoint::Create(rep_->db.get(), &cp);
  if (!s.ok()) return writer_rocks_error(rep_->dir, s);
  std::unique_ptr<rocksdb::Checkpoint> owned(cp);
  s = cp->CreateCheckpoint(dir);
  if (!s.ok()) return writer_rocks_error(dir, s);
  return list_instance_files(dir);
}

}  // namespace ckpt
