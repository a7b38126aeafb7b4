// Snapshot, and the iterator over its entries.
//
// Each iteration owns an EntryReader opened with its selection and the reader's iterator,
// whose worker threads decode subtasks ahead. Entries are taken from it in batches with the
// GIL released (the waits for workers and the moves out of their chunks), then converted one
// at a time as Python asks. An iterator dropped halfway, closed, or still alive when the
// interpreter exits stops and joins its workers: nothing is left running behind Python's back.
#include <Python.h>
#include <structmember.h>

#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binding.h"
#include "ckpt/object_store.h"

namespace ckpt::python {

namespace {

// ckpt.Entry: a named tuple of the fields of a `ckpt dump` line (os.stat_result's kind of type:
// a tuple built in C, cheaper than any class instance).
PyStructSequence_Field entry_fields[] = {
    {"operator", "the operator's id, 32 hex digits"},
    {"uid", "the operator's uid (V5+ _metadata, plan= or uids=), or None"},
    {"subtask", "the subtask index"},
    {"state", "the state's name"},
    {"kind", "'keyed', 'timer' or 'operator'"},
    {"key_group", "the key group (keyed and timer entries), or None"},
    {"key", "the key (keyed, timer and broadcast entries), or None"},
    {"namespace", "the namespace (keyed and timer entries), or None"},
    {"user_key", "the map key (map state), or None"},
    {"value", "the value"},
    {"entry_bytes", "bytes the job's serializers wrote for this entry (ckpt query's entry_bytes)"},
    {"raw", "with entries(raw=True): (key, namespace, user_key, value) as stored, bytes; else None"},
    // Not part of the tuple: None alone cannot tell a field the entry lacks from a null one.
    {"present", "which of key, namespace and user_key the entry has, as bits 1, 2 and 4"},
    {nullptr, nullptr}};
PyStructSequence_Desc entry_desc = {
    "ckpt.Entry",
    "One state entry, as `ckpt dump` prints it: a named tuple (operator, uid, subtask, state, kind,\n"
    "key_group, key, namespace, user_key, value, entry_bytes, raw). Fields an entry does not have are None.",
    entry_fields, 12};
PyTypeObject* entry_type = nullptr;

constexpr size_t kBatch = 256;  // entries taken from the workers per release of the GIL

struct OperatorInfo {
  py::object id;                                          // str
  py::object uid;                                         // str or None
  const std::vector<std::string>* key_columns = nullptr;  // the plan's key column names
};

class EntryStream;
std::set<EntryStream*>& live_streams() {
  static auto* streams = new std::set<EntryStream*>;  // never destroyed: read at exit
  return *streams;
}

class EntryStream {
 public:
  EntryStream(std::shared_ptr<const SnapshotSource> source, std::unique_ptr<EntryReader> reader, bool typed, bool raw)
      : source_(std::move(source)), reader_(std::move(reader)), typed_(typed), raw_(raw) {
    for (const OperatorState& op : reader_->metadata().operators) {
      OperatorInfo info;
      info.id = py::str(operator_id_hex(op.id));
      const std::string uid = source_->names.uid_of(op);
      info.uid = uid.empty() ? py::none() : py::object(py::str(uid));
      const OperatorName* name = source_->names.find(op.id);
      if (name && !name->key_columns.empty()) info.key_columns = &name->key_columns;
      operators_.emplace(operator_id_hex(op.id), std::move(info));
    }
    kinds_[0] = py::str("keyed");
    kinds_[1] = py::str("timer");
    kinds_[2] = py::str("operator");
    live_streams().insert(this);
    {
      py::gil_scoped_release nogil;
      it_ = reader_->entries();  // waits for the first chunk
    }
  }
  ~EntryStream() {
    live_streams().erase(this);
    if (it_ || reader_) close();
  }
  EntryStream(const EntryStream&) = delete;
  EntryStream& operator=(const EntryStream&) = delete;

