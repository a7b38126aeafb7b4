// The printers of `ckpt gc`.
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckpt/gc.h"
#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ckpt/printable.h"

namespace ckpt {

namespace {

// "3 retained checkpoints (chk-1 .. chk-3)"
std::string named_range(const std::vector<std::string>& names, const char* one, const char* many) {
  std::string out = counted(names.size(), one, many);
  if (!names.empty())
    out += " (" + printable(names.front()) + (names.size() > 1 ? " .. " + printable(names.back()) : "") + ")";
  return out;
}

}  // namespace

void write_gc_text(const GcReport& r, const GcOptions& options, std::ostream& out) {
  out << printable(r.root) << ": " << named_range(r.retained, "retained checkpoint", "retained checkpoints");
  if (!r.savepoints.empty()) out << ", " << named_range(r.savepoints, "savepoint", "savepoints");
  out << fmt::format(", {} under shared/ and taskowned/ ({}), {} referenced\n",
                     counted(r.files_scanned, "file", "files"), human_size(static_cast<int64_t>(r.bytes_scanned)),
                     r.referenced);
  for (const GcReferencingDir& d : r.referenced_by)
    out << "referenced by " << printable(d.dir) << ": " << named_range(d.snapshots, "snapshot", "snapshots") << "\n";
  for (const std::string& link : r.skipped_symlinks)
    out << fmt::format("{:<8} {:>10} {} (symlink, not followed)\n", "skipped", "-", printable(link));
  for (const GcFile& f : r.orphans) {
    std::string mark = f.deleted ? "deleted" : f.young ? "young" : !f.error.empty() ? "failed" : "orphan";
    out << fmt::format("{:<8} {:>10} {}\n", mark, human_size(static_cast<int64_t>(f.size)), printable(f.path));
  }
  size_t young = 0;
  for (const GcFile& f : r.orphans) young += f.young ? 1 : 0;
  out << fmt::format("{}, {}; {} younger than the margin ({}), kept\n", counted(r.orphans.size(), "orphan", "orphans"),
                     human_size(static_cast<int64_t>(r.orphan_bytes)), young,
                     human_size(static_cast<int64_t>(r.young_bytes)));
  if (options.apply)
    out << fmt::format("deleted {}, {}{}\n", counted(r.deleted, "file", "files"),
                       human_size(static_cast<int64_t>(r.deleted_bytes)),
                       r.failed ? fmt::format("; {} could not be deleted", r.failed) : "");
  else if (r.orphans.size() > young)
    out << "nothing deleted (run with --apply to delete the orphans older than the margin)\n";
}

void write_gc_json(const GcReport& r, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.gc/1");
  w.member("root", r.root);
  w.member("retained", r.retained);
  w.member("savepoints", r.savepoints);
  w.key("referenced_by");
  w.begin_array();
  for (const GcReferencingDir& d : r.referenced_by) {
    w.begin_object();
    w.member("directory", d.dir);
    w.member("snapshots", d.snapshots);
    w.end_object();
  }
  w.end_array();
  w.member("skipped_symlinks", r.skipped_symlinks);
  w.member("scanned_file_count", r.files_scanned);
  w.member("scanned_bytes", r.bytes_scanned);
  w.member("referenced_file_count", r.referenced);
  w.key("orphans");
  w.begin_array();
  for (const GcFile& f : r.orphans) {
    w.begin_object();
    w.member("path", f.path);
    w.member("size", f.size);
    w.member("age_seconds", f.age_seconds);
    w.member("young", f.young);
    w.member("deleted", f.deleted);
    if (!f.error.empty()) w.member("error", f.error);
    w.end_object();
  }
  w.end_array();
  w.member("orphan_bytes", r.orphan_bytes);
  w.member("young_bytes", r.young_bytes);
  w.member("deleted_file_count", r.deleted);
  w.member("deleted_bytes", r.deleted_bytes);
  w.member("failed_file_count", r.failed);
  w.end_object();
}

}  // namespace ckpt
