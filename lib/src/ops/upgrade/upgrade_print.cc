// ckpt-upgrade(1)'s table.

#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "ckpt/upgrade.h"
#include "support/text_table.h"

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

std::string upgrade_check_text(const UpgradeCheckReport& r) {
  std::vector<std::vector<std::string>> rows = {{"OPERATOR", "STATE", "KIND", "SERIALIZER", "VERDICT", "REASON"}};
  for (const StateUpgradeCheck& s : r.states)
    rows.push_back({s.uid.empty() ? s.operator_id : printable(s.uid), printable(s.state), s.kind,
                    clipped(printable(s.serializer.empty() ? s.key_serializer : s.serializer), kSerializerWidth),
                    upgrade_verdict_name(s.verdict), printable(reason_of(s))});
  std::string out;
  if (!r.states.empty()) out = aligned_table(rows);
  out += fmt::format("Flink {}: {}: {} ok, {} unknown, {} fail\n", r.target,
                     counted(r.states.size(), "state", "states"), r.ok_count, r.unknown_count, r.fail_count);
  return out;
}

}  // namespace ckpt
