// The `ckpt.edit/1` document (formats/schemas/ckpt.edit.schema.json): what was written (as
// convert says it) and what each operation changed.
#include "ckpt/convert.h"
#include "ckpt/edit.h"
#include "ckpt/json.h"

namespace ckpt {

void write_edit_json(const std::string& snapshot, const EditOptions& options, const EditSummary& s, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.edit/1");
  w.member("snapshot", snapshot);
  w.key("output");
  if (options.dry_run)
    w.null();
  else
    w.value(s.written.output);
  w.member("dry_run", options.dry_run);
  w.key("to");
  if (options.to)
    w.value(convert_target_name(*options.to));
  else
    w.null();
  w.member("kind", s.written.kind);
  w.member("subtask_count", s.written.subtasks);
  w.member("entry_count", s.written.entries);
  w.member("file_count", s.written.files);
  w.member("bytes", s.written.bytes);
  w.key("changes");
  w.begin_array();
  for (const EditChange& c : s.changes) {
    w.begin_object();
    w.member("operation", c.what);
    w.member("operator", c.operator_id);
    w.member("new_operator", c.new_id.empty() ? c.operator_id : c.new_id);
    w.key("state");
    w.string_or_null(c.state);
    w.key("uid");
    if (c.what == "set-uid")
      w.string_or_null(c.detail);
    else
      w.null();
    w.key("detail");
    w.string_or_null(c.detail);
    w.member("entry_count", c.entries);
    w.end_object();
  }
  w.end_array();
  w.key("erased_keys");
  w.begin_array();
  for (const EditSummary::KeysErased& k : s.erased) {
    w.begin_object();
    w.member("operator", k.operator_id);
    w.member("state", k.state);
    w.member("entry_count", k.entries);
    w.end_object();
  }
  w.end_array();
  // Each key as JSON text in a string, as ckpt dump prints keys.
  std::vector<std::string> unmatched;
  for (const Value& key : s.unmatched_keys) unmatched.push_back(key.json());
  w.member("unmatched_keys", unmatched);
  w.key("remaining_keys");
  if (s.residues_searched) {
    w.begin_array();
    for (const EditSummary::KeyResidue& r : s.residues) {
      w.begin_object();
      w.member("operator", r.operator_id);
      w.member("state", r.state);
      w.member("key", r.key.json());
      w.member("place", r.place);
      w.member("entry_count", r.entries);
      w.end_object();
    }
    w.end_array();
  } else {
    w.null();
  }
  w.member("unsearched", s.residue_gaps);
  w.key("entry_edits");
  w.begin_array();
  for (const EditSummary::EntryEdits& e : s.entry_edits) {
    w.begin_object();
    w.member("operator", e.operator_id);
    w.member("state", e.state);
    w.member("upserted", e.upserted);
    w.member("added", e.added);
    w.member("unchanged", e.unchanged);
    w.member("deleted", e.deleted);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace ckpt
