// The operations with a JSON document: the library's report, printed by its write_*_json
// (what `--json` prints, formats/json.md), handed to Python as dicts. One printer for both.
#include "binding.h"
#include "ckpt/convert.h"
#include "ckpt/diff.h"
#include "ckpt/edit.h"
#include "ckpt/gc.h"
#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ckpt/restore.h"
#include "ckpt/verify.h"
#include "iterator_lines.h"

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
  return printed_document([&](JsonWriter& w) { print(*report, w); });
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
      [&](const InspectReport& r, JsonWriter& w) { write_inspect_json(r, verbose, w); });
}

py::object verify_document(const SnapshotSource& source, bool deep, int jobs) {
  VerifyOptions options;
  options.remap = source.remap;
  options.names = source.names;
  options.deep = deep;
  options.jobs = jobs;
  return document<VerifyReport>(
      &source, [&] { return verify_snapshot(source.path, options); },
      [](const VerifyReport& r, JsonWriter& w) { write_verify_json(r, w); });
}

void bind_operations(py::module_& m) {
  m.def(
      "_convert",
      [](const std::string& snapshot, const std::string& output, const std::string& to, int jobs, bool force,
         const std::vector<std::string>& remap, const std::string& key_serializers_from) {
        ConvertOptions options;
        options.to = value_or_raise(parse_convert_target(to));
        options.output = output;
        options.jobs = jobs;
        options.force = force;
        options.remap = prefix_rules(remap);
        options.key_serializers_from = key_serializers_from;
        return document<ConvertSummary>(
            nullptr, [&] { return convert_snapshot(snapshot, options); },
            [&](const ConvertSummary& s, JsonWriter& w) { write_convert_json(snapshot, options.to, s, w); });
      },
      py::arg("snapshot"), py::arg("output"), py::arg("to"), py::arg("jobs"), py::arg("force"), py::arg("remap"),
      py::arg("key_serializers_from"));

  // ckpt/__init__.py turns edit()'s keywords into these: pairs as the flags' OP=X, keys as the
  // JSON text of ckpt dump, TTLs and `now` in milliseconds.
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  m.def(
      "_edit",
      [](const std::string& snapshot, const std::string& output, const std::vector<std::string>& drop_operators,
         const Pairs& set_uids, const Pairs& set_ids, const Pairs& drop_states,
         const std::vector<std::string>& delete_keys, const std::string& keys_operator, int32_t max_parallelism,
         const std::vector<std::pair<std::string, int32_t>>& operator_max_parallelism, int32_t parallelism,
         const std::vector<std::pair<std::string, int64_t>>& expire, std::optional<int64_t> now,
         const std::optional<std::string>& plan, const std::optional<std::string>& to, bool dry_run, bool force,
         int jobs, const std::vector<std::string>& remap, const std::string& key_serializers_from,
         const std::optional<py::iterable>& upsert, const Pairs& delete_where, const Pairs& keep_where) {
        EditOptions options;
        options.output = output;
        options.drop_operators = drop_operators;
        options.set_uids = set_uids;
        options.set_ids = set_ids;
        options.drop_states = drop_states;
        for (const std::string& key : delete_keys) options.delete_keys.push_back(value_or_raise(parse_value(key)));
        options.keys_operator = keys_operator;
        options.max_parallelism = max_parallelism;
        options.operator_max_parallelism = operator_max_parallelism;
        options.parallelism = parallelism;
        options.expire = expire;
        options.now = now;
        if (now && plan) options.plan = *plan;
        if (to) options.to = value_or_raise(parse_convert_target(*to));
        options.dry_run = dry_run;
        options.force = force;
        options.jobs = jobs;
        options.remap = prefix_rules(remap);
        options.key_serializers_from = key_serializers_from;
        options.delete_where = delete_where;
        options.keep_where = keep_where;
        // Upserted entries stream from the caller's iterable; its exception is raised as such.
        std::optional<IteratorLines> lines;
        std::optional<std::istream> upserts;
        if (upsert) {
          lines.emplace(py::iter(*upsert));
          upserts.emplace(&*lines);
          options.upsert = &*upserts;
          options.upsert_name = "<python>";
        }
        Result<EditSummary> summary = [&] {
          py::gil_scoped_release nogil;
          return edit_snapshot(snapshot, options);
        }();
        if (lines && lines->restore_error()) throw py::error_already_set();
        if (!summary.ok()) raise_error(summary.error());
        return printed_document([&](JsonWriter& w) { write_edit_json(snapshot, options, *summary, w); });
      },
      py::arg("snapshot"), py::arg("output"), py::arg("drop_operators"), py::arg("set_uids"), py::arg("set_ids"),
      py::arg("drop_states"), py::arg("delete_keys"), py::arg("keys_operator"), py::arg("max_parallelism"),
      py::arg("operator_max_parallelism"), py::arg("parallelism"), py::arg("expire"), py::arg("now"), py::arg("plan"),
      py::arg("to"), py::arg("dry_run"), py::arg("force"), py::arg("jobs"), py::arg("remap"),
      py::arg("key_serializers_from"), py::arg("upsert"), py::arg("delete_where"), py::arg("keep_where"));

  m.def(
      "_ttl_ms", [](const std::string& text) { return value_or_raise(parse_ttl_duration(text)); }, py::arg("text"));

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
            [](const DiffReport& r, JsonWriter& w) { write_diff_json(r, w); });
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
            [](const GcReport& r, JsonWriter& w) { write_gc_json(r, w); });
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
            [](const RestoreReport& r, JsonWriter& w) { write_restore_json(r, w); });
      },
      py::arg("snapshot"), py::arg("output"), py::arg("operator"), py::arg("subtask"), py::arg("key_groups"),
      py::arg("link"), py::arg("full_check"), py::arg("jobs"), py::arg("force"), py::arg("remap"));
}

}  // namespace ckpt::python
