// ckpt query's per-state tables against ckpt dump: on Flink's own snapshots every state's table
// "<operator>.<state>" holds, row for row, the entries dump prints of that state, each split
// into the columns `state_columns` describes (the test takes dump's JSON apart along those
// paths itself), LIST states one row per element, and no part of a key or value left out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/query.h"
#include "testlib/test_support.h"

using namespace ckpt;
using nlohmann::json;

namespace {

struct StateTableRows : QuerySink {
  std::vector<std::string> names;
  std::vector<std::vector<QueryCell>> rows;
  void columns(const std::vector<std::string>& n) override { names = n; }
  void row(const std::vector<QueryCell>& c) override { rows.push_back(c); }
};

struct DumpedByState : DumpSink {
  std::map<std::pair<std::string, std::string>, std::vector<Entry>> by_state;  // (operator, state)
  void entry(const Entry& e) override { by_state[{e.operator_id, e.state}].push_back(e); }
  void problem(const Error&) override {}
};

// One column of a state table as state_columns describes it.
struct StateColumnSource {
  std::string name, field, path;
};

struct DescribedStateTable {
  std::string operator_id, state;
  std::vector<StateColumnSource> columns;
};

std::optional<json> parsed_field(const std::optional<Value>& field) {
  if (!field) return std::nullopt;
  json j = json::parse(field->json(), nullptr, false);
  REQUIRE(!j.is_discarded());
  return j;
}

// "$", "$.name", "$.\"odd name\"", "$[2]" as state_columns writes them.
const json* json_at_path(const json& root, const std::string& path) {
  const json* at = &root;
  size_t i = 1;
  while (at && i < path.size()) {
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      size_t index = std::stoul(path.substr(i + 1, close - i - 1));
      at = at->is_array() && index < at->size() ? &(*at)[index] : nullptr;
      i = close + 1;
    } else {
      std::string member;
      if (path[i + 1] == '"') {
        for (i += 2; path[i] != '"'; ++i) {
          if (path[i] == '\\') ++i;
          member += path[i];
        }
        ++i;
      } else {
        size_t end = path.find_first_of(".[", i + 1);
        if (end == std::string::npos) end = path.size();
        member = path.substr(i + 1, end - i - 1);
        i = end;
      }
      at = at->is_object() && at->contains(member) ? &(*at)[member] : nullptr;
    }
  }
  return at;
}

// A cell holds a scalar as its SQL value and anything else as its JSON text.
bool cell_matches_json(const QueryCell& got, const json* want) {
  if (!want || want->is_null()) return got.type == QueryCell::Type::kNull;
  if (want->is_boolean()) return got.type == QueryCell::Type::kInteger && got.integer == (want->get<bool>() ? 1 : 0);
  if (want->is_number_integer() && (want->is_number_unsigned() ? want->get<uint64_t>() <= INT64_MAX : true))
    return got.type == QueryCell::Type::kInteger && got.integer == want->get<int64_t>();
  if (want->is_number_float())
    return got.type == QueryCell::Type::kReal &&
           (got.real == want->get<double>() || (std::isnan(got.real) && std::isnan(want->get<double>())));
  if (want->is_string()) return got.type == QueryCell::Type::kText && got.text == want->get<std::string>();
  if (got.type != QueryCell::Type::kText) return false;
  json j = json::parse(got.text, nullptr, false);
  return !j.is_discarded() && j == *want;
}

// Every part of `v` lies under one of the column paths: only type tags (a POJO's or Avro
// record's "class", a row's "kind") and nulls may stay out.
void check_columns_cover(const json& v, const std::string& path, const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (path == p || (path.rfind(p, 0) == 0 && (path[p.size()] == '.' || path[p.size()] == '['))) return;
  INFO("not in any column: " << path << " of " << v.dump());
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it.key() != "class" && it.key() != "kind") check_columns_cover(it.value(), path + "." + it.key(), paths);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) check_columns_cover(v[i], path + "[" + std::to_string(i) + "]", paths);
  } else {
    CHECK(v.is_null());
  }
}

