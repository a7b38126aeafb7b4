// edit_snapshot: the edit plan applied by rewrite_snapshot's hooks.
#include "ckpt/edit.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/names.h"

#include "format/flink_duration.h"
#include "ops/convert/snapshot_rewrite.h"
#include "ops/edit/edit_expire.h"
#include "ops/edit/edit_keys.h"
#include "ops/edit/edit_plan.h"
#include "ops/edit/edit_residue.h"
#include "ops/edit/edit_upsert.h"
#include "ops/edit/edit_where.h"
#include "ops/edit/regroup.h"
#include "state/operator_state_cut.h"
#include "support/json_text.h"

namespace ckpt {

namespace {

// Entries dropped per (output operator id, state), and whether any subtask had the state.
class DropCounts {
 public:
  void add(const OperatorId& op, const std::string& state, uint64_t entries) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& [found, n] = counts_[{op, state}];
    found = true;
    n += entries;
  }
  // found, entries
  std::pair<bool, uint64_t> get(const OperatorId& op, const std::string& state) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find({op, state});
    return it == counts_.end() ? std::pair<bool, uint64_t>{false, 0} : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::pair<OperatorId, std::string>, std::pair<bool, uint64_t>> counts_;
};

// The pairs of the proxy states dropped, counted.
class DropKeyedStates : public KeyedEdit {
 public:
  DropKeyedStates(std::vector<size_t> dropped, std::vector<std::string> names, OperatorId op, DropCounts& counts)
      : dropped_(std::move(dropped)), names_(std::move(names)), op_(op), counts_(counts), entries_(dropped_.size()) {}
  ~DropKeyedStates() override {
    for (size_t i = 0; i < names_.size(); ++i) counts_.add(op_, names_[i], entries_[i]);
  }

  // Counts only: the engine leaves out the states the proxy no longer names.
  Status key_group(int32_t, std::vector<std::vector<RocksPair>>& by_state) override {
    for (size_t i = 0; i < dropped_.size(); ++i)
      if (dropped_[i] < by_state.size()) entries_[i] += by_state[dropped_[i]].size();
    return Status::OK();
  }

 private:
  std::vector<size_t> dropped_;     // input proxy indices
  std::vector<std::string> names_;  // their names, in the same order
  OperatorId op_;
  DropCounts& counts_;
  std::vector<uint64_t> entries_;
};

// Edits applied one after the other (each sees the previous one's output).
class EditChain : public KeyedEdit {
 public:
  explicit EditChain(std::vector<std::unique_ptr<KeyedEdit>> edits) : edits_(std::move(edits)) {}
  Status key_group(int32_t kg, std::vector<std::vector<RocksPair>>& by_state) override {
    for (auto& e : edits_) CKPT_RETURN_IF_ERROR(e->key_group(kg, by_state));
    return Status::OK();
  }
  std::vector<int32_t> added_key_groups() const override {
    std::set<int32_t> all;
    for (const auto& e : edits_)
      for (int32_t kg : e->added_key_groups()) all.insert(kg);
    return {all.begin(), all.end()};
  }

 private:
  std::vector<std::unique_ptr<KeyedEdit>> edits_;
};

// The edits that are not null, as one (null for none).
std::unique_ptr<KeyedEdit> chained(std::vector<std::unique_ptr<KeyedEdit>> edits) {
  std::erase_if(edits, [](const std::unique_ptr<KeyedEdit>& e) { return !e; });
  if (edits.empty()) return nullptr;
  if (edits.size() == 1) return std::move(edits.front());
  return std::make_unique<EditChain>(std::move(edits));
}

// What --max-parallelism `n` and --parallelism need of an operator.
Status check_regroup(const OperatorState& op, int32_t n, const EditOptions& options) {
  if (n < 1 || n > 32768)
    return Error(ErrorCode::kInvalidArgument, fmt::format("--max-parallelism {} is not in 1..32768", n));
  const int32_t parallelism = options.parallelism ? options.parallelism : op.parallelism;
  if (parallelism < 1 || parallelism > n)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("operator {}: parallelism {} is not in 1..{} (its max parallelism)",
                             operator_id_hex(op.id), parallelism, n));
  if (parallelism == op.parallelism) return Status::OK();
  for (const SubtaskState& st : op.subtasks)
    if (!st.legacy.empty() || !st.managed_operator.empty() || !st.raw_operator.empty() || !st.raw_keyed.is_null() ||
        !st.input_channels.empty() || !st.result_subpartitions.empty())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("--parallelism: operator {} has state other than keyed state, which Flink redistributes "
                               "on restore (keep its parallelism here)",
                               operator_id_hex(op.id)));
  return Status::OK();
}

}  // namespace

