// One RocksDB instance per subtask: place the handle's files, clip if asked, open and read back.
#include "ops/restore/restore_instance.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include "ckpt/io.h"
#include "format/local_names.h"
#include "state/backend_meta.h"
#include "state/keyed_state_codec.h"
#include "state/layout_transcoder.h"
#include "state/rocksdb/incremental_reader.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "state/rocksdb/rocks_options_file.h"
#include "state/rocksdb/rocks_sst.h"
#include "state/stream_opener.h"
#include "support/byte_reader.h"
#include "support/io_internal.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kCopyChunk = uint64_t{8} << 20;

Error restore_rocks_error(const std::string& dir, const char* what, const rocksdb::Status& s) {
  Error e(s.IsIOError() ? ErrorCode::kIOError : ErrorCode::kCorruption, fmt::format("{}: {}", what, s.ToString()));
  e.file = dir;
  return e;
}

// Streams [0, size) of `stream` into a new file at `dst`, in bounded chunks.
Status copy_stream_to_file(const StateStream& stream, const std::string& dst) {
  int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // less the umask
  if (fd < 0) return io_error(dst, "cannot create file", errno);
  std::string chunk;
  Status status;
  for (uint64_t at = 0; at < stream.size() && status.ok(); at += chunk.size()) {
    status = stream.read(at, std::min(kCopyChunk, stream.size() - at), &chunk);
    if (!status.ok()) break;
    for (size_t done = 0; done < chunk.size();) {
      ssize_t n = ::write(fd, chunk.data() + done, chunk.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = io_error(dst, "cannot write", errno);
        break;
      }
      done += static_cast<size_t>(n);
    }
  }
  if (::close(fd) != 0 && status.ok()) status = io_error(dst, "cannot close", errno);
  return status;
}

// One file of the handle under its RocksDB name. SSTs are immutable, so linking them is safe;
// MANIFEST, CURRENT and OPTIONS are always copied because opening the instance rewrites them.
Status place_file(const NamedStream& f, const std::string& dir, bool link, const StreamOpener& streams,
                  RestoredInstance& out) {
  if (Status plain = check_local_file_name(f.name); !plain.ok()) return streams.in_metadata(std::move(plain).error());
  CKPT_ASSIGN_OR_RETURN(StateStream stream, streams.open(f.handle));
  const std::string dst = dir + "/" + f.name;
  ++out.files;
  out.bytes += stream.size();
  bool whole_file = !stream.path().empty() && stream.base() == 0;
  std::string path = stream.path();
  if (whole_file) {
    CKPT_ASSIGN_OR_RETURN(path, stream.local_file());
  }
  if (whole_file && link && is_sst_name(f.name) && ::link(path.c_str(), dst.c_str()) == 0) {
    ++out.linked_files;
    if (Progress* p = streams.progress()) p->add_bytes(stream.size());
    return Status::OK();
  }
  if (whole_file) {
    // Copied by the kernel, past StateStream::read's count.
    CKPT_RETURN_IF_ERROR(copy_file_contents(path, dst));
    if (Progress* p = streams.progress()) p->add_bytes(stream.size());
    return Status::OK();
  }
  return copy_stream_to_file(stream, dst);
}

// The key-group prefix of `kg`, big-endian, as Flink writes it in front of every key.
std::string key_group_prefix(int32_t kg, int bytes) {
  std::string p;
  append_key_group_prefix(p, kg, bytes);
  return p;
}

// The state names of the meta data stream, in its order.
Result<std::vector<std::string>> meta_state_names(const KeyedHandle& h, const StreamOpener& streams) {
  CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta meta, read_meta_data_stream(h.delegate, streams));
  std::vector<std::string> names;
  for (const StateMetaInfo& s : meta.states) names.push_back(s.name);
  return names;
}

// Deletes every key outside `keep` and compacts, as Flink clips an instance on rescaling.
Status clip(const std::string& dir, KeyGroupRange keep, int32_t max_parallelism) {
  FlinkInstance d;
  CKPT_RETURN_IF_ERROR(open_flink_instance(dir, false, d));
  int bytes = key_group_prefix_bytes(max_parallelism);
  for (size_t i = 0; i < d.handles.size(); ++i) {
    if (d.names[i] == rocksdb::kDefaultColumnFamilyName) continue;
    rocksdb::Status s;
    if (keep.first > 0) s = d.db->DeleteRange(rocksdb::WriteOptions(), d.handles[i], "", key_group_prefix(keep.first, bytes));
    if (s.ok() && keep.last() + 1 < max_parallelism)
      s = d.db->DeleteRange(rocksdb::WriteOptions(), d.handles[i], key_group_prefix(keep.last() + 1, bytes),
                            key_group_prefix(max_parallelism, bytes));
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    if (s.ok()) s = d.db->CompactRange(cro, d.handles[i], nullptr, nullptr);
    if (!s.ok()) return restore_rocks_error(dir, "rocksdb cannot clip the instance to its key groups", s);
  }
  Status closed = d.close();
  if (!closed.ok()) return std::move(closed).error().with_file(dir);
  return Status::OK();
}

