// The verify report as lines for people and as JSON for scripts.
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "ckpt/verify.h"

namespace ckpt {

std::string format_problem(const VerifyProblem& p) {
  std::string out;
  if (!p.operator_id.empty()) {
    out += "operator " + p.operator_id;
    if (!p.uid.empty()) out += " (uid '" + printable(p.uid) + "')";
    out += p.subtask >= 0 ? fmt::format(", subtask {}", p.subtask) : std::string(", all subtasks");
  }
  if (!p.handle.empty()) out += (out.empty() ? "" : ", ") + printable(p.handle);
  if (!p.file.empty()) out += fmt::format("{}file '{}'", out.empty() ? "" : ", ", printable(p.file));
  out += fmt::format("{}{}: {}", out.empty() ? "" : ": ", problem_kind_name(p.kind), printable(p.message));
  if (p.offset) out += fmt::format(" at offset {:#x}", *p.offset);
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

void write_verify_json(const VerifyReport& r, std::ostream& out) {
  nlohmann::ordered_json j;
  j["schema"] = "ckpt.verify/1";
  j["snapshot"] = r.metadata_path;
  j["deep"] = r.deep;
  j["clean"] = r.clean();
  j["operator_count"] = r.operators;
  j["subtask_count"] = r.subtasks;
  j["file_count"] = r.files;
  if (r.deep) {
    j["sst_file_count"] = r.sst_files;
    j["beyond_range_sst_file_count"] = r.sst_files_beyond_range;
    j["entry_count"] = r.entries;
  }
  auto problems_json = [](const std::vector<VerifyProblem>& list) {
    nlohmann::ordered_json problems = nlohmann::ordered_json::array();
    for (const VerifyProblem& p : list) {
      nlohmann::ordered_json o;
      o["kind"] = problem_kind_name(p.kind);
      o["operator"] = p.operator_id.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p.operator_id);
      if (!p.uid.empty()) o["uid"] = p.uid;
      o["subtask"] = p.subtask >= 0 ? nlohmann::ordered_json(p.subtask) : nlohmann::ordered_json();
      o["handle"] = p.handle;
      o["file"] = p.file;
      o["offset"] = p.offset ? nlohmann::ordered_json(*p.offset) : nlohmann::ordered_json();
      o["message"] = p.message;
      problems.push_back(std::move(o));
    }
    return problems;
  };
  j["problems"] = problems_json(r.problems);
  if (r.deep) {
    j["complete"] = r.complete();
    j["unchecked"] = problems_json(r.unchecked);
  }
  j["warnings"] = problems_json(r.warnings);
  if (!r.named.empty()) {
    nlohmann::ordered_json named = nlohmann::ordered_json::array();
    for (const NamedOperator& n : r.named)
      named.push_back({{"operator", n.operator_id}, {"uid", n.uid}, {"description", n.description}});
    j["named_operators"] = std::move(named);
  }
  if (r.naming) j["unmatched_uids"] = r.unmatched_uids;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace ckpt
