// The `ckpt.load/1` document (formats/schemas/ckpt.load.schema.json).
#include "ckpt/json.h"
#include "ckpt/load.h"

namespace ckpt {

void write_load_json(const std::string& like, const std::string& input, const LoadSummary& s, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.load/1");
  w.member("snapshot", like);
  w.member("input", input);
  w.member("output", s.written.output);
  w.member("kind", s.written.kind);
  w.member("line_count", s.lines);
  w.member("keyed_count", s.keyed);
  w.member("timer_count", s.timers);
  w.member("operator_entry_count", s.operator_entries);
  w.member("subtask_count", s.written.subtasks);
  w.member("entry_count", s.written.entries);
  w.member("file_count", s.written.files);
  w.member("bytes", s.written.bytes);
  w.end_object();
}

}  // namespace ckpt
