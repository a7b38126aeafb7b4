// The logical half of `ckpt diff --keys`: two pull iterations over the entries of both
// snapshots, merged an operator at a time and compared a key group at a time.
//
// Key groups are global, so two sides line up by key group whatever their parallelism. Each
// side is opened once and each operator read once per side, key-group major
// (StateFilter::key_group_major: a RocksDB handle, read state by state by a dump, hands out
// every state of a key group before the next), so a heap side and a RocksDB side agree; a
// step back in key groups is refused rather than compared wrongly.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "ops/diff/diff_internal.h"
#include "ops/entries/dump_entries.h"

namespace ckpt {

namespace {

// What names an entry regardless of backend, subtask and key group: state, kind, key,
// namespace and user key, compared field by field (no name is built per entry). The key group
// is where a key lives, not what it is: a key moved by a new max parallelism is the same entry.
// Entries with none of the last three (operator list elements) are named by their value: lists
// compare as multisets.
bool keyless(const DumpEntry& e) { return !e.key && !e.namespace_json && !e.user_key; }

std::string_view part(const std::optional<std::string>& s) { return s ? std::string_view(*s) : std::string_view(); }

int compare_identity(const DumpEntry& x, const DumpEntry& y) {
  if (int c = x.state.compare(y.state)) return c;
  if (int c = x.kind.compare(y.kind)) return c;
  const bool kx = keyless(x), ky = keyless(y);
  if (kx != ky) return kx ? -1 : 1;
  if (kx) return x.value.compare(y.value);
  if (int c = part(x.key).compare(part(y.key))) return c;
  if (int c = part(x.namespace_json).compare(part(y.namespace_json))) return c;
  return part(x.user_key).compare(part(y.user_key));
}

std::vector<const DumpEntry*> sorted(const std::vector<DumpEntry>& entries) {
  std::vector<const DumpEntry*> out;
  out.reserve(entries.size());
  for (const DumpEntry& e : entries) out.push_back(&e);
  auto less = [](const DumpEntry* x, const DumpEntry* y) {
    int c = compare_identity(*x, *y);
    return c != 0 ? c < 0 : x->value < y->value;
  };
  // RocksDB hands out a key group in key order, often the order wanted already.
  if (!std::is_sorted(out.begin(), out.end(), less)) std::sort(out.begin(), out.end(), less);
  return out;
}

class Comparer {
 public:
  Comparer(const std::string& op, DiffReport& report, KeyChangeSink* changes)
      : op_(op), report_(report), changes_(changes) {}

  void compare(const std::vector<DumpEntry>& a, const std::vector<DumpEntry>& b) {
    std::vector<const DumpEntry*> sa = sorted(a), sb = sorted(b);
    size_t i = 0, j = 0;
    while (i < sa.size() || j < sb.size()) {
      const int c = i == sa.size() ? 1 : j == sb.size() ? -1 : compare_identity(*sa[i], *sb[j]);
      if (c < 0) {
        emit("removed", sa[i++], nullptr);
      } else if (c > 0) {
        emit("added", nullptr, sb[j++]);
      } else {
        // Same identity: a single entry per side is one that stayed or changed; several are
        // list elements compared as a multiset by value.
        size_t ie = i + 1, je = j + 1;
        while (ie < sa.size() && compare_identity(*sa[ie], *sa[i]) == 0) ++ie;
        while (je < sb.size() && compare_identity(*sb[je], *sb[j]) == 0) ++je;
        if (ie - i == 1 && je - j == 1) {
          if (sa[i]->value == sb[j]->value) counts(sa[i]->state).same++;
          else emit("changed", sa[i], sb[j]);
        } else {
          while (i < ie || j < je) {
            if (j == je || (i < ie && sa[i]->value < sb[j]->value)) emit("removed", sa[i++], nullptr);
            else if (i == ie || sb[j]->value < sa[i]->value) emit("added", nullptr, sb[j++]);
            else {
              counts(sa[i]->state).same++;
              ++i, ++j;
            }
          }
        }
        i = ie;
        j = je;
      }
    }
  }

 private:
  KeyDiffCounts& counts(const std::string& state) {
    // Runs of one state are the rule: remember the last one instead of a lookup per entry.
    if (last_ < report_.keys.size() && report_.keys[last_].state == state) return report_.keys[last_];
    auto it = index_.find(state);
    if (it == index_.end()) {
      it = index_.emplace(state, report_.keys.size()).first;
      report_.keys.push_back({op_, state});
    }
    last_ = it->second;
    return report_.keys[last_];
  }

