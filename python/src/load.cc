// ckpt.load(): a savepoint written from entries a Python iterable yields, as `ckpt load` writes
// one from NDJSON. The library reads an istream; its buffer pulls the lines from the iterator.
#include <istream>

#include "binding.h"
#include "ckpt/json.h"
#include "ckpt/load.h"
#include "iterator_lines.h"

namespace ckpt::python {

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
        return printed_document(
            [&](JsonWriter& w) { write_load_json(like.empty() ? spec_name : like, input_name, *summary, w); });
      },
      py::arg("lines"), py::arg("input_name"), py::arg("output"), py::arg("like"), py::arg("spec_text"),
      py::arg("spec_name"), py::arg("to"), py::arg("force"), py::arg("jobs"), py::arg("remap"));
}

}  // namespace ckpt::python
