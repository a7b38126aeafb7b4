// Keyed handles written in the RocksDB, heap or canonical layout from RocksDB-layout pairs.
#include "ops/rewrite/keyed_target.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "state/keyed_stream_writer.h"
#include "state/rocksdb/rocks_instance_writer.h"
#include "support/worker_threads.h"

namespace ckpt {

namespace fs = std::filesystem;

namespace {

StreamHandle relative_file(const std::string& name, uint64_t size) {
  return file_stream_handle(handle_type::kRelativeFile, name, size);
}

bool only_priority_queues(const KeyedBackendMeta& meta) {
  for (const StateMetaInfo& s : meta.states)
    if (s.kind() != StateKind::kPriorityQueue) return false;
  return true;
}

}  // namespace

// Native sources arrive in key order already, heap ones in their hash tables' order. A key
// repeated (which Flink's heap restore lets the later one win) is refused here as the writer
// refuses it.
Status sort_pairs(std::vector<RocksPair>& pairs, const std::string& family) {
  auto not_above = [](const RocksPair& a, const RocksPair& b) { return !(a.key < b.key); };
  if (std::adjacent_find(pairs.begin(), pairs.end(), not_above) == pairs.end()) return Status::OK();
  std::sort(pairs.begin(), pairs.end());
  if (std::adjacent_find(pairs.begin(), pairs.end(), not_above) != pairs.end())
    return Error(ErrorCode::kInvalidArgument, fmt::format("keys of column family '{}' out of order", family));
  return Status::OK();
}

namespace {

// KeyedTarget::parallel_families: a key group's families sorted and put on two threads at once,
// the caller's and a helper's, each taking the next family not yet taken, largest first (every
// family has its own SstFileWriter). The call returns once both threads are done, so the pairs
// stay the producer's and memory stays one key group; the error of the lowest family wins, as
// when the families are written one after the other.
class FamilyWriters {
 public:
  using WriteFn = std::function<Status(size_t id, std::vector<RocksPair>& pairs)>;
  explicit FamilyWriters(WriteFn write) : write_(std::move(write)), thread_([this] { run(); }) {}
  ~FamilyWriters() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      changed_.notify_all();
    }
    thread_.join();
  }
  FamilyWriters(const FamilyWriters&) = delete;
  FamilyWriters& operator=(const FamilyWriters&) = delete;

  Status key_group(std::vector<std::vector<RocksPair>>& by_state, const std::vector<uint64_t>& bytes) {
    order_.clear();
    for (size_t id = 0; id < by_state.size(); ++id)
      if (!by_state[id].empty()) order_.push_back(id);
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
    errors_.assign(by_state.size(), Status::OK());
    pairs_ = &by_state;
    next_ = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++generation_;
      helper_busy_ = true;
      changed_.notify_all();
    }
    work();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !helper_busy_; });
    }
    for (Status& e : errors_)
      if (!e.ok()) return std::move(e);
    return Status::OK();
  }

 private:
  void work() {
    for (size_t i; (i = next_.fetch_add(1)) < order_.size();) {
      const size_t id = order_[i];
      errors_[id] = catch_internal([&] { return write_(id, (*pairs_)[id]); });
    }
  }
  void run() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (generation_ == seen) return;  // stopping, nothing handed over
      seen = generation_;
      lock.unlock();
      work();
      lock.lock();
      helper_busy_ = false;
      changed_.notify_all();
    }
  }

  WriteFn write_;
  std::vector<size_t> order_;
  std::vector<Status> errors_;  // per family
  std::vector<std::vector<RocksPair>>* pairs_ = nullptr;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t generation_ = 0;
  bool helper_busy_ = false, stopping_ = false;
  std::thread thread_;  // last: started once everything above is built
};

