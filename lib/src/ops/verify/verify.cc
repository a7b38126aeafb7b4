// verify_snapshot: runs the quick checks, then (with --deep) the ones that read every byte.
#include "ckpt/verify.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "format/local_names.h"
#include "ops/verify/verify_checks.h"

namespace ckpt {

const char* problem_kind_name(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kMissingFile: return "missing-file";
    case ProblemKind::kSizeMismatch: return "size-mismatch";
    case ProblemKind::kOffsetOutsideFile: return "offset-outside-file";
    case ProblemKind::kFileConflict: return "file-conflict";
    case ProblemKind::kKeyGroupOverlap: return "key-group-overlap";
    case ProblemKind::kKeyGroupGap: return "key-group-gap";
    case ProblemKind::kBadKeyGroupRange: return "bad-key-group-range";
    case ProblemKind::kUndecodable: return "undecodable";
    case ProblemKind::kChecksumMismatch: return "checksum-mismatch";
    case ProblemKind::kKeyGroupOutOfRange: return "key-group-out-of-range";
    case ProblemKind::kPathOutsideSnapshot: return "path-outside-snapshot";
    case ProblemKind::kNotRegularFile: return "not-regular-file";
    case ProblemKind::kBadFileName: return "bad-file-name";
    case ProblemKind::kOutsideJobDirectory: return "outside-job-directory";
  }
  return "unknown";
}

std::string site_description(const StreamSite& site) {
  std::string out = handle_slot_name(site.slot);
  if (site.role != StreamRole::kData) {
    out += ' ';
    out += stream_role_name(site.role);
  }
  if (site.local_name) {
    out += ' ';
    out += *site.local_name;
  }
  return out;
}

namespace {

// One reference to a file, and what the handle declares about it.
struct Reference {
  size_t operator_index = 0;
  int32_t subtask = -1;
  std::string handle;
  uint8_t type = 0;
  int64_t start = 0;
  int64_t size = 0;
  std::string local_name;
};

VerifyProblem at(const Metadata& m, const Reference& r, ProblemKind kind, const std::string& file,
                 std::string message) {
  VerifyProblem p;
  p.kind = kind;
  p.operator_id = operator_id_hex(m.operators[r.operator_index].id);
  p.subtask = r.subtask;
  p.handle = r.handle;
  p.file = file;
  p.message = std::move(message);
  return p;
}

}  // namespace

