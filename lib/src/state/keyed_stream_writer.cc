// Heap and canonical keyed streams written from RocksDB-layout pairs.
#include "state/keyed_stream_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <stdio.h>

#include <fmt/format.h>

#include "state/heap/canonical_stream.h"
#include "support/byte_writer.h"

namespace ckpt {

Result<std::unique_ptr<KeyedStreamWriter>> KeyedStreamWriter::create(const std::string& path, KeyGroupsLayout layout,
                                                                     KeyedBackendMeta meta, KeyGroupRange range,
                                                                     int32_t max_parallelism) {
  // The offsets are a table over the range: a range the job cannot have is refused before
  // the table is sized by it.
  if (range.count < 0 || (range.count > 0 && (range.first < 0 || int64_t{range.first} + range.count > max_parallelism)))
    return Error(ErrorCode::kCorruption, fmt::format("key-group range {}+{} does not fit the job's key groups 0-{}",
                                                     range.first, range.count, max_parallelism - 1));
  std::unique_ptr<KeyedStreamWriter> w(new KeyedStreamWriter());
  w->path_ = path;
  w->layout_ = layout;
  // A legacy proxy is copied as read, its compression flag too; this writer does not compress.
  if (!meta.legacy_bytes.empty() && meta.compression)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("a compressed keyed backend proxy of version {} (Flink 1.5-1.6) is read but not written",
                             meta.version));
  meta.compression = false;
  w->meta_ = std::move(meta);
  w->range_ = range;
  w->next_ = range.first;
  w->offsets_.assign(static_cast<size_t>(std::max(range.count, 0)), 0);
  w->named_.assign(w->offsets_.size(), false);
  if (layout == KeyGroupsLayout::kHeap) {
    // A legacy proxy is copied as it was read, and version 1 announces Flink 1.2's blocks
    // (formats/keyed-state.md §6.2), which this writer does not lay out.
    if (w->meta_.version == 1)
      return Error(ErrorCode::kNotSupported,
                   "Flink 1.2's heap key-group layout (keyed backend proxy version 1) is read but not written: "
                   "convert to rocksdb or canonical");
    CKPT_ASSIGN_OR_RETURN(w->key_decoder_, make_decoder(w->meta_.key_serializer));
    for (const StateMetaInfo& info : w->meta_.states) {
      CKPT_ASSIGN_OR_RETURN(auto t, StateTranscoder::make(info, *w->key_decoder_, max_parallelism));
      w->transcoders_.push_back(std::move(t));
    }
  }
  CKPT_ASSIGN_OR_RETURN(std::string proxy, write_keyed_backend_meta(w->meta_));
  w->file_ = std::fopen(path.c_str(), "wbx");
  if (!w->file_) {
    Error e(ErrorCode::kIOError, fmt::format("cannot create: {}", std::strerror(errno)));
    e.file = path;
    return e;
  }
  CKPT_RETURN_IF_ERROR(w->write(proxy));
  return w;
}

KeyedStreamWriter::~KeyedStreamWriter() {
  if (file_) std::fclose(file_);
}

Status KeyedStreamWriter::write(const std::string& bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    Error e(ErrorCode::kIOError, fmt::format("write failed: {}", std::strerror(errno)));
    e.file = path_;
    return e;
  }
  written_ += bytes.size();
  // Writeback started every few MiB, as RocksDB's bytes_per_sync does for its files: otherwise
  // the whole stream is still dirty when the caller's sync before publishing waits for it, and
  // the kernel throttles this writer meanwhile. Only a hint: durability is that final sync's.
  if (written_ - writeback_started_ >= kWritebackBytes && std::fflush(file_) == 0) {
#ifdef __linux__
    (void)::sync_file_range(::fileno(file_), static_cast<off64_t>(writeback_started_),
                            static_cast<off64_t>(written_ - writeback_started_), SYNC_FILE_RANGE_WRITE);
#endif
    writeback_started_ = written_;
  }
  return Status::OK();
}