  py::object next() {
    if (busy_) throw std::runtime_error("ckpt: this iterator is in use by another thread");
    if (pos_ >= batch_.size()) {
      if (!it_) throw py::stop_iteration();
      fill();
      if (batch_.empty()) {
        const Status status = it_->status();
        close();
        ok_or_raise(status);
        throw py::stop_iteration();
      }
    }
    return entry(batch_[pos_++]);
  }

  bool busy() const { return busy_; }

  // Stops the workers and frees what the iteration holds; later next() calls end it.
  void close() {
    if (busy_) throw std::runtime_error("ckpt: this iterator is in use by another thread");
    std::unique_ptr<EntryIterator> it = std::move(it_);
    std::unique_ptr<EntryReader> reader = std::move(reader_);
    batch_.clear();
    pos_ = 0;
    live_streams().erase(this);
    if (!it && !reader) return;
    py::gil_scoped_release nogil;
    it.reset();  // stop_and_join: workers blocked on a full channel wake up and leave
    reader.reset();
  }

 private:
  void fill() {
    batch_.clear();
    pos_ = 0;
    busy_ = true;
    {
      py::gil_scoped_release nogil;
      // EntryIterator: "the entry may be moved from" before next().
      while (batch_.size() < kBatch && it_->valid()) {
        batch_.push_back(std::move(const_cast<Entry&>(it_->entry())));
        it_->next();
      }
    }
    busy_ = false;
  }

  const OperatorInfo& operator_info(const std::string& hex) {
    if (last_operator_ && last_hex_ == hex) return *last_operator_;
    auto found = operators_.find(hex);
    if (found == operators_.end()) {
      OperatorInfo info;
      info.id = py::str(hex);
      info.uid = py::none();
      found = operators_.emplace(hex, std::move(info)).first;
    }
    last_hex_ = hex;
    last_operator_ = &found->second;
    return *last_operator_;
  }

  py::object state_name(const std::string& state) {
    if (!last_state_ || last_state_name_ != state) {
      last_state_name_ = state;
      last_state_ = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(state.data(), static_cast<Py_ssize_t>(state.size()), "surrogatepass"));
      if (!last_state_) throw py::error_already_set();
    }
    return last_state_;
  }

  static py::object bytes(const std::string& s) { return py::bytes(s); }

  py::object entry(const Entry& e) {
    const OperatorInfo& op = operator_info(e.operator_id);
    py::object fields[13] = {op.id,
                             op.uid,
                             py::int_(e.subtask),
                             state_name(e.state),
                             kinds_[static_cast<int>(e.kind)],
                             e.key_group ? py::object(py::int_(*e.key_group)) : py::none(),
                             e.key ? key_to_python(*e.key, typed_, op.key_columns) : py::none(),
                             e.ns ? to_python(*e.ns, typed_) : py::none(),
                             e.user_key ? to_python(*e.user_key, typed_) : py::none(),
                             to_python(e.value, typed_),
                             py::int_(entry_bytes(e)),
                             py::none(),
                             py::int_((e.key ? 1 : 0) | (e.ns ? 2 : 0) | (e.user_key ? 4 : 0))};
    if (raw_ && e.has_raw) {
      auto optional = [&](bool present, const std::string& s) { return present ? bytes(s) : py::object(py::none()); };
      fields[11] = py::make_tuple(optional(e.key.has_value(), e.raw_key), optional(e.ns.has_value(), e.raw_namespace),
                                  optional(e.user_key.has_value(), e.raw_user_key), bytes(e.raw_value));
    }
    PyObject* out = PyStructSequence_New(entry_type);
    if (!out) throw py::error_already_set();
    for (int i = 0; i < 13; ++i) PyStructSequence_SET_ITEM(out, i, fields[i].release().ptr());
    return py::reinterpret_steal<py::object>(out);
  }

