// ops/edit/edit_expire.h - `ckpt edit --expire`: TTL entries whose last access is too old dropped.
//
// A state with a time-to-live stores each value as Flink's TtlValue, serialized by
// TtlStateFactory.TtlSerializer (a CompositeSerializer): the last-access timestamp (i64, big
// endian) and then the user value. A value, reducing or aggregating state's RocksDB value is
// one TtlValue; a map state's value is the null flag then a TtlValue; a list state's value is
// its TtlValue elements joined by ','. An entry is expired, as TtlUtils.expired says, when
// timestamp + ttl (capped at Long.MAX_VALUE) <= now. Values are never decoded: the timestamp
// is read where it lies and the other bytes are copied (a list's live elements, delimited by
// the element serializer's skip, joined again).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ckpt/edit.h"
#include "ckpt/metadata.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "ops/ttl_expiry.h"
#include "state/backend_meta.h"

namespace ckpt {

class TtlExpiry {
 public:
  // `ttls`: state name -> ttl in milliseconds.
  TtlExpiry(std::map<std::string, int64_t> ttls, int64_t now) : ttls_(std::move(ttls)), now_(now) {}
  // Per operator, its SQL plan node's TTL per input (EditOptions::plan): the states of `op` that
  // are TTL states and no `ttls` entry names get the TTL of their input.
  void set_plan_ttls(std::map<OperatorId, std::vector<int64_t>> by_operator) { plan_ttls_ = std::move(by_operator); }

  // The edit of one subtask whose proxy (as read) is `meta`; nullptr if it has none of the
  // states. Errors (kInvalidArgument): a named state that is not a TTL state.
  Result<std::unique_ptr<KeyedEdit>> edit_for(const OperatorState& op, const KeyedBackendMeta& meta);

  // Entries dropped per (operator id, state) for every state found; the names found nowhere.
  std::map<std::pair<std::string, std::string>, uint64_t> dropped() const;
  std::vector<std::string> not_found() const;

 private:
  friend class ExpireEdit;
  void record(const std::string& op_hex, const std::string& state, uint64_t entries);

  std::map<std::string, int64_t> ttls_;
  std::map<OperatorId, std::vector<int64_t>> plan_ttls_;
  int64_t now_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> dropped_;
};

}  // namespace ckpt
