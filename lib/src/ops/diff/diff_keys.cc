// The logical half of `ckpt diff --keys`: two pull iterations over the entries of both
// snapshots, merged an operator at a time and compared a key group at a time.
//
// Key groups are global, so two sides line up by key group whatever their parallelism. Each
// side is opened once and each operator read once per side, key-group major
// (StateFilter::key_group_major: a RocksDB handle, read state by state by a dump, hands out
// every state of a key group before the next), so a heap side and a RocksDB side agree; a
// step back in key groups is refused rather than compared wrongly.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "ops/diff/diff_internal.h"
#include "ops/engine/key_names.h"
#include "ops/entries/entry_engine.h"
#include "state/backend_meta.h"

namespace ckpt {

namespace {

// What names an entry regardless of backend, subtask and key group: state, kind, key,
// namespace and user key, compared field by field (no name is built per entry). The key group
// is where a key lives, not what it is: a key moved by a new max parallelism is the same entry.
// Entries with none of the last three (operator list elements) are named by their value: lists
// compare as multisets.
bool keyless(const Entry& e) { return !e.key && !e.ns && !e.user_key; }

// How one side's entries of an operator print: the uid and the plan's key columns of its id.
struct Naming {
  std::string operator_hex;
  std::string uid;
  const std::vector<std::string>* key_columns = nullptr;

  std::string key_text(const Value& key) const {
    std::string text = key.json();
    return key_columns ? name_row_fields(text, *key_columns) : text;
  }
  // The entry as a change carries it: its operator id set and its key named.
  Entry change_entry(const Entry& e) const {
    Entry out = e;
    out.operator_id = operator_hex;
    if (key_columns && out.key) out.key = name_row_fields(*out.key, *key_columns);
    return out;
  }
};

Naming naming_of(const std::string& id, const OperatorState* op, const DiffOptions& options) {
  Naming n;
  n.operator_hex = id;
  if (!op) return n;
  n.uid = options.names.uid_of(*op);
  const OperatorName* name = options.names.find(op->id);
  if (name && !name->key_columns.empty()) n.key_columns = &name->key_columns;
  return n;
}

// An entry as the comparison sees it: its identity fields and value either as the bytes the
// serializers wrote (states both sides write with the same serializers, byte for byte: equal
// bytes are equal values and RocksDB's byte order is kept) or as their JSON text, as dump
// prints them (every other state: the form two serializers agree on).
struct Item {
  Entry* e = nullptr;
  const std::string* state = nullptr;  // interned: one pointer per state name
  bool keyless = false;
  bool raw = false;
  bool list = false;  // raw: a list state's, whose bytes differ by layout
  bool tie_next = false;  // the next Item (in order) has the same identity
  std::string_view key, ns, user_key, value;
};

// memcmp's order without a call per field: identity fields are mostly a few bytes.
inline int compare_bytes(std::string_view x, std::string_view y) {
  const size_t n = std::min(x.size(), y.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, x.data() + i, 8);
    std::memcpy(&b, y.data() + i, 8);
    if (a != b) return __builtin_bswap64(a) < __builtin_bswap64(b) ? -1 : 1;
  }
  for (; i < n; ++i)
    if (x[i] != y[i]) return static_cast<unsigned char>(x[i]) < static_cast<unsigned char>(y[i]) ? -1 : 1;
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

int compare_item(const Item& x, const Item& y) {
  if (x.state != y.state) return x.state->compare(*y.state);
  if (x.e->kind != y.e->kind)  // as their names sort, the order of the text form
    return std::string_view(entry_kind_name(x.e->kind)).compare(entry_kind_name(y.e->kind));
  if (x.keyless != y.keyless) return x.keyless ? -1 : 1;
  if (x.keyless) return compare_bytes(x.value, y.value);
  if (int c = compare_bytes(x.key, y.key)) return c;
  if (int c = compare_bytes(x.ns, y.ns)) return c;
  return compare_bytes(x.user_key, y.user_key);
}

// Identity, then value.
bool item_less(const Item& x, const Item& y) {
  int c = compare_item(x, y);
  return c != 0 ? c < 0 : compare_bytes(x.value, y.value) < 0;
}

// One key group's (or an operator state's) entries of one side, as Items in identity order.
class Items {
 public:
  // `form(state)` interns the state's name and says whether it compares as bytes.
  template <class Form>
  void build(const std::vector<Entry*>& entries, const Naming& naming, Form&& form) {
    items_.clear();
    texts_.clear();
    items_.reserve(entries.size());
    texts_.reserve(entries.size());  // never reallocated: the Items view its strings
    for (Entry* p : entries) {
      Entry& e = *p;
      Item& it = items_.emplace_back();
      it.e = &e;
      it.keyless = keyless(e);
      std::tie(it.state, it.raw, it.list) = form(e.state);
      if (it.raw) {
        it.key = e.raw_key;
        it.ns = e.raw_namespace;
        it.user_key = e.raw_user_key;
        it.value = e.raw_value;
        continue;
      }
      Texts& t = texts_.emplace_back();
      if (e.key) t.key = naming.key_text(*e.key);
      if (e.ns) t.ns = e.ns->json();
      if (e.user_key) t.user_key = e.user_key->json();
      t.value = e.value.json();
      it.key = t.key;
      it.ns = t.ns;
      it.user_key = t.user_key;
      it.value = t.value;
    }
    // RocksDB hands out a key group in key order, often the order wanted already: one pass
    // checks it and finds the runs of one identity.
    if (!mark_ties()) {
      std::sort(items_.begin(), items_.end(), item_less);
      mark_ties();
    }
  }
  const std::vector<Item>& items() const { return items_; }

