// Reading a native handle through RocksDB itself, for column families whose SSTs overlap.
#include "state/rocks_instance_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>

#include "state/rocks_sst.h"

namespace ckpt {

namespace fs = std::filesystem;

struct RocksInstanceReader::Rep {
  std::string dir;
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::vector<std::string> names;
  ~Rep() {
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    if (db) db->Close();
    db.reset();
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

namespace {

constexpr uint64_t kChunk = uint64_t{8} << 20;

Error instance_error(const std::string& file, ErrorCode code, const std::string& message) {
  Error e(code, message);
  e.file = file;
  return e;
}

// Writes the stream under `dst`: a hard link or copy of a whole plain file, else its bytes in
// bounded chunks (inline bytes, a segment of a merged file).
Status write_out(const StateStream& stream, const std::string& dst) {
  if (!stream.path().empty() && stream.base() == 0) {
    if (::link(stream.path().c_str(), dst.c_str()) == 0) return Status::OK();
    std::error_code ec;
    if (fs::copy_file(stream.path(), dst, ec)) return Status::OK();
    return instance_error(dst, ErrorCode::kIOError, fmt::format("cannot copy {}: {}", stream.path(), ec.message()));
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

RocksInstanceReader::~RocksInstanceReader() = default;

Result<std::unique_ptr<RocksInstanceReader>> RocksInstanceReader::open(const KeyedHandle& handle,
                                                                       const PathResolver& resolve,
                                                                       const std::string& metadata_file) {
  std::unique_ptr<RocksInstanceReader> r(new RocksInstanceReader());
  r->rep_ = std::make_unique<Rep>();
  Rep& rep = *r->rep_;
  std::string tmpl = (fs::temp_directory_path() / "ckpt-instance-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    return instance_error(tmpl, ErrorCode::kIOError, "cannot create a temporary directory");
  rep.dir = tmpl;
  for (const auto* list : {&handle.shared_files, &handle.private_files}) {
    for (const NamedStream& f : *list) {
      if (f.name.empty() || f.name == "." || f.name == ".." || f.name.find('/') != std::string::npos ||
          f.name.find('\0') != std::string::npos)
        return instance_error(metadata_file, ErrorCode::kCorruption,
                              fmt::format("rocksdb file name '{}' is not a plain file name", f.name));
      CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(f.handle, resolve, metadata_file));
      CKPT_RETURN_IF_ERROR(write_out(stream, rep.dir + "/" + f.name));
    }
  }
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<rocksdb::MergeOperator> merge, flink_merge_operator());
  rocksdb::DBOptions options;
  options.create_if_missing = false;
  options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  options.max_file_opening_threads = 1;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(options, rep.dir, &rep.names);
  if (!s.ok())
    return instance_error(metadata_file, ErrorCode::kCorruption,
                          fmt::format("rocksdb cannot list the column families: {}", s.ToString()));
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const std::string& n : rep.names) {
    rocksdb::ColumnFamilyOptions cf;
    cf.merge_operator = merge;
    cfs.emplace_back(n, cf);
  }
  rocksdb::DB* db = nullptr;
  s = rocksdb::DB::OpenForReadOnly(options, rep.dir, cfs, &rep.handles, &db);
  if (!s.ok())
    return instance_error(metadata_file, ErrorCode::kCorruption,
                          fmt::format("rocksdb cannot open the instance: {}", s.ToString()));
  rep.db.reset(db);
  return r;
}

Status RocksInstanceReader::for_each(const std::string& cf,
                                     const std::function<Status(std::string_view, std::string_view)>& fn) const {
  auto at = std::find(rep_->names.begin(), rep_->names.end(), cf);
  if (at == rep_->names.end()) return Status::OK();
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(ro, rep_->handles[at - rep_->names.begin()]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    rocksdb::Slice k = it->key();
    rocksdb::Slice v = it->value();
    CKPT_RETURN_IF_ERROR(fn(std::string_view(k.data(), k.size()), std::string_view(v.data(), v.size())));
  }
  if (!it->status().ok())
    return instance_error(rep_->dir, ErrorCode::kCorruption,
                          fmt::format("rocksdb cannot read column family '{}': {}", cf, it->status().ToString()));
  return Status::OK();
}

}  // namespace ckpt