// The rows dump's entry `e` makes in a table of these columns, each row's cells checked
// against `rows` from `next` on; returns the rows it takes.
size_t check_entry_rows(const Entry& e, const std::vector<std::string>& names, const DescribedStateTable& t,
                        const std::vector<std::vector<QueryCell>>& rows, size_t next) {
  std::map<std::string, std::optional<json>> fields = {{"key", parsed_field(e.key)},
                                                       {"namespace", parsed_field(e.ns)},
                                                       {"user_key", parsed_field(e.user_key)},
                                                       {"value", parsed_field(e.value)}};
  const bool list = std::any_of(t.columns.begin(), t.columns.end(), [](auto& c) { return c.field == "list_index"; });
  std::vector<std::optional<size_t>> elements = {std::nullopt};
  const json value = *fields["value"];
  if (list && value.is_array()) {
    elements.clear();
    for (size_t i = 0; i < value.size(); ++i) elements.push_back(i);
  }
  if (elements.empty()) elements.push_back(std::nullopt);  // an empty list: one row of NULLs
  for (const auto& [field, v] : fields) {
    if (!v || (list && field == "value")) continue;
    std::vector<std::string> paths;
    for (const StateColumnSource& c : t.columns)
      if (c.field == field) paths.push_back(c.path);
    if (!paths.empty()) check_columns_cover(*v, "$", paths);
  }
  for (size_t n = 0; n < elements.size(); ++n) {
    REQUIRE(next + n < rows.size());
    const std::vector<QueryCell>& row = rows[next + n];
    std::optional<json> element;
    if (elements[n])
      element = value[*elements[n]];
    else if (!(list && value.is_array()))
      element = value;
    if (element) {
      std::vector<std::string> paths;
      for (const StateColumnSource& c : t.columns)
        if (c.field == "value") paths.push_back(c.path);
      check_columns_cover(*element, "$", paths);
    }
    for (size_t i = 0; i < names.size(); ++i) {
      INFO("row " << next + n << ", column " << names[i] << ", entry " << to_ndjson(e));
      if (names[i] == "subtask") CHECK(row[i].integer == e.subtask);
      const json key_group = e.key_group ? json(*e.key_group) : json();
      if (names[i] == "key_group") CHECK(cell_matches_json(row[i], &key_group));
      for (const StateColumnSource& c : t.columns) {
        if (c.name != names[i]) continue;
        if (c.field == "list_index") {
          const json index = elements[n] ? json(*elements[n]) : json();
          CHECK(cell_matches_json(row[i], &index));
        } else if (c.field == "value") {
          CHECK(cell_matches_json(row[i], element ? json_at_path(*element, c.path) : nullptr));
        } else {
          const std::optional<json>& f = fields[c.field];
          CHECK(cell_matches_json(row[i], f ? json_at_path(*f, c.path) : nullptr));
        }
      }
    }
  }
  return elements.size();
}

// Checks every state table of `snapshot` against its dump; returns the tables' names.
std::map<std::string, DescribedStateTable> check_state_tables(const std::string& snapshot,
                                                              const std::string& plan = "") {
  INFO(snapshot);
  QueryOptions q;
  if (!plan.empty()) REQUIRE(q.names.add_plan_file(plan).ok());
  StateTableRows described;
  auto r = run_query({snapshot}, "SELECT table_name, operator, state, column_name, field, path FROM state_columns", q,
                     described);
  INFO((r.ok() ? std::string() : r.error().to_string()));
  REQUIRE(r.ok());
  std::map<std::string, DescribedStateTable> tables;
  for (const auto& c : described.rows) {
    DescribedStateTable& t = tables[c[0].text];
    t.operator_id = c[1].text;
    t.state = c[2].text;
    t.columns.push_back({c[3].text, c[4].text, c[5].text});
  }
  // Keys as the serializers wrote them, not named after a plan: the tables' paths are positions.
  DumpOptions d;
  d.jobs = 2;
  DumpedByState dumped;
  REQUIRE(dump_snapshot(snapshot, d, dumped).ok());
  size_t states_with_entries = 0;
  for (const auto& [name, t] : tables) {
    INFO("table " << name);
    StateTableRows rows;
    auto s = run_query({snapshot}, "SELECT * FROM \"" + name + "\"", q, rows);
    INFO((s.ok() ? std::string() : s.error().to_string()));
    REQUIRE(s.ok());
    const std::vector<Entry>& entries = dumped.by_state[{t.operator_id, t.state}];
    size_t next = 0;
    for (const Entry& e : entries) next += check_entry_rows(e, rows.names, t, rows.rows, next);
    CHECK(next == rows.rows.size());
    states_with_entries += !entries.empty();
    // entry_bytes adds up to what `entries` counts for the state.
    StateTableRows sums;
    REQUIRE(run_query({snapshot},
                      "SELECT (SELECT total(entry_bytes) FROM \"" + name +
                          "\"), (SELECT total(entry_bytes) FROM entries WHERE operator = '" + t.operator_id +
                          "' AND state = '" + t.state + "')",
                      q, sums)
                .ok());
    CHECK(sums.rows.at(0)[0].real == sums.rows.at(0)[1].real);
  }
  CHECK(states_with_entries > 0);
  return tables;
}

const char* const kStateTableFlinkSample[] = {
    "new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint",            // heap, Tuple keys, timers
    "new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint",             // canonical
    "new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-checkpoint",  // broadcast state
    test::kUdfMigrationChangelog,                                                // changelog
};

const char* const kStateTableSqlSample[] = {"stream-exec-group-aggregate_1/group-aggregate-simple/savepoint",
                                            "stream-exec-join_1/join-inner-join-with-pk/savepoint"};

}  // namespace

TEST_CASE("Each state table holds the dumped entries of its state split into columns on flink snapshots",
          "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  for (const char* name : kStateTableFlinkSample) {
    auto tables = check_state_tables(test::corpus_dir() + "/" + name);
    CHECK(!tables.empty());
  }
}

TEST_CASE("Each state table of a SQL savepoint has its key columns named from the plan", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  for (const char* name : kStateTableSqlSample) {
    const std::string sp = test::sql_corpus_dir() + "/" + name;
    if (!std::filesystem::exists(sp)) {
      WARN("not in the corpus: " << sp);
      continue;
    }
    const std::string plan = test::sql_plan_of(sp);
    auto tables = check_state_tables(sp, plan);
    OperatorNames names;
    REQUIRE(names.add_plan_file(plan).ok());
    size_t named = 0;
    for (const auto& [table, t] : tables) {
      INFO(table);
      std::vector<std::string> key_columns;
      for (const StateColumnSource& c : t.columns)
        if (c.field == "key") key_columns.push_back(c.name);
      OperatorId id{};
      REQUIRE(parse_operator_id(t.operator_id, &id));
      const OperatorName* op = names.find(id);
      if (!op || op->key_columns.empty()) continue;
      CHECK(table.rfind(op->uid + ".", 0) == 0);
      CHECK(key_columns == op->key_columns);
      ++named;
    }
    CHECK(named > 0);
  }
}

TEST_CASE("Each state table holds the dumped entries of its state on every corpus snapshot", "[corpus][ops][large]") {
  CKPT_REQUIRE_SHARED();
  for (const std::string& s : test::corpus_snapshots()) check_state_tables(s);
  for (const std::string& s : test::sql_corpus_snapshots()) check_state_tables(s, test::sql_plan_of(s));
}

TEST_CASE("Key equality and IN lists on a state table find what a scan finds for Tuple and SQL row keys", "[corpus][ops]") {
  // Equality on every key column is a lookup of the key put together again; `+ 0` and `|| ''`
  // keep SQLite from passing the same condition down, so the second query reads everything.
  CKPT_REQUIRE_SHARED();
  const std::string sql_sp = test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/group-aggregate-simple/savepoint";
  const std::vector<std::pair<std::string, std::string>> snapshots = {
      {test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint", ""},
      {sql_sp, test::sql_plan_of(sql_sp)}};
  size_t looked_up = 0;
  for (const auto& [snapshot, plan] : snapshots) {
    INFO(snapshot);
    QueryOptions q;
    if (!plan.empty()) REQUIRE(q.names.add_plan_file(plan).ok());
    StateTableRows described;
    REQUIRE(run_query({snapshot},
                      "SELECT table_name, column_name, type FROM state_columns WHERE field = 'key' AND kind = 'VALUE'",
                      q, described)
                .ok());
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> key_columns;
    for (const auto& r : described.rows) key_columns[r[0].text].emplace_back(r[1].text, r[2].text);
    for (const auto& [table, columns] : key_columns) {
      INFO(table);
      std::string names;
      for (const auto& [name, type] : columns) names += (names.empty() ? "" : ", ") + ("\"" + name + "\"");
      StateTableRows first;
      REQUIRE(run_query({snapshot}, "SELECT " + names + " FROM \"" + table + "\" LIMIT 3", q, first).ok());
      if (first.rows.empty()) continue;
      auto literal = [](const QueryCell& v) {
        return v.type == QueryCell::Type::kInteger ? std::to_string(v.integer) : "'" + v.text + "'";
      };
      // Equality on the first row's key, then each column IN the first rows' values (the
      // lookup of every combination of them).
      std::string pushed, scanned, pushed_in, scanned_in;
      for (size_t i = 0; i < columns.size(); ++i) {
        const QueryCell& v = first.rows[0][i];
        REQUIRE((v.type == QueryCell::Type::kInteger || v.type == QueryCell::Type::kText));
        const std::string column = "\"" + columns[i].first + "\"";
        const std::string unpushed = v.type == QueryCell::Type::kInteger ? column + " + 0" : column + " || ''";
        pushed += (i ? " AND " : "") + column + " = " + literal(v);
        scanned += (i ? " AND " : "") + unpushed + " = " + literal(v);
        std::string list;
        for (const auto& row : first.rows) list += (list.empty() ? "" : ", ") + literal(row[i]);
        pushed_in += (i ? " AND " : "") + column + " IN (" + list + ")";
        scanned_in += (i ? " AND " : "") + unpushed + " IN (" + list + ")";
      }
      for (const auto& [lookup, scan] : {std::pair{pushed, scanned}, std::pair{pushed_in, scanned_in}}) {
        INFO(lookup);
        StateTableRows by_lookup, by_scan;
        REQUIRE(run_query({snapshot}, "SELECT * FROM \"" + table + "\" WHERE " + lookup, q, by_lookup).ok());
        REQUIRE(run_query({snapshot}, "SELECT * FROM \"" + table + "\" WHERE " + scan, q, by_scan).ok());
        CHECK(by_lookup.rows.size() >= (lookup == pushed ? 1 : first.rows.size()));
        CHECK(by_lookup.rows.size() == by_scan.rows.size());
        for (size_t i = 0; i < std::min(by_lookup.rows.size(), by_scan.rows.size()); ++i)
          for (size_t c = 0; c < by_scan.rows[i].size(); ++c) {
            CHECK(by_lookup.rows[i][c].type == by_scan.rows[i][c].type);
            CHECK(by_lookup.rows[i][c].integer == by_scan.rows[i][c].integer);
            CHECK(by_lookup.rows[i][c].text == by_scan.rows[i][c].text);
          }
      }
      ++looked_up;
    }
  }
  CHECK(looked_up >= 3);
}