void check_files(const Metadata& m, FileResolver& resolver, VerifyReport& report,
                 std::unordered_set<std::string>& faulty) {
  std::vector<std::string> order;  // URIs in order of first reference
  std::map<std::string, std::vector<Reference>> refs;
  for_each_stream(m, [&](const StreamHandle& s, const StreamSite& site) {
    // Inline or in a file: every command that places the instance's files refuses the name.
    if (site.local_name) {
      if (Status plain = check_local_file_name(*site.local_name); !plain.ok()) {
        Reference r;
        r.operator_index = site.operator_index;
        r.subtask = site.subtask;
        r.handle = site_description(site);
        report.problems.push_back(at(m, r, ProblemKind::kBadFileName, s.is_file() ? s.path : std::string(),
                                     plain.error().message + "; not placed"));
      }
    }
    if (!s.is_file()) return;
    auto [it, fresh] = refs.try_emplace(s.path);
    if (fresh) order.push_back(s.path);
    Reference r;
    r.operator_index = site.operator_index;
    r.subtask = site.subtask;
    r.handle = site_description(site);
    r.type = s.type;
    r.start = s.start;
    // A change log file's handle declares its stream's bytes (after the compression flag,
    // uncompressed: OutputStreamWithPos#getPos), not the file's size.
    r.size = site.role == StreamRole::kChangelogPiece ? -1 : s.size;
    if (site.local_name) r.local_name = *site.local_name;
    it->second.push_back(std::move(r));
  });
  report.files = order.size();

  for (const std::string& uri : order) {
    const std::vector<Reference>& rs = refs[uri];
    const Reference& first = rs.front();
    std::optional<FileResolver::Found> found = resolver.find(first.type, uri);
    size_t before = report.problems.size();
    // Once per subtask that needs the file: each is a subtask that cannot restore.
    auto per_subtask = [&](ProblemKind kind, const std::string& message) {
      std::set<std::pair<size_t, int32_t>> seen;
      for (const Reference& r : rs)
        if (seen.emplace(r.operator_index, r.subtask).second) report.problems.push_back(at(m, r, kind, uri, message));
    };
    Status escape = first.type == handle_type::kRelativeFile ? check_relative_path(uri) : Status::OK();
    if (!escape.ok()) {
      per_subtask(ProblemKind::kPathOutsideSnapshot, escape.error().message + "; not followed");
    } else if (!found) {
      per_subtask(ProblemKind::kMissingFile, "referenced file not found");
    } else if (!found->regular) {
      Status what = check_regular_input(found->path);
      per_subtask(ProblemKind::kNotRegularFile, what.ok() ? found->path + " is not a regular file" : what.error().to_string());
    } else {
      if (found->outside)
        report.warnings.push_back(at(m, first, ProblemKind::kOutsideJobDirectory, uri,
                                     fmt::format("read from {}, outside the job directory {} and every --remap target",
                                                 found->path, resolver.job_directory())));
      for (const Reference& r : rs) {
        if (r.type == handle_type::kSegmentFile) {
          if (r.start < 0 || r.size < 0 || static_cast<uint64_t>(r.start) + static_cast<uint64_t>(r.size) > found->size) {
            VerifyProblem p = at(m, r, ProblemKind::kOffsetOutsideFile, uri,
                                 fmt::format("segment [{:#x}, {:#x}) lies beyond the end of the file ({} bytes)",
                                             r.start, r.start + r.size, found->size));
            p.offset = static_cast<uint64_t>(std::max<int64_t>(r.start, 0));
            report.problems.push_back(std::move(p));
            break;
          }
        } else if (r.size >= 0 && static_cast<uint64_t>(r.size) != found->size) {
          VerifyProblem p = at(m, r, ProblemKind::kSizeMismatch, uri,
                               fmt::format("file has {} bytes, its handle declares {}", found->size, r.size));
          p.offset = std::min(found->size, static_cast<uint64_t>(r.size));  // where file and handle part
          report.problems.push_back(std::move(p));
          break;
        }
      }
    }
    // A file is one file: every plain-file reference must agree on its size and local name.
    for (const Reference& r : rs) {
      if (r.type == handle_type::kSegmentFile || first.type == handle_type::kSegmentFile) continue;
      if (r.size != first.size) {
        report.problems.push_back(at(m, r, ProblemKind::kFileConflict, uri,
                                     fmt::format("referenced with {} bytes here and {} bytes by {}", r.size, first.size,
                                                 first.handle)));
        break;
      }
      if (!r.local_name.empty() && !first.local_name.empty() && r.local_name != first.local_name) {
        report.problems.push_back(at(m, r, ProblemKind::kFileConflict, uri,
                                     fmt::format("referenced as '{}' here and as '{}' elsewhere", r.local_name,
                                                 first.local_name)));
        break;
      }
    }
    if (report.problems.size() != before) {
      faulty.insert(uri);
      if (found) faulty.insert(found->path);
    }
  }
}

namespace {

// `m` with only the subtasks of part `shard` (and, in part 0, the coordinator state and the
// finished subtasks, which no part's subtasks hold): operators keep their places, so problems
// name them as in the whole snapshot.
Metadata part_of_snapshot(const Metadata& m, const ShardSpec& shard) {
  const Plan plan = plan_parts(m, shard.count);
  Metadata part = m;
  for (size_t i = 0; i < m.operators.size(); ++i) {
    OperatorState& op = part.operators[i];
    op.subtasks.clear();
    for (const SubtaskState& st : m.operators[i].subtasks)
      if (st.finished ? shard.index == 0 : plan.owns(shard.index, m.operators[i], st.index)) op.subtasks.push_back(st);
    if (shard.index != 0) op.coordinator = StreamHandle{};
  }
  return part;
}

}  // namespace

Result<VerifyReport> verify_snapshot(const std::string& snapshot, const VerifyOptions& options) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
  if (options.shard) m = part_of_snapshot(m, *options.shard);
  VerifyReport report;
  report.metadata_path = where.metadata_path;
  report.deep = options.deep;
  report.operators = m.operators.size();
  for (const OperatorState& op : m.operators) report.subtasks += op.subtasks.size();

  FileResolver resolver(where.directory, options.remap);
  std::unordered_set<std::string> faulty;
  check_files(m, resolver, report, faulty);
  check_key_groups(m, report);
  check_offsets(m, report);
  if (options.deep) check_deep(m, where, options, faulty, report);
  append_named_operators(m, options.names, &report.named);
  report.naming = !options.names.empty();
  report.unmatched_uids = options.names.unmatched(m);
  for (auto* list : {&report.problems, &report.unchecked, &report.warnings})
    for (VerifyProblem& p : *list)
      for (const NamedOperator& n : report.named)
        if (n.operator_id == p.operator_id) p.uid = n.uid;
  return report;
}

}  // namespace ckpt
