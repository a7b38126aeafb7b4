// Keyed handles written in the RocksDB, heap or canonical layout from RocksDB-layout pairs.
#include "ops/rewrite/keyed_target.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <filesystem>

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

Result<KeyedHandle> write_rocksdb(const KeyedTarget& t, const KeyedBackendMeta& meta, const PairsProducer& produce,
                                  KeyedTargetStats* stats) {
  const std::string base = fmt::format("rocksdb-{}-{}", t.op_hex, t.subtask);
  std::vector<std::string> names;
  for (const StateMetaInfo& s : meta.states) names.push_back(s.name);
  CKPT_ASSIGN_OR_RETURN(auto writer, RocksInstanceWriter::create(t.out_dir + "/." + base + ".build", names,
                                                                 t.deferred_sync, t.sst_bytes));
  uint64_t entries = 0;
  CKPT_RETURN_IF_ERROR(produce([&](int32_t, std::vector<std::vector<RocksPair>>& by_state) -> Status {
    for (size_t id = 0; id < by_state.size(); ++id) {
      auto& pairs = by_state[id];
      // Native sources arrive in key order already; heap ones in their hash tables' order.
      if (!std::is_sorted(pairs.begin(), pairs.end())) std::sort(pairs.begin(), pairs.end());
      for (const RocksPair& p : pairs) CKPT_RETURN_IF_ERROR(writer->add(id, p.key, p.value));
      entries += pairs.size();
    }
    return Status::OK();
  }));
  CKPT_ASSIGN_OR_RETURN(RocksInstanceFiles files, writer->finish(t.out_dir + "/" + base));
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
  KeyedHandle out;
  out.range = t.range;
  if (heap) {
    out.type = t.modern_types ? handle_type::kKeyGroupsWithId : handle_type::kKeyGroups;
    if (t.modern_types) out.handle_id = stable_uuid(t.op_hex, t.subtask, 'h');
  } else {
    out.type = handle_type::kSavepointKeyGroups;
  }
  out.offsets = writer->offsets();
  out.delegate = relative_file(name, writer->size());
  stats->entries += entries;
  stats->files += 1;
  stats->bytes += writer->size();
  return out;
}

}  // namespace

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
