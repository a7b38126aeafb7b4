// python/src/iterator_lines.h - NDJSON lines a Python iterator yields, as the std::istream the
// library's readers of entries take (load_snapshot, EditOptions::upsert).
#pragma once

#include <optional>
#include <streambuf>
#include <string>

#include "binding.h"

namespace ckpt::python {

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

}  // namespace ckpt::python