Status KeyedStreamWriter::heap_block(int32_t kg, std::vector<std::vector<RocksPair>>* by_state) {
  offsets_[kg - range_.first] = static_cast<int64_t>(written_);
  ByteWriter& w = block_;
  w.buffer().clear();
  w.i32(kg);
  const bool ordered = state_order_.size() == meta_.states.size();
  for (size_t i = 0; i < meta_.states.size(); ++i) {
    const size_t id = ordered ? state_order_[i] : i;
    w.i16(static_cast<int16_t>(id));
    size_t count_at = w.size();
    w.i32(0);
    if (!by_state || (*by_state)[id].empty()) continue;
    auto& pairs = (*by_state)[id];
    if (!keep_order_ && !std::is_sorted(pairs.begin(), pairs.end())) std::sort(pairs.begin(), pairs.end());
    std::vector<const RocksPair*> sorted;
    sorted.reserve(pairs.size());
    for (const RocksPair& p : pairs) sorted.push_back(&p);
    CKPT_ASSIGN_OR_RETURN(int32_t n, transcoders_[id]->rocks_to_heap(sorted, w));
    std::string& buf = w.buffer();
    for (int i = 0; i < 4; ++i) buf[count_at + i] = static_cast<char>((static_cast<uint32_t>(n) >> (24 - 8 * i)) & 0xff);
  }
  return write(w.buffer());
}

Status KeyedStreamWriter::key_group(int32_t kg, std::vector<std::vector<RocksPair>>& by_state) {
  if (!range_.contains(kg) || (any_order_ ? bool(named_[static_cast<size_t>(kg - range_.first)]) : kg < next_))
    return Error(ErrorCode::kInvalidArgument, fmt::format("key group {} out of order, repeated or outside {}..{}", kg,
                                                          range_.first, range_.last()));
  if (by_state.size() != meta_.states.size())
    return Error(ErrorCode::kInvalidArgument, "pairs for a different number of states than the proxy names");
  if (any_order_) named_[static_cast<size_t>(kg - range_.first)] = true;
  if (layout_ == KeyGroupsLayout::kHeap) {
    if (any_order_) return heap_block(kg, &by_state);
    for (; next_ < kg; ++next_) CKPT_RETURN_IF_ERROR(heap_block(next_, nullptr));
    next_ = kg + 1;
    return heap_block(kg, &by_state);
  }
  next_ = kg + 1;
  // Canonical: states by ascending id, pairs by key, the last pair of each run flagged.
  std::vector<size_t> ids;
  const bool ordered = state_order_.size() == by_state.size();
  for (size_t i = 0; i < by_state.size(); ++i) {
    const size_t id = ordered ? state_order_[i] : i;
    if (!by_state[id].empty()) ids.push_back(id);
  }
  if (ids.empty()) return Status::OK();
  offsets_[kg - range_.first] = static_cast<int64_t>(written_);
  ByteWriter& w = block_;
  w.buffer().clear();
  w.u16(static_cast<uint16_t>(ids.front()));
  for (size_t i = 0; i < ids.size(); ++i) {
    auto& pairs = by_state[ids[i]];
    if (!keep_order_ && !std::is_sorted(pairs.begin(), pairs.end())) std::sort(pairs.begin(), pairs.end());
    for (size_t j = 0; j < pairs.size(); ++j) {
      const bool last = j + 1 == pairs.size();
      const std::string& key = pairs[j].key;
      w.i32(static_cast<int32_t>(key.size()));
      const size_t key_at = w.size();
      w.bytes(key);
      // The flag goes on the written copy: a copy of every key just for the last one's flag
      // cost an allocation per pair.
      if (last && !key.empty()) w.buffer()[key_at] = static_cast<char>(static_cast<uint8_t>(key[0]) | kMetaDataFollowsFlag);
      w.i32(static_cast<int32_t>(pairs[j].value.size()));
      w.bytes(pairs[j].value);
      if (last) w.u16(i + 1 == ids.size() ? kEndOfKeyGroupMark : static_cast<uint16_t>(ids[i + 1]));
    }
  }
  return write(w.buffer());
}

Status KeyedStreamWriter::finish() {
  if (layout_ == KeyGroupsLayout::kHeap && any_order_) {
    for (int32_t kg = range_.first; kg < range_.first + range_.count; ++kg)
      if (!named_[static_cast<size_t>(kg - range_.first)]) CKPT_RETURN_IF_ERROR(heap_block(kg, nullptr));
  } else if (layout_ == KeyGroupsLayout::kHeap) {
    for (; next_ <= range_.last(); ++next_) CKPT_RETURN_IF_ERROR(heap_block(next_, nullptr));
  }
  std::FILE* f = file_;
  file_ = nullptr;
  // Closed whatever the flush says; the first failure's errno (a full disk shows here) reported.
  int err = std::fflush(f) == 0 ? 0 : errno;
  if (std::fclose(f) != 0 && err == 0) err = errno;
  if (err != 0) {
    Error e(ErrorCode::kIOError, fmt::format("write failed: {}", std::strerror(err)));
    e.file = path_;
    return e;
  }
  return Status::OK();
}

}  // namespace ckpt
