// The `ckpt.compact/1` document (formats/schemas/ckpt.compact.schema.json).
#include "ckpt/compact.h"
#include "ckpt/json.h"

namespace ckpt {

namespace {

void write_counts(JsonWriter& w, std::string_view name, size_t files, size_t ssts, uint64_t bytes) {
  w.key(name);
  w.begin_object();
  w.member("file_count", files);
  w.member("sst_file_count", ssts);
  w.member("bytes", bytes);
  w.end_object();
}

}  // namespace

void write_compact_json(const CompactReport& r, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.compact/1");
  w.member("snapshot", r.input);
  w.member("output", r.output);
  w.member("instance_count", r.instances);
  write_counts(w, "before", r.files_before, r.sst_files_before, r.bytes_before);
  write_counts(w, "after", r.files_after, r.sst_files_after, r.bytes_after);
  w.end_object();
}

}  // namespace ckpt
