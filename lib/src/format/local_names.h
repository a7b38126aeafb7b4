// format/local_names.h - the one check of the names an incremental handle gives its RocksDB
// files (shared and private), which every command places as files in a directory of its own.
#pragma once

#include <string_view>

#include "ckpt/error.h"

namespace ckpt {

// A name that stays one entry of the directory it is placed in: not empty, not "." or "..",
// no '/' and no NUL. Flink stores the file's name in the instance directory (000010.sst, MANIFEST-000004).
bool is_plain_file_name(std::string_view name);

// kCorruption "rocksdb file name '<name>' is not a plain file name" unless is_plain_file_name().
Status check_local_file_name(std::string_view name);

}  // namespace ckpt
