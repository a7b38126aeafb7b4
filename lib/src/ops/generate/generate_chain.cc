// generate_chain: successive incremental RocksDB checkpoints sharing SST files under shared/.
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/object_store.h"
#include "format/java/java_serialization.h"
#include "ops/generate/generate_internal.h"
#include "ops/rewrite/keyed_target.h"
#include "s3/output_directory.h"
#include "state/keyed_state_codec.h"
#include "state/rocksdb/rocks_instance_writer.h"
#include "support/worker_threads.h"

namespace ckpt {

namespace fs = std::filesystem;

namespace {

std::string uuid_of(uint64_t a, uint64_t b) {
  uint64_t x = generate_mix(a), y = generate_mix(b ^ x);
  std::string h = fmt::format("{:016x}{:016x}", x, y);
  return fmt::format("{}-{}-{}-{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(12, 4), h.substr(16, 4), h.substr(20));
}

StreamHandle file_handle(const std::string& uri, uint64_t size) {
  return file_stream_handle(handle_type::kFile, uri, size);
}

Status move_file(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) return Error(ErrorCode::kIOError, fmt::format("cannot move '{}' to '{}': {}", from, to, ec.message()));
  return Status::OK();
}

struct ChainPaths {
  std::string temp;        // where files are written now
  std::string final_root;  // absolute: where they will be once committed (the URIs name it)
  // Flink names a file by its URI: "file:/abs/path" on a disk, "s3://bucket/key" in a store.
  std::string uri(const std::string& rel) const {
    return (is_object_store_uri(final_root) ? "" : "file:") + final_root + "/" + rel;
  }
};

// One subtask's whole chain: handles[c - 1] for checkpoint c.
Result<std::vector<KeyedHandle>> subtask_chain(const GenerateModel& model, int32_t op, int32_t sub,
                                               const ChainPaths& paths, GenerateSummary* stats) {
  const GenerateOptions& o = model.options();
  const KeyedBackendMeta& meta = model.meta();
  const std::string op_hex = operator_id_hex(model.operator_id(op));
  const KeyGroupRange range = key_group_range_of_subtask(o.max_parallelism, o.parallelism, sub);
  const int prefix_bytes = key_group_prefix_bytes(o.max_parallelism);
  const std::vector<ChainBucket> buckets = chain_buckets(o, sub);
  std::vector<std::string> names;
  for (const StateMetaInfo& s : meta.states) names.push_back(s.name);
  const std::string scratch = fmt::format("{}/.build-{}-{}", paths.temp, op_hex, sub);
  CKPT_ASSIGN_OR_RETURN(auto db, RocksLiveInstance::open(scratch + "/live", names));
  CKPT_ASSIGN_OR_RETURN(std::string proxy, write_keyed_backend_meta(meta));

  std::vector<uint32_t> version(buckets.size(), 0);
  std::vector<int32_t> pieces(buckets.size(), 1);  // SST files per state a bucket is written as
  std::map<std::string, NamedStream> uploaded;  // RocksDB name -> its handle under shared/
  std::vector<KeyedHandle> out;
  for (int32_t c = 1; c <= o.chain; ++c) {
    const uint64_t salt = chain_salt(o, op, sub);
    for (size_t b = 0; b < buckets.size(); ++b) {
      if (c > 1) {
        if (!chain_rewrites(o, op, sub, static_cast<int32_t>(b), c)) continue;
        ++version[b];
        // Compaction falling behind: the bucket comes back as twice the files, one per key group at most.
        if (o.fragment_ssts) pieces[b] = std::min(pieces[b] * 2, buckets[b].kg_end - buckets[b].kg_begin);
      }
      const int32_t kg_begin = buckets[b].kg_begin, kg_end = buckets[b].kg_end;
      std::vector<std::vector<std::pair<std::string, std::string>>> per_state(meta.states.size());
      std::vector<std::vector<RocksPair>> by_state;
      for (int32_t kg = kg_begin; kg < kg_end; ++kg) {
        model.pairs(op, kg, version[b], &by_state);
        for (size_t s = 0; s < by_state.size(); ++s) {
          std::sort(by_state[s].begin(), by_state[s].end());
          for (RocksPair& p : by_state[s]) per_state[s].emplace_back(std::move(p.key), std::move(p.value));
        }
      }
      std::vector<std::string> bounds;  // pieces[b] + 1 key-group prefixes
      for (int32_t p = 0; p <= pieces[b]; ++p) {
        bounds.emplace_back();
        append_key_group_prefix(bounds.back(), kg_begin + (kg_end - kg_begin) * p / pieces[b], prefix_bytes);
      }
      for (size_t s = 0; s < per_state.size(); ++s) {
        // The bucket's files (all inside it) dropped first: a piece alone lies inside none of them.
        if (pieces[b] > 1) CKPT_RETURN_IF_ERROR(db->replace_range(s, bounds.front(), bounds.back(), {}));
        auto from = per_state[s].begin();
        for (int32_t p = 0; p < pieces[b]; ++p) {
          auto to = std::lower_bound(from, per_state[s].end(), bounds[static_cast<size_t>(p) + 1],
                                     [](const auto& pair, const std::string& k) { return pair.first < k; });
          CKPT_RETURN_IF_ERROR(db->replace_range(s, bounds[static_cast<size_t>(p)], bounds[static_cast<size_t>(p) + 1],
                                                 std::vector<std::pair<std::string, std::string>>(from, to)));
          from = to;
        }
      }
    }

    const std::string cp_dir = fmt::format("{}/cp-{}", scratch, c);
    CKPT_ASSIGN_OR_RETURN(RocksInstanceFiles files, db->checkpoint(cp_dir));
    const std::string chk = fmt::format("chk-{}", c);
    KeyedHandle h;
    h.type = handle_type::kIncremental;
    h.range = range;
    h.checkpoint_id = c;
    h.backend_id = stable_uuid(op_hex, sub, 'b');
    h.handle_id = uuid_of(salt, static_cast<uint64_t>(c) * 3);
    int64_t new_bytes = static_cast<int64_t>(proxy.size());
    uint64_t counter = 0;
    auto fresh_name = [&]() { return uuid_of(salt ^ (static_cast<uint64_t>(c) << 32), ++counter); };
    for (const RocksInstanceFile& f : files.files) {
      if (f.is_sst()) {
        auto it = uploaded.find(f.name);
        if (it == uploaded.end()) {
          const std::string rel = "shared/" + fresh_name();
          CKPT_RETURN_IF_ERROR(move_file(cp_dir + "/" + f.name, paths.temp + "/" + rel));
          it = uploaded.emplace(f.name, NamedStream{f.name, file_handle(paths.uri(rel), f.size)}).first;
          new_bytes += static_cast<int64_t>(f.size);
          stats->files++;
          stats->bytes += f.size;
        }
        h.shared_files.push_back(it->second);
      } else {
        const std::string rel = chk + "/" + fresh_name();
        CKPT_RETURN_IF_ERROR(move_file(cp_dir + "/" + f.name, paths.temp + "/" + rel));
        h.private_files.push_back({f.name, file_handle(paths.uri(rel), f.size)});
        new_bytes += static_cast<int64_t>(f.size);
        stats->files++;
        stats->bytes += f.size;
      }
    }
    // Files no checkpoint from here on can reference were replaced: forget them.
    for (auto it = uploaded.begin(); it != uploaded.end();) {
      bool live = std::any_of(files.files.begin(), files.files.end(), [&](const RocksInstanceFile& f) { return f.name == it->first; });
      it = live ? std::next(it) : uploaded.erase(it);
    }
    const std::string meta_rel = chk + "/" + fresh_name();
    CKPT_RETURN_IF_ERROR(write_file_atomic(paths.temp + "/" + meta_rel, proxy));
    h.delegate = file_handle(paths.uri(meta_rel), proxy.size());
    h.checkpointed_size = new_bytes;
    stats->files++;
    stats->bytes += proxy.size();
    std::error_code ec;
    fs::remove_all(cp_dir, ec);
    out.push_back(std::move(h));
  }
  db.reset();
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return out;
}

}  // namespace

std::vector<ChainBucket> chain_buckets(const GenerateOptions& o, int32_t sub) {
  // Key groups of a subtask are split into this many buckets, each one SST per state.
  constexpr int32_t kBuckets = 4;
  const KeyGroupRange range = key_group_range_of_subtask(o.max_parallelism, o.parallelism, sub);
  const int32_t n = std::min(kBuckets, range.count);
  std::vector<ChainBucket> out;
  for (int32_t b = 0; b < n; ++b)
    out.push_back({range.first + static_cast<int32_t>(int64_t{range.count} * b / n),
                   range.first + static_cast<int32_t>(int64_t{range.count} * (b + 1) / n)});
  return out;
}

uint64_t chain_salt(const GenerateOptions& o, int32_t op, int32_t sub) {
  return o.seed * 7777 + static_cast<uint64_t>(op) * 131 + static_cast<uint64_t>(sub);
}

bool chain_rewrites(const GenerateOptions& o, int32_t op, int32_t sub, int32_t bucket, int32_t checkpoint) {
  if (checkpoint < 2) return false;
  const uint64_t salt = chain_salt(o, op, sub);
  const uint64_t x = generate_mix(salt * 1000003 + static_cast<uint64_t>(checkpoint) * 97 + static_cast<uint64_t>(bucket));
  return static_cast<double>(x >> 11) / 9007199254740992.0 < o.churn;
}

Result<GenerateSummary> generate_chain(const GenerateModel& model) {
  const GenerateOptions& o = model.options();
  if (o.backend != GenerateBackend::kRocksDb)
    return Error(ErrorCode::kInvalidArgument, "a chain of incremental checkpoints needs --backend rocksdb");
  if (o.churn < 0 || o.churn > 1) return Error(ErrorCode::kInvalidArgument, "churn must lie between 0 and 1");
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputDirectory> temp, OutputDirectory::create(o.output));
  ChainPaths paths;
  paths.temp = temp->path();
  std::error_code ec;
  if (is_object_store_uri(o.output)) {
    paths.final_root = canonical_object_uri(o.output);
    while (paths.final_root.back() == '/') paths.final_root.pop_back();
  } else {
    paths.final_root = fs::weakly_canonical(fs::absolute(o.output), ec).string();
  }
  if (ec) return Error(ErrorCode::kIOError, fmt::format("cannot resolve '{}': {}", o.output, ec.message()));
  for (const std::string& d : {std::string("shared"), std::string("taskowned")}) fs::create_directories(paths.temp + "/" + d, ec);
  for (int32_t c = 1; c <= o.chain; ++c) fs::create_directories(fmt::format("{}/chk-{}", paths.temp, c), ec);
  if (ec) return Error(ErrorCode::kIOError, fmt::format("cannot create directories under '{}': {}", paths.temp, ec.message()));