Result<KeyedHandle> write_rocksdb(const KeyedTarget& t, const KeyedBackendMeta& meta, const PairsProducer& produce,
                                  KeyedTargetStats* stats) {
  const std::string base = rocks_instance_name(t.op_hex, t.subtask);
  std::vector<std::string> names;
  for (const StateMetaInfo& s : meta.states) names.push_back(s.name);
  CKPT_ASSIGN_OR_RETURN(auto writer, RocksInstanceWriter::create(t.out_dir + "/." + base + ".build", names,
                                                                 t.deferred_sync, t.sst_bytes));
  std::atomic<uint64_t> entries{0};
  auto write = [&](size_t id, std::vector<RocksPair>& pairs) -> Status {
    // (A family past the names is refused by add(), naming its index.)
    CKPT_RETURN_IF_ERROR(sort_pairs(pairs, id < names.size() ? names[id] : std::string()));
    for (const RocksPair& p : pairs) CKPT_RETURN_IF_ERROR(writer->add(id, p.key, p.value));
    entries += pairs.size();
    return Status::OK();
  };
  std::optional<FamilyWriters> families;
  if (t.parallel_families && meta.states.size() > 1) families.emplace(write);
  std::vector<uint64_t> bytes(meta.states.size());
  CKPT_RETURN_IF_ERROR(produce([&](int32_t, std::vector<std::vector<RocksPair>>& by_state) -> Status {
    if (families) {
      // Key groups too small to be worth a hand-over (two thread wake-ups) are written here.
      constexpr uint64_t kSplitBytes = 256 << 10;
      uint64_t total = 0;
      size_t filled = 0;
      bytes.resize(by_state.size());
      for (size_t id = 0; id < by_state.size(); ++id) {
        bytes[id] = 0;
        for (const RocksPair& p : by_state[id]) bytes[id] += p.key.size() + p.value.size();
        total += bytes[id];
        filled += !by_state[id].empty();
      }
      if (total >= kSplitBytes && filled > 1) return families->key_group(by_state, bytes);
    }
    for (size_t id = 0; id < by_state.size(); ++id) CKPT_RETURN_IF_ERROR(write(id, by_state[id]));
    return Status::OK();
  }));
  families.reset();
  CKPT_ASSIGN_OR_RETURN(RocksInstanceFiles files, writer->finish(t.out_dir + "/" + base));
  return rocks_instance_handle(t, meta, files, stats);
}

}  // namespace

std::string rocks_instance_name(const std::string& op_hex, int32_t subtask) {
  return fmt::format("rocksdb-{}-{}", op_hex, subtask);
}

Result<KeyedHandle> rocks_instance_handle(const KeyedTarget& t, const KeyedBackendMeta& meta,
                                          const RocksInstanceFiles& files, KeyedTargetStats* stats) {
  const std::string base = rocks_instance_name(t.op_hex, t.subtask);
  const uint64_t entries = files.entries;
  if (entries == 0 && only_priority_queues(meta)) {
    // Flink's RocksDB backend writes no keyed state for a subtask whose only states are
    // untouched timer queues (the heap backend lists them): neither do we.
    std::error_code ec;
    fs::remove_all(t.out_dir + "/" + base, ec);
    return KeyedHandle{};
  }
  CKPT_ASSIGN_OR_RETURN(std::string proxy, write_keyed_backend_meta(meta));
  const std::string meta_name = base + ".meta";
  CKPT_RETURN_IF_ERROR(write_file_atomic(t.out_dir + "/" + meta_name, proxy));
  KeyedHandle out;
  out.range = t.range;
  out.type = t.modern_types ? handle_type::kIncremental : handle_type::kIncrementalV1;
  out.delegate = relative_file(meta_name, proxy.size());
  out.checkpoint_id = t.checkpoint_id;
  out.backend_id = stable_uuid(t.op_hex, t.subtask, 'b');
  if (t.modern_types) out.handle_id = stable_uuid(t.op_hex, t.subtask, 'h');
  int64_t total = static_cast<int64_t>(proxy.size());
  for (const RocksInstanceFile& f : files.files) {
    // A native savepoint owns every file: all of them are private.
    out.private_files.push_back({f.name, relative_file(base + "/" + f.name, f.size)});
    total += static_cast<int64_t>(f.size);
  }
  out.checkpointed_size = t.modern_types ? total : -1;
  stats->entries += entries;
  stats->files += files.files.size() + 1;
  stats->bytes += static_cast<uint64_t>(total);
  return out;
}