  void emit(const char* what, const DumpEntry* before, const DumpEntry* after) {
    KeyDiffCounts& c = counts((before ? before : after)->state);
    std::string w = what;
    if (w == "added") ++c.added;
    else if (w == "removed") ++c.removed;
    else ++c.changed;
    if (!changes_) return;
    KeyChange change;
    change.what = w;
    if (before) change.before = *before;
    if (after) change.after = *after;
    changes_->change(change);
  }

  std::string op_;
  DiffReport& report_;
  KeyChangeSink* changes_;
  std::map<std::string, size_t> index_;
  size_t last_ = SIZE_MAX;
};

std::set<int32_t> subtask_indices(const OperatorState& op) {
  std::set<int32_t> out;
  for (const SubtaskState& st : op.subtasks) out.insert(st.index);
  return out;
}

// One side of a pass: its key groups one after the other, operator entries set aside.
class SideReader {
 public:
  SideReader(std::unique_ptr<DumpEntryIterator> stream, const std::string& op) : stream_(std::move(stream)), op_(op) {}

  // The next key group's entries into `group` (false at the end or on error: see status()).
  bool next_group(std::vector<DumpEntry>* group, int32_t* key_group) {
    group->clear();
    if (!stream_ || failed_) return false;
    if (pending_) {
      group->push_back(std::move(*pending_));
      pending_.reset();
    } else if (!pull_into(group)) {
      return false;
    }
    const int32_t kg = *group->front().key_group;
    if (last_ && kg <= *last_) {
      failed_ = Error(ErrorCode::kNotSupported,
                      fmt::format("operator {}: entries of state '{}' come in key group {} after key group {}, "
                                  "expected ascending key groups",
                                  op_, group->front().state, kg, *last_));
      return false;
    }
    last_ = kg;
    *key_group = kg;
    while (pull_into(group)) {
      if (*group->back().key_group == kg) continue;
      pending_ = std::move(group->back());
      group->pop_back();
      break;
    }
    return true;
  }

  // Entries without a key group (operator state), by subtask, once the stream is read.
  std::map<int32_t, std::vector<DumpEntry>>& operator_entries() { return operator_entries_; }
  uint64_t operator_count() const { return operator_count_; }

  Status status() {
    if (failed_) return *failed_;
    return stream_ ? stream_->status() : Status::OK();
  }

 private:
  // Reads until the next keyed entry lands at the back of `group` (read in place: entries
  // are moved once, from the stream's batch).
  bool pull_into(std::vector<DumpEntry>* group) {
    group->emplace_back();
    while (stream_->next(&group->back())) {
      if (group->back().key_group) return true;
      operator_entries_[group->back().subtask].push_back(std::move(group->back()));
      ++operator_count_;
    }
    group->pop_back();
    return false;
  }

