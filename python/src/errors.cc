// ckpt::Error as the ckpt.Error subclass of its code, raised.
#include <Python.h>

#include "binding.h"
#include "ckpt/error_codes.h"

namespace ckpt::python {

namespace {

py::object or_none(const std::string& s) { return s.empty() ? py::none() : py::object(py::str(s)); }

}  // namespace

void raise_error(const Error& e) {
  // The classes live in Python (ckpt/_errors.py) so that they read as any other exception does.
  py::object errors = py::module_::import("ckpt._errors");
  py::object cls = errors.attr("class_of")(error_code_id(e.code));
  py::object offset = e.offset ? py::object(py::int_(*e.offset)) : py::none();
  py::object exc = cls(e.to_string(), error_code_id(e.code), e.message, or_none(e.file), offset, or_none(e.context));
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

}  // namespace ckpt::python
