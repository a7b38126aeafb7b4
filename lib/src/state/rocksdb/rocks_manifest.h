// state/rocksdb/rocks_manifest.h - the files of a RocksDB native handle that are not SSTs, checked as
// RocksDB reads them when Flink's restore opens the instance.
//
// CURRENT must name one of the handle's MANIFEST files ("MANIFEST-<number>\n"). A MANIFEST is
// a RocksDB log (formats/keyed-state.md): 32 KiB blocks of records, each a 7-byte header
// (masked CRC32C of type and payload, payload length, type FULL/FIRST/MIDDLE/LAST) and its
// payload; a block's last bytes too few for a header are zeros. A damaged byte fails its
// record's checksum or framing, and is reported at that record's offset, where RocksDB's own
// message names no offset and a temporary copy of the file.
#pragma once

#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/stream_opener.h"

namespace ckpt {

// Every CURRENT and MANIFEST file of native handle `h` (types 5, 11); other files are not read.
Status check_instance_files(const KeyedHandle& h, const StreamOpener& streams);

// The records of one MANIFEST image (`base`: its absolute offset in `file`, for errors).
Status check_manifest(std::string_view bytes, uint64_t base, const std::string& file);

}  // namespace ckpt