  std::shared_ptr<const SnapshotSource> source_;  // names, and the staging the files are in
  std::unique_ptr<EntryReader> reader_;           // outlives it_ (declared before it)
  std::unique_ptr<EntryIterator> it_;
  const bool typed_;
  const bool raw_;
  std::vector<Entry> batch_;
  size_t pos_ = 0;
  bool busy_ = false;  // fill() runs without the GIL: another thread must not step in
  std::unordered_map<std::string, OperatorInfo> operators_;
  std::string last_hex_;
  const OperatorInfo* last_operator_ = nullptr;
  std::string last_state_name_;
  py::object last_state_;
  py::object kinds_[3];
};

// Run by Python's atexit, before the interpreter tears down: iterators still referenced (a
// module global, a reference cycle) stop their workers here, while everything they use lives.
// One a daemon thread is still taking entries from is left alone: closing it under that
// thread would free what it reads.
void close_live_streams() {
  std::vector<EntryStream*> streams(live_streams().begin(), live_streams().end());
  for (EntryStream* s : streams)
    if (!s->busy()) s->close();
}

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

  std::unique_ptr<EntryStream> entries(const std::optional<std::string>& op, const std::optional<std::string>& state,
                                       std::optional<int32_t> subtask, const py::object& key_groups,
                                       const py::object& keys, int jobs, const std::string& values, bool raw) const {
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
      // As `ckpt dump --key` takes them: JSON text, here of the Python values.
      py::object key_json = py::module_::import("ckpt._values").attr("key_json");
      if (py::isinstance<py::str>(keys) || !py::isinstance<py::iterable>(keys))
        options.keys.push_back(key_json(keys).cast<std::string>());
      else
        for (py::handle k : keys) options.keys.push_back(key_json(k).cast<std::string>());
    }
    Result<std::unique_ptr<EntryReader>> reader = [&] {
      py::gil_scoped_release nogil;
      return EntryReader::open(source_->path, options);
    }();
    return std::make_unique<EntryStream>(source_, value_or_raise(std::move(reader)), values == "python", raw);
  }

  // `ckpt inspect --json` of the snapshot, read once.
  py::object metadata() const {
    if (!metadata_) metadata_ = inspect_document(*source_, false, false, 1);
    return metadata_;
  }

 private:
  std::shared_ptr<SnapshotSource> source_;
  std::unique_ptr<EntryReader> reader_;  // the whole snapshot, opened once: `_metadata` checked
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
  if (is_object_store_uri(path)) {
    // As the ckpt tool stages s3:// arguments (tools/object_store.h): whole objects, since an
    // iteration reads every byte; references outside the prefix through --remap rules.
    std::shared_ptr<ObjectStore> store = value_or_raise(ObjectStore::open(ObjectStoreOptions{}));
    ObjectStoreStaging::Options options;
    options.whole_files = true;
    Result<std::string> local = Error(ErrorCode::kIOError, "not staged");
    {
      py::gil_scoped_release nogil;
      auto staging = ObjectStoreStaging::create(store, options);
      if (!staging.ok()) {
        local = staging.error();
      } else {
        source->staging = std::move(staging).value();
        local = source->staging->input(path);
      }
    }
    source->path = value_or_raise(std::move(local));
    for (PrefixRule& rule : rules_of(source->staging->remap_specs())) source->remap.push_back(std::move(rule));
  }
  return source;
}

}  // namespace

py::object json_document(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

void bind_entries(py::module_& m) {
  entry_type = PyStructSequence_NewType(&entry_desc);
  if (!entry_type) throw py::error_already_set();
  m.attr("Entry") = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(entry_type));

  py::class_<EntryStream>(m, "Entries",
                          "An iteration over a snapshot's entries (Snapshot.entries()): yields ckpt.Entry.\n"
                          "Workers decode subtasks ahead; close() (or leaving a `with` block) stops them early.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &EntryStream::next)
      .def("close", &EntryStream::close, "Stop the workers and end the iteration.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](EntryStream& s, py::args) { s.close(); });

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
  m.def("_close_live_iterators", &close_live_streams);
  py::module_::import("atexit").attr("register")(m.attr("_close_live_iterators"));
}

OperatorNames operator_names(const std::optional<std::string>& plan, const std::vector<std::string>& uids) {
  return names_of(plan, uids);
}
std::vector<PrefixRule> prefix_rules(const std::vector<std::string>& remap) { return rules_of(remap); }

}  // namespace ckpt::python