 private:
  // False where the items are out of order.
  bool mark_ties() {
    for (size_t k = 1; k < items_.size(); ++k) {
      const int c = compare_item(items_[k - 1], items_[k]);
      if (c > 0 || (c == 0 && compare_bytes(items_[k - 1].value, items_[k].value) > 0)) return false;
      items_[k - 1].tie_next = c == 0;
    }
    if (!items_.empty()) items_.back().tie_next = false;
    return true;
  }

  struct Texts {
    std::string key, ns, user_key, value;
  };
  std::vector<Item> items_;
  std::vector<Texts> texts_;
};

// Equal values: the same bytes, or for a list (bytes of two layouts: a heap list with its count,
// a RocksDB one joined by ',') the same JSON text, what the text form compares.
bool same_value(const Item& x, const Item& y) {
  return x.value == y.value || (x.list && x.e->value.json() == y.e->value.json());
}

class Comparer {
 public:
  // `raw_states`: the states both sides write with the same serializers (true: a list state).
  Comparer(const std::string& op, std::map<std::string, bool> raw_states, Naming naming_a, Naming naming_b,
           DiffReport& report, KeyChangeSink* changes, KeyDiffStats* stats)
      : stats_(stats),
        op_(op),
        raw_states_(std::move(raw_states)),
        naming_a_(std::move(naming_a)),
        naming_b_(std::move(naming_b)),
        report_(report),
        changes_(changes) {}

