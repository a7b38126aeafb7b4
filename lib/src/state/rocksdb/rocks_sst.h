// state/rocksdb/rocks_sst.h - one SST file of a RocksDB snapshot, read through RocksDB itself.
//
// rocksdb::SstFileReader iterates a file the way a DB iterator would: deletes hide entries and
// merge operands are combined by the merge operator. Flink creates every column family with
// RocksDB's StringAppendTESTOperator (delimiter ','), so a list state's base value and its
// appended operands come out joined exactly as Flink's restore would see them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "state/state_stream.h"

namespace rocksdb {
class MergeOperator;
}

namespace ckpt {

// RocksDB's StringAppendTESTOperator, the merge operator Flink registers on every column
// family; kNotSupported if this RocksDB build lacks it.
Result<std::shared_ptr<rocksdb::MergeOperator>> flink_merge_operator();

// A RocksDB table file's name (`000042.sst`): what a native handle's shared or private file
// list holds beside MANIFEST, CURRENT, OPTIONS and log files.
bool is_sst_name(std::string_view name);

// Readahead for whole-file scans: without it RocksDB reads block by block (one pread of a few
// KiB each), which made reading a native snapshot cost more than converting it; 2 MiB per open
// scan keeps memory bounded and the reads few.
constexpr size_t kScanReadahead = size_t{2} << 20;

class SstFile {
 public:
  // Opens the SST behind `stream`: in place if it is a plain file, else from memory (inline
  // bytes in `_metadata`, a segment of a merged file).
  static Result<SstFile> open(const StateStream& stream);
  SstFile(SstFile&&) noexcept;
  SstFile& operator=(SstFile&&) noexcept;
  ~SstFile();

  // The table property "column family name": the Flink state the file belongs to.
  const std::string& column_family() const { return column_family_; }
  uint64_t num_entries() const { return num_entries_; }
  // The first and last live keys (both empty if the file holds none).
  const std::string& first_key() const { return first_key_; }
  const std::string& last_key() const { return last_key_; }
  const std::string& file() const { return stream_.file(); }
  const StateStream& stream() const { return stream_; }
  // Range tombstones (DeleteRange) the table holds: they may hide keys of other files, which
  // first_key() and last_key() (live point keys) do not bound.
  uint64_t num_range_deletions() const { return num_range_deletions_; }

  // A whole-file scan of every live key in key order, one entry at a time, for merging the
  // scans of several files: read ahead as for_each() reads a whole file, every block's checksum
  // verified. The file must outlive it.
  class Cursor {
   public:
    Cursor(Cursor&&) noexcept;
    ~Cursor();
    bool valid() const;
    std::string_view key() const;
    std::string_view value() const;
    void next();
    // Once !valid(): the error of a block that did not read (a scan ends there too), naming
    // the file and the offset in it.
    Status status() const;

   private:
    friend class SstFile;
    Cursor() = default;
    struct Rep;
    std::unique_ptr<Rep> rep_;
  };
  Cursor cursor() const;

  // RocksDB's own check of every block's checksum (SstFileReader::VerifyChecksum), without
  // decoding entries. Errors: "rocksdb cannot open the sst file: ..." when the file does not
  // open, "sst checksum verification failed: ..." when a block's checksum is wrong.
  static Status verify_checksum(const StateStream& stream);

  // Calls `fn(key, value)` for every live key in key order, from `lower` (inclusive) up to
  // `upper` (exclusive; empty: to the end), so a key-group range reads only its blocks; `fn`'s
  // error stops the scan.
  Status for_each(const std::function<Status(std::string_view key, std::string_view value)>& fn,
                  std::string_view lower = {}, std::string_view upper = {}) const;
  // for_each() over each [lower, upper) of `ranges` (sorted, non-empty bounds) in turn, through
  // one iterator: a lookup of many keys reads the index once and each data block it needs
  // once, where an iterator per key read them again for each.
  Status for_each_in(const std::function<Status(std::string_view key, std::string_view value)>& fn,
                     const std::vector<std::pair<std::string, std::string>>& ranges) const;

 private:
  SstFile() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
  std::string column_family_;
  StateStream stream_;  // names the file and offsets in errors
  uint64_t num_entries_ = 0;
  uint64_t num_range_deletions_ = 0;
  std::string first_key_;
  std::string last_key_;
};

}  // namespace ckpt
