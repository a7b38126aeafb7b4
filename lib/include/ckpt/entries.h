// ckpt/entries.h - a snapshot's state entries, one at a time, decoded and as bytes.
//
// The model is RocksDB's SstFileReader and Iterator: EntryReader::open() reads a snapshot's
// `_metadata` and selects operators, subtasks, states and key groups; an EntryIterator then
// walks the selected entries in the order `ckpt dump` prints them (operators in file order,
// subtasks ascending; within a subtask operator state, then keyed state by key group, then
// timers kept in raw keyed state). Each Entry holds its fields as decoded values (Value) and,
// where the layout keeps them whole, the bytes the job's serializers wrote.
//
// Subtasks are decoded on `jobs` worker threads a few hundred entries ahead of the iterator;
// memory stays bounded by a few such chunks per worker, whatever the snapshot's size (as
// ckpt/dump.h). Errors are values: EntryReader::open() returns them, an iterator stops at the
// first damaged part and says why in status(), or (with on_problem) reports it and goes on.
//
//   auto reader = ckpt::EntryReader::open("savepoint-1234");
//   if (!reader.ok()) return fail(reader.error());
//   for (auto it = (*reader)->entries(); it->valid(); it->next()) use(it->entry());
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/entry_kind.h"
#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/metadata.h"
#include "ckpt/plan.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"
#include "ckpt/value.h"

namespace ckpt {

// One logical entry of a state.
struct CKPT_API Entry {
  std::string operator_id;  // 32 hex digits
  std::string uid;          // the operator's uid where known (V5+ `_metadata`, ckpt/names.h), else ""
  int32_t subtask = 0;
  std::string state;
  EntryKind kind = EntryKind::kKeyed;
  std::optional<int32_t> key_group;  // keyed and timer entries
  std::optional<Value> key;          // keyed, timer, broadcast
  std::optional<Value> ns;           // the namespace: keyed, timer
  std::optional<Value> user_key;     // map state
  Value value;

