// SST reading through rocksdb::SstFileReader, with Flink's merge operator.
#include "state/rocksdb/rocks_sst.h"

#include <algorithm>

#include <fmt/format.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/iostats_context.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include "ckpt/io.h"
#include "state/rocksdb/rocks_status.h"
#include "state/rocksdb/sst_table_check.h"

namespace ckpt {

struct SstFile::Rep {
  std::unique_ptr<rocksdb::Env> mem_env;  // only for SSTs that are not plain files
  rocksdb::Options options;
  std::unique_ptr<rocksdb::SstFileReader> reader;
};

namespace {

// Offsets RocksDB names count from the SST's first byte: stream byte 0, at base() in its file.
Error sst_rocks_error(const StateStream& stream, const char* what, const rocksdb::Status& s) {
  Error e = rocks_status_error(s, "", what);
  if (e.offset) *e.offset += stream.base();
  return stream.stamp(std::move(e));
}

// The most RocksDB's footer (format versions 1+) takes at the end of a table: where opening starts.
constexpr uint64_t kFooterBytes = 53;

}  // namespace

bool is_sst_name(std::string_view name) {
  return name.size() > 4 && name.substr(name.size() - 4) == ".sst";
}

Result<std::shared_ptr<rocksdb::MergeOperator>> flink_merge_operator() {
  std::shared_ptr<rocksdb::MergeOperator> op;
  rocksdb::ConfigOptions config;
  rocksdb::Status s = rocksdb::MergeOperator::CreateFromString(config, "stringappendtest", &op);
  if (!s.ok() || !op)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("rocksdb has no StringAppendTESTOperator: {}", s.ToString()));
  return op;
}

SstFile::SstFile(SstFile&&) noexcept = default;
SstFile& SstFile::operator=(SstFile&&) noexcept = default;
SstFile::~SstFile() = default;

// Points a reader at the stream's bytes: in place if it is a plain file, else from memory
// (inline bytes in `_metadata`, a segment of a merged file).
static Status open_reader(const StateStream& stream, rocksdb::Options& options,
                          std::unique_ptr<rocksdb::Env>& mem_env, std::unique_ptr<rocksdb::SstFileReader>& reader) {
  CKPT_ASSIGN_OR_RETURN(options.merge_operator, flink_merge_operator());
  CKPT_RETURN_IF_ERROR(check_sst_table(stream));
  std::string path = stream.path();
  if (path.empty() || stream.base() != 0) {
    std::string bytes;
    CKPT_RETURN_IF_ERROR(stream.read_all(&bytes));
    mem_env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    path = "/ckpt-mem/table.sst";
    std::unique_ptr<rocksdb::WritableFile> w;
    rocksdb::Status s = mem_env->NewWritableFile(path, &w, rocksdb::EnvOptions());
    if (s.ok()) s = w->Append(bytes);
    if (s.ok()) s = w->Close();
    if (!s.ok()) return sst_rocks_error(stream, "cannot stage the sst in memory", s);
    options.env = mem_env.get();
  } else {
    // RocksDB opens the file again by name, blocking on whatever stands there now; a file
    // standing for an object is fetched first, and stays while the stream lives.
    CKPT_ASSIGN_OR_RETURN(path, stream.local_file());
    CKPT_RETURN_IF_ERROR(check_regular_input(path));
  }
  reader = std::make_unique<rocksdb::SstFileReader>(options);
  rocksdb::Status s = reader->Open(path);
  if (!s.ok()) {
    Error e = sst_rocks_error(stream, "rocksdb cannot open the sst file", s);
    // Opening reads the footer, then the blocks it points to: without a block named, the
    // footer is where the table stopped making sense.
    if (!e.offset) e.offset = stream.base() + (stream.size() > kFooterBytes ? stream.size() - kFooterBytes : 0);
    return e;
  }
  return Status::OK();
}

Status SstFile::verify_checksum(const StateStream& stream) {
  Rep rep;
  CKPT_RETURN_IF_ERROR(open_reader(stream, rep.options, rep.mem_env, rep.reader));
  rocksdb::Status s = rep.reader->VerifyChecksum(rocksdb::ReadOptions());
  if (!s.ok()) return sst_rocks_error(stream, "sst checksum verification failed", s);
  if (stream.progress() && !stream.path().empty()) stream.progress()->add_bytes(stream.size());
  return Status::OK();
}

Result<SstFile> SstFile::open(const StateStream& stream) {
  SstFile f;
  f.stream_ = stream;
  f.rep_ = std::make_unique<Rep>();
  Rep& rep = *f.rep_;
  CKPT_RETURN_IF_ERROR(open_reader(stream, rep.options, rep.mem_env, rep.reader));
  auto props = rep.reader->GetTableProperties();
  if (!props) return stream.stamp(Error(ErrorCode::kCorruption, "sst file without table properties"));
  f.column_family_ = props->column_family_name;
  f.num_entries_ = props->num_entries;
  f.num_range_deletions_ = props->num_range_deletions;
  std::unique_ptr<rocksdb::Iterator> it(rep.reader->NewIterator(rocksdb::ReadOptions()));
  it->SeekToFirst();
  if (it->Valid()) f.first_key_ = it->key().ToString();
  // SeekToLast clears the status: a damaged first block would pass as a table whose keys start
  // at "" (and send its state through the instance reader).
  if (!it->status().ok()) return sst_rocks_error(stream, "rocksdb cannot read the sst file", it->status());
  it->SeekToLast();
  if (it->Valid()) f.last_key_ = it->key().ToString();
  if (!it->status().ok()) return sst_rocks_error(stream, "rocksdb cannot read the sst file", it->status());
  return f;
}

