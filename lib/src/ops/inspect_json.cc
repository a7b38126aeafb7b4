// The inspect report as JSON (man/ckpt-inspect.1.md, OUTPUT FORMAT), streamed one operator
// and one file per line so a snapshot with a million files never exists twice in memory.
#include <ostream>

#include <nlohmann/json.hpp>

#include "ckpt/inspect.h"

namespace ckpt {
namespace {

using nlohmann::json;

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json handle_json(const InspectReport& r, const HandleSummary& h) {
  json j = {{"slot", handle_slot_name(h.slot)}, {"kind", h.kind}, {"type", h.type}};
  if (h.key_groups) {
    // Flink normalises the empty range to [0, -1].
    j["key_group_range"] = h.key_groups->empty() ? json::array({0, -1})
                                                 : json::array({h.key_groups->first, h.key_groups->last()});
  }
  j["state_size"] = h.state_size;
  j["checkpointed_size"] = h.checkpointed_size;
  j["inline_bytes"] = h.inline_bytes;
  if (!h.states.empty()) j["states"] = h.states;
  json files = json::array();
  for (uint32_t fi : h.files) files.push_back(r.files[fi].uri);
  j["files"] = std::move(files);
  return j;
}

json operator_json(const InspectReport& r, const OperatorSummary& op) {
  json j = {{"id", op.id},
            {"uid", or_null(op.uid)},
            {"name", or_null(op.name)},
            {"parallelism", op.parallelism},
            {"max_parallelism", op.max_parallelism},
            {"fully_finished", op.fully_finished},
            {"kinds", op.kinds},
            {"state_size", op.state_size},
            {"checkpointed_size", op.checkpointed_size},
            {"inline_bytes", op.inline_bytes},
            {"file_count", op.file_count},
            {"missing_files", op.missing_files},
            {"short_files", op.short_files}};
  j["coordinator"] = op.coordinator ? handle_json(r, *op.coordinator) : json(nullptr);
  json subtasks = json::array();
  for (const auto& st : op.subtasks) {
    json handles = json::array();
    for (const auto& h : st.handles) handles.push_back(handle_json(r, h));
    subtasks.push_back({{"index", st.index}, {"finished", st.finished}, {"handles", std::move(handles)}});
  }
  j["subtasks"] = std::move(subtasks);
  if (r.states_read) {
    json states = json::array();
    for (const StateSummary& s : op.states) {
      json x = {{"name", s.name},
                {"kind", s.kind},
                {"keyed", s.keyed},
                {"key_serializer", or_null(s.key_serializer)},
                {"namespace_serializer", or_null(s.namespace_serializer)},
                {"value_serializer", or_null(s.value_serializer)},
                {"value_type", or_null(s.value_type)}};
      if (r.counted) x["entries"] = s.entries ? json(*s.entries) : json(nullptr);
      states.push_back(std::move(x));
    }
    j["states"] = std::move(states);
    j["states_error"] = or_null(op.states_error);
  }
  return j;
}

json file_json(const InspectReport& r, const ReferencedFile& f, bool verbose) {
  json j = {{"uri", f.uri},
            {"path", f.path ? json(*f.path) : json(nullptr)},
            {"size", f.size},
            {"exists", f.exists},
            {"actual_size", f.exists ? json(f.actual_size) : json(nullptr)},
            {"short", f.is_short()},
            {"handle_type", f.handle_type},
            {"reference_count", f.references.size()}};
  if (verbose) {
    json refs = json::array();
    for (const auto& ref : f.references) {
      json x = {{"operator", r.operators[ref.operator_index].id},
                {"subtask", ref.subtask},
                {"slot", handle_slot_name(ref.slot)},
                {"role", stream_role_name(ref.role)}};
      if (!ref.local_name.empty()) x["local_name"] = ref.local_name;
      refs.push_back(std::move(x));
    }
    j["references"] = std::move(refs);
  }
  return j;
}

// Metadata strings may hold WTF-8 (lone surrogates): replace rather than throw.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

void write_inspect_json(const InspectReport& r, bool verbose, std::ostream& out) {
  json head = {{"metadata", r.metadata_path},
               {"directory", r.directory},
               {"metadata_size", r.metadata_size},
               {"metadata_version", r.metadata_version},
               {"checkpoint_id", r.checkpoint_id},
               {"kind", snapshot_kind_name(r.kind)},
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
  head["missing_files"] = r.missing_files;
  head["short_files"] = r.short_files;
  head["counted"] = r.counted;

  // The head object's members, one per line, then the two arrays one element per line.
  out << "{\n";
  bool first = true;
  for (auto it = head.begin(); it != head.end(); ++it) {
    out << (first ? "  " : ",\n  ") << dump(json(it.key())) << ": " << dump(it.value());
    first = false;
  }
  out << ",\n  \"operators\": [";
  for (size_t i = 0; i < r.operators.size(); ++i)
    out << (i ? ",\n    " : "\n    ") << dump(operator_json(r, r.operators[i]));
  out << (r.operators.empty() ? "]" : "\n  ]");
  out << ",\n  \"files\": [";
  for (size_t i = 0; i < r.files.size(); ++i)
    out << (i ? ",\n    " : "\n    ") << dump(file_json(r, r.files[i], verbose));
  out << (r.files.empty() ? "]" : "\n  ]");
  out << "\n}\n";
}

}  // namespace ckpt
