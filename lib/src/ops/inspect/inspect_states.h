// ops/inspect/inspect_states.h - the states part of the inspect report (names, serializers, counts).
#pragma once

#include <memory>

#include "ckpt/inspect.h"

namespace ckpt {

class ProxyReader;

// Fills OperatorSummary::states from the backend proxies, one operator at a time (so a report
// can be built while `_metadata` is decoded). Problems never fail the report: they land in
// OperatorSummary::states_error.
class OperatorStatesReader {
 public:
  OperatorStatesReader(const SnapshotLocation& where, const std::vector<PrefixRule>& remap);
  ~OperatorStatesReader();
  void read(const OperatorState& op, OperatorSummary& s);

 private:
  std::unique_ptr<ProxyReader> reader_;
};

// With options.count, adds each state's `entries` by dumping the snapshot; marks the report's
// states as read. Call after every operator went through OperatorStatesReader.
void finish_inspect_states(const SnapshotLocation& where, const InspectOptions& options, InspectReport& r);

}  // namespace ckpt
