// The `ckpt.convert/1` document (formats/schemas/ckpt.convert.schema.json).
#include "ckpt/convert.h"
#include "ckpt/json.h"

namespace ckpt {

void write_convert_json(const std::string& snapshot, ConvertTarget to, const ConvertSummary& s, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.convert/1");
  w.member("snapshot", snapshot);
  w.member("output", s.output);
  w.member("to", convert_target_name(to));
  w.member("kind", s.kind);
  w.member("subtask_count", s.subtasks);
  w.member("entry_count", s.entries);
  w.member("file_count", s.files);
  w.member("bytes", s.bytes);
  w.end_object();
}

}  // namespace ckpt
