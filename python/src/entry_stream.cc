// ckpt.Entries, the iterator over a snapshot's entries, and ckpt.Entry, what it yields.
//
// Each iteration owns an EntryReader opened with its selection and the reader's iterator,
// whose worker threads decode subtasks ahead. Entries are taken from it in batches with the
// GIL released (the waits for workers and the moves out of their chunks), then converted one
// at a time as Python asks. An iterator dropped halfway, closed, or still alive when the
// interpreter exits stops and joins its workers: nothing is left running behind Python's back.
#include <Python.h>
#include <structmember.h>
#include <pthread.h>

#include <atomic>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binding.h"

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
    {"value", "the value (byte strings as bytes, decimals and timestamps converted: python/README.md)"},
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
// Forks this process came out of as the child since the module was loaded: a stream made
// before one is the parent's (compared per entry: no system call there).
std::atomic<unsigned> g_forks{0};
[[maybe_unused]] const int g_fork_watch = ::pthread_atfork(nullptr, nullptr, [] { g_forks.fetch_add(1, std::memory_order_relaxed); });

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
    py::object e = next_or_end();
    if (!e) throw py::stop_iteration();
    return e;
  }

  // The next entry, or a null object at the end (tp_iternext's way: no StopIteration built).
  py::object next_or_end() {
    if (busy_) throw std::runtime_error("ckpt: this iterator is in use by another thread");
    if (it_ && inherited())
      throw std::runtime_error(
          "ckpt: this iterator was opened by the parent process: a forked child opens the snapshot itself");
    if (pos_ >= batch_.size()) {
      if (!it_) return py::object();
      fill();
      if (batch_.empty()) {
        const Status status = it_->status();
        close();
        ok_or_raise(status);
        return py::object();
      }
    }
    return entry(batch_[pos_++]);
  }

  bool busy() const { return busy_; }
  // Opened by the process this one was forked from (multiprocessing's default on Linux).
  bool inherited() const { return forks_ != g_forks.load(std::memory_order_relaxed); }

  // Stops the workers and frees what the iteration holds; later next() calls end it.
  void close() {
    if (busy_) throw std::runtime_error("ckpt: this iterator is in use by another thread");
    std::unique_ptr<EntryIterator> it = std::move(it_);
    std::unique_ptr<EntryReader> reader = std::move(reader_);
    batch_.clear();
    pos_ = 0;
    live_streams().erase(this);
    if (!it && !reader) return;
    if (inherited()) {
      // In a forked child the workers are the parent's: not here to be stopped or joined (a
      // join could wait for a thread of the child's that took over the stack). Left behind.
      (void)it.release();
      (void)reader.release();
      return;
    }
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

  // Namespaces repeat entry after entry (VoidNamespace, a window): the last string is reused.
  py::object namespace_of(const Value& ns) {
    if (ns.kind() != Value::Kind::kString) return to_python(ns, typed_);
    if (!last_namespace_ || last_namespace_text_ != ns.as_string()) {
      last_namespace_ = to_python(ns, typed_);
      last_namespace_text_ = ns.as_string();
    }
    return last_namespace_;
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
                             e.ns ? namespace_of(*e.ns) : py::none(),
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

  std::shared_ptr<const SnapshotSource> source_;  // names and --remap rules, kept while the entries stream
  std::unique_ptr<EntryReader> reader_;           // outlives it_ (declared before it)
  std::unique_ptr<EntryIterator> it_;
  const bool typed_;
  const bool raw_;
  std::vector<Entry> batch_;
  size_t pos_ = 0;
  bool busy_ = false;  // fill() runs without the GIL: another thread must not step in
  const unsigned forks_ = g_forks.load(std::memory_order_relaxed);
  std::unordered_map<std::string, OperatorInfo> operators_;
  std::string last_hex_;
  const OperatorInfo* last_operator_ = nullptr;
  std::string last_state_name_;
  py::object last_state_;
  std::string last_namespace_text_;
  py::object last_namespace_;
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

// ckpt.Entries' tp_iternext: what a `for` loop calls per entry, straight from the interpreter
// rather than through pybind11's dispatch of __next__ (argument casts, a lookup of the type).
PyObject* iternext(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  auto* stream = inst->get_value_and_holder().value_ptr<EntryStream>();
  if (!stream) {
    PyErr_SetString(PyExc_TypeError, "ckpt.Entries: not initialized");
    return nullptr;
  }
  try {
    return stream->next_or_end().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

}  // namespace

py::object entry_stream(std::shared_ptr<const SnapshotSource> source, std::unique_ptr<EntryReader> reader, bool typed,
                        bool raw) {
  return py::cast(std::make_unique<EntryStream>(std::move(source), std::move(reader), typed, raw));
}

void bind_entries(py::module_& m) {
  entry_type = PyStructSequence_NewType(&entry_desc);
  if (!entry_type) throw py::error_already_set();
  m.attr("Entry") = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(entry_type));

  py::class_<EntryStream> entries(
      m, "Entries",
      "An iteration over a snapshot's entries (Snapshot.entries()): yields ckpt.Entry.\n"
      "Workers decode subtasks ahead; close() (or leaving a `with` block) stops them early.");
  entries.def("__iter__", [](py::object self) { return self; })
      .def("__next__", &EntryStream::next)
      .def("close", &EntryStream::close, "Stop the workers and end the iteration.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](EntryStream& s, py::args) { s.close(); });
  auto* type = reinterpret_cast<PyTypeObject*>(entries.ptr());
  type->tp_iternext = iternext;
  PyType_Modified(type);
  m.def("_close_live_iterators", &close_live_streams);
  py::module_::import("atexit").attr("register")(m.attr("_close_live_iterators"));
}

}  // namespace ckpt::python