namespace {

Result<KeyedHandle> write_stream(const KeyedTarget& t, const KeyedBackendMeta& meta, const PairsProducer& produce,
                                 KeyedTargetStats* stats) {
  const bool heap = t.to == ConvertTarget::kHeap;
  const std::string name = fmt::format("{}-{}-{}", heap ? "heap" : "canonical", t.op_hex, t.subtask);
  CKPT_ASSIGN_OR_RETURN(auto writer,
                        KeyedStreamWriter::create(t.out_dir + "/" + name,
                                                  heap ? KeyGroupsLayout::kHeap : KeyGroupsLayout::kCanonical, meta,
                                                  t.range, t.max_parallelism));
  if (t.keep_order) writer->keep_pair_order();
  if (!t.state_order.empty()) writer->set_state_order(t.state_order);
  uint64_t entries = 0;
  CKPT_RETURN_IF_ERROR(produce([&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
    for (const auto& pairs : by_state) entries += pairs.size();
    return writer->key_group(kg, by_state);
  }));
  CKPT_RETURN_IF_ERROR(writer->finish());
  stats->entries += entries;
  stats->files += 1;
  stats->bytes += writer->size();
  return key_groups_handle(t, name, writer->offsets(), writer->size());
}

}  // namespace

KeyedHandle key_groups_handle(const KeyedTarget& t, const std::string& name, std::vector<int64_t> offsets,
                              uint64_t size) {
  KeyedHandle out;
  out.range = t.range;
  if (t.to == ConvertTarget::kHeap) {
    out.type = t.modern_types ? handle_type::kKeyGroupsWithId : handle_type::kKeyGroups;
    if (t.modern_types) out.handle_id = stable_uuid(t.op_hex, t.subtask, 'h');
  } else {
    out.type = handle_type::kSavepointKeyGroups;
  }
  out.offsets = std::move(offsets);
  out.delegate = relative_file(name, size);
  return out;
}

StreamHandle file_stream_handle(uint8_t type, std::string path, uint64_t size) {
  StreamHandle h;
  h.type = type;
  h.path = std::move(path);
  h.size = static_cast<int64_t>(size);
  return h;
}

std::string stable_uuid(const std::string& op_hex, int32_t subtask, char salt) {
  std::string h = op_hex;
  h.resize(32, '0');
  h.replace(24, 8, fmt::format("{:08x}", static_cast<uint32_t>(subtask)));
  h[12] = salt;
  return fmt::format("{}-{}-{}-{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(12, 4), h.substr(16, 4), h.substr(20));
}

Result<KeyedHandle> write_keyed_target(const KeyedTarget& target, KeyedBackendMeta meta, const PairsProducer& produce,
                                       KeyedTargetStats* stats) {
  meta.compression = false;
  // Counted where every producer's key group reaches a writer, so that a producer that held more
  // than a key group would show here.
  PairsProducer counted = [&](const KeyGroupPairsFn& fn) {
    return produce([&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
      uint64_t held = 0;
      for (const auto& pairs : by_state)
        for (const RocksPair& p : pairs) held += p.key.size() + p.value.size();
      stats->peak_buffered_bytes = std::max(stats->peak_buffered_bytes, held);
      return fn(kg, by_state);
    });
  };
  if (target.to == ConvertTarget::kRocksDb) return write_rocksdb(target, meta, counted, stats);
  return write_stream(target, meta, counted, stats);
}

}  // namespace ckpt
