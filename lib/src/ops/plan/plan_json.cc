// The `ckpt.plan/1` document (formats/schemas/ckpt.plan.schema.json).
#include <fmt/format.h>

#include "ckpt/json.h"
#include "ckpt/metadata.h"
#include "ckpt/plan.h"
#include "ckpt/resolve.h"

namespace ckpt {

void write_plan_json(const SnapshotLocation& where, const Plan& plan, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.plan/1");
  w.member("snapshot", where.metadata_path);
  w.member("part_count", plan.parts.size());
  w.member("subtask_count", plan.units.size());
  w.member("bytes", plan.bytes);
  w.member("largest_subtask_bytes", plan.largest_unit);
  w.key("parts");
  w.begin_array();
  for (const PlanPart& p : plan.parts) {
    w.begin_object();
    w.member("index", p.index);
    w.member("shard", fmt::format("{}/{}", p.index, plan.parts.size()));
    w.member("bytes", p.bytes);
    w.member("subtask_count", p.count);
    w.key("subtasks");
    w.begin_array();
    for (size_t i = p.first; i < p.first + p.count; ++i) {
      const PlanUnit& u = plan.units[i];
      w.begin_object();
      w.member("operator", operator_id_hex(u.op->id));
      w.key("uid");
      w.string_or_null(u.op->uid);
      w.member("subtask", u.subtask);
      w.member("bytes", u.bytes);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace ckpt
