// state/rocksdb/rocks_instance_writer.h - one RocksDB instance in Flink's layout, built with RocksDB's API.
//
// What Flink's RocksDB keyed backend holds for one subtask (formats/keyed-state.md §10, §11): a
// column family per registered state, named after the state, each created with Flink's merge
// operator ("stringappendtest", RocksDB's StringAppendTESTOperator with delimiter ','), the
// bytewise comparator, an unused "default" family, and keys in Flink's layout (key-group
// prefix, key, namespace, user key). The writer takes each state's pairs in ascending key
// order, streams them into SstFileWriters, one open per family and closed at Flink's target file
// size (memory does not grow with the state),
// into a DB opened on a scratch directory with every family, ingests them and closes the DB:
// the output directory holds exactly what an uploaded native snapshot
// holds (NNNNNN.sst, MANIFEST-NNNNNN, CURRENT, OPTIONS-NNNNNN) and opens with `ldb`.
//
// Usage (`ckpt convert`, `ckpt generate`, `ckpt restore`):
//   auto w = RocksInstanceWriter::create(scratch_dir, {"state-a", "state-b"});
//   w->add(0, key, value) ... (per family: keys strictly ascending; families interleave freely)
//   auto files = w->finish(instance_dir);   // instance_dir must not exist yet
// List values are written as one Put of the ','-joined elements, as Flink's full restore does.
// The keyed proxy (the native handle's meta data stream) is not written here: callers encode
// it with write_keyed_backend_meta().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"

namespace ckpt {

// A file of a finished instance, by its RocksDB name.
struct RocksInstanceFile {
  std::string name;  // "000012.sst", "MANIFEST-000005", "CURRENT", "OPTIONS-000007"
  uint64_t size = 0;
  bool is_sst() const;
};

struct RocksInstanceFiles {
  std::vector<RocksInstanceFile> files;  // sorted by name
  uint64_t entries = 0;                  // pairs added
};

// The default of Flink's state.backend.rocksdb.compaction.level.target-file-size-base (64 MB):
// the size of the SST files its RocksDB backend compacts into.
inline constexpr uint64_t kRocksTargetFileBytes = 64ull << 20;

class RocksInstanceWriter {
 public:
  // `scratch_dir` (created; removed by finish() and by the destructor; on the same file system
  // as the instance, which finish() renames out of it) holds the SST files
  // being written and the DB they are ingested into. `column_families` are the state names in
  // proxy order; add() addresses them by index.
  // With `deferred_sync`, RocksDB's own fsyncs (each SST, MANIFEST, CURRENT, directory: some
  // thirty per instance) are skipped and the caller syncs the finished output once, before the
  // rename that publishes it (TempDir::commit syncs the tree); otherwise every file is synced as written.
  // A family's SST file is closed once it reaches `target_file_bytes` and the next pair opens
  // another (non-overlapping, ingested together): SstFileWriter keeps a file's index and filter
  // in memory until it finishes, so bounded files keep memory independent of the state's size.
  static Result<std::unique_ptr<RocksInstanceWriter>> create(const std::string& scratch_dir,
                                                             std::vector<std::string> column_families,
                                                             bool deferred_sync = false,
                                                             uint64_t target_file_bytes = kRocksTargetFileBytes);
  ~RocksInstanceWriter();

  // One pair of family `cf`; keys of a family must be strictly ascending (bytewise). Calls for
  // different families may come from different threads at once (each family has its own
  // SstFileWriter), never two for one family.
  Status add(size_t cf, std::string_view key, std::string_view value);
  // The same in one of a family's lanes (below kMostLanes), each written into files of its own:
  // keys must ascend within a lane, and the key ranges of a family's lanes must never overlap
  // (the files are ingested together). A writer whose input comes as several interleaved
  // ascending runs (edit's regrouping: each input key group feeds one output key group of each
  // lane) writes them without sorting them into one. add() is lane 0.
  static constexpr size_t kMostLanes = 1024;
  Status add_to_lane(size_t cf, size_t lane, std::string_view key, std::string_view value);
  // The write buffer of each SST file (RocksDB's default: up to 1 MiB), for a writer with many
  // files open at once.
  void set_file_buffer_bytes(size_t bytes);
  // Ingest everything and write the instance to `instance_dir` (which must not exist).
  Result<RocksInstanceFiles> finish(const std::string& instance_dir);

 private:
  RocksInstanceWriter() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// A RocksDB instance kept open across snapshots (`ckpt generate --chain`), in the same layout:
// a key range of a family is replaced by one new SST file (the files wholly inside the range
// are dropped first, as a compaction replaces its inputs), and checkpoint() takes a RocksDB
// Checkpoint (hard links for SSTs, copies of MANIFEST, CURRENT, OPTIONS), which is what Flink
// uploads for an incremental checkpoint. SST file numbers grow, so a file name that appears in
// two checkpoints is the same file.
class RocksLiveInstance {
 public:
  static Result<std::unique_ptr<RocksLiveInstance>> open(const std::string& dir,
                                                         std::vector<std::string> column_families);
  ~RocksLiveInstance();
  // `sorted`: strictly ascending keys inside [begin, end); may be empty (the range is cleared).
  Status replace_range(size_t cf, const std::string& begin, const std::string& end,
                       const std::vector<std::pair<std::string, std::string>>& sorted);
  // A consistent copy of the instance in `dir` (which must not exist).
  Result<RocksInstanceFiles> checkpoint(const std::string& dir);

 private:
  RocksLiveInstance() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// The files of an instance directory as a native snapshot lists them (SSTs, MANIFEST, CURRENT,
// OPTIONS; logs, LOCK, IDENTITY and the like are left out), sorted by name.
Result<RocksInstanceFiles> list_instance_files(const std::string& instance_dir);

}  // namespace ckpt
