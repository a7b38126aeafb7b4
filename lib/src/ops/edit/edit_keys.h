// ops/edit/edit_keys.h - `ckpt edit --delete-keys`: every entry of some keys erased.
//
// Keys are given as dump prints them (JSON). Each pair's key is decoded by the state's codec
// (the RocksDB layout every source is read in: key-group prefix, then the key; for timers, the
// timestamp first) and compared with the given values. Where the key type's Java hashCode is
// known, only the key groups Flink assigns the given keys to are looked at; the others are
// copied without decoding a key.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/edit.h"
#include "ckpt/metadata.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "state/backend_meta.h"

namespace ckpt {

class KeyDeletion {
 public:
  // Errors (kInvalidArgument): a line that is not one JSON value (ops/key_spelling.h).
  static Result<std::unique_ptr<KeyDeletion>> parse(const std::vector<std::string>& keys);

  // The edit of one subtask of `op` whose proxy (as read) is `meta`. Errors: the keys cannot be
  // decoded (a serializer that needs the job's classes), naming it.
  Result<std::unique_ptr<KeyedEdit>> edit_for(const OperatorState& op, const KeyedBackendMeta& meta);

  // Entries erased per (operator id, state), with any.
  std::vector<EditSummary::KeysErased> erased() const;
  // The keys given that matched no entry, as given.
  std::vector<std::string> unmatched() const;

 private:
  friend class DeleteKeysEdit;
  void record(const std::string& op_hex, const std::string& state, uint64_t entries, const std::set<size_t>& matched);

  std::vector<std::string> given_;         // the keys as given, once each
  std::vector<nlohmann::json> keys_;       // every spelling of each (ops/key_spelling.h)
  std::vector<size_t> spelling_of_;        // per spelling: its key's index in given_
  std::map<std::string, size_t> by_text_;  // compact JSON text of a spelling -> index in given_
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> erased_;
  std::set<size_t> matched_;
};

}  // namespace ckpt
