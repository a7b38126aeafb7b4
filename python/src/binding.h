// python/src/binding.h - what the sources of the Python module `ckpt` share.
//
// The module is thin over the public API (lib/include/ckpt/): values become Python objects
// (values.cc), errors become ckpt.Error exceptions (errors.cc), a snapshot is opened with its
// names and rules (snapshot.cc), entries stream through an iterator that owns its reader and
// worker threads (entry_stream.cc), the operations return the documents their `--json`
// prints (operations.cc), and module.cc puts them together.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/entries.h"
#include "ckpt/error.h"
#include "ckpt/json.h"
#include "ckpt/names.h"
#include "ckpt/resolve.h"

namespace ckpt::python {

namespace py = pybind11;

// Raises the ckpt.Error subclass of `e`'s code (ckpt/_errors.py), with its file and offset.
[[noreturn]] void raise_error(const Error& e);
// The value of a Result, or its error raised.
template <class T>
T value_or_raise(Result<T>&& r) {
  if (!r.ok()) raise_error(r.error());
  return std::move(r).value();
}
inline void ok_or_raise(const Status& s) {
  if (!s.ok()) raise_error(s.error());
}

// Python objects for decoded values. With `typed`, the documented conversions apply
// (python/README.md): {"bytes":hex} -> bytes, {"unscaled","scale"} -> decimal.Decimal,
// {"millis","nano_of_milli"} -> datetime.datetime when exact; without, JSON's types only.
py::object to_python(const Value& v, bool typed);
// A key row {"fields":[...],"kind":k} with its fields named after `names` (the plan's key
// columns), as `ckpt dump --plan` names them; any other value as to_python().
py::object key_to_python(const Value& v, bool typed, const std::vector<std::string>* names);
// Called once at import: the classes conversions construct.
void init_values();

// What an opened snapshot knows besides its path: names for its operators and --remap rules.
// An s3:// URI is read in place through the library's FileSystem, as the ckpt tool reads it.
struct SnapshotSource {
  std::string given;  // the path or URI as the caller wrote it
  std::string path;   // what the library opens: the same path or URI
  OperatorNames names;
  std::vector<PrefixRule> remap;
};

// A parsed JSON document (the text a write_*_json printed) as Python dicts and lists.
py::object json_document(const std::string& text);
// The document `print` writes (a write_*_json of the library), as Python dicts and lists.
template <class Print>
py::object printed_document(Print print) {
  std::string text;
  {
    JsonWriter w(text);
    print(w);
  }
  return json_document(text);
}

// Names from a compiled plan file and uids (as --plan and --uid), and --remap rules.
OperatorNames operator_names(const std::optional<std::string>& plan, const std::vector<std::string>& uids);
std::vector<PrefixRule> prefix_rules(const std::vector<std::string>& remap);

// The documents of `ckpt inspect --json` and `ckpt verify --json` for an opened snapshot.
py::object inspect_document(const SnapshotSource& source, bool count, bool verbose, int jobs);
py::object verify_document(const SnapshotSource& source, bool deep, int jobs);

// An iteration over `reader`'s entries, as a ckpt.Entries object (bind_entries() first).
py::object entry_stream(std::shared_ptr<const SnapshotSource> source, std::unique_ptr<EntryReader> reader, bool typed,
                        bool raw);

// Binds Entry and the entry iterator into `m`.
void bind_entries(py::module_& m);
// Binds Snapshot and ckpt._open into `m`.
void bind_snapshot(py::module_& m);
// Binds the functions over the operations' reports (inspect, verify, diff, gc, restore).
void bind_operations(py::module_& m);
// Binds ls, query and the upgrade check.
void bind_query(py::module_& m);
// Binds load.
void bind_load(py::module_& m);

}  // namespace ckpt::python
