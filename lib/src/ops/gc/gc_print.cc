// The printers of `ckpt gc`.
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/gc.h"
#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "support/json_text.h"

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

void write_gc_json(const GcReport& r, std::ostream& out) {
  nlohmann::ordered_json j;
  j["schema"] = "ckpt.gc/1";
  j["root"] = r.root;
  j["retained"] = r.retained;
  j["savepoints"] = r.savepoints;
  nlohmann::ordered_json referencing = nlohmann::ordered_json::array();
  for (const GcReferencingDir& d : r.referenced_by)
    referencing.push_back({{"directory", d.dir}, {"snapshots", d.snapshots}});
  j["referenced_by"] = std::move(referencing);
  j["skipped_symlinks"] = r.skipped_symlinks;
  j["scanned_file_count"] = r.files_scanned;
  j["scanned_bytes"] = r.bytes_scanned;
  j["referenced_file_count"] = r.referenced;
  nlohmann::ordered_json orphans = nlohmann::ordered_json::array();
  for (const GcFile& f : r.orphans) {
    nlohmann::ordered_json o = {
        {"path", f.path}, {"size", f.size}, {"age_seconds", f.age_seconds}, {"young", f.young}, {"deleted", f.deleted}};
    if (!f.error.empty()) o["error"] = f.error;
    orphans.push_back(std::move(o));
  }
  j["orphans"] = std::move(orphans);
  j["orphan_bytes"] = r.orphan_bytes;
  j["young_bytes"] = r.young_bytes;
  j["deleted_file_count"] = r.deleted;
  j["deleted_bytes"] = r.deleted_bytes;
  j["failed_file_count"] = r.failed;
  out << json_text(j, 2) << "\n";
}

}  // namespace ckpt
