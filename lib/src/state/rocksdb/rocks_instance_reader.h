// state/rocksdb/rocks_instance_reader.h - a native handle's files opened as a read-only RocksDB instance.
//
// When several SSTs of one column family overlap (Flink's L0 files, a partly compacted
// instance), only the instance's MANIFEST says which entry is newest; per-file iterators
// would show deleted and overwritten values. This reads the handle the way Flink's restore
// does: its files placed in a temporary directory (hard or symbolic links to whole files, inline
// and segment files written out) and the instance opened with Flink's merge operator.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/stream_opener.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace ckpt {

// An instance directory opened with every column family it lists, each with Flink's merge
// operator and a small block cache (scans do not fill it), as `ldb` and Flink's restore open it.
struct FlinkInstance {
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // parallel to `names`
  std::vector<std::string> names;
  FlinkInstance();
  FlinkInstance(FlinkInstance&&) noexcept;
  ~FlinkInstance();
  // Column family handles go before the DB; error "rocksdb cannot close the instance: ...".
  Status close();
};

// Errors (file: `dir`): "rocksdb cannot list the column families: ...",
// "rocksdb cannot open the instance: ...".
Status open_flink_instance(const std::string& dir, bool read_only, FlinkInstance& out);

class RocksInstanceReader {
 public:
  // Places the handle's files in a directory under TMPDIR and opens every column family
  // read-only; every SST is first checked whole (SstFile::verify_checksum), as RocksDB's own
  // scans of an instance may end early at a bad block without an error. Errors: "rocksdb file name '...' is not a plain file name" (naming `_metadata`),
  // "rocksdb cannot open the instance: ...". Errors of RocksDB about one of the files name
  // that file of the snapshot (and the offset RocksDB gives), the others its meta data stream.
  static Result<std::unique_ptr<RocksInstanceReader>> open(const KeyedHandle& handle, const StreamOpener& streams);
  ~RocksInstanceReader();  // closes the instance and removes the temporary directory

  const std::vector<std::string>& column_families() const;

  // Calls `fn(key, value)` for every live key of column family `cf` in key order (nothing if
  // the instance has no such column family), from `lower` up to `upper` (exclusive; empty: to
  // the end) as SstFile::for_each; `fn`'s error stops the scan.
  Status for_each(const std::string& cf, const std::function<Status(std::string_view key, std::string_view value)>& fn,
                  std::string_view lower = {}, std::string_view upper = {}) const;

  // Flink's keys open with their key group (`prefix_bytes` big endian), so one iterator per
  // column family, read up to the next key group, merges the families key group by key group:
  // `fn(key_group, i, key, value)` for the entries of `families[i]` inside `range`, ascending by
  // key group, then by i, then by key. Memory does not grow with the instance. Entries outside
  // `range` are skipped; a key shorter than its prefix is an error. With the opener's Progress,
  // the bytes of the files placed by a link count as the scan passes through `range`.
  using KeyGroupEntryFn = std::function<Status(int32_t key_group, size_t family, std::string_view key,
                                               std::string_view value)>;
  Status for_each_by_key_group(const std::vector<std::string>& families, KeyGroupRange range, int prefix_bytes,
                               const KeyGroupEntryFn& fn) const;

  // `e`, found at e.offset within `key` of column family `cf` after the scan merged the
  // family's files, as the error of the SST file holding the key. RocksDB does not say where in
  // a file a key lies: the offset within the key moves into the message.
  Error blame_key(const std::string& cf, std::string_view key, Error e) const;

 private:
  RocksInstanceReader() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace ckpt