  void compare(const std::vector<Entry*>& a, const std::vector<Entry*>& b) {
    // A state whose entries lack their bytes here, or a timer (whose bytes are the queue
    // element, not its fields), compares as text on both sides.
    text_states_.clear();
    for (const auto* side : {&a, &b})
      for (const Entry* e : *side)
        if (!e->has_raw || e->kind == EntryKind::kTimer) text_states_.insert(e->state);
    // Runs of one state are the rule: the last one's answer is kept.
    const std::string* last = nullptr;
    bool last_raw = false, last_list = false;
    auto form = [&](const std::string& state) -> std::tuple<const std::string*, bool, bool> {
      if (!last || *last != state) {
        last = &*names_.insert(state).first;
        auto raw = raw_states_.find(state);
        last_raw = raw != raw_states_.end() && !text_states_.count(state);
        last_list = last_raw && raw->second;
      }
      return std::tuple(last, last_raw, last_list);
    };
    ia_.build(a, naming_a_, form);
    ib_.build(b, naming_b_, form);
    // Items compared as text merge in the order the changes are documented in already; bytes
    // merge in their own order, and the changes are then sorted by their names' text.
    reorder_ = false;
    for (const Items* side : {&ia_, &ib_})
      for (const Item& it : side->items()) {
        ++(it.raw ? stats_->compared_as_bytes : stats_->compared_as_text);
        reorder_ |= it.raw;
      }
    const std::vector<Item>& sa = ia_.items();
    const std::vector<Item>& sb = ib_.items();
    size_t i = 0, j = 0;
    while (i < sa.size() || j < sb.size()) {
      const int c = i == sa.size() ? 1 : j == sb.size() ? -1 : compare_item(sa[i], sb[j]);
      if (c < 0) {
        emit(kRemoved, sa[i++].e, nullptr);
      } else if (c > 0) {
        emit(kAdded, nullptr, sb[j++].e);
      } else {
        // Same identity: a single entry per side is one that stayed or changed; several are
        // list elements compared as a multiset by value.
        size_t ie = i + 1, je = j + 1;
        while (sa[ie - 1].tie_next) ++ie;
        while (sb[je - 1].tie_next) ++je;
        if (ie - i == 1 && je - j == 1) {
          if (same_value(sa[i], sb[j])) counts(sa[i].e->state).same++;
          else emit(kChanged, sa[i].e, sb[j].e);
        } else {
          while (i < ie || j < je) {
            if (j == je || (i < ie && compare_bytes(sa[i].value, sb[j].value) < 0)) emit(kRemoved, sa[i++].e, nullptr);
            else if (i == ie || compare_bytes(sb[j].value, sa[i].value) < 0) emit(kAdded, nullptr, sb[j++].e);
            else {
              counts(sa[i].e->state).same++;
              ++i, ++j;
            }
          }
        }
        i = ie;
        j = je;
      }
    }
    flush();
  }

 private:
  enum What { kAdded, kRemoved, kChanged };

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

  void emit(What what, const Entry* before, const Entry* after) {
    KeyDiffCounts& c = counts((before ? before : after)->state);
    if (what == kAdded) ++c.added;
    else if (what == kRemoved) ++c.removed;
    else ++c.changed;
    if (!changes_) return;
    Pending& p = pending_.emplace_back();
    p.change.what = what == kAdded ? "added" : what == kRemoved ? "removed" : "changed";
    if (before) p.change.before = naming_a_.change_entry(*before);
    if (after) p.change.after = naming_b_.change_entry(*after);
    p.change.uid = after ? naming_b_.uid : naming_a_.uid;
    if (!reorder_) return;
    // The name as dump prints it, what the changes are ordered by.
    const Entry& e = after ? *p.change.after : *p.change.before;
    p.keyless = keyless(e);
    if (e.key) p.key = e.key->json();
    if (e.ns) p.ns = e.ns->json();
    if (e.user_key) p.user_key = e.user_key->json();
  }

  // A change with its name as dump prints it.
  struct Pending {
    KeyChange change;
    bool keyless = false;
    std::string key, ns, user_key;
    const Entry& own() const { return change.before ? *change.before : *change.after; }
  };