  std::unique_ptr<DumpEntryIterator> stream_;
  std::string op_;
  std::optional<DumpEntry> pending_;
  std::optional<int32_t> last_;
  std::optional<Error> failed_;
  std::map<int32_t, std::vector<DumpEntry>> operator_entries_;
  uint64_t operator_count_ = 0;
};

// One operator of A (`id_a`, null when B's is new) against one of B (`id_b`, null when A's is
// gone); the counts are filed under B's id where there is one.
struct OperatorPair {
  std::string id_a, id_b;
  const OperatorState* oa = nullptr;
  const OperatorState* ob = nullptr;
};

// Each side's snapshot, opened once; an operator is one iteration over its tasks.
struct Side {
  std::unique_ptr<EntryReader> reader;
  const EntryReaderImpl* impl = nullptr;
  const std::map<std::string, OperatorStates>* states = nullptr;  // collect_states()
  Progress progress;
};

// The states either side's proxies give the operator, by name (or only the one asked for).
std::vector<std::string> named_states(const Side& a, const std::string& id_a, const Side& b, const std::string& id_b,
                                      const DiffOptions& options) {
  if (!options.state.empty()) return {options.state};
  std::set<std::string> names;
  for (const auto& [side, id] : {std::pair(&a, &id_a), std::pair(&b, &id_b)}) {
    auto it = side->states->find(*id);
    if (it == side->states->end()) continue;
    for (const auto& [name, shape] : it->second.states) names.insert(name);
  }
  return {names.begin(), names.end()};
}

std::unique_ptr<DumpEntryIterator> read_operator(const Side& side, const std::string& id, const DiffOptions& options) {
  DumpIteration it;
  for (const EntryTask& t : side.impl->tasks)
    if (t.operator_hex == id) it.tasks.push_back(t);
  it.reading.filter = side.impl->filter;
  it.reading.filter.state = options.state;
  it.reading.filter.json_text = true;
  it.reading.filter.key_group_major = true;
  it.names = &options.names;
  it.jobs = options.jobs;
  return iterate_dump_entries(*side.impl, std::move(it));
}

Status compare_operator(const Side& a, const Side& b, const OperatorPair& pair, const DiffOptions& options,
                        DiffReport& report, KeyChangeSink* changes, KeyDiffStats* stats) {
  const OperatorState* oa = pair.oa;
  const OperatorState* ob = pair.ob;
  // Operator state is compared per subtask where the subtasks line up, else as a whole.
  const bool aligned = oa && ob && oa->parallelism == ob->parallelism && subtask_indices(*oa) == subtask_indices(*ob);
  // Under different max parallelisms a key lives in unrelated key groups on each side: the
  // state is compared whole instead of a key group at a time (memory grows with the state).
  const bool by_group = !(oa && ob && oa->max_parallelism != ob->max_parallelism);
  std::optional<StateOrderedChanges> ordered;
  if (changes) ordered.emplace(changes, named_states(a, pair.id_a, b, pair.id_b, options));
  Comparer comparer(ob ? pair.id_b : pair.id_a, report, ordered ? &*ordered : nullptr);
  stats->passes++;
  SideReader ra(oa ? read_operator(a, pair.id_a, options) : nullptr, pair.id_a);
  SideReader rb(ob ? read_operator(b, pair.id_b, options) : nullptr, pair.id_b);
  std::vector<DumpEntry> ga, gb;
  int32_t ka = 0, kb = 0;
  bool has_a = false, has_b = false;
  // A side that stops short stops the diff before the other's rest is taken for changes.
  auto advance = [](SideReader& r, std::vector<DumpEntry>* g, int32_t* k, bool* has) -> Status {
    *has = r.next_group(g, k);
    return *has ? Status::OK() : r.status();
  };
  auto whole = [&](SideReader& r, std::vector<DumpEntry>* all) -> Status {
    std::vector<DumpEntry> g;
    int32_t k = 0;
    bool has = false;
    while (true) {
      CKPT_RETURN_IF_ERROR(advance(r, &g, &k, &has));
      if (!has) return Status::OK();
      std::move(g.begin(), g.end(), std::back_inserter(*all));
    }
  };
  if (!by_group) {
    CKPT_RETURN_IF_ERROR(whole(ra, &ga));
    CKPT_RETURN_IF_ERROR(whole(rb, &gb));
    stats->peak_buffered = std::max<uint64_t>(stats->peak_buffered, ga.size() + gb.size());
    comparer.compare(ga, gb);
  } else {
    CKPT_RETURN_IF_ERROR(advance(ra, &ga, &ka, &has_a));
    CKPT_RETURN_IF_ERROR(advance(rb, &gb, &kb, &has_b));
    while (has_a || has_b) {
      stats->peak_buffered =
          std::max<uint64_t>(stats->peak_buffered, (has_a ? ga.size() : 0) + (has_b ? gb.size() : 0));
      const bool take_a = has_a && (!has_b || ka <= kb), take_b = has_b && (!has_a || kb <= ka);
      static const std::vector<DumpEntry> kNone;
      comparer.compare(take_a ? ga : kNone, take_b ? gb : kNone);
      if (take_a) CKPT_RETURN_IF_ERROR(advance(ra, &ga, &ka, &has_a));
      if (take_b) CKPT_RETURN_IF_ERROR(advance(rb, &gb, &kb, &has_b));
    }
  }
  stats->peak_buffered = std::max(stats->peak_buffered, ra.operator_count() + rb.operator_count());
  auto& oa_entries = ra.operator_entries();
  auto& ob_entries = rb.operator_entries();
  if (aligned) {
    std::set<int32_t> subtasks;
    for (const auto* side : {&oa_entries, &ob_entries})
      for (const auto& [st, entries] : *side) subtasks.insert(st);
    for (int32_t st : subtasks) comparer.compare(oa_entries[st], ob_entries[st]);
  } else {
    std::vector<DumpEntry> all_a, all_b;
    for (auto& [st, entries] : oa_entries) std::move(entries.begin(), entries.end(), std::back_inserter(all_a));
    for (auto& [st, entries] : ob_entries) std::move(entries.begin(), entries.end(), std::back_inserter(all_b));
    comparer.compare(all_a, all_b);
  }
  return ordered ? ordered->finish() : Status::OK();
}

// An operator only A has and one only B has whose proxies give the same states: a candidate
// for one operator given another id (edit --set-uid, a uid changed in the job).
bool same_states(const std::map<std::string, OperatorStates>& sa, const std::string& id_a,
                 const std::map<std::string, OperatorStates>& sb, const std::string& id_b) {
  auto x = sa.find(id_a);
  auto y = sb.find(id_b);
  if (x == sa.end() || y == sb.end() || !x->second.notes.empty() || !y->second.notes.empty()) return false;
  if (x->second.states.size() != y->second.states.size()) return false;
  for (auto i = x->second.states.begin(), j = y->second.states.begin(); i != x->second.states.end(); ++i, ++j)
    if (i->first != j->first || i->second.kind != j->second.kind || i->second.serializers != j->second.serializers)
      return false;
  return true;
}

}  // namespace

Status diff_keys(const SnapshotLocation& a, const Metadata& ma, const std::map<std::string, OperatorStates>& sa,
                 const SnapshotLocation& b, const Metadata& mb, const std::map<std::string, OperatorStates>& sb,
                 const DiffOptions& options, DiffReport& report, KeyChangeSink* changes, KeyDiffStats* stats) {
  report.keys_compared = true;
  KeyDiffStats local;
  if (!stats) stats = &local;
  Side side_a, side_b;
  side_a.states = &sa;
  side_b.states = &sb;
  for (auto [side, where, m] : {std::tuple(&side_a, &a, &ma), std::tuple(&side_b, &b, &mb)}) {
    EntryReaderOptions o;
    o.remap = options.remap;
    o.key_serializers_from = options.key_serializers_from;
    o.progress = &side->progress;
    CKPT_ASSIGN_OR_RETURN(side->reader, EntryReaderAccess::open(*where, *m, o));
    side->impl = &EntryReaderAccess::impl(*side->reader);
  }
  std::map<std::string, const OperatorState*> ops_a, ops_b;
  std::vector<std::string> order;
  for (const OperatorState& op : ma.operators) {
    std::string id = operator_id_hex(op.id);
    if (ops_a.emplace(id, &op).second) order.push_back(id);
  }
  for (const OperatorState& op : mb.operators) {
    std::string id = operator_id_hex(op.id);
    if (ops_b.emplace(id, &op).second && !ops_a.count(id)) order.push_back(id);
  }
  // An operator gone from A and one new in B with the same states and the same entries are one
  // operator under a new id: reported as renamed, not as every entry removed and added.
  std::set<std::string> renamed_a, renamed_b;
  for (const std::string& id_a : order) {
    if (!ops_a.count(id_a) || ops_b.count(id_a)) continue;
    for (const std::string& id_b : order) {
      if (ops_a.count(id_b) || renamed_b.count(id_b) || !same_states(sa, id_a, sb, id_b)) continue;
      DiffReport trial;
      KeyDiffStats trial_stats;
      CKPT_RETURN_IF_ERROR(compare_operator(side_a, side_b, {id_a, id_b, ops_a[id_a], ops_b[id_b]}, options, trial,
                                            nullptr, &trial_stats));
      stats->passes += trial_stats.passes;
      stats->peak_buffered = std::max(stats->peak_buffered, trial_stats.peak_buffered);
      if (trial.keys_differ()) continue;
      renamed_a.insert(id_a);
      renamed_b.insert(id_b);
      report.keys.insert(report.keys.end(), trial.keys.begin(), trial.keys.end());
      auto gone = [&](const StructureChange& c) {
        return (c.what == "operator-removed" && c.operator_id == id_a) ||
               (c.what == "operator-added" && c.operator_id == id_b);
      };
      report.structure.erase(std::remove_if(report.structure.begin(), report.structure.end(), gone),
                             report.structure.end());
      report.renamed.push_back({id_a, id_b});
      break;
    }
  }
  for (const std::string& id : order) {
    if (renamed_a.count(id) || renamed_b.count(id)) continue;
    OperatorPair pair{id, id, ops_a.count(id) ? ops_a[id] : nullptr, ops_b.count(id) ? ops_b[id] : nullptr};
    CKPT_RETURN_IF_ERROR(compare_operator(side_a, side_b, pair, options, report, changes, stats));
  }
  for (const Side* side : {&side_a, &side_b}) stats->bytes_read += side->progress.bytes_done.load();
  std::sort(report.keys.begin(), report.keys.end(), [](const KeyDiffCounts& x, const KeyDiffCounts& y) {
    return std::tie(x.operator_id, x.state) < std::tie(y.operator_id, y.state);
  });
  return Status::OK();
}

}  // namespace ckpt