Status SstFile::for_each(const std::function<Status(std::string_view, std::string_view)>& fn, std::string_view lower,
                         std::string_view upper) const {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  // A bounded scan is a lookup: read-ahead would fetch megabytes past the blocks it needs.
  ro.readahead_size = lower.empty() && upper.empty() ? kScanReadahead : 0;
  rocksdb::Slice upper_slice(upper.data(), upper.size());
  if (!upper.empty()) ro.iterate_upper_bound = &upper_slice;
  const uint64_t read_before = rocksdb::get_iostats_context()->bytes_read;
  std::unique_ptr<rocksdb::Iterator> it(rep_->reader->NewIterator(ro));
  if (lower.empty())
    it->SeekToFirst();
  else
    it->Seek(rocksdb::Slice(lower.data(), lower.size()));
  for (; it->Valid(); it->Next()) {
    rocksdb::Slice k = it->key();
    rocksdb::Slice v = it->value();
    CKPT_RETURN_IF_ERROR(fn(std::string_view(k.data(), k.size()), std::string_view(v.data(), v.size())));
  }
  if (!it->status().ok()) return sst_rocks_error(stream_, "rocksdb cannot read the sst file", it->status());
  // RocksDB read the file in place, past StateStream::read's count: a whole-file scan counts the
  // file, a bounded one (a lookup's seek, a key-group range) the bytes RocksDB read for it, so
  // the counters show what a lookup cost.
  if (stream_.progress() && !stream_.path().empty()) {
    const bool whole = lower.empty() && upper.empty();
    const uint64_t read = rocksdb::get_iostats_context()->bytes_read - read_before;
    stream_.progress()->add_bytes(whole ? stream_.size() : std::min<uint64_t>(read, stream_.size()));
  }
  return Status::OK();
}

Status SstFile::for_each_in(const std::function<Status(std::string_view, std::string_view)>& fn,
                            const std::vector<std::pair<std::string, std::string>>& ranges) const {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  ro.readahead_size = 0;  // seeks: read-ahead would fetch past the blocks they need
  const uint64_t read_before = rocksdb::get_iostats_context()->bytes_read;
  std::unique_ptr<rocksdb::Iterator> it(rep_->reader->NewIterator(ro));
  for (const auto& [lower, upper] : ranges) {
    it->Seek(rocksdb::Slice(lower));
    for (; it->Valid(); it->Next()) {
      rocksdb::Slice k = it->key();
      const std::string_view key(k.data(), k.size());
      if (!upper.empty() && key >= upper) break;  // empty: to the end
      rocksdb::Slice v = it->value();
      CKPT_RETURN_IF_ERROR(fn(key, std::string_view(v.data(), v.size())));
    }
    if (!it->status().ok()) return sst_rocks_error(stream_, "rocksdb cannot read the sst file", it->status());
  }
  if (stream_.progress() && !stream_.path().empty()) {
    const uint64_t read = rocksdb::get_iostats_context()->bytes_read - read_before;
    stream_.progress()->add_bytes(std::min<uint64_t>(read, stream_.size()));
  }
  return Status::OK();
}

struct SstFile::Cursor::Rep {
  std::unique_ptr<rocksdb::Iterator> it;
  const StateStream* stream = nullptr;
};

SstFile::Cursor::Cursor(Cursor&&) noexcept = default;
SstFile::Cursor::~Cursor() = default;

bool SstFile::Cursor::valid() const { return rep_->it->Valid(); }

std::string_view SstFile::Cursor::key() const {
  rocksdb::Slice k = rep_->it->key();
  return std::string_view(k.data(), k.size());
}

std::string_view SstFile::Cursor::value() const {
  rocksdb::Slice v = rep_->it->value();
  return std::string_view(v.data(), v.size());
}

void SstFile::Cursor::next() {
  rep_->it->Next();
  // The whole file read: counted as for_each() counts a whole-file scan.
  const StateStream& stream = *rep_->stream;
  if (!rep_->it->Valid() && rep_->it->status().ok() && stream.progress() && !stream.path().empty())
    stream.progress()->add_bytes(stream.size());
}

Status SstFile::Cursor::status() const {
  if (rep_->it->status().ok()) return Status::OK();
  return sst_rocks_error(*rep_->stream, "rocksdb cannot read the sst file", rep_->it->status());
}

SstFile::Cursor SstFile::cursor() const {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  ro.readahead_size = kScanReadahead;
  Cursor c;
  c.rep_ = std::make_unique<Cursor::Rep>();
  c.rep_->it.reset(rep_->reader->NewIterator(ro));
  c.rep_->stream = &stream_;
  c.rep_->it->SeekToFirst();
  return c;
}

}  // namespace ckpt