  // The group's changes in the order documented (ckpt-diff(1)): by name as dump prints it,
  // whichever form the entries were compared in; list elements (one name) by value.
  void flush() {
    auto by_name = [](const Pending& x, const Pending& y) {
      const Entry& ex = x.own();
      const Entry& ey = y.own();
      if (int c = ex.state.compare(ey.state)) return c < 0;
      if (ex.kind != ey.kind) return std::string_view(entry_kind_name(ex.kind)) < entry_kind_name(ey.kind);
      if (x.keyless != y.keyless) return x.keyless;
      if (!x.keyless) {
        if (int c = x.key.compare(y.key)) return c < 0;
        if (int c = x.ns.compare(y.ns)) return c < 0;
        if (int c = x.user_key.compare(y.user_key)) return c < 0;
      }
      return ex.value.json() < ey.value.json();
    };
    // Sorted by index: a change holds two entries, too large to move about.
    order_.resize(pending_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    if (reorder_)
      std::stable_sort(order_.begin(), order_.end(),
                       [&](size_t x, size_t y) { return by_name(pending_[x], pending_[y]); });
    for (size_t i : order_) changes_->change(pending_[i].change);
    pending_.clear();
  }

  KeyDiffStats* stats_;
  std::string op_;
  std::map<std::string, bool> raw_states_;
  std::set<std::string> text_states_;
  std::set<std::string> names_;  // the states' names, interned
  Naming naming_a_, naming_b_;
  DiffReport& report_;
  KeyChangeSink* changes_;
  Items ia_, ib_;
  std::vector<Pending> pending_;
  std::vector<size_t> order_;
  bool reorder_ = false;  // the group had entries compared as bytes
  std::map<std::string, size_t> index_;
  size_t last_ = SIZE_MAX;
};

std::set<int32_t> subtask_indices(const OperatorState& op) {
  std::set<int32_t> out;
  for (const SubtaskState& st : op.subtasks) out.insert(st.index);
  return out;
}

// One side of a pass: its key groups one after the other, operator entries set aside. The
// entries stay in the chunks the workers filled (no entry is moved or destroyed on this
// thread, which sets the pace); a chunk goes back to them once the groups in it are compared.
class SideReader {
 public:
  // `keep_all`: no chunk goes back (the caller holds every group: an operator compared whole).
  SideReader(std::unique_ptr<EntryPull> stream, const std::string& op, bool keep_all)
      : stream_(std::move(stream)), op_(op), keep_all_(keep_all) {}

  // The next key group's entries into `group`, valid until the next call (false at the end or
  // on error: see status()).
  bool next_group(std::vector<Entry*>* group, int32_t* key_group) {
    group->clear();
    if (!stream_ || failed_) return false;
    if (!keep_all_) release();
    Entry* e = next_keyed();
    if (!e) return false;
    const int32_t kg = *e->key_group;
    if (last_ && kg <= *last_) {
      failed_ = Error(ErrorCode::kNotSupported,
                      fmt::format("operator {}: entries of state '{}' come in key group {} after key group {}, "
                                  "expected ascending key groups",
                                  op_, e->state, kg, *last_));
      return false;
    }
    last_ = kg;
    *key_group = kg;
    do {
      group->push_back(e);
      ++at_;
    } while ((e = next_keyed()) && *e->key_group == kg);
    return true;
  }

  // Entries without a key group (operator state), by subtask, once the stream is read.
  std::map<int32_t, std::vector<Entry>>& operator_entries() { return operator_entries_; }
  uint64_t operator_count() const { return operator_count_; }

  Status status() {
    if (failed_) return *failed_;
    return stream_ ? stream_->status() : Status::OK();
  }

 private:
  // The keyed entry at the position, taking chunks as they run out; operator entries on the
  // way are set aside. Null at the end.
  Entry* next_keyed() {
    while (true) {
      if (chunks_.empty() || at_ == chunks_.back().size()) {
        std::vector<Entry> chunk;
        if (!stream_->take_chunk(&chunk)) return nullptr;
        chunks_.push_back(std::move(chunk));
        at_ = 0;
      }
      Entry& e = chunks_.back()[at_];
      if (e.key_group) return &e;
      operator_entries_[e.subtask].push_back(std::move(e));
      ++operator_count_;
      ++at_;
    }
  }
  // Every chunk before the one at the position: their groups are compared.
  void release() {
    while (chunks_.size() > 1) {
      stream_->recycle(std::move(chunks_.front()));
      chunks_.pop_front();
    }
  }

