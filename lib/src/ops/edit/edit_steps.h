// ops/edit/edit_steps.h - each operation of `ckpt edit` as an edit of the snapshot rewrite.
//
// edit_snapshot() lists them in the order they apply (ops/rewrite/snapshot_rewrite.h): keys
// erased, then the operators' ids and max parallelism changed, then the pairs filtered, expired
// and upserted, then whole states dropped. Each holds the operation's own object (the plan, the
// keys, the predicates, the TTLs, the upserts), which edit_snapshot() reads for its summary.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/edit.h"
#include "ckpt/names.h"
#include "ops/edit/edit_expire.h"
#include "ops/edit/edit_keys.h"
#include "ops/edit/edit_plan.h"
#include "ops/edit/edit_upsert.h"
#include "ops/edit/edit_where.h"
#include "ops/edit/regroup.h"
#include "ops/rewrite/snapshot_rewrite.h"

namespace ckpt {

// Entries dropped per (output operator id, state), and whether any subtask had the state.
class DropCounts {
 public:
  void add(const OperatorId& op, const std::string& state, uint64_t entries);
  std::pair<bool, uint64_t> get(const OperatorId& op, const std::string& state) const;  // found, entries

 private:
  mutable std::mutex mu_;
  std::map<std::pair<OperatorId, std::string>, std::pair<bool, uint64_t>> counts_;
};

// --drop-operator, --set-uid and the other operator changes: the plan, made on the input.
class OperatorChanges : public SnapshotEdit {
 public:
  OperatorChanges(const EditOptions& options, EditPlan& plan) : options_(options), plan_(plan) {}
  Status prepare(const Metadata& in, const StreamOpener& streams) override;
  Status operators(Metadata& out, const OutputIds& ids) override;
  std::optional<OperatorId> renamed(const OperatorId& id) const override;

 private:
  const EditOptions& options_;
  EditPlan& plan_;
};

// --delete-keys: the keys erased from the operators --keys-operator selects (output ids into
// `key_operators`).
class EraseKeys : public SnapshotEdit {
 public:
  EraseKeys(KeyDeletion& deletion, std::string keys_operator, std::set<OperatorId>& key_operators)
      : deletion_(deletion), keys_operator_(std::move(keys_operator)), key_operators_(key_operators) {}
  Status operators(Metadata& out, const OutputIds& ids) override;
  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t subtask, KeyedBackendMeta& meta) override;

 private:
  KeyDeletion& deletion_;
  const std::string keys_operator_;
  std::set<OperatorId>& key_operators_;
};

// --max-parallelism and --parallelism: the plan's operators' keyed state spilled and read back
// in their new key groups (ops/edit/regroup.h); one change per operator into `regrouped`.
class Regroup : public SnapshotEdit {
 public:
  Regroup(const EditOptions& options, const EditPlan& plan, std::vector<EditChange>& regrouped)
      : options_(options), plan_(plan), regrouped_(regrouped) {}
  void output_directory(const std::string& dir) override { output_dir_ = dir; }
  Status prepare(const Metadata& in, const StreamOpener& streams) override;
  Status operators(Metadata& out, const OutputIds& ids) override;
  Status subtasks(const std::vector<std::pair<const OperatorState*, const SubtaskState*>>& written,
                  int jobs) override;
  Result<std::optional<KeyedSource>> keyed_source(const OperatorState& op, const SubtaskState& st) override;
  Result<std::optional<RawKeyedStream>> raw_keyed_source(const OperatorState& op, const SubtaskState& st) override;

  // Each heap and canonical key group decoded as the input check decodes it before its pairs
  // are spilled: set when the rewrite makes no check pass over those streams first
  // (RewriteOptions::check_on_read).
  bool check_blocks = false;
  // Heap and canonical output regrouped to a multiple of the max parallelism is written into
  // the output as the input is read (RegroupOutput): set when no other edit changes a
  // subtask's states or pairs (nothing may come between the input and the stream written).
  bool write_directly = false;

 private:
  std::string output_dir_;
  const EditOptions& options_;
  const EditPlan& plan_;
  std::vector<EditChange>& regrouped_;
  std::map<OperatorId, std::unique_ptr<Regrouper>> regroupers_;  // by input id, then by output id
  std::map<OperatorId, size_t> changes_;                          // in regrouped_, keyed as regroupers_
};

// --delete-where / --keep-where: the pairs a predicate drops.
class FilterEntries : public SnapshotEdit {
 public:
  explicit FilterEntries(WhereFilter& where) : where_(where) {}
  Status prepare(const Metadata& in, const StreamOpener& streams) override { return where_.check(in, streams); }
  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t, KeyedBackendMeta& meta) override {
    return where_.edit_for(op, meta);
  }

 private:
  WhereFilter& where_;
};

// --expire (and --plan's TTLs): the values expired at --now. A state --expire names must exist.
class ExpireEntries : public SnapshotEdit {
 public:
  ExpireEntries(TtlExpiry& expiry, const EditOptions& options, const OperatorNames& plan_names)
      : expiry_(expiry), options_(options), plan_names_(plan_names) {}
  Status prepare(const Metadata& in, const StreamOpener& streams) override;
  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t, KeyedBackendMeta& meta) override {
    return expiry_.edit_for(op, meta);
  }
  Status finish() override;
  std::vector<std::string> found() const override;
  Status finish_parts(const std::set<std::string>& found) override;

 private:
  TtlExpiry& expiry_;
  const EditOptions& options_;
  const OperatorNames& plan_names_;
};

// --upsert: NDJSON entries replacing or adding values, keyed and operator state.
class UpsertEntries : public SnapshotEdit {
 public:
  UpsertEntries(Upserts& upserts, const EditOptions& options) : upserts_(upserts), options_(options) {}
  Status prepare(const Metadata& in, const StreamOpener& streams) override;
  Status operators(Metadata& out, const OutputIds& ids) override;
  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t, KeyedBackendMeta& meta) override {
    return upserts_.edit_for(op, meta);
  }
  Status operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes) override {
    return upserts_.operator_state(op, subtask, h, bytes);
  }

 private:
  Upserts& upserts_;
  const EditOptions& options_;
};

// --drop-state: keyed states left out of the proxies written, operator states cut out of their
// streams, their entries counted. A state it names must exist.
class DropStates : public SnapshotEdit {
 public:
  DropStates(const EditPlan& plan, DropCounts& counts) : plan_(plan), counts_(counts) {}
  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t subtask, KeyedBackendMeta& meta) override;
  Status operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes) override;
  Status finish() override;
  std::vector<std::string> found() const override;
  Status finish_parts(const std::set<std::string>& found) override;

 private:
  const EditPlan& plan_;
  DropCounts& counts_;
};

}  // namespace ckpt
