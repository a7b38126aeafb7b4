// Reading a native handle through RocksDB itself, for column families whose SSTs overlap.
#include "state/rocksdb/rocks_instance_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table.h>

#include "ckpt/io.h"
#include "format/local_names.h"
#include "state/keyed_state_codec.h"
#include "state/layout_transcoder.h"
#include "state/rocksdb/rocks_sst.h"
#include "state/rocksdb/rocks_status.h"
#include "support/fs_listing.h"

namespace ckpt {

namespace fs = std::filesystem;

struct RocksInstanceReader::Rep {
  std::string dir;
  std::map<std::string, StateStream> files;  // by RocksDB name: whose errors name them
  std::string meta_file;  // named by errors no one file of the instance can be blamed for
  FlinkInstance instance;
  // Files placed by a link, not read through their streams: their bytes count as progress as a
  // scan by key group advances through the range, up to all of them.
  Progress* progress = nullptr;
  uint64_t linked_bytes = 0;
  mutable uint64_t counted_bytes = 0;
  void count_through(int64_t done, int64_t of) const {
    if (!progress || of <= 0) return;
    const uint64_t target = static_cast<uint64_t>(static_cast<double>(linked_bytes) *
                                                  static_cast<double>(std::min(done, of)) / static_cast<double>(of));
    if (target <= counted_bytes) return;
    progress->add_bytes(target - counted_bytes);
    counted_bytes = target;
  }
  Error blame_file(Error e) const;
  ~Rep() {
    (void)instance.close();
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

namespace {

constexpr uint64_t kChunk = uint64_t{8} << 20;
// Scans read around the cache (fill_cache = false): it only serves the few point reads.
constexpr size_t kBlockCacheBytes = size_t{4} << 20;

Error instance_error(const std::string& file, ErrorCode code, const std::string& message) {
  Error e(code, message);
  e.file = file;
  return e;
}

Error instance_rocks_error(const std::string& file, const char* what, const rocksdb::Status& s) {
  return rocks_status_error(s, file, what);
}

rocksdb::ReadOptions scan_options() {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  ro.readahead_size = kScanReadahead;
  return ro;
}

// Places the stream under `dst`: a whole plain file hard-linked, else symbolically linked (the
// instance is only read, and a copy of a multi-GB snapshot into a temp directory that may be
// tmpfs would defeat reading it in bounded memory), else copied; other streams (inline bytes,
// a segment of a merged file) written out in bounded chunks.
Status write_out(const StateStream& stream, const std::string& dst) {
  if (!stream.path().empty() && stream.base() == 0) {
    CKPT_ASSIGN_OR_RETURN(std::string path, stream.local_file());
    if (::link(path.c_str(), dst.c_str()) == 0) return Status::OK();
    // A fetched object's name may become a placeholder again once its stream is gone (the
    // cache's eviction): only a link or a copy keeps its bytes.
    std::error_code ec;
    const fs::path target = fs::absolute(path, ec);
    if (!stream.is_remote() && !ec && ::symlink(target.c_str(), dst.c_str()) == 0) return Status::OK();
    return copy_file_contents(path, dst);
  }
  std::ofstream out(dst, std::ios::binary | std::ios::trunc);
  std::string chunk;
  for (uint64_t at = 0; at < stream.size() && out; at += chunk.size()) {
    CKPT_RETURN_IF_ERROR(stream.read(at, std::min(kChunk, stream.size() - at), &chunk));
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  }
  out.close();
  if (!out) return instance_error(dst, ErrorCode::kIOError, "cannot write the file");
  return Status::OK();
}

}  // namespace

// RocksDB names the placed copy of a damaged file ("... in <dir>/000010.sst offset N"): the
// error names the snapshot's file instead, through its stream (which moves a segment's offset by
// its base). Errors that name no placed file name the meta data stream's file.
Error RocksInstanceReader::Rep::blame_file(Error e) const {
  if (e.file == dir) e.file.clear();
  const std::string prefix = dir + "/";
  std::string blamed;
  for (size_t at = e.message.find(prefix); at != std::string::npos; at = e.message.find(prefix, at)) {
    e.message.erase(at, prefix.size());
    if (!blamed.empty()) continue;
    size_t end = e.message.find_first_of(" ,:'\"", at);
    blamed = e.message.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }
  auto placed = files.find(blamed);
  if (e.file.empty() && placed != files.end()) {
    if (e.offset) *e.offset += placed->second.base();
    return placed->second.stamp(std::move(e));
  }
  if (e.file.empty()) {
    e.file = meta_file;
    e.offset.reset();  // RocksDB's offset is in a file it did not name
  }
  return e;
}

RocksInstanceReader::~RocksInstanceReader() = default;

Result<std::unique_ptr<RocksInstanceReader>> RocksInstanceReader::open(const KeyedHandle& handle,
                                                                       const StreamOpener& streams) {
  std::unique_ptr<RocksInstanceReader> r(new RocksInstanceReader());
  r->rep_ = std::make_unique<Rep>();
  Rep& rep = *r->rep_;
  CKPT_ASSIGN_OR_RETURN(StateStream meta, streams.open(handle.delegate));
  rep.meta_file = meta.file();
  CKPT_ASSIGN_OR_RETURN(std::string tmp, temp_directory());
  std::string tmpl = (fs::path(tmp) / "ckpt-instance-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    return instance_error(tmpl, ErrorCode::kIOError,
                          fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
  rep.dir = tmpl;
  for (const auto* list : {&handle.shared_files, &handle.private_files}) {
    for (const NamedStream& f : *list) {
      if (Status plain = check_local_file_name(f.name); !plain.ok())
        return streams.in_metadata(std::move(plain).error());
      CKPT_ASSIGN_OR_RETURN(StateStream stream, streams.open(f.handle));
      // RocksDB 7.8's DB iterator can end a scan early with an OK status where an SST's block
      // fails its checksum (tests/corpus/sst_damage_test.cc): a scan through the instance would
      // leave entries out silently, so every table is verified whole before the instance opens.
      if (is_sst_name(f.name)) CKPT_RETURN_IF_ERROR(SstFile::verify_checksum(stream.uncounted()));
      // write_out links a whole local file (no read counts it) and copies the others by reads.
      if (!stream.path().empty() && stream.base() == 0) rep.linked_bytes += stream.size();
      CKPT_RETURN_IF_ERROR(write_out(stream, rep.dir + "/" + f.name));
      rep.files.emplace(f.name, std::move(stream));
    }
  }
  rep.progress = streams.progress();
  Status opened = open_flink_instance(rep.dir, true, rep.instance);
  if (!opened.ok()) return rep.blame_file(std::move(opened).error());
  return r;
}

const std::vector<std::string>& RocksInstanceReader::column_families() const { return rep_->instance.names; }

Status RocksInstanceReader::for_each(const std::string& cf,
                                     const std::function<Status(std::string_view, std::string_view)>& fn,
                                     std::string_view lower, std::string_view upper) const {
  const FlinkInstance& in = rep_->instance;
  auto at = std::find(in.names.begin(), in.names.end(), cf);
  if (at == in.names.end()) return Status::OK();
  rocksdb::ReadOptions ro = scan_options();
  rocksdb::Slice upper_slice(upper.data(), upper.size());
  if (!upper.empty()) ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(in.db->NewIterator(ro, in.handles[at - in.names.begin()]));
  if (lower.empty())
    it->SeekToFirst();
  else
    it->Seek(rocksdb::Slice(lower.data(), lower.size()));
  for (; it->Valid(); it->Next()) {
    rocksdb::Slice k = it->key();
    rocksdb::Slice v = it->value();
    CKPT_RETURN_IF_ERROR(fn(std::string_view(k.data(), k.size()), std::string_view(v.data(), v.size())));
  }
  if (!it->status().ok())
    return rep_->blame_file(instance_rocks_error("", fmt::format("rocksdb cannot read column family '{}'", cf).c_str(),
                                         it->status()));
  return Status::OK();
}

Status RocksInstanceReader::for_each_by_key_group(const std::vector<std::string>& families, KeyGroupRange range,
                                                  int prefix_bytes, const KeyGroupEntryFn& fn) const {
  if (range.empty()) return Status::OK();
  const FlinkInstance& in = rep_->instance;
  std::string lower, upper;
  append_key_group_prefix(lower, range.first, prefix_bytes);
  // Past the last key group of the range, when that prefix exists.
  const bool bounded = range.last() + 1 < (int32_t{1} << (8 * prefix_bytes));
  if (bounded) append_key_group_prefix(upper, range.last() + 1, prefix_bytes);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro = scan_options();
  if (bounded) ro.iterate_upper_bound = &upper_slice;
  struct Cursor {
    std::unique_ptr<rocksdb::Iterator> it;
    int32_t key_group = -1;  // of the current key; -1 when exhausted
  };
  std::vector<Cursor> cursors(families.size());
  auto failed = [&](size_t i) {
    return rep_->blame_file(instance_rocks_error("", fmt::format("rocksdb cannot read column family '{}'", families[i]).c_str(),
                                         cursors[i].it->status()));
  };
  // Positions cursor i's key group; a key too short for its prefix cannot be placed anywhere.
  auto settle = [&](size_t i) -> Status {
    Cursor& c = cursors[i];
    c.key_group = -1;
    if (!c.it->Valid()) return c.it->status().ok() ? Status::OK() : Status(failed(i));
    rocksdb::Slice k = c.it->key();
    c.key_group = key_group_of_rocks_key(std::string_view(k.data(), k.size()), prefix_bytes);
    if (c.key_group < 0)
      return rep_->blame_file(Error(ErrorCode::kCorruption,
                                     fmt::format("column family '{}' holds a key shorter than its key-group prefix",
                                                 families[i])));
    if (c.key_group > range.last()) c.key_group = -1;
    return Status::OK();
  };
  for (size_t i = 0; i < families.size(); ++i) {
    auto at = std::find(in.names.begin(), in.names.end(), families[i]);
    if (at == in.names.end()) continue;
    cursors[i].it.reset(in.db->NewIterator(ro, in.handles[at - in.names.begin()]));
    cursors[i].it->Seek(lower);
    CKPT_RETURN_IF_ERROR(settle(i));
  }
  for (;;) {
    int32_t kg = -1;
    for (const Cursor& c : cursors)
      if (c.key_group >= 0 && (kg < 0 || c.key_group < kg)) kg = c.key_group;
    if (kg < 0) {
      rep_->count_through(1, 1);
      return Status::OK();
    }
    rep_->count_through(kg - range.first, range.count);
    for (size_t i = 0; i < cursors.size(); ++i) {
      Cursor& c = cursors[i];
      while (c.key_group == kg) {
        rocksdb::Slice k = c.it->key();
        rocksdb::Slice v = c.it->value();
        CKPT_RETURN_IF_ERROR(fn(kg, i, std::string_view(k.data(), k.size()), std::string_view(v.data(), v.size())));
        c.it->Next();
        CKPT_RETURN_IF_ERROR(settle(i));
      }
    }
  }
}

Error RocksInstanceReader::blame_key(const std::string& cf, std::string_view key, Error e) const {
  if (e.offset) {
    e.message += fmt::format(" at byte {} of the key", *e.offset);
    e.offset.reset();
  }
  std::vector<rocksdb::LiveFileMetaData> live;
  rep_->instance.db->GetLiveFilesMetaData(&live);
  const rocksdb::Slice wanted(key.data(), key.size());
  for (const rocksdb::LiveFileMetaData& f : live) {
    if (f.column_family_name != cf || key < f.smallestkey || key > f.largestkey) continue;
    // Files of level 0 overlap: the one named is one that holds the key.
    rocksdb::SstFileReader reader{rocksdb::Options()};
    if (!reader.Open(f.directory + "/" + f.relative_filename).ok()) continue;
    std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(rocksdb::ReadOptions()));
    it->Seek(wanted);
    if (!it->Valid() || it->key() != wanted) continue;
    auto placed = rep_->files.find(f.relative_filename);
    if (placed != rep_->files.end()) return placed->second.stamp(std::move(e));
  }
  return e;
}

FlinkInstance::FlinkInstance() = default;
FlinkInstance::FlinkInstance(FlinkInstance&&) noexcept = default;
FlinkInstance::~FlinkInstance() { (void)close(); }

Status FlinkInstance::close() {
  for (auto* h : handles)
    if (db) db->DestroyColumnFamilyHandle(h);
  handles.clear();
  if (!db) return Status::OK();
  rocksdb::Status s = db->Close();
  db.reset();
  if (!s.ok()) return instance_rocks_error("", "rocksdb cannot close the instance", s);
  return Status::OK();
}

Status open_flink_instance(const std::string& dir, bool read_only, FlinkInstance& out) {
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<rocksdb::MergeOperator> merge, flink_merge_operator());
  rocksdb::DBOptions options;
  options.create_if_missing = false;
  options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  options.max_file_opening_threads = 1;
  // No periodic statistics: their timer thread makes every close wait for its next tick.
  options.stats_dump_period_sec = 0;
  options.stats_persist_period_sec = 0;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(options, dir, &out.names);
  if (!s.ok()) return instance_rocks_error(dir, "rocksdb cannot list the column families", s);
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  // Index blocks in the cache, not held by each open file's reader: an instance keeps every
  // file open, so otherwise memory grows with the number of SSTs (about 0.6 MiB per 64 MiB).
  table.cache_index_and_filter_blocks = true;
  std::shared_ptr<rocksdb::TableFactory> factory(rocksdb::NewBlockBasedTableFactory(table));
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const std::string& n : out.names) {
    rocksdb::ColumnFamilyOptions cf;
    cf.merge_operator = merge;
    cf.table_factory = factory;
    cfs.emplace_back(n, cf);
  }
  rocksdb::DB* db = nullptr;
  s = read_only ? rocksdb::DB::OpenForReadOnly(options, dir, cfs, &out.handles, &db)
                : rocksdb::DB::Open(options, dir, cfs, &out.handles, &db);
  if (!s.ok()) return instance_rocks_error(dir, "rocksdb cannot open the instance", s);
  out.db.reset(db);
  return Status::OK();
}

}  // namespace ckpt
