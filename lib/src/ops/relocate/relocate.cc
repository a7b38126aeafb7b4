// Rewriting the file paths of a `_metadata` and writing it out atomically.
#include "ckpt/relocate.h"

#include <filesystem>
#include <optional>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "ckpt/object_store.h"
#include "ckpt/verify.h"
#include "ops/output_guard.h"

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
  if (!local) return std::nullopt;
  std::error_code ec;
  fs::path p = fs::weakly_canonical(*local, ec);
  if (ec) return std::nullopt;
  fs::path rel = p.lexically_relative(dir);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return std::nullopt;
  return rel.generic_string();
}

// The same for an object of a snapshot in a store: its key below the snapshot's prefix, however
// the URIs spell the scheme (s3a://, s3p://).
std::optional<std::string> inside_prefix(const std::string& uri, const std::string& prefix) {
  if (!is_object_store_uri(uri)) return std::nullopt;
  const std::string object = canonical_object_uri(uri);
  if (object.size() <= prefix.size() + 1 || object.compare(0, prefix.size(), prefix) != 0 ||
      object[prefix.size()] != '/')
    return std::nullopt;
  std::string rel = object.substr(prefix.size() + 1);
  if (rel.empty() || rel.back() == '/' || rel == ".." || rel.starts_with("../") ||
      rel.find("/../") != std::string::npos || rel.ends_with("/.."))
    return std::nullopt;
  return rel;
}

// On a disk a rename publishes the file; in a store its one PUT does (check_output() made sure no
// object is there: nothing is replaced in a store).
Status publish(const std::string& output, std::string_view bytes, bool force) {
  if (!is_object_store_uri(output)) return publish_file(output, bytes, force);
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(output));
  return files->write(output, bytes);
}

}  // namespace

RelocateStats relocate_metadata(Metadata& m, const std::string& snapshot_dir, const RelocateOptions& options) {
  RelocateStats stats;
  std::error_code ec;
  const bool in_store = is_object_store_uri(snapshot_dir);
  std::string prefix = in_store ? canonical_object_uri(snapshot_dir) : std::string();
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  fs::path dir = options.relative && !in_store ? fs::weakly_canonical(snapshot_dir, ec) : fs::path();
  for_each_stream(m, [&](StreamHandle& s, const StreamSite&) {
    if (s.type != handle_type::kFile && s.type != handle_type::kSegmentFile) return;
    if (remap(s.path, options.maps)) ++stats.rewritten;
    if (options.relative && !ec && s.type == handle_type::kFile) {
      if (auto rel = in_store ? inside_prefix(s.path, prefix) : inside(s.path, dir)) {
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
  CKPT_ASSIGN_OR_RETURN(std::string bytes, read_through_file_system(where.metadata_path));
  CKPT_ASSIGN_OR_RETURN(Metadata m, decode_metadata(bytes, where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_key_group_ranges(m, where.metadata_path));
  const std::vector<PrefixRule> no_remap;
  CKPT_RETURN_IF_ERROR(check_output(output, OutputKind::kFile, options.force, {{&where, &m, &no_remap, {}}}));
  RelocateStats stats = relocate_metadata(m, where.directory, options);
  if (!stats.changed()) {
    CKPT_RETURN_IF_ERROR(publish(output, bytes, options.force));
    return stats;
  }
  Result<std::string> encoded = encode_metadata(m);
  if (!encoded.ok()) return std::move(encoded).error().with_file(where.metadata_path);
  CKPT_RETURN_IF_ERROR(publish(output, *encoded, options.force));
  return stats;
}

}  // namespace ckpt
