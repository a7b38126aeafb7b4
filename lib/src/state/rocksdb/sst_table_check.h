// state/rocksdb/sst_table_check.h - what RocksDB trusts of a table file, checked before it opens it.
//
// RocksDB's table reader parses the properties block before it verifies that block's checksum
// (to allow for ingested files whose global sequence number was rewritten), and Debian's
// librocksdb 7.8 keeps its assertions: one flipped byte there aborts the process
// (DataBlockHashIndex::Initialize, `num_buckets_ > 0`). So before RocksDB sees a table, its
// footer, meta-index block and properties block are read here with the bounds-checked reader,
// each block's checksum verified as RocksDB would, and each block's entries parsed to its
// restart array (formats/keyed-state.md §11.1). Data, index and filter blocks are left to
// RocksDB, which verifies their checksums before it parses them.
#pragma once

#include "ckpt/error.h"
#include "state/state_stream.h"

namespace ckpt {

// Errors (kCorruption or kNotSupported), naming the stream's file and the offset of the bytes
// at fault: "sst footer: ...", "sst meta-index block at N: ...", "sst properties block at N: ...".
Status check_sst_table(const StateStream& stream);

}  // namespace ckpt
