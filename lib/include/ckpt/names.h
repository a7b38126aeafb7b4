// ckpt/names.h - names for the operators a snapshot knows only by id.
//
// Flink stores an operator as a 16-byte id; metadata V5+ also stores its name and uid. An id
// set by a uid is the uid's hash (operator_id_of_uid()), so a list of uids names the operators
// they set, and Flink's compiled SQL plan names every operator of the job it compiles to: the
// planner gives each transformation of plan node N the uid `table.exec.uid.format` with <id>,
// <type>, <version> and <transformation> replaced (default `<id>_<transformation>`, for example
// `18_group-aggregate`), the transformation being one of the planner's fixed names.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"

namespace ckpt {

struct CKPT_API OperatorName {
  std::string uid;
  std::string description;  // the plan node's "description"; "" for a uid given alone
  int32_t plan_node = -1;   // the plan node's "id"; -1 for a uid given alone
  std::string node_type;    // the plan node's "type", e.g. "stream-exec-group-aggregate_1"
  // The names of the key row's fields where the plan fixes the columns the node's state is keyed
  // by (a group aggregate's grouping, a join's keys, a rank's partition); empty otherwise.
  std::vector<std::string> key_columns;
  // The node's state retention per input, in milliseconds by input index (its "state" array of
  // StateMetadata: {"index": 0, "ttl": "1 d", ...}); 0 where the state has no TTL; empty for a
  // node without that array.
  std::vector<int64_t> state_ttls_ms;
};

class CKPT_API OperatorNames {
 public:
  // Name the operators a compiled plan (Flink's JSON plan text) makes. Errors: not JSON, or no
  // "nodes" array of objects with an integer "id" (kCorruption; `file` goes into the error).
  Status add_plan(std::string_view json_text, const std::string& file);
  // Read the compiled plan at `path` and add it.
  Status add_plan_file(const std::string& path);
  // A uid of the job (repeatable); its hash names the operator it set.
  void add_uid(const std::string& uid);
  // One uid a line (a trailing '\r' and blank lines are ignored).
  Status add_uids_file(const std::string& path);

  bool empty() const { return by_id_.empty(); }
  // The name of the operator with id `id`, or nullptr.
  const OperatorName* find(const OperatorId& id) const;
  // The uids given to add_uid()/add_uids_file() that name none of the operators `present`,
  // in the order given.
  std::vector<std::string> unmatched(const std::vector<OperatorId>& present) const;
  std::vector<std::string> unmatched(const Metadata& m) const;

  // The uid (from these names, else the one V5+ stores) and description of `op`; "" if none.
  std::string uid_of(const OperatorState& op) const;
  std::string description_of(const OperatorState& op) const;

 private:
  std::map<OperatorId, OperatorName> by_id_;
  std::vector<std::string> given_uids_;
};

// An operator of a snapshot with what names know of it (diff and verify list these).
struct CKPT_API NamedOperator {
  std::string operator_id;  // 32 hex digits
  std::string uid;
  std::string description;
};

// The operators of `m` (in file order) that `names` or the V5+ `_metadata` give a uid, skipping
// ids already in `out`.
CKPT_API void append_named_operators(const Metadata& m, const OperatorNames& names, std::vector<NamedOperator>* out);

// The transformation names of Flink's table planner (the `*_TRANSFORMATION` constants of its
// ExecNode classes), in no particular order.
CKPT_API const std::vector<std::string>& sql_transformation_names();

}  // namespace ckpt