  std::unique_ptr<EntryPull> stream_;
  std::string op_;
  const bool keep_all_;
  std::deque<std::vector<Entry>> chunks_;  // a deque: the entries never move as it grows
  size_t at_ = 0;                          // the position in chunks_.back()
  std::optional<int32_t> last_;
  std::optional<Error> failed_;
  std::map<int32_t, std::vector<Entry>> operator_entries_;
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

// The states whose serializer snapshots are byte for byte the same on both sides, in every
// subtask: their entries compare as bytes. True for a list state.
std::map<std::string, bool> raw_states(const Side& a, const std::string& id_a, const Side& b,
                                       const std::string& id_b) {
  std::map<std::string, bool> out;
  auto x = a.states->find(id_a);
  auto y = b.states->find(id_b);
  if (x == a.states->end() || y == b.states->end()) return out;
  for (const auto& [name, shape] : x->second.states) {
    auto other = y->second.states.find(name);
    if (other == y->second.states.end() || shape.mixed || other->second.mixed) continue;
    if (!shape.snapshot_bytes.empty() && shape.snapshot_bytes == other->second.snapshot_bytes)
      out[name] = shape.kind == state_kind_name(StateKind::kList);
  }
  return out;
}

constexpr size_t kDiffChunksAhead = 64;

std::vector<Entry*> pointers(std::vector<Entry>& entries) {
  std::vector<Entry*> out;
  out.reserve(entries.size());
  for (Entry& e : entries) out.push_back(&e);
  return out;
}

std::unique_ptr<EntryPull> read_operator(const Side& side, const std::string& id, const DiffOptions& options) {
  EntryPulling it;
  for (const EntryTask& t : side.impl->tasks)
    if (t.operator_hex == id) it.tasks.push_back(t);
  it.reading.filter = side.impl->filter;
  it.reading.filter.state = options.state;
  it.reading.filter.raw_bytes = true;
  it.reading.filter.key_group_major = true;
  it.jobs = options.jobs;
  // A key group's entries of each side at once, so one side's worker decodes on while the
  // other side's group is taken and both are compared (a few chunks ahead, the two sides and
  // the comparison would take turns).
  it.chunks_ahead = kDiffChunksAhead;
  it.operator_ids = false;  // Naming::change_entry() names the side's operator
  return pull_entries(*side.impl, std::move(it));
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
  Comparer comparer(ob ? pair.id_b : pair.id_a, raw_states(a, pair.id_a, b, pair.id_b), naming_of(pair.id_a, oa, options),
                    naming_of(pair.id_b, ob, options), report, ordered ? &*ordered : nullptr, stats);
  stats->passes++;
  SideReader ra(oa ? read_operator(a, pair.id_a, options) : nullptr, pair.id_a, !by_group);
  SideReader rb(ob ? read_operator(b, pair.id_b, options) : nullptr, pair.id_b, !by_group);
  std::vector<Entry*> ga, gb;
  int32_t ka = 0, kb = 0;
  bool has_a = false, has_b = false;
  // A side that stops short stops the diff before the other's rest is taken for changes.
  auto advance = [](SideReader& r, std::vector<Entry*>* g, int32_t* k, bool* has) -> Status {
    *has = r.next_group(g, k);
    return *has ? Status::OK() : r.status();
  };
  auto whole = [&](SideReader& r, std::vector<Entry*>* all) -> Status {
    std::vector<Entry*> g;
    int32_t k = 0;
    bool has = false;
    while (true) {
      CKPT_RETURN_IF_ERROR(advance(r, &g, &k, &has));
      if (!has) return Status::OK();
      all->insert(all->end(), g.begin(), g.end());
    }
  };
  std::vector<Entry*> none;
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
      comparer.compare(take_a ? ga : none, take_b ? gb : none);
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
    for (int32_t st : subtasks) {
      std::vector<Entry*> xa = pointers(oa_entries[st]), xb = pointers(ob_entries[st]);
      comparer.compare(xa, xb);
    }
  } else {
    std::vector<Entry*> all_a, all_b;
    for (auto& [st, entries] : oa_entries) for (Entry& e : entries) all_a.push_back(&e);
    for (auto& [st, entries] : ob_entries) for (Entry& e : entries) all_b.push_back(&e);
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
      stats->compared_as_bytes += trial_stats.compared_as_bytes;
      stats->compared_as_text += trial_stats.compared_as_text;
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
