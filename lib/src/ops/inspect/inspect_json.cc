// The inspect report as JSON (man/ckpt-inspect.1.md, OUTPUT FORMAT), streamed one operator
// and one file per line so a snapshot with a million files never exists twice in memory.
// Elements are written directly (JsonWriter), not built as trees: at a million files the
// per-element trees cost more than everything else inspect does.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ops/inspect/in_order.h"
#include "support/json_text.h"

namespace ckpt {
namespace {

// Literals appended with their length known (a strlen per member was 2% of --json's time).
using namespace std::string_view_literals;

// Members in sorted key order throughout: the document's order since it was built with
// nlohmann's std::map-backed objects.
//
// Handles and files, most of the document at a million files, are appended to the text straight
// (as JsonWriter writes them inside an inline container: compact), without the writer's
// bookkeeping per member: with it they were most of --json's time.
void append_bool(std::string& out, bool b) { out += b ? "true"sv : "false"sv; }

// Every number here fits an int64_t (sizes, counts, indices).
template <class T>
void append_number(std::string& out, T n) {
  append_json_integer(out, static_cast<int64_t>(n));
}

void append_handle(std::string& out, const InspectReport& r, const HandleSummary& h) {
  out += "{\"checkpointed_size\":"sv;
  append_number(out, h.checkpointed_size);
  out += ",\"files\":["sv;
  for (size_t i = 0; i < h.files.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, r.files[h.files[i]].uri);
  }
  out += "],\"inline_bytes\":"sv;
  append_number(out, h.inline_bytes);
  if (h.key_groups) {
    // Flink normalises the empty range to [0, -1].
    out += ",\"key_group_range\":["sv;
    append_number(out, h.key_groups->empty() ? 0 : h.key_groups->first);
    out += ',';
    append_number(out, h.key_groups->empty() ? -1 : h.key_groups->last());
    out += ']';
  }
  out += ",\"kind\":"sv;
  append_json_string(out, h.kind);
  out += ",\"slot\":"sv;
  append_json_string(out, handle_slot_name(h.slot));
  out += ",\"state_size\":"sv;
  append_number(out, h.state_size);
  if (!h.states.empty()) {
    out += ",\"states\":["sv;
    for (size_t i = 0; i < h.states.size(); ++i) {
      if (i) out += ',';
      append_json_string(out, h.states[i]);
    }
    out += ']';
  }
  out += ",\"type\":"sv;
  append_number(out, h.type);
  out += '}';
}

// A handle in place in `w` (inside an operator's inline object).
void write_handle(JsonWriter& w, const InspectReport& r, const HandleSummary& h, std::string& scratch) {
  scratch.clear();
  append_handle(scratch, r, h);
  w.raw(scratch);
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
  std::string scratch;
  w.begin_inline_object();
  w.member("checkpointed_size", op.checkpointed_size);
  w.key("coordinator");
  if (op.coordinator) write_handle(w, r, *op.coordinator, scratch);
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
    for (const auto& h : st.handles) write_handle(w, r, h, scratch);
    w.end_array();
    w.member("index", st.index);
    w.end_object();
  }
  w.end_array();
  w.key("uid");
  w.string_or_null(op.uid);
  w.end_object();
}

// A file's element.
void append_file(std::string& out, const InspectReport& r, const FileTable::File& f, bool verbose) {
  out += "{\"actual_size\":"sv;
  if (f.exists) append_number(out, f.actual_size);
  else out += "null"sv;
  out += ",\"exists\":"sv;
  append_bool(out, f.exists);
  out += ",\"handle_type\":"sv;
  append_number(out, f.handle_type);
  out += ",\"outside\":"sv;
  append_bool(out, f.outside);
  out += ",\"path\":"sv;
  if (f.path) append_json_string(out, *f.path);
  else out += "null"sv;
  out += ",\"reference_count\":"sv;
  append_number(out, f.references.size());
  if (verbose) {
    out += ",\"references\":["sv;
    bool first = true;
    for (const FileTable::Reference ref : f.references) {
      out += first ? "{"sv : ",{"sv;
      first = false;
      if (!ref.local_name.empty()) {
        out += "\"local_name\":"sv;
        append_json_string(out, ref.local_name);
        out += ',';
      }
      out += "\"operator\":"sv;
      append_json_string(out, r.operators[ref.operator_index].id);
      out += ",\"role\":"sv;
      append_json_string(out, stream_role_name(ref.role));
      out += ",\"slot\":"sv;
      append_json_string(out, handle_slot_name(ref.slot));
      out += ",\"subtask\":"sv;
      append_number(out, ref.subtask);
      out += '}';
    }
    out += ']';
  }
  out += ",\"refused\":"sv;
  if (f.refused.empty()) out += "null"sv;
  else append_json_string(out, f.refused);
  out += ",\"short\":"sv;
  append_bool(out, f.is_short());
  out += ",\"size\":"sv;
  append_number(out, f.size);
  out += ",\"uri\":"sv;
  append_json_string(out, f.uri);
  out += '}';
}

// The elements [0, n) of an array `w` has open, render(i, text) appending each, `chunk` at a time
// on two threads (fill_in_order). Each is written alone, as it is on its one line of the document
// (inline containers are compact at any depth), and JsonWriter::raw() puts it in place. At 1.92 M files the document is 668 MB: rendering it was a third of --json.
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
      render(i, out.text);
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
  write_elements(w, r.operators.size(), 16, [&](size_t i, std::string& e) {
    JsonWriter element(e);
    write_operator(element, r, r.operators[i]);
  });
  w.end_array();
  w.key("files");
  w.begin_array();
  write_elements(w, r.files.size(), 8192, [&](size_t i, std::string& e) { append_file(e, r, r.files[i], verbose); });
  w.end_array();
  w.end_object();
}

}  // namespace ckpt
