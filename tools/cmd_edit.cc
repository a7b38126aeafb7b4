// ckpt edit: change a savepoint offline (man/ckpt-edit.1.md).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "ckpt/edit.h"
#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "naming_arg.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "shard_arg.h"
#include "ttl_args.h"
#include "written_counts.h"

namespace ckpt::cli {

namespace {

struct EditArgs {
  std::string snapshot;
  std::string output;
  std::string to;
  int jobs = 1;
  bool force = false;
  bool dry_run = false;
  std::vector<std::string> remap;
  std::vector<std::string> drop_operators;
  std::vector<std::string> set_uids;
  std::vector<std::string> set_ids;
  std::vector<std::string> drop_states;
  std::string delete_keys;
  std::string keys_operator;
  std::string key_serializers_from;
  std::vector<std::string> max_parallelism;
  int32_t parallelism = 0;
  std::vector<std::string> expire;
  std::string upsert;
  std::vector<std::string> delete_where;
  std::vector<std::string> keep_where;
  std::string now;
  NamingArgs naming;  // --plan (with --now also the TTLs to expire), --uid, --uids
  std::string shard;
  bool finish = false;
  ProgressMode progress = ProgressMode::kAuto;
  bool json = false;
};

bool split_all(Io& io, const std::vector<std::string>& specs, char sep, const char* flag, const char* shape,
               std::vector<std::pair<std::string, std::string>>* out) {
  for (const std::string& spec : specs) {
    auto pair = split_or_report(io, spec, sep, flag, shape);
    if (!pair) return false;
    out->push_back(std::move(*pair));
  }
  return true;
}

// --max-parallelism M (every operator) or OP=M (that one); OP is what comes before the last '='
// (a uid may hold one, a number does not).
bool parse_max_parallelism(Io& io, const std::vector<std::string>& specs, EditOptions* out) {
  for (const std::string& spec : specs) {
    const size_t eq = spec.rfind('=');
    const std::string_view number =
        eq == std::string::npos ? std::string_view(spec) : std::string_view(spec).substr(eq + 1);
    int32_t n = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (ec != std::errc() || end != number.data() + number.size() || n < 1 || n > 32768 || eq == 0) {
      print_error(io, fmt::format("--max-parallelism: '{}' is not M or OP=M with M in 1..32768", spec));
      return false;
    }
    if (eq != std::string::npos) {
      out->operator_max_parallelism.emplace_back(spec.substr(0, eq), n);
    } else if (out->max_parallelism != 0 && out->max_parallelism != n) {
      print_error(io, fmt::format("--max-parallelism: {} and {} given for every operator", out->max_parallelism, n));
      return false;
    } else {
      out->max_parallelism = n;
    }
  }
  return true;
}

// An operator of the input as the names know it: "operator '<uid>' (<id>)", else by its id.
std::string operator_text(const std::string& hex, const OperatorNames& names) {
  OperatorId id;
  const OperatorName* n = parse_operator_id(hex, &id) ? names.find(id) : nullptr;
  return n && !n->uid.empty() ? fmt::format("operator '{}' ({})", n->uid, hex) : "operator " + hex;
}

std::string describe(const EditChange& c, const OperatorNames& names) {
  const std::string op = operator_text(c.operator_id, names);
  if (c.what == "drop-operator") return fmt::format("{}: dropped ({})", op, c.detail);
  if (c.what == "set-uid") return fmt::format("{}: id {} (uid '{}')", op, c.new_id, c.detail);
  if (c.what == "set-id") return fmt::format("{}: id {}", op, c.new_id);
  if (c.what == "expire") return fmt::format("{}: state '{}': {} expired entries dropped", op, c.state, c.entries);
  if (c.what == "max-parallelism")
    return fmt::format("{}: max parallelism {} ({} entries moved)", op, c.detail, c.entries);
  return fmt::format("{}: state '{}' dropped ({} entries)", op, c.state, c.entries);
}

}  // namespace

Runner setup_edit(CLI::App& sub) {
  auto a = std::make_shared<EditArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("-o,--output", a->output, "Directory to create (must not exist or be empty)")->type_name("DIR");
  sub.add_option("--drop-operator", a->drop_operators, "Leave an operator's state out (repeatable)")->type_name("OP");
  sub.add_option("--set-uid", a->set_uids, "Give an operator the id Flink derives from UID (repeatable)")
      ->type_name("OP=UID");
  sub.add_option("--set-id", a->set_ids, "Give an operator a raw 32-hex-digit id (repeatable)")->type_name("OP=HEX");
  sub.add_option("--drop-state", a->drop_states, "Remove one keyed or operator state (repeatable)")
      ->type_name("OP/STATE");
  sub.add_option("--delete-keys", a->delete_keys, "Erase every entry of the keys in FILE (one JSON key a line)")
      ->type_name("FILE");
  sub.add_option("--operator", a->keys_operator, "Erase the keys from this operator only")->type_name("ID|UID");
  sub.add_option("--max-parallelism", a->max_parallelism,
                 "Move every key to its key group under M key groups (OP=M: OP's only; repeatable)")
      ->type_name("[OP=]M");
  sub.add_option("--parallelism", a->parallelism, "With --max-parallelism: subtasks of the keyed operators")
      ->type_name("P")
      ->check(CLI::Range(1, 32768));
  sub.add_option("--upsert", a->upsert, "Write the NDJSON entries of FILE (- for standard input), as dump prints them")
      ->type_name("FILE");
  sub.add_option("--delete-where", a->delete_where, "Drop the entries of STATE that the SQL WHERE text matches")
      ->type_name("STATE=PREDICATE");
  sub.add_option("--keep-where", a->keep_where, "Keep only the entries of STATE that the SQL WHERE text matches")
      ->type_name("STATE=PREDICATE");
  sub.add_option("--expire", a->expire, "Drop TTL entries of STATE last accessed DURATION or more before --now")
      ->type_name("STATE=DURATION");
  add_naming_options(sub, &a->naming,
                     "Name operators from Flink's compiled SQL plan (JSON) of the job; with --now also expire the "
                     "TTL states of the operators it gives a TTL");
  sub.add_option("--now", a->now, "The time --expire measures from (ms since the epoch or ISO 8601 UTC)")
      ->type_name("TIMESTAMP");
  sub.add_option("--to", a->to, "Layout of the output's keyed state: rocksdb, heap or canonical")->type_name("KIND");
  sub.add_flag("--dry-run", a->dry_run, "Print what would change, write nothing");
  sub.add_flag("--force", a->force, "Replace an existing output directory");
  add_jobs_option(sub, &a->jobs, "Subtasks rewritten at once");
  add_part_options(sub, &a->shard, &a->finish);
  add_key_serializers_option(sub, &a->key_serializers_from);
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
  sub.add_flag("--json", a->json, "Describe what was (or, with --dry-run, would be) changed and written as JSON");
  return [a](Io& io) {
    if (a->output.empty() && !a->dry_run) {
      print_error(io, "--output is required (or --dry-run)");
      return kExitError;
    }
    EditOptions options;
    if (!a->to.empty()) {
      Result<ConvertTarget> to = parse_convert_target(a->to);
      if (!to.ok()) return report_error(io, to.error());
      options.to = *to;
    }
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    if (!split_all(io, a->set_uids, '=', "--set-uid", "OP=UID", &options.set_uids) ||
        !split_all(io, a->set_ids, '=', "--set-id", "OP=HEX", &options.set_ids) ||
        !split_all(io, a->drop_states, '/', "--drop-state", "OP/STATE", &options.drop_states))
      return kExitError;
    if (!a->delete_keys.empty()) {
      Result<std::vector<Value>> keys = read_key_lines(a->delete_keys);
      if (!keys.ok()) return report_error(io, keys.error());
      if (keys->empty()) {
        print_error(io, fmt::format("--delete-keys: no key in '{}'", a->delete_keys));
        return kExitError;
      }
      options.delete_keys = std::move(*keys);
    } else if (!a->keys_operator.empty()) {
      print_error(io, "--operator restricts --delete-keys, which is not given");
      return kExitError;
    }
    // STATE is what comes before the first '=': a predicate holds '=' of its own.
    if (!split_all(io, a->delete_where, '=', "--delete-where", "STATE=PREDICATE", &options.delete_where) ||
        !split_all(io, a->keep_where, '=', "--keep-where", "STATE=PREDICATE", &options.keep_where))
      return kExitError;
    std::ifstream upsert_file;
    if (!a->upsert.empty()) {
      options.upsert = &std::cin;
      options.upsert_name = a->upsert;
      if (a->upsert != "-") {
        upsert_file.open(a->upsert, std::ios::binary);
        if (!upsert_file)
          return report_error(io, Error(ErrorCode::kNotFound, fmt::format("'{}': cannot open the entries", a->upsert)));
        options.upsert = &upsert_file;
      }
    }
    if (!parse_max_parallelism(io, a->max_parallelism, &options)) return kExitError;
    if (a->parallelism && a->max_parallelism.empty()) {
      print_error(io, "--parallelism needs --max-parallelism (give the current one to keep it)");
      return kExitError;
    }
    if (!parse_state_ttls(io, a->expire, "--expire", &options.expire) || !parse_now(io, a->now, &options.now))
      return kExitError;
    // --plan names operators; it expires with --now, and without another operation it can only
    // have been meant to expire.
    const bool other = !options.set_uids.empty() || !options.set_ids.empty() || !options.drop_states.empty() ||
                       !a->drop_operators.empty() || !options.delete_keys.empty() || !a->max_parallelism.empty() ||
                       !a->to.empty() || options.upsert || !options.delete_where.empty() ||
                       !options.keep_where.empty();
    if ((!options.expire.empty() || (!a->naming.plan.empty() && !other)) && !options.now) {
      print_error(io, fmt::format("{} needs --now (the time Flink would measure the TTL from)",
                                  options.expire.empty() ? "--plan" : "--expire"));
      return kExitError;
    }
    std::optional<OperatorNames> names = names_or_report(io, a->naming);
    if (!names) return kExitError;
    if (options.now) options.plan = a->naming.plan;
    options.parallelism = a->parallelism;
    options.keys_operator = a->keys_operator;
    options.drop_operators = a->drop_operators;
    options.output = a->output;
    options.force = a->force;
    options.jobs = a->jobs;
    options.dry_run = a->dry_run;
    if (!shard_or_report(io, a->shard, &options.shard)) return kExitError;
    options.finish = a->finish;
    options.key_serializers_from = a->key_serializers_from;
    options.remap = std::move(*remap);
    ProgressMeter meter(io, "edit", a->progress);
    options.progress = meter.counters();
    Result<EditSummary> s = edit_snapshot(a->snapshot, options);
    meter.finish();
    if (!s.ok()) return report_error(io, s.error());
    if (a->json) {
      for (const Value& key : s->unmatched_keys) print_warning(io, fmt::format("key matched nothing: {}", key.json()));
      for (const std::string& gap : s->residue_gaps) print_warning(io, "not searched for the erased keys: " + gap);
      print_json(io, [&](JsonWriter& w) { write_edit_json(a->snapshot, options, *s, w); });
      return s->unmatched_keys.empty() ? kExitOk : kExitProblems;
    }
    const char* prefix = a->dry_run ? "would change: " : "";
    for (const EditChange& c : s->changes) io.out << prefix << printable(describe(c, *names)) << "\n";
    if (!options.delete_keys.empty()) {
      for (const EditSummary::KeysErased& k : s->erased)
        io.out << fmt::format("{}{}: state '{}': {} entries of the keys erased\n", prefix,
                              operator_text(k.operator_id, *names), printable(k.state), k.entries);
      for (const Value& key : s->unmatched_keys) print_warning(io, fmt::format("key matched nothing: {}", key.json()));
      const char* remains = a->dry_run ? "would remain: " : "remains: ";
      for (const EditSummary::KeyResidue& r : s->residues)
        io.out << fmt::format("{}operator {}: state '{}': key {} in the {} of {}\n", remains, r.operator_id,
                              printable(r.state), printable(r.key.json()), r.place == "user-key" ? "map user keys" : r.place + "s",
                              counted(r.entries, "entry", "entries"));
      if (s->residues_searched && s->residues.empty())
        io.out << (a->dry_run ? "no erased key would remain\n" : "no erased key remains\n");
    }
    for (const std::string& gap : s->residue_gaps) print_warning(io, "not searched for the erased keys: " + gap);
    for (const EditSummary::EntryEdits& e : s->entry_edits)
      io.out << fmt::format("{}{}: state '{}': {} upserted, {} added, {} unchanged, {} deleted\n", prefix,
                            operator_text(e.operator_id, *names), printable(e.state), e.upserted, e.added, e.unchanged,
                            e.deleted);
    if (a->dry_run) {
      io.out << fmt::format("dry run: {}, {} kept, nothing written\n",
                            counted(s->written.subtasks, "subtask", "subtasks"),
                            counted(s->written.entries, "entry", "entries"));
    } else {
      io.out << fmt::format("{}: {}, {}\n", printable(s->written.output), s->written.kind, written_counts(s->written));
    }
    // As dump --key: an erasure scripted in CI must not pass when a key it names erased nothing.
    return s->unmatched_keys.empty() ? kExitOk : kExitProblems;
  };
}

}  // namespace ckpt::cli
