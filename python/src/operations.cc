// The operations with a JSON document: the library's report, printed by its write_*_json
// (what `--json` prints, formats/json.md), handed to Python as dicts. One printer for both.
#include <sstream>

#include "binding.h"
#include "ckpt/diff.h"
#include "ckpt/gc.h"
#include "ckpt/inspect.h"
#include "ckpt/restore.h"
#include "ckpt/verify.h"

namespace ckpt::python {

namespace {

// Runs `work` (libckpt's part) without the GIL, then prints its report with `print`.
template <class Report, class Work, class Print>
py::object document(const SnapshotSource* source, Work work, Print print) {
  Result<Report> report = [&] {
    py::gil_scoped_release nogil;
    return work();
  }();
  if (!report.ok()) raise_error(report.error());
  std::ostringstream out;
  print(*report, out);
  std::string text = out.str();
  if (source) source->rename_paths(&text);
  return json_document(text);
}

std::optional<std::pair<int32_t, int32_t>> key_group_range(const py::object& key_groups) {
  if (key_groups.is_none()) return std::nullopt;
  if (py::isinstance<py::int_>(key_groups)) {
    const int32_t g = key_groups.cast<int32_t>();
    return std::make_pair(g, g);
  }
  return key_groups.cast<std::pair<int32_t, int32_t>>();
}

}  // namespace

py::object inspect_document(const SnapshotSource& source, bool count, bool verbose, int jobs) {
  InspectOptions options;
  options.remap = source.remap;
  options.names = source.names;
  options.count = count;
  options.jobs = jobs;
  return document<InspectReport>(
      &source, [&] { return inspect_snapshot(source.path, options); },
      [&](const InspectReport& r, std::ostream& out) { write_inspect_json(r, verbose, out); });
}

py::object verify_document(const SnapshotSource& source, bool deep, int jobs) {
  VerifyOptions options;
  options.remap = source.remap;
  options.names = source.names;
  options.deep = deep;
  options.jobs = jobs;
  return document<VerifyReport>(
      &source, [&] { return verify_snapshot(source.path, options); },
      [](const VerifyReport& r, std::ostream& out) { write_verify_json(r, out); });
}

void bind_operations(py::module_& m) {
  m.def(
      "_diff",
      [](const std::string& a, const std::string& b, bool keys, const std::optional<std::string>& state, int jobs,
         const std::optional<std::string>& plan, const std::vector<std::string>& uids,
         const std::vector<std::string>& remap) {
        DiffOptions options;
        options.keys = keys;
        options.state = state.value_or("");
        options.jobs = jobs;
        options.names = operator_names(plan, uids);
        options.remap = prefix_rules(remap);
        return document<DiffReport>(
            nullptr, [&] { return diff_snapshots(a, b, options); },
            [](const DiffReport& r, std::ostream& out) { write_diff_json(r, out); });
      },
      py::arg("a"), py::arg("b"), py::arg("keys"), py::arg("state"), py::arg("jobs"), py::arg("plan"), py::arg("uids"),
      py::arg("remap"));

  m.def(
      "_gc",
      [](const std::string& root, bool apply, const std::string& older_than,
         const std::vector<std::string>& referenced_by, bool allow_empty) {
        GcOptions options;
        options.older_than_seconds = value_or_raise(parse_duration(older_than));
        options.apply = apply;
        options.referenced_by = referenced_by;
        options.allow_empty = allow_empty;
        return document<GcReport>(
            nullptr, [&] { return collect_garbage(root, options); },
            [](const GcReport& r, std::ostream& out) { write_gc_json(r, out); });
      },
      py::arg("root"), py::arg("apply"), py::arg("older_than"), py::arg("referenced_by"), py::arg("allow_empty"));

  m.def(
      "_restore",
      [](const std::string& snapshot, const std::string& output, const std::optional<std::string>& op,
         std::optional<int32_t> subtask, const py::object& key_groups, bool link, bool full_check, int jobs, bool force,
         const std::vector<std::string>& remap) {
        RestoreOptions options;
        options.output = output;
        options.operator_filter = op.value_or("");
        options.subtask = subtask;
        options.key_groups = key_group_range(key_groups);
        options.link = link;
        options.full_check = full_check;
        options.jobs = jobs;
        options.force = force;
        options.remap = prefix_rules(remap);
        return document<RestoreReport>(
            nullptr, [&] { return restore_snapshot(snapshot, options); },
            [](const RestoreReport& r, std::ostream& out) { write_restore_json(r, out); });
      },
      py::arg("snapshot"), py::arg("output"), py::arg("operator"), py::arg("subtask"), py::arg("key_groups"),
      py::arg("link"), py::arg("full_check"), py::arg("jobs"), py::arg("force"), py::arg("remap"));
}

}  // namespace ckpt::python
