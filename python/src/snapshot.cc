// Snapshot (ckpt.open()): a snapshot's path, names and --remap rules, its `_metadata` read
// and checked once; each entries() call an iteration of its own (entry_stream.cc).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "binding.h"

namespace ckpt::python {

namespace {

class Snapshot {
 public:
  explicit Snapshot(std::shared_ptr<SnapshotSource> source) : source_(std::move(source)) {
    EntryReaderOptions options;
    options.remap = source_->remap;
    Result<std::unique_ptr<EntryReader>> reader = [&] {
      py::gil_scoped_release nogil;
      return EntryReader::open(source_->path, options);
    }();
    reader_ = value_or_raise(std::move(reader));
  }

  const std::string& path() const { return source_->given; }
  std::shared_ptr<const SnapshotSource> source() const { return source_; }

  py::object entries(const std::optional<std::string>& op, const std::optional<std::string>& state,
                     std::optional<int32_t> subtask, const py::object& key_groups, const py::object& keys, int jobs,
                     const std::string& values, bool raw) const {
    if (values != "python" && values != "json")
      throw py::value_error("values must be 'python' or 'json', not '" + values + "'");
    EntryReaderOptions options;
    options.remap = source_->remap;
    options.operator_filter = op.value_or("");
    options.state = state.value_or("");
    options.subtask = subtask;
    options.jobs = jobs < 1 ? 1 : jobs;
    if (!key_groups.is_none()) {
      if (py::isinstance<py::int_>(key_groups)) {
        const int32_t g = key_groups.cast<int32_t>();
        options.key_groups = std::make_pair(g, g);
      } else {
        auto range = key_groups.cast<std::pair<int32_t, int32_t>>();
        options.key_groups = range;
      }
    }
    if (!keys.is_none()) {
      // The Python values spelled as `ckpt dump` prints keys (ckpt._values.key_json), as Values.
      py::object key_json = py::module_::import("ckpt._values").attr("key_json");
      auto add = [&](py::handle k) { options.keys.push_back(value_or_raise(parse_value(key_json(k).cast<std::string>()))); };
      if (py::isinstance<py::str>(keys) || !py::isinstance<py::iterable>(keys))
        add(keys);
      else
        for (py::handle k : keys) add(k);
    }
    Result<std::unique_ptr<EntryReader>> reader = [&] {
      py::gil_scoped_release nogil;
      return reader_->reselect(options);
    }();
    return entry_stream(source_, value_or_raise(std::move(reader)), values == "python", raw);
  }

  // `ckpt inspect --json` of the snapshot, read once.
  py::object metadata() const {
    if (!metadata_) metadata_ = inspect_document(*source_, false, false, 1);
    return metadata_;
  }

 private:
  std::shared_ptr<SnapshotSource> source_;
  // The whole snapshot, opened once: `_metadata` read and checked, each entries() a reselect().
  std::unique_ptr<EntryReader> reader_;
  mutable py::object metadata_;
};

OperatorNames names_of(const std::optional<std::string>& plan, const std::vector<std::string>& uids) {
  OperatorNames names;
  if (plan) ok_or_raise(names.add_plan_file(*plan));
  for (const std::string& uid : uids) names.add_uid(uid);
  return names;
}

std::vector<PrefixRule> rules_of(const std::vector<std::string>& remap) {
  return value_or_raise(parse_prefix_rules(remap, "remap"));
}

std::shared_ptr<SnapshotSource> source_of(const std::string& path, const std::optional<std::string>& plan,
                                          const std::vector<std::string>& uids, const std::vector<std::string>& remap) {
  auto source = std::make_shared<SnapshotSource>();
  source->given = path;
  source->path = path;
  source->names = names_of(plan, uids);
  source->remap = rules_of(remap);
  return source;
}

}  // namespace

py::object json_document(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

void bind_snapshot(py::module_& m) {
  py::class_<Snapshot>(m, "Snapshot",
                       "A snapshot opened by ckpt.open(): its `_metadata` read and checked, its state read on demand.")
      .def_property_readonly("path", &Snapshot::path, "The path or URI as given to ckpt.open().")
      .def("entries", &Snapshot::entries, py::arg("operator") = py::none(), py::arg("state") = py::none(),
           py::arg("subtask") = py::none(), py::arg("key_groups") = py::none(), py::arg("keys") = py::none(),
           py::arg("jobs") = 1, py::arg("values") = "python", py::arg("raw") = false,
           R"doc(The snapshot's entries, streamed in `ckpt dump`'s order, as ckpt.Entry tuples.

operator:   an operator id, id prefix, uid or (V5+) name; None: every operator
state:      a state name; None: every state
subtask:    a subtask index; None: every subtask
key_groups: a key group or an inclusive (first, last) range; drops operator state
keys:       a key or a list of keys (Python values, as the entries show them): a point lookup
            reading only the key groups Flink assigns them; drops operator state
jobs:       subtasks decoded at once on worker threads
values:     'python' (Decimal, datetime, bytes: see ckpt.to_json) or 'json' (the JSON types only)
raw:        also the entry's stored bytes (Entry.raw)

Memory stays flat whatever the snapshot's size; the GIL is released while libckpt works.
Raises a ckpt.Error subclass for a filter that matches nothing and for damaged state.)doc",
           py::keep_alive<0, 1>())
      .def(
          "__iter__",
          [](const Snapshot& s) { return s.entries({}, {}, {}, py::none(), py::none(), 1, "python", false); },
          py::keep_alive<0, 1>())
      .def_property_readonly("metadata", &Snapshot::metadata,
                             "What `ckpt inspect --json` prints: operators, states, sizes and files (a dict).")
      .def(
          "inspect",
          [](const Snapshot& s, bool count, bool verbose, int jobs) {
            return inspect_document(*s.source(), count, verbose, jobs);
          },
          py::arg("count") = false, py::arg("verbose") = false, py::arg("jobs") = 1,
          "The document of `ckpt inspect --json` (count=True: --count, verbose=True: -v) as a dict.")
      .def(
          "verify", [](const Snapshot& s, bool deep, int jobs) { return verify_document(*s.source(), deep, jobs); },
          py::arg("deep") = false, py::arg("jobs") = 1,
          "The document of `ckpt verify --json` (deep=True: --deep) as a dict: problems are in it, not raised.")
      .def(
          "to_pandas",
          [](py::object self, py::kwargs kwargs) {
            return py::module_::import("ckpt._pandas").attr("to_pandas")(self, **kwargs);
          },
          "to_pandas(state=None, columns='named', **entries_filters) -> pandas.DataFrame\n\n"
          "The entries as a DataFrame (pandas is imported on use); see ckpt._pandas.to_pandas.")
      .def("__repr__", [](const Snapshot& s) { return "<ckpt.Snapshot '" + s.path() + "'>"; });

  m.def(
      "_open",
      [](const std::string& path, const std::optional<std::string>& plan, const std::vector<std::string>& uids,
         const std::vector<std::string>& remap) { return Snapshot(source_of(path, plan, uids, remap)); },
      py::arg("path"), py::arg("plan"), py::arg("uids"), py::arg("remap"));
}

OperatorNames operator_names(const std::optional<std::string>& plan, const std::vector<std::string>& uids) {
  return names_of(plan, uids);
}
std::vector<PrefixRule> prefix_rules(const std::vector<std::string>& remap) { return rules_of(remap); }

}  // namespace ckpt::python
