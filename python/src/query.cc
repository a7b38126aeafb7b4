// ckpt.ls(), ckpt.query() and ckpt.upgrade_check(): discovery, SQL over state and the 2.x check,
// as `ckpt ls --json`, `ckpt query` and `ckpt upgrade --check --json` give them.
#include "binding.h"
#include "ckpt/json.h"
#include "ckpt/query.h"
#include "ckpt/upgrade.h"

namespace ckpt::python {

namespace {

// A statement's rows, gathered without the GIL: the cells as SQLite typed them.
struct GatheredRows : QuerySink {
  struct Statement {
    std::vector<std::string> columns;
    std::vector<std::vector<QueryCell>> rows;
  };
  std::vector<Statement> statements;
  void columns(const std::vector<std::string>& names) override { statements.push_back({names, {}}); }
  void row(const std::vector<QueryCell>& cells) override { statements.back().rows.push_back(cells); }
};

py::object cell_object(const QueryCell& c) {
  switch (c.type) {
    case QueryCell::Type::kNull: return py::none();
    case QueryCell::Type::kInteger: return py::int_(c.integer);
    case QueryCell::Type::kReal: return py::float_(c.real);
    case QueryCell::Type::kText: return py::str(c.text);
    case QueryCell::Type::kBlob: return py::bytes(c.text);
  }
  return py::none();
}

// Each statement that returns rows as (columns, rows): its column names and its rows as
// tuples, in order.
py::list statement_results(const GatheredRows& gathered) {
  py::list out;
  for (const GatheredRows::Statement& s : gathered.statements) {
    py::list rows;
    for (const std::vector<QueryCell>& cells : s.rows) {
      py::tuple row(cells.size());
      for (size_t i = 0; i < cells.size(); ++i) row[i] = cell_object(cells[i]);
      rows.append(std::move(row));
    }
    out.append(py::make_tuple(py::cast(s.columns), std::move(rows)));
  }
  return out;
}

}  // namespace

void bind_query(py::module_& m) {
  m.def(
      "_ls",
      [](const std::string& path, const std::vector<std::string>& remap) {
        ListOptions options;
        options.remap = prefix_rules(remap);
        Result<std::vector<ListedSnapshot>> found = [&] {
          py::gil_scoped_release nogil;
          return list_snapshots(path, options);
        }();
        if (!found.ok()) raise_error(found.error());
        return printed_document([&](JsonWriter& w) { write_ls_json(path, *found, w); });
      },
      py::arg("path"), py::arg("remap"));

  m.def(
      "_query",
      [](const std::vector<std::string>& paths, const std::string& sql, const std::optional<std::string>& plan,
         const std::vector<std::string>& uids, const std::vector<std::string>& remap, int jobs) {
        QueryOptions options;
        options.names = operator_names(plan, uids);
        options.remap = prefix_rules(remap);
        options.jobs = jobs;
        GatheredRows gathered;
        Result<QuerySummary> summary = [&] {
          py::gil_scoped_release nogil;
          return run_query(paths, sql, options, gathered);
        }();
        if (!summary.ok()) raise_error(summary.error());
        return statement_results(gathered);
      },
      py::arg("paths"), py::arg("sql"), py::arg("plan"), py::arg("uids"), py::arg("remap"), py::arg("jobs"));

  m.def(
      "_upgrade_check",
      [](const std::string& path, const std::string& target, const std::vector<std::string>& remap) {
        UpgradeOptions options;
        options.target = target;
        options.remap = prefix_rules(remap);
        Result<UpgradeCheckReport> report = [&] {
          py::gil_scoped_release nogil;
          return check_upgrade(path, options);
        }();
        if (!report.ok()) raise_error(report.error());
        return printed_document([&](JsonWriter& w) { write_upgrade_json(*report, w); });
      },
      py::arg("path"), py::arg("target"), py::arg("remap"));
}

}  // namespace ckpt::python
