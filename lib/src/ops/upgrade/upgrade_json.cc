// ckpt-upgrade(1)'s documents: the check's `ckpt.upgrade/1` and the rewrite's
// `ckpt.upgrade-output/1` (formats/schemas/ckpt.upgrade.schema.json, ckpt.upgrade-output.schema.json).
#include "ckpt/json.h"
#include "ckpt/upgrade.h"

namespace ckpt {

void write_upgrade_json(const UpgradeCheckReport& r, JsonWriter& w) {
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
}

void write_upgrade_output_json(const std::string& snapshot, const UpgradeWriteReport& r, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.upgrade-output/1");
  w.member("snapshot", snapshot);
  w.member("output", r.written.output);
  w.member("target", "2.x");
  w.member("kind", r.written.kind);
  w.member("file_count", r.written.files);
  w.member("bytes", r.written.bytes);
  w.member("state_count", r.states.size());
  w.member("rewritten_count", r.rewritten);
  w.member("left_count", r.left);
  w.member("dropped_count", r.dropped);
  w.key("states");
  w.begin_array();
  for (const UpgradeStateAction& a : r.states) {
    w.begin_object();
    w.member("operator", a.operator_id);
    w.member("state", a.state);
    w.member("keyed", a.keyed);
    w.member("action", a.action);
    w.key("reason");
    w.string_or_null(a.reason);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace ckpt