  const size_t tasks = static_cast<size_t>(o.operators) * o.parallelism;
  std::vector<std::vector<KeyedHandle>> chains(tasks);
  std::vector<GenerateSummary> stats(tasks);
  // A chain's parts are its subtasks: each writes its whole history of checkpoints.
  if (o.progress) o.progress->parts_total.fetch_add(tasks, std::memory_order_relaxed);
  CKPT_RETURN_IF_ERROR(run_parallel(tasks, o.jobs, [&](size_t i) -> Status {
    const int32_t op = static_cast<int32_t>(i / o.parallelism), sub = static_cast<int32_t>(i % o.parallelism);
    CKPT_ASSIGN_OR_RETURN(chains[i], subtask_chain(model, op, sub, paths, &stats[i]));
    if (o.progress) o.progress->add_parts(1);
    return Status::OK();
  }));

  // What Flink records for a retained checkpoint (RETAIN_ON_CANCELLATION).
  CheckpointProperties p;
  p.present = true;
  p.discard_subsumed = p.discard_finished = p.discard_failed = true;
  p.type_class = "org.apache.flink.runtime.checkpoint.CheckpointType";
  p.type_name = "Checkpoint";
  p.sharing_files_strategy = "FORWARD_BACKWARD";
  GenerateSummary summary;
  summary.snapshots = static_cast<uint64_t>(o.chain);
  for (int32_t c = 1; c <= o.chain; ++c) {
    std::vector<std::vector<KeyedHandle>> handles(o.operators, std::vector<KeyedHandle>(o.parallelism));
    for (size_t i = 0; i < tasks; ++i) handles[i / o.parallelism][i % o.parallelism] = chains[i][c - 1];
    CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(generated_metadata(model, c, handles, p)));
    CKPT_RETURN_IF_ERROR(write_file_atomic(fmt::format("{}/chk-{}/_metadata", paths.temp, c), bytes));
    summary.files++;
    summary.bytes += bytes.size();
  }
  for (const GenerateSummary& s : stats) {
    summary.files += s.files;
    summary.bytes += s.bytes;
  }
  CKPT_RETURN_IF_ERROR(temp->commit(o.force));
  return summary;
}

}  // namespace ckpt
