// ckpt dump: every state entry of a snapshot, decoded (man/ckpt-dump.1.md).
#include <algorithm>
#include <limits>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "choices.h"
#include "ckpt/dump.h"
#include "ckpt/printable.h"
#include "command.h"
#include "jobs_arg.h"
#include "key_group_arg.h"
#include "naming_arg.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "shard_arg.h"

namespace ckpt::cli {

namespace {

struct DumpArgs {
  std::string snapshot;
  std::string operator_filter;
  std::string state;
  int subtask = -1;
  std::string key_groups;
  std::vector<std::string> keys;
  uint64_t limit = 0;
  std::string format;
  int jobs = 1;
  bool keep_going = false;
  std::vector<std::string> remap;
  NamingArgs naming;
  ProgressMode progress = ProgressMode::kAuto;
  std::string key_serializers_from;
  std::string shard;
};

// A cell of the table, escaped (ckpt/printable.h): at most `width` characters, cut with "..." if longer.
std::string cell(const std::string& raw, size_t width) {
  std::string s = printable(raw);
  if (s.size() <= width) return s;
  return s.substr(0, width - 3) + "...";
}

// Takes the lines the workers rendered: one write per chunk of lines.
class NdjsonSink : public DumpSink {
 public:
  explicit NdjsonSink(Io& io) : io_(io) {}
  void entry(const Entry& e) override { io_.out << to_ndjson(e) << '\n'; }
  bool wants_ndjson() const override { return true; }
  void ndjson(std::string_view lines) override { io_.out.write(lines.data(), static_cast<std::streamsize>(lines.size())); }
  void problem(const Error& e) override { print_error(io_, e.to_string()); }

 private:
  Io& io_;
};

// Streams rows as they come (no width measuring pass: memory stays bounded).
class TableSink : public DumpSink {
 public:
  explicit TableSink(Io& io) : io_(io) {
    io_.out << fmt::format("{:<20} {:>3} {:<24} {:<8} {:>5} {:<20} {:<16} {:<16} {}\n", "OPERATOR", "SUB", "STATE",
                           "KIND", "KG", "KEY", "NAMESPACE", "USER KEY", "VALUE");
  }
  void entry(const Entry& e) override {
    // The operator by its uid where one is known (--plan, --uid, V5+ files), else its id's start.
    const std::string op = !e.uid.empty() ? cell(e.uid, 20) : e.operator_id.substr(0, 8);
    auto json = [](const std::optional<Value>& v) { return v ? v->json() : std::string("-"); };
    io_.out << fmt::format("{:<20} {:>3} {:<24} {:<8} {:>5} {:<20} {:<16} {:<16} {}\n", op, e.subtask,
                           cell(e.state, 24), cell(std::string(entry_kind_name(e.kind)), 8),
                           e.key_group ? std::to_string(*e.key_group) : "-", cell(json(e.key), 20),
                           cell(json(e.ns), 16), cell(json(e.user_key), 16), cell(e.value.json(), 120));
  }
  void problem(const Error& e) override { print_error(io_, e.to_string()); }

 private:
  Io& io_;
};

}  // namespace

Runner setup_dump(CLI::App& sub) {
  auto a = std::make_shared<DumpArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("--operator", a->operator_filter, "Only the operator with this id (32 hex digits), id prefix, uid or name")
      ->type_name("ID|UID");
  sub.add_option("--state", a->state, "Only the state with this name")->type_name("NAME");
  // -1, the unset default, must not be typed: it would mean every subtask.
  sub.add_option("--subtask", a->subtask, "Only this subtask")
      ->type_name("N")
      ->check(CLI::Range(0, std::numeric_limits<int32_t>::max()));
  sub.add_option("--key-groups", a->key_groups, "Only keyed state of these key groups (drops operator state)")
      ->type_name("A[-B]");
  sub.add_option("--key", a->keys,
                 "Only entries of this key, as JSON as dump prints keys (repeatable); reads only its key group")
      ->type_name("JSON");
  sub.add_option("--key-group", a->key_groups, "The old spelling of --key-groups")->group("");
  sub.add_option("--limit", a->limit, "Stop after N entries")->type_name("N");
  sub.add_option("--format", a->format, "ndjson (default when stdout is not a terminal) or table")
      ->type_name("ndjson|table")
      ->check(CLI::IsMember(option_choices("dump", "--format")).description(""));
  add_jobs_option(sub, &a->jobs, "Decode N subtasks at once");
  sub.add_flag("--keep-going", a->keep_going, "Report damaged parts, dump the rest and exit 1");
  add_shard_option(sub, &a->shard, "its subtasks' entries; the parts' outputs in order are the whole dump");
  add_key_serializers_option(sub, &a->key_serializers_from);
  add_remap_option(sub, &a->remap);
  add_naming_options(sub, &a->naming);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    DumpOptions options;
    options.key_serializers_from = a->key_serializers_from;
    std::optional<OperatorNames> names = names_or_report(io, a->naming);
    if (!names) return kExitError;
    options.names = std::move(*names);
    options.operator_filter = a->operator_filter;
    options.state = a->state;
    if (a->subtask >= 0) options.subtask = a->subtask;
    if (!a->key_groups.empty()) {
      std::pair<int32_t, int32_t> range;
      if (!parse_key_group_range(a->key_groups, &range)) {
        print_error(io, "--key-groups: expected A or A-B with 0 <= A <= B, found '" + a->key_groups + "'");
        return kExitError;
      }
      options.key_groups = range;
    }
    for (const std::string& text : a->keys) {
      Result<Value> key = parse_value(text);
      if (!key.ok())
        return report_error(io, Error(ErrorCode::kInvalidArgument,
                                      fmt::format("--key: key {} is not JSON as ckpt dump prints keys (\"a\", 42, "
                                                  "[1,\"b\"], {{\"fields\":[6,\"c\"],\"kind\":\"+I\"}}): {}",
                                                  text, key.error().message)));
      options.keys.push_back(std::move(*key));
    }
    if (!shard_or_report(io, a->shard, &options.shard)) return kExitError;
    options.limit = a->limit;
    options.jobs = a->jobs;
    options.keep_going = a->keep_going;
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    options.remap = std::move(*remap);
    bool table = a->format.empty() ? io.out_is_terminal : a->format == "table";
    std::unique_ptr<DumpSink> sink;
    if (table) sink = std::make_unique<TableSink>(io);
    else sink = std::make_unique<NdjsonSink>(io);
    // Entries printed to the terminal share it with the meter's line: no progress over them.
    ProgressMeter meter(io, "dump",
                        io.out_is_terminal && a->progress == ProgressMode::kAuto ? ProgressMode::kOff : a->progress);
    options.progress = meter.counters();
    Result<DumpSummary> summary = dump_snapshot(a->snapshot, options, *sink);
    meter.finish();
    if (!summary.ok()) return report_error(io, summary.error());
    warn_unmatched_uids(io, summary->unmatched_uids);
    // As grep: a lookup that found nothing for a key is a finding, not a failure.
    // Each key as it was given (the first text of an equal value).
    for (const Value& key : summary->unmatched_keys)
      print_warning(io, "no entry has key " + a->keys[std::find(options.keys.begin(), options.keys.end(), key) -
                                                      options.keys.begin()]);
    if (!summary->unmatched_keys.empty()) return kExitProblems;
    return summary->problems > 0 ? kExitProblems : kExitOk;
  };
}

}  // namespace ckpt::cli
