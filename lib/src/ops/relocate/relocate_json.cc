// The `ckpt.relocate/1` document (formats/schemas/ckpt.relocate.schema.json).
#include "ckpt/json.h"
#include "ckpt/relocate.h"

namespace ckpt {

void write_relocate_json(const std::string& snapshot, const std::string& output, const RelocateStats& stats,
                         JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.relocate/1");
  w.member("snapshot", snapshot);
  w.member("output", output);
  w.member("rewritten_path_count", stats.rewritten);
  w.member("relative_path_count", stats.made_relative);
  w.member("changed", stats.changed());
  w.end_object();
}

}  // namespace ckpt
