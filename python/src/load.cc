// ckpt.load(): a savepoint written from entries a Python iterable yields, as `ckpt load` writes
// one from NDJSON. The library reads an istream; its buffer pulls the lines from the iterator.
#include <istream>
#include <optional>
#include <streambuf>

#include "binding.h"
#include "ckpt/json.h"
#include "ckpt/load.h"

namespace ckpt::python {

namespace {

// The NDJSON lines of a Python iterator of str or bytes, read with the GIL taken for each line,
// from whichever thread the loader reads on. An exception the iterator raises is kept for the
// caller and ends the stream as a read error (badbit), never as an end: the loader then writes
// nothing, where an early end would have been a smaller savepoint.
class IteratorLines : public std::streambuf {
 public:
  explicit IteratorLines(py::iterator it) : it_(std::move(it)) {}

  // The iterator's exception, restored as the current Python error; false when there is none.
  bool restore_error() {
    if (!error_) return false;
    error_->restore();
    error_.reset();
    return true;
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    py::gil_scoped_acquire gil;
    PyObject* item = PyIter_Next(it_.ptr());
    if (!item) {
      if (!PyErr_Occurred()) return traits_type::eof();
      error_.emplace();  // fetches the current error
      throw std::ios_base::failure("the entries' iterator raised");
    }
    py::object line = py::reinterpret_steal<py::object>(item);
    if (py::isinstance<py::bytes>(line)) {
      chunk_ = line.cast<std::string>();
    } else if (py::isinstance<py::str>(line)) {
      chunk_ = line.cast<std::string>();
    } else {
      PyErr_SetString(PyExc_TypeError, "ckpt.load: each entry line must be str or bytes");
      error_.emplace();
      throw std::ios_base::failure("an entry line that is not text");
    }
    if (chunk_.empty() || chunk_.back() != '\n') chunk_ += '\n';
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  py::iterator it_;
  std::string chunk_;
  std::optional<py::error_already_set> error_;
};

}  // namespace

void bind_load(py::module_& m) {
  m.def(
      "_load",
      [](const py::iterable& lines, const std::string& input_name, const std::string& output, const std::string& like,
         const std::string& spec_text, const std::string& spec_name, const std::optional<std::string>& to, bool force,
         int jobs, const std::vector<std::string>& remap) {
        LoadOptions options;
        options.like = like;
        options.spec_text = spec_text;
        options.spec_name = spec_name;
        options.output = output;
        options.force = force;
        options.jobs = jobs;
        options.remap = prefix_rules(remap);
        if (to) options.to = value_or_raise(parse_convert_target(*to));
        IteratorLines buffer(py::iter(lines));
        std::istream in(&buffer);
        Result<LoadSummary> summary = [&] {
          py::gil_scoped_release nogil;
          return load_snapshot(in, input_name, options);
        }();
        if (buffer.restore_error()) throw py::error_already_set();
        if (!summary.ok()) raise_error(summary.error());
        std::string text;
        {
          JsonWriter w(text);
          write_load_json(like.empty() ? spec_name : like, input_name, *summary, w);
        }
        return json_document(text);
      },
      py::arg("lines"), py::arg("input_name"), py::arg("output"), py::arg("like"), py::arg("spec_text"),
      py::arg("spec_name"), py::arg("to"), py::arg("force"), py::arg("jobs"), py::arg("remap"));
}

}  // namespace ckpt::python
