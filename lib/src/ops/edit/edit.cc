// edit_snapshot: the edit's operations applied by the snapshot rewrite, and what they did.
#include "ckpt/edit.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/names.h"

#include "format/flink_duration.h"
#include "ops/edit/edit_residue.h"
#include "ops/edit/edit_steps.h"
#include "support/json_text.h"

namespace ckpt {

Result<std::vector<Value>> read_key_lines(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(std::string text, read_whole_file(path));
  std::vector<Value> out;
  std::string_view rest = text;
  for (size_t number = 1; !rest.empty(); ++number) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    Result<Value> key = parse_value(line);
    if (!key.ok())
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("line {}: key {} is not JSON as ckpt dump prints keys (\"a\", 42, [1,\"b\"], "
                               "{{\"fields\":[6,\"c\"],\"kind\":\"+I\"}}): {}",
                               number, line, key.error().message))
          .with_file(path);
    out.push_back(std::move(*key));
  }
  return out;
}

Result<int64_t> parse_ttl_duration(std::string_view text) { return parse_flink_duration_ms(text); }

Result<EditSummary> edit_snapshot(const std::string& snapshot, const EditOptions& options) {
  EditPlan plan;
  DropCounts counts;
  std::unique_ptr<KeyDeletion> deletion;
  std::set<OperatorId> key_operators;  // output ids of the operators keys are erased from
  std::unique_ptr<TtlExpiry> expiry;
  OperatorNames plan_names;
  if (!options.plan.empty()) {
    if (!options.now) return Error(ErrorCode::kInvalidArgument, "--plan needs --now (the time TTLs are measured from)");
    CKPT_RETURN_IF_ERROR(plan_names.add_plan_file(options.plan));
  }
  if (!options.expire.empty() || !options.plan.empty()) {
    if (!options.now) return Error(ErrorCode::kInvalidArgument, "--expire needs --now");
    std::map<std::string, int64_t> ttls;
    for (const auto& [state, ttl] : options.expire) {
      if (ttl < 0) return Error(ErrorCode::kInvalidArgument, fmt::format("--expire: negative ttl for '{}'", state));
      if (!ttls.emplace(state, ttl).second)
        return Error(ErrorCode::kInvalidArgument, fmt::format("--expire: state '{}' given twice", state));
    }
    expiry = std::make_unique<TtlExpiry>(std::move(ttls), *options.now);
  }
  // The keys as the JSON text the key decoders' output is matched by, and back.
  std::vector<std::string> key_texts;
  std::unordered_map<std::string, const Value*> key_of_text;
  for (const Value& key : options.delete_keys) {
    key_texts.push_back(key.json());
    key_of_text.emplace(key_texts.back(), &key);
  }
  if (!options.delete_keys.empty()) {
    CKPT_ASSIGN_OR_RETURN(deletion, KeyDeletion::parse(key_texts));
  }
  std::unique_ptr<Upserts> upserts;
  std::unique_ptr<WhereFilter> where;
  const bool by_entry = options.upsert || !options.delete_where.empty() || !options.keep_where.empty();
  if (by_entry && (options.max_parallelism != 0 || !options.operator_max_parallelism.empty()))
    return Error(ErrorCode::kInvalidArgument,
                 "--upsert, --delete-where and --keep-where work in the snapshot's key groups: change the max "
                 "parallelism in an edit of its own");
  if (by_entry && (options.shard || options.finish))
    return Error(ErrorCode::kInvalidArgument, "--upsert, --delete-where and --keep-where are not run in parts");
  if (options.upsert) upserts = std::make_unique<Upserts>();
  if (!options.delete_where.empty() || !options.keep_where.empty()) {
    std::vector<WhereFilter::Rule> rules;
    for (const auto& [state, predicate] : options.delete_where) rules.push_back({state, predicate, false});
    for (const auto& [state, predicate] : options.keep_where) rules.push_back({state, predicate, true});
    where = std::make_unique<WhereFilter>(std::move(rules));
  }
  std::vector<EditChange> regrouped;
  // The edits, in the order they apply: keys erased (from the operators --keys-operator names
  // in the input), the operators changed, each subtask's pairs filtered, expired and upserted,
  // whole states dropped, and last the keyed state regrouped, whose spill of every pair is the
  // costliest step of the input pass (so the others' checks fail first).
  std::optional<EraseKeys> erase_keys;
  OperatorChanges operator_changes(options, plan);
  std::optional<FilterEntries> filter;
  std::optional<ExpireEntries> expire;
  std::optional<UpsertEntries> upsert;
  DropStates drop_states(plan, counts);
  Regroup regroup(options, plan, regrouped);
  SnapshotEdits edits;
  if (deletion) edits.add(&erase_keys.emplace(*deletion, options.keys_operator, key_operators));
  edits.add(&operator_changes);
  if (where) edits.add(&filter.emplace(*where));
  if (expiry) edits.add(&expire.emplace(*expiry, options, plan_names));
  if (upserts) edits.add(&upsert.emplace(*upserts, options));
  edits.add(&drop_states);
  edits.add(&regroup);

  RewriteOptions r;
  r.to = options.to;
  r.output = options.output;
  r.force = options.force;
  r.jobs = options.jobs;
  r.remap = options.remap;
  r.dry_run = options.dry_run;
  r.key_serializers_from = options.key_serializers_from;
  r.progress = options.progress;
  r.shard = options.shard;
  r.finish = options.finish;
  // Regrouped, every keyed operator's SSTs are read entry by entry (Regrouper), each block
  // checked as RocksDB reads it; a dropped one's never reach the output.
  if (options.max_parallelism != 0 || !options.operator_max_parallelism.empty())
    r.entries_read = [&options](const OperatorState& op) {
      if (options.max_parallelism != 0) return true;
      for (const auto& [name, n] : options.operator_max_parallelism)
        if (operator_matches(op, name)) return true;
      return false;
    };
  // Every subtask's keyed state is read whole, by the rewrite or by the regrouping, unless its
  // operator is dropped: checked as it is read then, with no decoding pass over the heap and
  // canonical streams before (which cost edit a second read of them). Damage found late still
  // publishes nothing; a dropped operator's state is left to the check pass, as an edit that
  // drops a damaged operator has always refused it.
  r.check_on_read = options.drop_operators.empty();
  regroup.check_blocks = r.check_on_read;
  regroup.write_directly = !deletion && !expiry && !upserts && !where && plan.drop_states.empty();
  if (options.shard || options.finish) {
    // What changes the entries but not the operators written: the parts must agree on it.
    std::string f = fmt::format("{}|{}|{}|{}|{}", options.keys_operator, options.plan, options.now.value_or(-1),
                                options.max_parallelism, options.parallelism);
    for (const auto& [op, state] : options.drop_states) f += fmt::format("|drop {}/{}", op, state);
    for (const std::string& key : key_texts) f += "|key " + key;
    for (const auto& [state, ttl] : options.expire) f += fmt::format("|expire {}={}", state, ttl);
    for (const auto& [op, n] : options.operator_max_parallelism) f += fmt::format("|max-parallelism {}={}", op, n);
    r.fingerprint = std::move(f);
  }
  CKPT_ASSIGN_OR_RETURN(ConvertSummary written, rewrite_snapshot(snapshot, r, edits));
  EditSummary summary;
  summary.written = std::move(written);
  summary.changes = plan.changes;
  summary.changes.insert(summary.changes.end(), regrouped.begin(), regrouped.end());
  for (EditChange& c : summary.changes) {
    if (c.what != "drop-state") continue;
    OperatorId id{};
    parse_operator_id(c.new_id, &id);
    c.entries = counts.get(id, c.state).second;
  }
  if (expiry)
    for (const auto& [where, n] : expiry->dropped()) {
      EditChange c;
      c.operator_id = c.new_id = where.first;
      c.state = where.second;
      c.what = "expire";
      c.entries = n;
      summary.changes.push_back(std::move(c));
    }
  if (upserts || where) {
    std::map<std::pair<std::string, std::string>, EditSummary::EntryEdits> edits;
    auto merge = [&](const std::vector<EditSummary::EntryEdits>& counts) {
      for (const EditSummary::EntryEdits& n : counts) {
        EditSummary::EntryEdits& e = edits[{n.operator_id, n.state}];
        e.operator_id = n.operator_id;
        e.state = n.state;
        e.upserted += n.upserted;
        e.added += n.added;
        e.unchanged += n.unchanged;
        e.deleted += n.deleted;
      }
    };
    if (upserts) merge(upserts->counts());
    if (where) merge(where->counts());
    for (auto& [unused, e] : edits) {
      (void)unused;
      if (e.upserted || e.added || e.unchanged || e.deleted) summary.entry_edits.push_back(std::move(e));
    }
  }
  if (deletion) {
    summary.erased = deletion->erased();
    for (const std::string& text : deletion->unmatched()) summary.unmatched_keys.push_back(*key_of_text.at(text));
  }
  if (deletion && (!options.shard || options.finish)) {
    ResidueSearch search;
    search.jobs = options.jobs;
    CKPT_ASSIGN_OR_RETURN(search.keys, parse_given_keys(key_texts, "--delete-keys"));
    for (const GivenKey& k : search.keys) search.given.push_back(*key_of_text.at(k.text));
    auto output_id = [&](const std::string& hex) {
      OperatorId id{};
      if (!parse_operator_id(hex, &id)) return id;
      auto renamed = plan.new_ids.find(id);
      return renamed == plan.new_ids.end() ? id : renamed->second;
    };
    if (options.dry_run) {
      // Nothing was written: the input is searched, less what the edit would remove.
      search.snapshot = snapshot;
      search.remap = options.remap;
      std::set<std::string> spellings;
      for (const GivenKey& k : search.keys)
        for (const nlohmann::json& v : k.spellings) spellings.insert(json_text(v));
      search.removed = [&, spellings](const Entry& e) {
        OperatorId in{};
        if (parse_operator_id(e.operator_id, &in) && plan.dropped.count(in)) return true;
        const OperatorId out = output_id(e.operator_id);
        auto drop = plan.drop_states.find(out);
        if (drop != plan.drop_states.end() && drop->second.count(e.state)) return true;
        return e.kind != EntryKind::kOperator && e.key && key_operators.count(out) && spellings.count(e.key->json());
      };
      search.output_id = [&](const std::string& hex) { return operator_id_hex(output_id(hex)); };
    } else {
      search.snapshot = summary.written.output;
    }
    // The edit itself is done (and written): a search that cannot run is reported, not fatal.
    Status searched = find_key_residues(search, &summary);
    if (searched.ok())
      summary.residues_searched = true;
    else
      summary.residue_gaps.push_back(std::move(searched).error().to_string());
  }
  return summary;
}

}  // namespace ckpt
