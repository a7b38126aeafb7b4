// The logical half of `ckpt diff --keys`: entries of both snapshots through the dump layer,
// compared a subtask at a time (an operator at a time when its subtasks do not line up).
#include <algorithm>
#include <map>
#include <set>

#include "ops/diff_internal.h"

namespace ckpt {

namespace {

class CollectSink : public DumpSink {
 public:
  void entry(const DumpEntry& e) override { entries.push_back(e); }
  void problem(const Error&) override {}
  std::vector<DumpEntry> entries;
};

// What names an entry regardless of backend and subtask. Entries without a key (operator list
// elements) are named by their value: lists compare as multisets.
std::string identity(const DumpEntry& e) {
  std::string id = e.state;
  auto part = [&](const std::string& s) {
    id += '\x1f';
    id += s;
  };
  part(e.kind);
  part(e.key_group ? std::to_string(*e.key_group) : "");
  if (!e.key && !e.namespace_json && !e.user_key) {
    part(e.value);
    return id;
  }
  part(e.key.value_or(""));
  part(e.namespace_json.value_or(""));
  part(e.user_key.value_or(""));
  return id;
}

struct Named {
  std::string id;
  const DumpEntry* entry;
};

std::vector<Named> sorted(const std::vector<DumpEntry>& entries) {
  std::vector<Named> out;
  out.reserve(entries.size());
  for (const DumpEntry& e : entries) out.push_back({identity(e), &e});
  std::sort(out.begin(), out.end(), [](const Named& x, const Named& y) {
    return x.id != y.id ? x.id < y.id : x.entry->value < y.entry->value;
  });
  return out;
}

class Comparer {
 public:
  Comparer(const std::string& op, DiffReport& report, KeyChangeSink* changes)
      : op_(op), report_(report), changes_(changes) {}

  void compare(const std::vector<DumpEntry>& a, const std::vector<DumpEntry>& b) {
    std::vector<Named> sa = sorted(a), sb = sorted(b);
    size_t i = 0, j = 0;
    while (i < sa.size() || j < sb.size()) {
      if (j == sb.size() || (i < sa.size() && sa[i].id < sb[j].id)) {
        emit("removed", sa[i++].entry, nullptr);
      } else if (i == sa.size() || sb[j].id < sa[i].id) {
        emit("added", nullptr, sb[j++].entry);
      } else {
        // Same identity: a single entry per side is one that stayed or changed; several are
        // list elements compared as a multiset by value.
        size_t ie = i, je = j;
        while (ie < sa.size() && sa[ie].id == sa[i].id) ++ie;
        while (je < sb.size() && sb[je].id == sb[j].id) ++je;
        if (ie - i == 1 && je - j == 1) {
          if (sa[i].entry->value == sb[j].entry->value) counts(sa[i].entry->state).same++;
          else emit("changed", sa[i].entry, sb[j].entry);
        } else {
          while (i < ie || j < je) {
            if (j == je || (i < ie && sa[i].entry->value < sb[j].entry->value)) emit("removed", sa[i++].entry, nullptr);
            else if (i == ie || sb[j].entry->value < sa[i].entry->value) emit("added", nullptr, sb[j++].entry);
            else {
              counts(sa[i].entry->state).same++;
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
    auto it = index_.find(state);
    if (it != index_.end()) return report_.keys[it->second];
    index_.emplace(state, report_.keys.size());
    report_.keys.push_back({op_, state});
    return report_.keys.back();
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
};

Result<std::vector<DumpEntry>> entries_of(const std::string& snapshot, const std::string& op,
                                          std::optional<int32_t> subtask, const DiffOptions& options) {
  DumpOptions d;
  d.operator_filter = op;
  d.state = options.state;
  d.subtask = subtask;
  d.jobs = options.jobs;
  d.remap = options.remap;
  CollectSink sink;
  CKPT_ASSIGN_OR_RETURN(DumpSummary summary, dump_snapshot(snapshot, d, sink));
  (void)summary;
  return std::move(sink.entries);
}

std::set<int32_t> subtask_indices(const OperatorState& op) {
  std::set<int32_t> out;
  for (const SubtaskState& st : op.subtasks) out.insert(st.index);
  return out;
}

}  // namespace

Status diff_keys(const std::string& a, const Metadata& ma, const std::string& b, const Metadata& mb,
                 const DiffOptions& options, DiffReport& report, KeyChangeSink* changes) {
  report.keys_compared = true;
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
  for (const std::string& id : order) {
    const OperatorState* oa = ops_a.count(id) ? ops_a[id] : nullptr;
    const OperatorState* ob = ops_b.count(id) ? ops_b[id] : nullptr;
    Comparer comparer(id, report, changes);
    std::vector<DumpEntry> none;
    if (oa && ob && oa->parallelism == ob->parallelism && subtask_indices(*oa) == subtask_indices(*ob)) {
      for (int32_t st : subtask_indices(*oa)) {
        CKPT_ASSIGN_OR_RETURN(std::vector<DumpEntry> ea, entries_of(a, id, st, options));
        CKPT_ASSIGN_OR_RETURN(std::vector<DumpEntry> eb, entries_of(b, id, st, options));
        comparer.compare(ea, eb);
      }
      continue;
    }
    std::vector<DumpEntry> ea, eb;
    if (oa) {
      CKPT_ASSIGN_OR_RETURN(ea, entries_of(a, id, std::nullopt, options));
    }
    if (ob) {
      CKPT_ASSIGN_OR_RETURN(eb, entries_of(b, id, std::nullopt, options));
    }
    comparer.compare(ea, eb);
  }
  std::sort(report.keys.begin(), report.keys.end(), [](const KeyDiffCounts& x, const KeyDiffCounts& y) {
    return std::tie(x.operator_id, x.state) < std::tie(y.operator_id, y.state);
  });
  return Status::OK();
}

}  // namespace ckpt
