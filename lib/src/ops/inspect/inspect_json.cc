// The inspect report as JSON (man/ckpt-inspect.1.md, OUTPUT FORMAT), streamed one operator
// and one file per line so a snapshot with a million files never exists twice in memory.
// Elements are written directly (JsonWriter), not built as trees: at a million files the
// per-element trees cost more than everything else inspect does.
#include <algorithm>
#include <string>
#include <vector>

#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ops/inspect/in_order.h"

namespace ckpt {
namespace {

// Members in sorted key order throughout: the document's order since it was built with
// nlohmann's std::map-backed objects.
void write_handle(JsonWriter& w, const InspectReport& r, const HandleSummary& h) {
  w.begin_object();
  w.member("checkpointed_size", h.checkpointed_size);
  w.key("files");
  w.begin_array();
  for (uint32_t fi : h.files) w.value(r.files[fi].uri);
  w.end_array();
  w.member("inline_bytes", h.inline_bytes);
  if (h.key_groups) {
    // Flink normalises the empty range to [0, -1].
    w.key("key_group_range");
    w.begin_array();
    w.value(h.key_groups->empty() ? 0 : h.key_groups->first);
    w.value(h.key_groups->empty() ? -1 : h.key_groups->last());
    w.end_array();
  }
  w.member("kind", h.kind);
  w.member("slot", handle_slot_name(h.slot));
  w.member("state_size", h.state_size);
  if (!h.states.empty()) {
    w.key("states");
    w.begin_array();
    for (const auto& s : h.states) w.value(s);
    w.end_array();
  }
  w.member("type", h.type);
  w.end_object();
}

void write_state(JsonWriter& w, const InspectReport& r, const StateSummary& s) {
  w.begin_object();
  if (r.counted) {
    w.key("entry_count");
    if (s.entries) w.value(*s.entries);
    else w.null();
  }
  w.key("key_serializer");
  w.string_or_null(s.key_serializer);
  w.member("keyed", s.keyed);
  w.member("kind", s.kind);
  w.member("name", s.name);
  w.key("namespace_serializer");
  w.string_or_null(s.namespace_serializer);
  w.key("value_serializer");
  w.string_or_null(s.value_serializer);
  w.key("value_type");
  w.string_or_null(s.value_type);
  w.end_object();
}

void write_operator(JsonWriter& w, const InspectReport& r, const OperatorSummary& op) {
  w.begin_inline_object();
  w.member("checkpointed_size", op.checkpointed_size);
  w.key("coordinator");
  if (op.coordinator) write_handle(w, r, *op.coordinator);
  else w.null();
  w.member("file_count", op.file_count);
  w.member("fully_finished", op.fully_finished);
  if (r.named) {
    w.key("description");
    w.string_or_null(op.description);
  }
  w.member("id", op.id);
  w.member("inline_bytes", op.inline_bytes);
  w.key("kinds");
  w.begin_array();
  for (const auto& k : op.kinds) w.value(k);
  w.end_array();
  w.member("max_parallelism", op.max_parallelism);
  w.member("missing_file_count", op.missing_files);
  w.key("name");
  w.string_or_null(op.name);
  w.member("parallelism", op.parallelism);
  w.member("short_file_count", op.short_files);
  w.member("state_size", op.state_size);
  if (r.states_read) {
    w.key("states");
    w.begin_array();
    for (const StateSummary& s : op.states) write_state(w, r, s);
    w.end_array();
    w.key("states_error");
    w.string_or_null(op.states_error);
  }
  w.key("subtasks");
  w.begin_array();
  for (const auto& st : op.subtasks) {
    w.begin_object();
    w.member("finished", st.finished);
    w.key("handles");
    w.begin_array();
    for (const auto& h : st.handles) write_handle(w, r, h);
    w.end_array();
    w.member("index", st.index);
    w.end_object();
  }
  w.end_array();
  w.key("uid");
  w.string_or_null(op.uid);
  w.end_object();
}

void write_file(JsonWriter& w, const InspectReport& r, const FileTable::File& f, bool verbose) {
  w.begin_inline_object();
  w.key("actual_size");
  if (f.exists) w.value(f.actual_size);
  else w.null();
  w.member("exists", f.exists);
  w.member("handle_type", f.handle_type);
  w.member("outside", f.outside);
  w.key("path");
  if (f.path) w.value(*f.path);
  else w.null();
  w.member("reference_count", f.references.size());
  if (verbose) {
    w.key("references");
    w.begin_array();
    for (const FileTable::Reference ref : f.references) {
      w.begin_object();
      if (!ref.local_name.empty()) w.member("local_name", ref.local_name);
      w.member("operator", r.operators[ref.operator_index].id);
      w.member("role", stream_role_name(ref.role));
      w.member("slot", handle_slot_name(ref.slot));
      w.member("subtask", ref.subtask);
      w.end_object();
    }
    w.end_array();
  }
  w.key("refused");
  if (f.refused.empty())
    w.null();
  else
    w.value(f.refused);
  w.member("short", f.is_short());
  w.member("size", f.size);
  w.member("uri", f.uri);
  w.end_object();
}

// The elements [0, n) of an array `w` has open, render(i, writer) writing each, `chunk` at a time
// on two threads (fill_in_order). Each is written alone by a writer of its own, as it is on its
// one line of the document (inline containers are compact at any depth), and JsonWriter::raw()
// puts it in place. At 1.92 M files the document is 668 MB: rendering it was a third of --json.
template <class Render>
void write_elements(JsonWriter& w, size_t n, size_t chunk, Render render) {
  struct Chunk {
    std::string text;
    std::vector<size_t> ends;  // of each element in text
  };
  auto fill = [&](size_t c, Chunk& out) {
    out.text.clear();
    out.ends.clear();
    for (size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
      JsonWriter element(out.text);
      render(i, element);
      out.ends.push_back(out.text.size());
    }
  };
  auto emit = [&](const Chunk& in) {
    size_t from = 0;
    for (size_t end : in.ends) {
      w.raw(std::string_view(in.text).substr(from, end - from));
      from = end;
    }
  };
  fill_in_order<Chunk>((n + chunk - 1) / chunk, fill, emit);
}

}  // namespace

void write_inspect_json(const InspectReport& r, bool verbose, JsonWriter& w) {
  // The version first (formats/json.md §1), then the head's members in sorted order, each on
  // one line, then the two arrays one element per line.
  w.begin_object();
  w.member("schema", "ckpt.inspect/1");
  w.member("checkpoint_id", r.checkpoint_id);
  w.member("checkpointed_size", r.checkpointed_size);
  w.member("counted", r.counted);
  w.member("directory", r.directory);
  w.member("file_count", r.files.size());
  w.member("inline_bytes", r.inline_bytes);
  w.member("job_directory", r.job_directory);
  w.member("kind", snapshot_kind_name(r.kind));
  w.member("kind_inferred", r.kind_inferred);
  w.member("master_states", r.master_states);
  w.member("metadata_size", r.metadata_size);
  w.member("metadata_version", r.metadata_version);
  w.member("missing_file_count", r.missing_files);
  w.member("outside_file_count", r.outside_files);
  w.key("properties");
  if (r.properties.present) {
    const CheckpointProperties& p = r.properties;
    w.begin_inline_object();
    w.member("discard_cancelled", p.discard_cancelled);
    w.member("discard_failed", p.discard_failed);
    w.member("discard_finished", p.discard_finished);
    w.member("discard_subsumed", p.discard_subsumed);
    w.member("discard_suspended", p.discard_suspended);
    w.member("forced", p.forced);
    w.key("format_type");
    w.string_or_null(p.format_type);
    w.key("post_checkpoint_action");
    w.string_or_null(p.post_checkpoint_action);
    w.key("sharing_files_strategy");
    w.string_or_null(p.sharing_files_strategy);
    w.member("type", p.type_name);
    w.member("unclaimed", p.unclaimed);
    w.end_object();
  } else {
    w.null();
  }
  w.member("short_file_count", r.short_files);
  w.member("snapshot", r.metadata_path);
  w.member("state_size", r.state_size);
  if (r.named) {
    w.key("unmatched_uids");
    w.begin_inline_array();
    for (const std::string& uid : r.unmatched_uids) w.value(uid);
    w.end_array();
  }
  w.key("operators");
  w.begin_array();
  write_elements(w, r.operators.size(), 16,
                 [&](size_t i, JsonWriter& e) { write_operator(e, r, r.operators[i]); });
  w.end_array();
  w.key("files");
  w.begin_array();
  write_elements(w, r.files.size(), 8192, [&](size_t i, JsonWriter& e) { write_file(e, r, r.files[i], verbose); });
  w.end_array();
  w.end_object();
}

}  // namespace ckpt
