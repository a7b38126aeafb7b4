// The names of RocksDB files placed by restore, convert, compact, edit and dump.
#include "format/local_names.h"

#include <fmt/format.h>

namespace ckpt {

bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

Status check_local_file_name(std::string_view name) {
  if (is_plain_file_name(name)) return Status::OK();
  return Error(ErrorCode::kCorruption, fmt::format("rocksdb file name '{}' is not a plain file name", name));
}

}  // namespace ckpt
