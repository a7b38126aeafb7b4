// state/rocksdb/rocks_status.h - a failed rocksdb::Status as an Error naming the file and the offset.
#pragma once

#include <string>
#include <string_view>

#include "ckpt/error.h"

namespace rocksdb {
class Status;
}

namespace ckpt {

// kIOError or kCorruption, "<what>: <RocksDB's text>", naming `file`. RocksDB tells where a
// damaged block is ("... in <path> offset N size M"): N becomes the error's offset.
Error rocks_status_error(const rocksdb::Status& s, const std::string& file, std::string_view what);

}  // namespace ckpt
