// The inspect report as JSON (man/ckpt-inspect.1.md, OUTPUT FORMAT), streamed one operator
// and one file per line so a snapshot with a million files never exists twice in memory.
// Elements are written directly (JsonWriter), not built as trees: at a million files the
// per-element trees cost more than everything else inspect does.
#include <ostream>

#include <nlohmann/json.hpp>

#include "ckpt/inspect.h"
#include "ops/json_writer.h"

namespace ckpt {
namespace {

using nlohmann::json;

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

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

void write_operator(std::string& out, const InspectReport& r, const OperatorSummary& op) {
  JsonWriter w(out);
  w.begin_object();
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

void write_file(std::string& out, const InspectReport& r, const ReferencedFile& f, bool verbose) {
  JsonWriter w(out);
  w.begin_object();
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
    for (const auto& ref : f.references) {
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
  w.string_or_null(f.refused);
  w.member("short", f.is_short());
  w.member("size", f.size);
  w.member("uri", f.uri);
  w.end_object();
}

// Metadata strings may hold WTF-8 (lone surrogates): replace rather than throw.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Writes `each(text, i)` for i < n, one element per line, through one reused buffer handed to
// the stream in pieces of about a MiB (a million files make hundreds of MiB of JSON).
template <class F>
void write_array(std::ostream& out, size_t n, F each) {
  constexpr size_t kPiece = 1 << 20;
  std::string text = "[";
  for (size_t i = 0; i < n; ++i) {
    text += i ? ",\n    " : "\n    ";
    each(text, i);
    if (text.size() >= kPiece) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      text.clear();
    }
  }
  text += n == 0 ? "]" : "\n  ]";
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace

void write_inspect_json(const InspectReport& r, bool verbose, std::ostream& out) {
  json head = {{"snapshot", r.metadata_path},      {"directory", r.directory},
               {"metadata_size", r.metadata_size}, {"metadata_version", r.metadata_version},
               {"checkpoint_id", r.checkpoint_id}, {"kind", snapshot_kind_name(r.kind)},
               {"kind_inferred", r.kind_inferred}};
  if (r.properties.present) {
    const CheckpointProperties& p = r.properties;
    head["properties"] = {{"type", p.type_name},
                          {"sharing_files_strategy", or_null(p.sharing_files_strategy)},
                          {"format_type", or_null(p.format_type)},
                          {"post_checkpoint_action", or_null(p.post_checkpoint_action)},
                          {"forced", p.forced},
                          {"unclaimed", p.unclaimed},
                          {"discard_subsumed", p.discard_subsumed},
                          {"discard_finished", p.discard_finished},
                          {"discard_cancelled", p.discard_cancelled},
                          {"discard_failed", p.discard_failed},
                          {"discard_suspended", p.discard_suspended}};
  } else {
    head["properties"] = nullptr;
  }
  head["master_states"] = r.master_states;
  head["state_size"] = r.state_size;
  head["checkpointed_size"] = r.checkpointed_size;
  head["inline_bytes"] = r.inline_bytes;
  head["file_count"] = r.files.size();
  head["missing_file_count"] = r.missing_files;
  head["short_file_count"] = r.short_files;
  head["outside_file_count"] = r.outside_files;
  head["job_directory"] = r.job_directory;
  head["counted"] = r.counted;
  if (r.named) head["unmatched_uids"] = r.unmatched_uids;

  // The head object's members, one per line, then the two arrays one element per line.
  // The version first (formats/json.md §1), then the rest in sorted order.
  out << "{\n  \"schema\": \"ckpt.inspect/1\"";
  for (auto it = head.begin(); it != head.end(); ++it)
    out << ",\n  " << dump(json(it.key())) << ": " << dump(it.value());
  out << ",\n  \"operators\": ";
  write_array(out, r.operators.size(), [&](std::string& line, size_t i) { write_operator(line, r, r.operators[i]); });
  out << ",\n  \"files\": ";
  write_array(out, r.files.size(), [&](std::string& line, size_t i) { write_file(line, r, r.files[i], verbose); });
  out << "\n}\n";
}

}  // namespace ckpt
