// ops/report/report_estimate.h - `ckpt report --fast`: bytes per key group without reading an
// entry, from what the handles and files say about where their bytes lie.
//
// A heap or canonical key-groups stream (handle types 3, 7, 12) stores each key group's offset:
// offset differences are each key group's bytes in the stream, exactly. A RocksDB file's keys
// begin with their key group (formats/keyed-state.md §5), so an SST whose first and last keys
// fall in key groups a..b holds bytes of those key groups only: its size is spread evenly over
// a..b as the estimate, counts whole towards each one's upper bound, and towards a key group's
// lower bound only when a == b. Bytes no file places (RocksDB's MANIFEST and OPTIONS, a stream's
// proxy, change logs) are spread over the subtask's key groups and count towards every upper
// bound. A key group is named hot only when its lower bound exceeds ReportOptions::hot_factor
// times the median of the upper bounds, which bounds the median from above: the claim holds
// for the true sizes whatever the estimate's error.
#pragma once

#include "ckpt/metadata.h"
#include "ckpt/report.h"
#include "state/stream_opener.h"

namespace ckpt {

// Fills `out`'s subtask bytes, key groups and hot key groups from `op` (the same operator in the
// snapshot's `_metadata`). Files that cannot be read are added to `problems` and their bytes
// treated as placed nowhere.
void estimate_key_groups(const OperatorState& op, const StreamOpener& streams, const ReportOptions& options,
                         ReportOperator* out, std::vector<std::string>* problems);

}  // namespace ckpt