// A live key outside the kept key groups: left by clipping, or a snapshot whose SSTs hold key
// groups its handle does not (which Flink's restore would serve as this subtask's).
Error unclipped(const std::string& dir, const std::string& cf, rocksdb::Slice key, int prefix_bytes,
                const InstanceJob& job) {
  int32_t kg = key_group_of_rocks_key(std::string_view(key.data(), key.size()), prefix_bytes);
  Error e(ErrorCode::kCorruption,
          job.clip ? fmt::format("column family '{}' still holds key group {} after clipping to {}-{}", cf, kg,
                                 job.keep.first, job.keep.last())
                   : fmt::format("column family '{}' holds key group {}, outside the subtask's key groups {}-{}", cf,
                                 kg, job.keep.first, job.keep.last()));
  e.file = dir;
  return e;
}

// Opens the instance read-only, as RocksDB (and ldb) will: every column family with Flink's
// merge operator, every table file present with its size (RocksDB checks both on open), its
// properties and first and last keys read. A full check reads every entry with checksums
// verified; the default costs a few reads per file, so that restoring stays proportional to
// the number of files in link mode (`ckpt verify --deep` checksums the snapshot's SSTs).
Status check(const std::string& dir, const InstanceJob& job, const std::vector<std::string>& states,
             RestoredInstance& out) {
  FlinkInstance d;
  CKPT_RETURN_IF_ERROR(open_flink_instance(dir, true, d));
  const int bytes = key_group_prefix_bytes(job.op->max_parallelism);
  for (size_t i = 0; i < d.handles.size(); ++i) {
    const std::string& name = d.names[i];
    if (name == rocksdb::kDefaultColumnFamilyName) continue;
    if (std::find(states.begin(), states.end(), name) == states.end()) {
      Error e(ErrorCode::kCorruption, fmt::format("column family '{}' is not a state of the meta data stream", name));
      e.file = dir;
      return e;
    }
    rocksdb::ReadOptions ro;
    ro.verify_checksums = true;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(d.db->NewIterator(ro, d.handles[i]));
    auto in_range = [&](rocksdb::Slice k) {
      return job.keep.contains(key_group_of_rocks_key(std::string_view(k.data(), k.size()), bytes));
    };
    if (job.full_check) {
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        ++out.entries;
        if (!in_range(it->key())) return unclipped(dir, name, it->key(), bytes, job);
      }
    } else {
      rocksdb::TablePropertiesCollection tables;
      rocksdb::Status s = d.db->GetPropertiesOfAllTables(d.handles[i], &tables);
      if (!s.ok()) return restore_rocks_error(dir, "rocksdb cannot read the table properties", s);
      for (const auto& [file, p] : tables) out.entries += p->num_entries - p->num_deletions;
      // Keys sort by key group: the first and the last bound them all.
      for (bool last : {false, true}) {
        if (last) it->SeekToLast();
        else it->SeekToFirst();
        if (it->Valid() && !in_range(it->key())) return unclipped(dir, name, it->key(), bytes, job);
      }
    }
    if (!it->status().ok()) return restore_rocks_error(dir, "rocksdb cannot read the instance", it->status());
  }
  for (const std::string& s : states)
    if (std::find(d.names.begin(), d.names.end(), s) != d.names.end()) out.column_families.push_back(s);
  return Status::OK();
}

}  // namespace

Result<RestoredInstance> restore_instance(const InstanceJob& job, const ResolvedPaths& paths,
                                          const std::string& metadata_file) {
  RestoredInstance out;
  out.operator_id = operator_id_hex(job.op->id);
  out.subtask = job.subtask->index;
  out.key_groups = job.keep;
  StreamOpener streams(
      [&paths](uint8_t, const std::string& uri) -> std::optional<std::string> {
        auto it = paths.find(uri);
        if (it == paths.end()) return std::nullopt;
        return it->second;
      },
      metadata_file);
  streams.set_progress(job.progress);
  std::vector<std::string> states;
  if (job.handle->type == handle_type::kIncremental || job.handle->type == handle_type::kIncrementalV1) {
    std::error_code ec;
    fs::create_directories(job.directory, ec);
    if (ec) return io_error(job.directory, "cannot create directory", ec.value());
    for (const auto* list : {&job.handle->shared_files, &job.handle->private_files})
      for (const NamedStream& f : *list)
        CKPT_RETURN_IF_ERROR(place_file(f, job.directory, job.link, streams, out));
    CKPT_ASSIGN_OR_RETURN(states, meta_state_names(*job.handle, streams));
    if (job.clip) CKPT_RETURN_IF_ERROR(clip(job.directory, job.keep, job.op->max_parallelism));
  } else {
    CKPT_RETURN_IF_ERROR(build_instance(job, streams, out, &states));
  }
  CKPT_RETURN_IF_ERROR(check(job.directory, job, states, out));
  // Last: opening the instance (clip, check) may write an OPTIONS file of its own.
  CKPT_RETURN_IF_ERROR(make_options_files_portable(job.directory));
  return out;
}

}  // namespace ckpt
