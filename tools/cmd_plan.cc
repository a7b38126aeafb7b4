// ckpt plan: a snapshot's subtasks cut into N parts for a job runner (man/ckpt-plan.1.md).
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/metadata.h"
#include "ckpt/plan.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "command.h"
#include "json_output.h"

namespace ckpt::cli {

namespace {
struct PlanArgs {
  std::string snapshot;
  int shards = 0;
  bool json = false;
};

void write_plan_text(Io& io, const Plan& plan) {
  io.out << fmt::format("{}, {}, in {} (largest subtask {})\n", counted(plan.units.size(), "subtask", "subtasks"),
                        counted(plan.bytes, "byte", "bytes"), counted(plan.parts.size(), "part", "parts"),
                        counted(plan.largest_unit, "byte", "bytes"));
  io.out << fmt::format("{:<10} {:>8} {:>14}  {:<40} {}\n", "SHARD", "SUBTASKS", "BYTES", "FIRST", "LAST");
  auto name = [&](size_t i) {
    const PlanUnit& u = plan.units[i];
    return fmt::format("{}/{}", operator_id_hex(u.op->id), u.subtask);
  };
  for (const PlanPart& p : plan.parts) {
    const std::string shard = fmt::format("{}/{}", p.index, plan.parts.size());
    if (p.count == 0) {
      io.out << fmt::format("{:<10} {:>8} {:>14}  {:<40} {}\n", shard, 0, 0, "-", "-");
      continue;
    }
    io.out << fmt::format("{:<10} {:>8} {:>14}  {:<40} {}\n", shard, p.count, p.bytes, name(p.first),
                          name(p.first + p.count - 1));
  }
}
}  // namespace

Runner setup_plan(CLI::App& sub) {
  auto a = std::make_shared<PlanArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("--shards", a->shards, "Cut the subtasks into N parts balanced by bytes")
      ->required()
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  sub.add_flag("--json", a->json, "Print the parts and their subtasks as JSON");
  return [a](Io& io) {
    Result<SnapshotLocation> where = locate_snapshot(a->snapshot);
    if (!where.ok()) return report_error(io, where.error());
    Result<Metadata> metadata = read_metadata_file(where->metadata_path);
    if (!metadata.ok()) return report_error(io, metadata.error());
    if (Status s = check_key_group_ranges(*metadata, where->metadata_path); !s.ok()) return report_error(io, s.error());
    const Plan plan = plan_parts(*metadata, a->shards);
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_plan_json(*where, plan, w); });
    else
      write_plan_text(io, plan);
    return kExitOk;
  };
}

}  // namespace ckpt::cli
