// ops/edit/edit_where.h - `ckpt edit --delete-where / --keep-where STATE=PREDICATE`: a state's
// entries dropped by a predicate over their decoded key and value.
//
// One grammar with the query layer: the predicate is SQL `WHERE` text, evaluated by SQLite over
// the columns `ckpt query` gives the state's table (ops/query/state_columns.h: key_group, the
// key, namespace, user key and value and their named fields), plus the whole key, namespace,
// user_key and value where a split took those names. Each subtask prepares the predicate once
// per state and binds an entry's cells per pair; pairs kept are copied as read.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/edit.h"
#include "ckpt/metadata.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "state/backend_meta.h"
#include "state/stream_opener.h"

namespace ckpt {

class WhereFilter {
 public:
  struct Rule {
    std::string state;
    std::string predicate;
    bool keep = false;  // --keep-where: the entries that do not match are dropped
  };
  explicit WhereFilter(std::vector<Rule> rules) : rules_(std::move(rules)) {}

  // Before anything is written: each predicate prepared against every operator's proxy that has
  // its state. Errors (kInvalidArgument): a predicate SQLite refuses (an unknown column named),
  // a state no operator has keyed. A LIST state's elements whose extent needs the job's classes
  // are refused (kNotSupported) as its pairs are edited.
  Status check(const Metadata& in, const StreamOpener& streams);
  // The edit of one subtask of `op` whose proxy (as read) is `meta`; null when no rule names
  // one of its states.
  Result<std::unique_ptr<KeyedEdit>> edit_for(const OperatorState& op, const KeyedBackendMeta& meta);
  // Per (output operator, state): entries dropped.
  std::vector<EditSummary::EntryEdits> counts() const;

 private:
  friend class WhereEdit;
  void record(const std::string& op_hex, const std::string& state, uint64_t deleted);

  std::vector<Rule> rules_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> deleted_;
};

}  // namespace ckpt