Result<std::vector<std::string>> read_key_lines(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(std::string text, read_whole_file(path));
  std::vector<std::string> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.emplace_back(line);
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
  if (!options.delete_keys.empty()) {
    CKPT_ASSIGN_OR_RETURN(deletion, KeyDeletion::parse(options.delete_keys));
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
  std::map<OperatorId, std::unique_ptr<Regrouper>> regroupers;  // by input id, then by output id
  std::vector<EditChange> regrouped;
  RewriteHooks hooks;
  hooks.prepare = [&](const Metadata& in, const StreamOpener& streams) -> Status {
    CKPT_ASSIGN_OR_RETURN(plan, plan_edit(in, options));
    // Every line and predicate checked before a pair is written.
    if (upserts) CKPT_RETURN_IF_ERROR(upserts->read(*options.upsert, options.upsert_name, in, streams));
    if (where) CKPT_RETURN_IF_ERROR(where->check(in, streams));
    if (!options.plan.empty()) {
      CKPT_ASSIGN_OR_RETURN(auto ttls, plan_ttls(plan_names, in, options.plan, "--plan"));
      expiry->set_plan_ttls(std::move(ttls));
    }
    for (const OperatorState& op : in.operators) {
      auto target = plan.max_parallelism.find(op.id);
      if (target == plan.max_parallelism.end()) continue;
      const int32_t n = target->second;
      CKPT_RETURN_IF_ERROR(check_regroup(op, n, options));
      bool keyed = false;
      for (const SubtaskState& st : op.subtasks) keyed |= !st.managed_keyed.is_null() || !st.raw_keyed.is_null();
      if (!keyed) continue;
      const int32_t parallelism = options.parallelism ? options.parallelism : op.parallelism;
      auto r = Regrouper::make(op, n, parallelism, streams, options.jobs);
      if (!r.ok()) return std::move(r).error().with_context(fmt::format("operator {}", operator_id_hex(op.id)));
      EditChange c;
      c.operator_id = c.new_id = operator_id_hex(op.id);
      c.what = "max-parallelism";
      c.detail = fmt::format("{} -> {}", op.max_parallelism, n);
      if (parallelism != op.parallelism) c.detail += fmt::format(", parallelism {} -> {}", op.parallelism, parallelism);
      c.entries = (*r)->pairs();
      regrouped.push_back(std::move(c));
      regroupers[op.id] = std::move(r).value();
    }
    return Status::OK();
  };
  hooks.source = [&](const OperatorState& op, const SubtaskState& st) -> Result<std::optional<KeyedSource>> {
    auto r = regroupers.find(op.id);
    if (r == regroupers.end()) return std::optional<KeyedSource>();
    return r->second->source(st.index);
  };
  hooks.raw_keyed = [&](const OperatorState& op, const SubtaskState& st) -> Result<std::optional<RawKeyedStream>> {
    auto r = regroupers.find(op.id);
    if (r == regroupers.end()) return std::optional<RawKeyedStream>();
    return r->second->raw_keyed(st.index);
  };
  hooks.operators = [&](Metadata& m) -> Status {
    if (deletion) {
      CKPT_ASSIGN_OR_RETURN(auto selected, select_operators(m, options.keys_operator));
      for (const OperatorState* op : selected) {
        // Erasure must be complete: raw keyed state (the timers of Flink < 1.10 RocksDB jobs
        // with heap timers) holds keys ckpt cannot cut out of it.
        for (const SubtaskState& st : op->subtasks)
          if (!st.raw_keyed.is_null())
            return Error(ErrorCode::kNotSupported,
                         fmt::format("--delete-keys: operator {} has raw keyed state (timers of an old RocksDB job), "
                                     "from which keys cannot be erased",
                                     operator_id_hex(op->id)));
        auto renamed = plan.new_ids.find(op->id);
        key_operators.insert(renamed == plan.new_ids.end() ? op->id : renamed->second);
      }
    }
    CKPT_RETURN_IF_ERROR(apply_operator_changes(plan, m));
    if (upserts) upserts->rename(hooks.output_id);
    if (plan.max_parallelism.empty()) return Status::OK();
    std::map<OperatorId, std::unique_ptr<Regrouper>> by_output;
    for (auto& [id, r] : regroupers) by_output[hooks.output_id(id)] = std::move(r);
    regroupers = std::move(by_output);
    std::map<OperatorId, int32_t> max_by_output;
    for (const auto& [id, n] : plan.max_parallelism) max_by_output[hooks.output_id(id)] = n;
    for (OperatorState& op : m.operators) {
      auto target = max_by_output.find(op.id);
      if (target == max_by_output.end()) continue;
      op.max_parallelism = target->second;
      if (!regroupers.count(op.id)) continue;
      // `_metadata` lists only the subtasks that had state, but a key may now belong to any
      // subtask: each gets a record. With a new parallelism there is only keyed state
      // (check_regroup), so the records are all new.
      const int32_t parallelism = options.parallelism ? options.parallelism : op.parallelism;
      if (parallelism != op.parallelism) op.subtasks.clear();
      op.parallelism = parallelism;
      std::vector<SubtaskState> subtasks(static_cast<size_t>(parallelism));
      for (int32_t i = 0; i < parallelism; ++i) subtasks[i].index = i;
      for (SubtaskState& st : op.subtasks)
        if (st.index >= 0 && st.index < parallelism) subtasks[st.index] = std::move(st);
      op.subtasks = std::move(subtasks);
    }
    return Status::OK();
  };
  auto drop_states = [&](const OperatorState& op, KeyedBackendMeta& meta) -> Result<std::unique_ptr<KeyedEdit>> {
    auto drop = plan.drop_states.find(op.id);
    if (drop == plan.drop_states.end()) return std::unique_ptr<KeyedEdit>();
    std::vector<size_t> dropped;
    std::vector<std::string> names;
    for (size_t i = meta.states.size(); i-- > 0;)
      if (drop->second.count(meta.states[i].name)) {
        dropped.push_back(i);
        names.push_back(meta.states[i].name);
        meta.states.erase(meta.states.begin() + static_cast<std::ptrdiff_t>(i));
      }
    if (dropped.empty()) return std::unique_ptr<KeyedEdit>();
    // A Flink 1.2-1.6 proxy is written back as read: it would still register the dropped states.
    if (!meta.legacy_bytes.empty())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("states cannot be dropped from a keyed backend proxy of version {} "
                               "(Flink 1.2-1.6), which ckpt copies as read",
                               meta.version));
    return std::unique_ptr<KeyedEdit>(new DropKeyedStates(std::move(dropped), std::move(names), op.id, counts));
  };
  hooks.keyed = [&](const OperatorState& op, int32_t, KeyedBackendMeta& meta) -> Result<std::unique_ptr<KeyedEdit>> {
    // Keys, predicates and expiry first, on the states as read, then the upserts (a key erased
    // and upserted is written anew); then the states dropped from what is left.
    std::vector<std::unique_ptr<KeyedEdit>> edits(5);
    if (deletion && key_operators.count(op.id)) {
      CKPT_ASSIGN_OR_RETURN(edits[0], deletion->edit_for(op, meta));
    }
    if (where) {
      CKPT_ASSIGN_OR_RETURN(edits[1], where->edit_for(op, meta));
    }
    if (expiry) {
      CKPT_ASSIGN_OR_RETURN(edits[2], expiry->edit_for(op, meta));
    }
    if (upserts) {
      CKPT_ASSIGN_OR_RETURN(edits[3], upserts->edit_for(op, meta));
    }
    CKPT_ASSIGN_OR_RETURN(edits[4], drop_states(op, meta));
    return chained(std::move(edits));
  };
  hooks.operator_state = [&](const OperatorState& op, int32_t subtask, OperatorHandle& h,
                             std::string& bytes) -> Status {
    if (upserts) CKPT_RETURN_IF_ERROR(upserts->operator_state(op, subtask, h, bytes));
    auto drop = plan.drop_states.find(op.id);
    if (drop == plan.drop_states.end()) return Status::OK();
    std::set<std::string> here;
    std::map<std::string, uint64_t> elements;
    for (const OperatorStateEntry& s : h.states)
      if (drop->second.count(s.name)) {
        here.insert(s.name);
        elements[s.name] += s.offsets.size();
      }
    if (here.empty()) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(uint64_t removed, cut_operator_states(h, bytes, here));
    (void)removed;
    for (const auto& [name, n] : elements) counts.add(op.id, name, n);
    return Status::OK();
  };
  hooks.output_id = [&](const OperatorId& id) {
    auto renamed = plan.new_ids.find(id);
    return renamed == plan.new_ids.end() ? id : renamed->second;
  };
  // What the operations name and the subtasks have: checked over every subtask at the end of
  // one run; in parts, each part records what it found and --finish checks the union.
  auto drop_state_found = [](const OperatorId& op, const std::string& state) {
    return fmt::format("drop-state {}/{}", operator_id_hex(op), state);
  };
  auto expire_found = [](const std::string& state) { return "expire " + state; };
  auto check = [&](const std::function<bool(const OperatorId&, const std::string&)>& dropped_found,
                   const std::vector<std::string>& expire_missing) -> Status {
    for (const std::string& state : expire_missing)
      return Error(ErrorCode::kInvalidArgument, fmt::format("--expire: no operator has a keyed state '{}'", state));
    for (const auto& [op, states] : plan.drop_states)
      for (const std::string& state : states)
        if (!dropped_found(op, state))
          return Error(ErrorCode::kInvalidArgument,
                       fmt::format("--drop-state: operator {} has no state '{}'", operator_id_hex(op), state));
    return Status::OK();
  };
  hooks.finish = [&]() -> Status {
    return check([&](const OperatorId& op, const std::string& state) { return counts.get(op, state).first; },
                 expiry ? expiry->not_found() : std::vector<std::string>());
  };
  hooks.found = [&]() {
    std::vector<std::string> found;
    for (const auto& [op, states] : plan.drop_states)
      for (const std::string& state : states)
        if (counts.get(op, state).first) found.push_back(drop_state_found(op, state));
    if (expiry) {
      const std::vector<std::string> missing = expiry->not_found();
      for (const auto& [state, ttl] : options.expire)
        if (std::find(missing.begin(), missing.end(), state) == missing.end()) found.push_back(expire_found(state));
    }
    return found;
  };
  hooks.finish_parts = [&](const std::set<std::string>& found) -> Status {
    std::vector<std::string> expire_missing;
    if (expiry)
      for (const std::string& state : expiry->not_found())
        if (!found.count(expire_found(state))) expire_missing.push_back(state);
    return check(
        [&](const OperatorId& op, const std::string& state) { return found.count(drop_state_found(op, state)) > 0; },
        expire_missing);
  };

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
  if (options.shard || options.finish) {
    // What changes the entries but not the operators written: the parts must agree on it.
    std::string f = fmt::format("{}|{}|{}|{}|{}", options.keys_operator, options.plan, options.now.value_or(-1),
                                options.max_parallelism, options.parallelism);
    for (const auto& [op, state] : options.drop_states) f += fmt::format("|drop {}/{}", op, state);
    for (const std::string& key : options.delete_keys) f += "|key " + key;
    for (const auto& [state, ttl] : options.expire) f += fmt::format("|expire {}={}", state, ttl);
    for (const auto& [op, n] : options.operator_max_parallelism) f += fmt::format("|max-parallelism {}={}", op, n);
    r.fingerprint = std::move(f);
  }
  CKPT_ASSIGN_OR_RETURN(ConvertSummary written, rewrite_snapshot(snapshot, r, hooks));
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
    summary.unmatched_keys = deletion->unmatched();
  }
  if (deletion && (!options.shard || options.finish)) {
    ResidueSearch search;
    search.jobs = options.jobs;
    CKPT_ASSIGN_OR_RETURN(search.keys, parse_given_keys(options.delete_keys, "--delete-keys"));
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
