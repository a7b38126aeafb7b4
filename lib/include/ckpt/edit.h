// ckpt/edit.h - change a savepoint offline so that a changed job can restore it.
//
// What Flink users most often need from savepoint tooling is to fix a snapshot: an operator
// whose uid changed or that was removed ("Cannot map checkpoint/savepoint state for operator
// ... not available in the new program"), a max parallelism that must change (Flink never
// changes it), a state nobody needs, a key whose data must be erased. edit_snapshot() is
// convert_snapshot() with a transformation in the middle: the input is read and checked as
// convert checks it, every keyed handle is re-framed one key group at a time (values copied as
// the job's serializers wrote them, never re-encoded), the operations below are applied on the
// way, and the output is a self-contained savepoint written under a temporary name and renamed
// into place; the input is never touched.
//
// Operators are named as everywhere in ckpt (operator_matches(): 32 hex digits, an id prefix, a
// uid, a V5+ name); a name that fits several operators is refused.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/plan.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"
#include "ckpt/value.h"

namespace ckpt {

struct CKPT_API EditOptions {
  std::string output;  // must not exist, or be an empty directory (unless `force`); unused by a dry run
  bool force = false;
  int jobs = 1;
  std::vector<PrefixRule> remap;
  // The layout keyed state is written in; unset: each subtask's own (a changelog handle's, that
  // of its materialized part).
  std::optional<ConvertTarget> to;
  // Read, check and apply every operation, write nothing: the summary says what would change.
  bool dry_run = false;
  // As ConvertOptions::key_serializers_from: for changelog handles that name no key serializer.
  std::string key_serializers_from;
  // As ConvertOptions::progress: the input's bytes read and the entries written.
  Progress* progress = nullptr;
  // As ConvertOptions::shard and ::finish: the subtasks this edit writes (after operators are
  // dropped, re-identified or regrouped) cut into parts, and the last step that assembles them.
  // The checks that need every subtask (a --drop-state or --expire state that no subtask has)
  // are not made in parts, and each part makes the regrouping pass over the whole input.
  std::optional<ShardSpec> shard;
  bool finish = false;

