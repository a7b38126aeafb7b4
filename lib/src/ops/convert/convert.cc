// convert_snapshot: rewrite_snapshot with no edit, into the layout asked for.
#include "ckpt/convert.h"

#include <fmt/format.h>

#include "ops/rewrite/snapshot_rewrite.h"

namespace ckpt {

const char* convert_target_name(ConvertTarget t) {
  switch (t) {
    case ConvertTarget::kRocksDb: return "rocksdb";
    case ConvertTarget::kHeap: return "heap";
    case ConvertTarget::kCanonical: return "canonical";
  }
  return "canonical";
}

Result<ConvertTarget> parse_convert_target(std::string_view name) {
  if (name == "rocksdb") return ConvertTarget::kRocksDb;
  if (name == "heap" || name == "hashmap") return ConvertTarget::kHeap;
  if (name == "canonical") return ConvertTarget::kCanonical;
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("unknown conversion target '{}', expected rocksdb, heap or canonical", name));
}

Result<ConvertSummary> convert_snapshot(const std::string& snapshot, const ConvertOptions& options) {
  RewriteOptions r;
  r.to = options.to;
  r.output = options.output;
  r.force = options.force;
  r.jobs = options.jobs;
  r.remap = options.remap;
  r.key_serializers_from = options.key_serializers_from;
  r.progress = options.progress;
  r.shard = options.shard;
  r.finish = options.finish;
  // No edit: the rewrite reads every subtask's keyed state whole, so it checks it as it reads.
  r.check_on_read = true;
  return rewrite_snapshot(snapshot, r, {});
}

}  // namespace ckpt
