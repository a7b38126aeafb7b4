// ops/edit/edit_upsert.h - `ckpt edit --upsert`: entries as dump prints them written into a
// snapshot, each replacing the entry with the same operator, state, key, namespace and user key,
// or added beside the others of its key group.
//
// The lines are encoded by load's reader (ops/load/keyed_lines.h) against the snapshot's own
// serializers, so a value goes in exactly as the job's serializer would have written it; every
// other pair is copied as read. A pair is replaced when its RocksDB key (key group, key,
// namespace, user key) is the upsert's: the layouts agree on that key, so the same works
// whichever layout is read and written.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ckpt/edit.h"
#include "ckpt/metadata.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "ops/load/keyed_lines.h"
#include "state/backend_meta.h"

namespace ckpt {

class Upserts {
 public:
  // The lines of `in` against `snapshot` (errors: encode_keyed_lines()'s).
  Status read(std::istream& in, const std::string& input_name, const Metadata& snapshot, const StreamOpener& streams);
  // The operators the entries name get the ids the edit gives them.
  void rename(const std::function<OperatorId(const OperatorId&)>& output_id);
  // The edit of one subtask of output operator `op` whose proxy (as read) is `meta`; null when no
  // entry is for it.
  Result<std::unique_ptr<KeyedEdit>> edit_for(const OperatorState& op, const KeyedBackendMeta& meta);
  // Output subtask `subtask` of `op`'s operator-state stream (`bytes`, its handle `h`) with the
  // entries for it written in: a broadcast entry replaces the one with the same key bytes, or
  // is added; a list element is appended. Every other element is kept as read.
  Status operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes);
  // Per (output operator, state): entries replaced (`upserted`), `added` and `unchanged`.
  std::vector<EditSummary::EntryEdits> counts() const;

 private:
  friend class UpsertEdit;
  void record(const std::string& op_hex, const std::string& state, const EditSummary::EntryEdits& n);

  std::map<std::string, std::vector<EncodedKeyedEntry>> by_operator_;  // output id -> its entries, as read
  std::map<std::string, std::vector<EncodedOperatorEntry>> operator_entries_;  // output id -> its operator-state lines
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, EditSummary::EntryEdits> counts_;
};

}  // namespace ckpt