  // The entry's bytes (EntryReaderOptions::raw_bytes), as the snapshot stores them; has_raw is
  // false where the layout does not keep them whole (entries a change log changed, the pairs
  // of a heap map whose serializers need the job's classes).
  // - raw_key, raw_namespace, raw_user_key: what the key, namespace and map user key
  //   serializers wrote (empty when the entry has no such field);
  // - raw_value: RocksDB and canonical layouts: the RocksDB value (list elements joined by ',',
  //   a map value behind its null flag); heap layout: the state serializer's bytes (a list with
  //   its count), a map entry's null flag and user value as RocksDB keeps them; operator state:
  //   the element (broadcast: the value); timers: the whole queue element (timestamp, key and
  //   namespace as TimerSerializer writes them), or the 8-byte timestamp of a legacy timer
  //   kept in raw keyed state, whose key and namespace are in raw_key and raw_namespace.
  bool has_raw = false;
  std::string raw_key;
  std::string raw_namespace;
  std::string raw_user_key;
  std::string raw_value;
};

// The bytes of one entry: what the job's serializers wrote (raw key, namespace, user key and
// value) where the layout keeps them, else the length of the decoded fields' JSON text (entries
// a change log changed). `ckpt report` counts these, `ckpt query` shows them as entry_bytes.
CKPT_API uint64_t entry_bytes(const Entry& e);

// Which entries: the selection `ckpt dump` offers.
struct CKPT_API EntrySelection {
  // An id, an id prefix, a uid or a V5+ name (operator_matches()); empty: every operator.
  std::string operator_filter;
  std::string state;            // a state name; empty: every state
  std::optional<int32_t> subtask;
  // Key groups to read; keyed and timer entries only (a key-group filter drops operator state).
  std::optional<std::pair<int32_t, int32_t>> key_groups;
  // Keys of a point lookup, each the Value an entry's key decodes to (a string, a number, a
  // Tuple's array, a SQL row's object; parse_value() reads the JSON `ckpt dump` prints, where a
  // row may also be written with its fields only, named or positional): only keyed and timer
  // entries with one of them. Each subtask reads only the key
  // groups Flink assigns them (where the key type's hashCode is known; otherwise all its key
  // groups), so a lookup costs one key group, not the state. Drops operator state.
  std::vector<Value> keys;
  // Only operator state (list, union and broadcast entries; no keyed entries or timers): the
  // broadcast entries, whose keys a point lookup of `keys` does not see.
  bool operator_state_only = false;
  std::vector<PrefixRule> remap;  // as ckpt-inspect's --remap
  // Another snapshot of the same job whose keyed proxies name, per operator, the key serializer
  // a changelog-backend handle without a materialized part lacks (its keys print as hex
  // otherwise). Empty: none.
  std::string key_serializers_from;
  // Only the subtasks of this part of the snapshot (ckpt/plan.h): the parts' entries, in part
  // order, are the entries of the whole selection, in order.
  std::optional<ShardSpec> shard;
};

struct CKPT_API EntryReaderOptions : EntrySelection {
  bool raw_bytes = true;  // fill Entry's raw_* fields
  // Fields left out here may stay null (their bytes stepped over, not decoded, so damage in
  // them goes unseen) where the layout allows: keyed entries of RocksDB layouts. `ckpt query`
  // decodes only the columns a query reads; a count reads none.
  EntryFields decode;
  int jobs = 1;           // subtasks decoded at once, ahead of the iterator
  // Bytes of state read and entries decoded are counted here as the workers go (ckpt/progress.h);
  // bytes_total grows by the selected subtasks' state size when the reader opens.
  Progress* progress = nullptr;
  // A damaged part (handle, key group, SST, change log) is reported here and stepped over;
  // without it the first one ends the iteration with its error. Called on the iterating thread.
  std::function<void(const Error&)> on_problem;
};

class CKPT_API EntryIterator {
 public:
  virtual ~EntryIterator();
  // True while entry() is an entry; false at the end or after an error (see status()).
  virtual bool valid() const = 0;
  virtual const Entry& entry() const = 0;
  // Moves to the next entry (valid() must be true). The entry may be moved from before.
  virtual void next() = 0;
  // OK while valid() and at the end; the error that ended the iteration otherwise.
  virtual const Status& status() const = 0;
};

class CKPT_API EntryReader {
 public:
  // Errors: the snapshot or its `_metadata` cannot be read, a relative path leaves it, the
  // operator filter matches nothing, a key is not JSON (kInvalidArgument).
  static Result<std::unique_ptr<EntryReader>> open(const std::string& snapshot, const EntryReaderOptions& options = {});
  ~EntryReader();
  EntryReader(const EntryReader&) = delete;
  EntryReader& operator=(const EntryReader&) = delete;

  const Metadata& metadata() const;
  // A reader of another selection of the same snapshot (the remap rules are this reader's):
  // its `_metadata` is not read again, and the structure checks run once for both (a program
  // that looks keys up one at a time opens the snapshot once).
  Result<std::unique_ptr<EntryReader>> reselect(const EntryReaderOptions& options) const;
  // A new iteration over the selected entries, positioned on the first (each iterator has its
  // own worker threads; the reader must outlive it). verify's quick checks of the selected
  // subtasks come first, as dump runs them: a file missing or of another size than its handle
  // declares, a wrong key-group range ends the iteration before its first entry (or, with
  // on_problem, is reported there once, and that file's decoding errors are not reported again).
  std::unique_ptr<EntryIterator> entries() const;
  // Calls `visit` for each entry in order until it returns an error (returned) or the entries
  // end (the iteration's status).
  Status for_each(const std::function<Status(const Entry&)>& visit) const;

 private:
  friend class EntryReaderAccess;  // the library's own operations (dump) reach the reader's internals
  struct Impl;
  explicit EntryReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt
