// The extension module ckpt._ckpt; ckpt/__init__.py is its public face.
#include "binding.h"
#include "ckpt/version.h"

PYBIND11_MODULE(_ckpt, m) {
  m.doc() = "libckpt's entries, metadata and operations (use the package `ckpt`, not this module)";
  m.attr("__version__") = ckpt::version_string();
  ckpt::python::init_values();
  ckpt::python::bind_entries(m);
  ckpt::python::bind_snapshot(m);
  ckpt::python::bind_operations(m);
  ckpt::python::bind_query(m);
  ckpt::python::bind_load(m);
}
