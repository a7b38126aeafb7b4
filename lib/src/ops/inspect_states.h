// ops/inspect_states.h - the states part of the inspect report (names, serializers, counts).
#pragma once

#include "ckpt/inspect.h"

namespace ckpt {

// Fills OperatorSummary::states (and `entries` with options.count) of a report built from `m`.
// Problems never fail the report: they land in OperatorSummary::states_error.
void add_inspect_states(const Metadata& m, const SnapshotLocation& where, const InspectOptions& options,
                        InspectReport& r);

}  // namespace ckpt