  // Operators whose state is left out of the output (what --allowNonRestoredState skips).
  std::vector<std::string> drop_operators;
  // (operator, uid): the operator's id becomes operator_id_of_uid(uid); V5+ files store the uid.
  std::vector<std::pair<std::string, std::string>> set_uids;
  // (operator, 32 hex digits): a raw id; the V5+ uid, which no longer hashes to it, is cleared.
  std::vector<std::pair<std::string, std::string>> set_ids;
  // (operator, state name): one keyed state (timers included) or operator state removed, with
  // its meta data, from every subtask of the operator.
  std::vector<std::pair<std::string, std::string>> drop_states;
  // Keys whose every entry is erased, each the Value an entry's key decodes to (as
  // EntrySelection::keys: parse_value() of the JSON ckpt dump prints, "\"user-42\"", 42,
  // {"f0":1,"f1":"a"}), from every keyed state (timers included) of every operator, or of the
  // operators `keys_operator` names.
  std::vector<Value> delete_keys;
  std::string keys_operator;
  // Every operator's max parallelism becomes this (0: kept): each key moves to the key group
  // Flink's assignment gives it, each subtask gets the key-group range Flink assigns it.
  int32_t max_parallelism = 0;
  // (operator, M): that operator's max parallelism becomes M instead, its keys moved as above;
  // the operators not named get `max_parallelism` (0: keep theirs). A SQL job's savepoint has
  // keyed operators at different max parallelisms (its singletons at 1): one number cannot
  // give each back its own.
  std::vector<std::pair<std::string, int32_t>> operator_max_parallelism;
  // With a max parallelism changed: the parallelism of every operator with keyed state whose max
  // parallelism is set (0: kept); refused for an operator that also has operator, raw keyed or
  // channel state.
  int32_t parallelism = 0;
  // (keyed state name, ttl in ms): entries of that TTL state in every operator whose last
  // access is too old at `now` (ms since the epoch) are dropped, as Flink's TTL cleanup would.
  std::vector<std::pair<std::string, int64_t>> expire;
  // A compiled SQL plan of the job (Flink's JSON): every operator it names whose node has a
  // state TTL ("state": [{"index": 0, "ttl": "1 d"}]) has its TTL states expired at `now` too, as
  // that node's operator would (one input: all its TTL states; a join: "left..." states by input
  // 0's TTL, "right..." by input 1's). A state named by `expire` keeps that TTL.
  std::string plan;
  std::optional<int64_t> now;
  // NDJSON entries as ckpt dump prints them (read as load_snapshot() reads them, encoded by the
  // snapshot's serializers): a keyed or timer entry replaces the value of the entry with the same
  // operator, state, key, namespace and user key, or is added to its key group; an operator-state
  // entry of a subtask replaces the broadcast entry with its key, or is added (a list element:
  // appended to the subtask's list). Errors name `upsert_name` and the line. Not with a max
  // parallelism changed, nor in parts.
  std::istream* upsert = nullptr;
  std::string upsert_name;
  // (keyed state name, predicate): in every operator with that state, the entries the SQL WHERE
  // text matches are dropped (delete_where) or are the only ones kept (keep_where). The
  // predicate sees the columns of `ckpt query`'s table of the state (ckpt/query.h), plus
  // key_group and the whole key, namespace, user_key and value. A LIST state's rows are its
  // elements (with list_index): the elements matched leave their list, an emptied list goes,
  // and EntryEdits::deleted counts elements.
  std::vector<std::pair<std::string, std::string>> delete_where;
  std::vector<std::pair<std::string, std::string>> keep_where;
};

// What an operation did to one operator (or one of its states).
struct CKPT_API EditChange {
  std::string operator_id;  // the input's id, 32 hex digits
  std::string new_id;       // set-uid / set-id: the output's id; else equal to operator_id
  std::string state;        // drop-state, expire: the state; else ""
  // "drop-operator", "set-uid", "set-id", "drop-state", "max-parallelism", "expire"
  std::string what;
  std::string detail;       // set-uid: the uid; max-parallelism: "128 -> 4096"
  // drop-state: entries dropped (RocksDB-layout pairs of keyed state, operator-state elements);
  // max-parallelism: RocksDB-layout pairs moved; expire: TTL values dropped (a list's elements)
  uint64_t entries = 0;
};

struct CKPT_API EditSummary {
  ConvertSummary written;           // what the output holds (a dry run: counts only, no files)
  std::vector<EditChange> changes;  // in the order the operations were given
  // delete_keys: entries erased per operator (output id) and state, sorted; states with none left out.
  struct KeysErased {
    std::string operator_id;
    std::string state;
    uint64_t entries = 0;  // RocksDB-layout pairs (a timer, a map user key, a value, a whole list)
  };
  std::vector<KeysErased> erased;
  std::vector<Value> unmatched_keys;  // delete_keys that matched no entry, in the order given
  // delete_keys: where an erased key (any spelling ckpt dump prints it in) or one of its fields
  // still occurs as a whole node of an entry's key, map user key or decoded value, in what the
  // edit wrote (a dry run: the input less what it would remove), per operator (output id),
  // state, key and place; sorted. Not searched by a part of a sharded edit (--finish searches).
  struct KeyResidue {
    std::string operator_id;
    std::string state;
    Value key;          // of delete_keys
    std::string place;  // "key", "user-key" or "value"
    uint64_t entries = 0;
  };
  std::vector<KeyResidue> residues;
  bool residues_searched = false;
  std::vector<std::string> residue_gaps;  // parts that could not be read for the search, as errors
  // upsert, delete_where, keep_where: entries changed per operator (output id) and state, sorted;
  // states with none left out.
  struct EntryEdits {
    std::string operator_id;
    std::string state;
    uint64_t upserted = 0;   // existing entries given a new value
    uint64_t added = 0;      // entries the snapshot did not have
    uint64_t unchanged = 0;  // upserted with the value they had
    uint64_t deleted = 0;    // dropped by delete_where or keep_where
  };
  std::vector<EntryEdits> entry_edits;
};

// A duration as Flink's TimeUtils reads it ("500 ms", "30s", "15 min", "7d"; no unit: ms), in ms.
CKPT_API Result<int64_t> parse_ttl_duration(std::string_view text);

// One key a line, JSON as ckpt dump prints keys (blank lines and a trailing '\r' ignored), for
// EditOptions::delete_keys. Errors: the file cannot be read; a line that is not JSON
// (kInvalidArgument, naming the file and line).
CKPT_API Result<std::vector<Value>> read_key_lines(const std::string& path);

// Errors: an operator name that fits none or several operators, a state an operator does not
// have, two operators that would share an id (kInvalidArgument); anything convert_snapshot()
// refuses. Nothing is left at `options.output` then.
CKPT_API Result<EditSummary> edit_snapshot(const std::string& snapshot, const EditOptions& options);

}  // namespace ckpt
