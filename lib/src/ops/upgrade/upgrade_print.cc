// ckpt-upgrade(1)'s table and its `ckpt.upgrade/1` document.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "ckpt/upgrade.h"
#include "ops/json_writer.h"

namespace ckpt {
namespace {

// A serializer tree can run to hundreds of characters (a SQL row); the table keeps its head.
constexpr size_t kSerializerWidth = 56;

std::string clipped(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return s.substr(0, width - 3) + "...";
}

std::string reason_of(const StateUpgradeCheck& s) {
  if (s.findings.empty()) return "";
  const UpgradeFinding& f = s.findings.front();
  std::string out = f.where.empty() ? f.reason : f.where + ": " + f.reason;
  if (s.findings.size() > 1) out += fmt::format(" (+{} more)", s.findings.size() - 1);
  return out;
}

}  // namespace

std::string upgrade_check_json(const UpgradeCheckReport& r) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.member("schema", "ckpt.upgrade/1");
  w.member("fail_count", r.fail_count);
  w.member("metadata_version", r.metadata_version);
  w.member("ok_count", r.ok_count);
  w.key("problems");
  w.begin_array();
  for (const std::string& p : r.problems) w.value(p);
  w.end_array();
  w.member("snapshot", r.snapshot);
  w.member("state_count", r.states.size());
  w.key("states");
  w.begin_array();
  for (const StateUpgradeCheck& s : r.states) {
    w.begin_object();
    w.key("findings");
    w.begin_array();
    for (const UpgradeFinding& f : s.findings) {
      w.begin_object();
      w.member("reason", f.reason);
      w.member("rule", f.rule);
      w.key("serializer");
      w.string_or_null(f.serializer);
      w.member("verdict", upgrade_verdict_name(f.verdict));
      w.key("where");
      w.string_or_null(f.where);
      w.end_object();
    }
    w.end_array();
    w.key("key_serializer");
    w.string_or_null(s.key_serializer);
    w.member("keyed", s.keyed);
    w.member("kind", s.kind);
    w.member("operator", s.operator_id);
    w.key("serializer");
    w.string_or_null(s.serializer);
    w.member("state", s.state);
    w.key("uid");
    w.string_or_null(s.uid);
    w.member("verdict", upgrade_verdict_name(s.verdict));
    w.end_object();
  }
  w.end_array();
  w.member("target", r.target);
  w.member("unknown_count", r.unknown_count);
  w.end_object();
  return out;
}

std::string upgrade_check_text(const UpgradeCheckReport& r) {
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows = {{"OPERATOR", "STATE", "KIND", "SERIALIZER", "VERDICT", "REASON"}};
  for (const StateUpgradeCheck& s : r.states)
    rows.push_back({s.uid.empty() ? s.operator_id : printable(s.uid), printable(s.state), s.kind,
                    clipped(printable(s.serializer.empty() ? s.key_serializer : s.serializer), kSerializerWidth),
                    upgrade_verdict_name(s.verdict), printable(reason_of(s))});
  std::array<size_t, 6> width{};
  for (const Row& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  if (!r.states.empty())
    for (const Row& row : rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i)
        line += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], width[i]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  out += fmt::format("Flink {}: {}: {} ok, {} unknown, {} fail\n", r.target,
                     counted(r.states.size(), "state", "states"), r.ok_count, r.unknown_count, r.fail_count);
  return out;
}

}  // namespace ckpt
