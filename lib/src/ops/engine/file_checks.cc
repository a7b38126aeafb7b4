// The quick checks of the files a snapshot references: each exists inside the snapshot (or a
// --remap target), is a regular file of the size its handles declare, and is referenced
// consistently by every handle naming it.
#include <map>
#include <set>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "format/local_names.h"
#include "ops/engine/snapshot_checks.h"

namespace ckpt {

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
  p.error =
      Error(kind == ProblemKind::kMissingFile ? ErrorCode::kNotFound : ErrorCode::kCorruption, std::move(message));
  p.error.file = file;
  return p;
}

}  // namespace

Status check_files(const Metadata& m, FileResolver& resolver, VerifyReport& report,
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
    } else if (!found->escape.empty() || !found->unlisted.ok()) {
      return found->usable();  // not a finding of the snapshot: nothing may be said of it
    } else if (!found->regular) {
      Status what = check_regular_input(found->path);
      per_subtask(ProblemKind::kNotRegularFile,
                  what.ok() ? found->path + " is not a regular file" : what.error().to_string());
    } else {
      if (found->outside)
        report.warnings.push_back(at(m, first, ProblemKind::kOutsideJobDirectory, uri,
                                     fmt::format("read from {}, outside the job directory {} and every --remap target",
                                                 found->path, resolver.job_directory())));
      for (const Reference& r : rs) {
        if (r.type == handle_type::kSegmentFile) {
          if (r.start < 0 || r.size < 0 ||
              static_cast<uint64_t>(r.start) + static_cast<uint64_t>(r.size) > found->size) {
            VerifyProblem p = at(m, r, ProblemKind::kOffsetOutsideFile, uri,
                                 fmt::format("segment [{:#x}, {:#x}) lies beyond the end of the file ({} bytes)",
                                             r.start, r.start + r.size, found->size));
            p.error.offset = static_cast<uint64_t>(std::max<int64_t>(r.start, 0));
            report.problems.push_back(std::move(p));
            break;
          }
        } else if (r.size >= 0 && static_cast<uint64_t>(r.size) != found->size) {
          VerifyProblem p = at(m, r, ProblemKind::kSizeMismatch, uri,
                               fmt::format("file has {} bytes, its handle declares {}", found->size, r.size));
          p.error.offset = std::min(found->size, static_cast<uint64_t>(r.size));  // where file and handle part
          report.problems.push_back(std::move(p));
          break;
        }
      }
    }
    // A file is one file: every plain-file reference must agree on its size and local name.
    for (const Reference& r : rs) {
      if (r.type == handle_type::kSegmentFile || first.type == handle_type::kSegmentFile) continue;
      if (r.size != first.size) {
        report.problems.push_back(
            at(m, r, ProblemKind::kFileConflict, uri,
               fmt::format("referenced with {} bytes here and {} bytes by {}", r.size, first.size, first.handle)));
        break;
      }
      if (!r.local_name.empty() && !first.local_name.empty() && r.local_name != first.local_name) {
        report.problems.push_back(
            at(m, r, ProblemKind::kFileConflict, uri,
               fmt::format("referenced as '{}' here and as '{}' elsewhere", r.local_name, first.local_name)));
        break;
      }
    }
    if (report.problems.size() != before) {
      faulty.insert(uri);
      if (found) faulty.insert(found->path);
    }
  }
  return Status::OK();
}

}  // namespace ckpt
