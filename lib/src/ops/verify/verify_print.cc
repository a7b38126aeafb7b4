// The verify report as lines for people and as JSON for scripts.
#include <ostream>

#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ckpt/printable.h"
#include "ckpt/verify.h"
#include "ops/named_operators_json.h"

namespace ckpt {

std::string format_problem(const VerifyProblem& p) {
  std::string out;
  if (!p.operator_id.empty()) {
    out += "operator " + p.operator_id;
    if (!p.uid.empty()) out += " (uid '" + printable(p.uid) + "')";
    out += p.subtask >= 0 ? fmt::format(", subtask {}", p.subtask) : std::string(", all subtasks");
  }
  if (!p.handle.empty()) out += (out.empty() ? "" : ", ") + printable(p.handle);
  if (!p.error.file.empty()) out += fmt::format("{}file '{}'", out.empty() ? "" : ", ", printable(p.error.file));
  out += fmt::format("{}{}: {}", out.empty() ? "" : ": ", problem_kind_name(p.kind), printable(p.error.message));
  if (p.error.offset) out += fmt::format(" at offset {:#x}", *p.error.offset);
  return out;
}

void write_verify_text(const VerifyReport& r, std::ostream& out) {
  for (const NamedOperator& n : r.naming ? r.named : std::vector<NamedOperator>())
    out << "operator " << n.operator_id << " uid '" << printable(n.uid) << "'"
        << (n.description.empty() ? "" : " description '" + printable(n.description) + "'") << '\n';
  for (const VerifyProblem& p : r.problems) out << format_problem(p) << '\n';
  for (const VerifyProblem& p : r.unchecked) out << "not checked: " << format_problem(p) << '\n';
  for (const VerifyProblem& p : r.warnings) out << "warning: " << format_problem(p) << '\n';
  std::string what = fmt::format("{}, {}, {}", counted(r.operators, "operator", "operators"),
                                 counted(r.subtasks, "subtask", "subtasks"), counted(r.files, "file", "files"));
  if (r.deep)
    what += fmt::format(", {} checksummed, {} decoded", counted(r.sst_files, "sst file", "sst files"),
                        counted(r.entries, "entry", "entries"));
  if (r.clean() && !r.complete())
    out << fmt::format("{}: not checked whole: {} not read ({}, {})\n", printable(r.metadata_path),
                       counted(r.unchecked.size(), "part", "parts"), r.deep ? "deep" : "quick", what);
  else if (r.clean())
    out << fmt::format("{}: ok ({}, {})\n", printable(r.metadata_path), r.deep ? "deep" : "quick", what);
  else
    out << fmt::format("{}: {} ({}, {})\n", printable(r.metadata_path), counted(r.problems.size(), "problem", "problems"),
                       r.deep ? "deep" : "quick", what);
}

namespace {

void write_problems(JsonWriter& w, const std::vector<VerifyProblem>& list) {
  w.begin_array();
  for (const VerifyProblem& p : list) {
    w.begin_object();
    w.member("kind", problem_kind_name(p.kind));
    w.key("operator");
    w.string_or_null(p.operator_id);
    if (!p.uid.empty()) w.member("uid", p.uid);
    w.key("subtask");
    if (p.subtask >= 0)
      w.value(p.subtask);
    else
      w.null();
    w.member("handle", p.handle);
    w.member("file", p.error.file);
    w.member("offset", p.error.offset);
    w.member("message", p.error.message);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

void write_verify_json(const VerifyReport& r, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.verify/1");
  w.member("snapshot", r.metadata_path);
  w.member("deep", r.deep);
  w.member("clean", r.clean());
  w.member("operator_count", r.operators);
  w.member("subtask_count", r.subtasks);
  w.member("file_count", r.files);
  if (r.deep) {
    w.member("sst_file_count", r.sst_files);
    w.member("beyond_range_sst_file_count", r.sst_files_beyond_range);
    w.member("entry_count", r.entries);
  }
  w.key("problems");
  write_problems(w, r.problems);
  if (r.deep) {
    w.member("complete", r.complete());
    w.key("unchecked");
    write_problems(w, r.unchecked);
  }
  w.key("warnings");
  write_problems(w, r.warnings);
  if (!r.named.empty()) write_named_operators(w, r.named);
  if (r.naming) w.member("unmatched_uids", r.unmatched_uids);
  w.end_object();
}

}  // namespace ckpt
