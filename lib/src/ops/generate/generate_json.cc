// The `ckpt.generate/1` document (formats/schemas/ckpt.generate.schema.json).
#include "ckpt/generate.h"
#include "ckpt/json.h"

namespace ckpt {

void write_generate_json(const GenerateOptions& options, std::string_view backend, const GenerateSummary& s,
                         JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.generate/1");
  w.member("output", options.output);
  w.member("backend", backend);
  w.member("chain", options.chain);
  w.member("snapshot_count", s.snapshots);
  w.member("entry_count", s.entries);
  w.member("file_count", s.files);
  w.member("bytes", s.bytes);
  w.end_object();
}

}  // namespace ckpt
