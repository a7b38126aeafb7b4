// The `ckpt.ls/2` document (formats/schemas/ckpt.ls.schema.json).
#include "ckpt/json.h"
#include "ckpt/query.h"

namespace ckpt {

void write_ls_json(const std::string& path, const std::vector<ListedSnapshot>& found, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.ls/2");
  w.member("directory", path);
  size_t incomplete = 0, problems = 0;
  w.key("snapshots");
  w.begin_array();
  for (const ListedSnapshot& s : found) {
    // What `_metadata` says only of a snapshot whose `_metadata` was read.
    const bool read = s.complete && s.problem.empty();
    incomplete += !s.complete;
    problems += !s.problem.empty();
    w.begin_object();
    w.member("job", s.job);
    w.member("name", s.name);
    w.member("path", s.path);
    w.key("kind");
    w.string_or_null(s.kind);
    w.member("id", s.id);
    w.member("complete", s.complete);
    w.key("time");
    w.string_or_null(s.time);
    w.key("format");
    w.string_or_null(s.format);
    w.key("backend");
    w.string_or_null(s.backend);
    if (read) {
      w.member("metadata_version", s.metadata_version);
      w.member("state_size", s.state_size);
      w.member("operator_count", s.operator_count);
      w.member("file_count", s.file_count);
    } else {
      for (const char* k : {"metadata_version", "state_size", "operator_count", "file_count"}) {
        w.key(k);
        w.null();
      }
    }
    w.key("problem");
    w.string_or_null(s.problem);
    w.member("gc", s.gc);
    w.end_object();
  }
  w.end_array();
  w.member("snapshot_count", found.size());
  w.member("incomplete_count", incomplete);
  w.member("problem_count", problems);
  w.end_object();
}

}  // namespace ckpt
