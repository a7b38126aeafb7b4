// Rewriting the file paths of a `_metadata` and writing it out atomically.
#include "ckpt/relocate.h"

#include <filesystem>
#include <optional>

#include "ckpt/io.h"
#include "ckpt/verify.h"
#include "ckpt/object_store.h"
#include "ops/output_guard.h"
#include "support/remote_files.h"

namespace ckpt {
namespace fs = std::filesystem;

namespace {

bool remap(std::string& path, const std::vector<PrefixRule>& maps) {
  const PrefixRule* r = longest_prefix_rule(maps, path);
  if (!r) return false;
  std::string next = apply_prefix_rule(*r, path);
  if (next == path) return false;
  path = std::move(next);
  return true;
}

// The path of `uri` relative to `dir` if it lies inside it (no "..", not the directory itself).
std::optional<std::string> inside(const std::string& uri, const fs::path& dir) {
  std::optional<std::string> local = local_path_of_uri(uri);
  // A snapshot in an object store is read from its staging (ckpt/staging.h): its objects'
  // URIs are where they lie there, as a disk's absolute paths are.
  if (!local && is_object_store_uri(uri))
    if (auto files = RemoteFiles::installed()) local = files->path_of(canonical_object_uri(uri));
  if (!local) return std::nullopt;
  std::error_code ec;
  fs::path p = fs::weakly_canonical(*local, ec);
  if (ec) return std::nullopt;
  fs::path rel = p.lexically_relative(dir);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return std::nullopt;
  return rel.generic_string();
}

}  // namespace

RelocateStats relocate_metadata(Metadata& m, const std::string& snapshot_dir, const RelocateOptions& options) {
  RelocateStats stats;
  std::error_code ec;
  fs::path dir = options.relative ? fs::weakly_canonical(snapshot_dir, ec) : fs::path();
  for_each_stream(m, [&](StreamHandle& s, const StreamSite&) {
    if (s.type != handle_type::kFile && s.type != handle_type::kSegmentFile) return;
    if (remap(s.path, options.maps)) ++stats.rewritten;
    if (options.relative && !ec && s.type == handle_type::kFile) {
      if (auto rel = inside(s.path, dir)) {
        s.type = handle_type::kRelativeFile;
        s.path = std::move(*rel);
        ++stats.made_relative;
      }
    }
  });
  // File-merging operator handles name their directories outside any stream handle.
  for (auto& op : m.operators)
    for (auto& st : op.subtasks)
      for (auto* list : {&st.managed_operator, &st.raw_operator})
        for (auto& h : *list) {
          if (h.type != handle_type::kFileMergingOperator) continue;
          if (remap(h.taskowned_dir, options.maps)) ++stats.rewritten;
          if (remap(h.shared_dir, options.maps)) ++stats.rewritten;
        }
  return stats;
}

Result<RelocateStats> relocate_snapshot(const std::string& snapshot, const std::string& output,
                                        const RelocateOptions& options) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(std::string bytes, read_whole_file(where.metadata_path));
  CKPT_ASSIGN_OR_RETURN(Metadata m, decode_metadata(bytes, where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_key_group_ranges(m, where.metadata_path));
  const std::vector<PrefixRule> no_remap;
  CKPT_RETURN_IF_ERROR(check_output(output, OutputKind::kFile, options.force, {{&where, &m, &no_remap, {}}}));
  RelocateStats stats = relocate_metadata(m, where.directory, options);
  if (!stats.changed()) {
    CKPT_RETURN_IF_ERROR(publish_file(output, bytes, options.force));
    return stats;
  }
  Result<std::string> encoded = encode_metadata(m);
  if (!encoded.ok()) return std::move(encoded).error().with_file(where.metadata_path);
  CKPT_RETURN_IF_ERROR(publish_file(output, *encoded, options.force));
  return stats;
}

}  // namespace ckpt
