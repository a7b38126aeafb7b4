// state/incremental_reader.h - keyed state of a RocksDB native handle (types 5, 11).
//
// Incremental checkpoints and native savepoints upload the RocksDB instance's files. The
// meta stream holds the keyed proxy (state names and serializers); every SST belongs to one
// column family, named after its state in the file's table properties (§10-§11). Entries
// whose key-group prefix lies outside the handle's range are left-overs of a rescale and are
// dropped, as Flink's restore clips them.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/state_stream.h"

namespace ckpt {

Status read_incremental_handle(const KeyedHandle& handle, const PathResolver& resolve,
                               const std::string& metadata_file, int32_t max_parallelism,
                               const StateFilter& filter, const EntrySink& sink, const ProblemSink& problems);

}  // namespace ckpt
