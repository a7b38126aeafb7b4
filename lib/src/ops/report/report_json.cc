// ops/report/report_json.cc - the `ckpt.report/1` document (ckpt-report(1), OUTPUT FORMAT).
#include "ckpt/json.h"
#include "ckpt/report.h"

namespace ckpt {
namespace {

void range(JsonWriter& w, const KeyGroupRange& r) {
  w.begin_array();
  w.value(r.empty() ? 0 : r.first);
  w.value(r.empty() ? -1 : r.last());
  w.end_array();
}

void count_or_null(JsonWriter& w, bool counted, uint64_t n) {
  if (counted) w.value(n);
  else w.null();
}

void number_or_null(JsonWriter& w, const std::optional<int64_t>& n) {
  if (n)
    w.value(*n);
  else
    w.null();
}

// A TTL state's last accesses, and its expired values where it has a TTL; null for other states.
void write_ttl(JsonWriter& w, const ReportState& s, bool counted) {
  if (!s.ttl_state) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("ttl_ms");
  number_or_null(w, s.ttl);
  w.key("value_count");
  count_or_null(w, counted, s.ttl_values);
  for (auto [name, t] : {std::pair{"oldest_access", s.oldest_access}, std::pair{"newest_access", s.newest_access}}) {
    w.key(name);
    number_or_null(w, counted && s.ttl_values > 0 ? std::optional<int64_t>(t) : std::nullopt);
  }
  w.key("expired_count");
  count_or_null(w, counted && s.ttl && s.ttl_values > 0, s.expired);
  w.end_object();
}

void write_report_operator(JsonWriter& w, const ReportOperator& op, bool counted) {
  w.begin_object();
  w.member("id", op.id);
  w.key("uid");
  w.string_or_null(op.uid);
  w.key("name");
  w.string_or_null(op.name);
  w.key("description");
  w.string_or_null(op.description);
  w.member("parallelism", op.parallelism);
  w.member("max_parallelism", op.max_parallelism);
  w.key("kinds");
  w.begin_array();
  for (const std::string& k : op.kinds) w.value(k);
  w.end_array();
  w.member("state_size", op.state_size);
  w.member("checkpointed_size", op.checkpointed_size);
  w.member("file_count", op.file_count);
  w.key("states");
  w.begin_array();
  for (const ReportState& s : op.states) {
    w.begin_object();
    w.member("name", s.name);
    w.member("kind", s.kind);
    w.member("keyed", s.keyed);
    w.member("value_type", s.value_type);
    w.key("entry_count");
    count_or_null(w, counted, s.entry_count);
    w.key("bytes");
    count_or_null(w, counted, s.bytes);
    w.key("ttl");
    write_ttl(w, s, counted);
    w.end_object();
  }
  w.end_array();
  w.key("subtasks");
  w.begin_array();
  for (const ReportSubtask& s : op.subtasks) {
    w.begin_object();
    w.member("index", s.index);
    w.key("key_group_range");
    range(w, s.key_groups);
    w.member("state_size", s.state_size);
    w.member("bytes", s.bytes);
    w.key("entry_count");
    count_or_null(w, counted, s.entry_count);
    w.end_object();
  }
  w.end_array();
  w.key("key_groups");
  w.begin_array();
  for (const ReportKeyGroup& kg : op.key_groups) {
    w.begin_object();
    w.member("key_group", kg.key_group);
    w.member("subtask", kg.subtask);
    w.member("bytes", kg.bytes);
    w.key("entry_count");
    count_or_null(w, counted, kg.entry_count);
    w.end_object();
  }
  w.end_array();
  w.key("largest_key_groups");
  w.begin_array();
  for (int32_t kg : op.largest_key_groups) w.value(kg);
  w.end_array();
  w.key("hot_key_groups");
  w.begin_array();
  for (int32_t kg : op.hot_key_groups) w.value(kg);
  w.end_array();
  w.member("median_key_group_bytes", op.median_key_group_bytes);
  w.end_object();
}

void write_checkpoint(JsonWriter& w, const ReportCheckpoint& c) {
  w.begin_object();
  w.member("name", c.name);
  w.member("checkpoint_id", c.checkpoint_id);
  w.member("state_size", c.state_size);
  w.member("checkpointed_size", c.checkpointed_size);
  w.member("file_count", c.file_count);
  w.member("sst_file_count", c.sst_count);
  w.member("added_file_count", c.files_added);
  w.member("shared_file_count", c.files_shared);
  w.member("dropped_file_count", c.files_dropped);
  w.member("added_bytes", c.added_bytes);
  w.member("dropped_bytes", c.dropped_bytes);
  w.key("operators");
  w.begin_array();
  for (const auto& [id, size] : c.operator_sizes) {
    w.begin_object();
    w.member("operator", id);
    w.member("state_size", size);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string report_json(const Report& r, const std::string& advice_json) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.member("schema", "ckpt.report/1");
  w.member("path", r.path);
  w.member("job_directory", r.job_directory);
  w.member("snapshot", r.snapshot);
  w.member("checkpoint_id", r.checkpoint_id);
  w.member("snapshot_kind", r.snapshot_kind);
  w.member("state_size", r.state_size);
  w.member("checkpointed_size", r.checkpointed_size);
  w.member("file_count", r.file_count);
  w.member("missing_file_count", r.missing_file_count);
  w.member("skew_method", r.counted ? "counted" : "estimated");
  w.key("entry_count");
  count_or_null(w, r.counted, r.entry_count);
  w.key("channel_state");
  w.begin_object();
  w.member("handle_count", r.channel_state_handles);
  w.member("bytes", r.channel_state_bytes);
  w.end_object();
  w.key("ttl_now");
  number_or_null(w, r.ttl_now);
  w.member("ttl_now_given", r.ttl_now_given);
  w.key("operators");
  w.begin_array();
  for (const ReportOperator& op : r.operators) write_report_operator(w, op, r.counted);
  w.end_array();
  w.key("history");
  w.begin_array();
  for (const ReportCheckpoint& c : r.history) write_checkpoint(w, c);
  w.end_array();
  w.key("growth");
  w.begin_array();
  for (const ReportGrowth& g : r.growth) {
    w.begin_object();
    w.member("operator", g.operator_id);
    w.member("first_state_size", g.first_state_size);
    w.member("last_state_size", g.last_state_size);
    w.member("growth_bytes", g.growth_bytes());
    w.end_object();
  }
  w.end_array();
  w.key("most_grown");
  w.string_or_null(r.most_grown);
  w.key("problems");
  w.begin_array();
  for (const std::string& p : r.problems) w.value(p);
  w.end_array();
  w.key("advice");
  w.end_object();
  // The advice is ckpt.advise/1's document, already JSON text: spliced in before the last '}'.
  out.pop_back();
  out += advice_json.empty() ? "null" : advice_json;
  out += '}';
  return out;
}

}  // namespace ckpt
