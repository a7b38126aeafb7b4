// state/rocksdb/incremental_reader.h - keyed state of a RocksDB native handle (types 5, 11).
//
// Incremental checkpoints and native savepoints upload the RocksDB instance's files. The
// meta stream holds the keyed proxy (state names and serializers); every SST belongs to one
// column family, named after its state in the file's table properties (formats/keyed-state.md §10, §11). Entries
// whose key-group prefix lies outside the handle's range are left-overs of a rescale and are
// dropped, as Flink's restore clips them.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/stream_opener.h"

namespace ckpt {

// The keyed proxy that a native handle's meta data stream holds (errors in the context "meta data
// stream").
Result<KeyedBackendMeta> read_meta_data_stream(const StreamHandle& handle, const StreamOpener& streams);

Status read_incremental_handle(const KeyedHandle& handle, const StreamOpener& streams, int32_t max_parallelism,
                               const StateFilter& filter, const EntrySink& sink, const ProblemSink& problems);

}  // namespace ckpt
