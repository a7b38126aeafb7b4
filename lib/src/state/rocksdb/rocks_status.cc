// RocksDB's failures as errors, with the block offset RocksDB's text gives.
#include "state/rocksdb/rocks_status.h"

#include <cctype>
#include <optional>

#include <fmt/format.h>
#include <rocksdb/status.h>

namespace ckpt {
namespace {

// N of the last " offset N" in RocksDB's text, as BlockFetcher writes about a bad block.
std::optional<uint64_t> block_offset(std::string_view text) {
  const std::string_view key = " offset ";
  size_t at = text.rfind(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size(), start = i;
  uint64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 19)
    n = n * 10 + static_cast<uint64_t>(text[i++] - '0');
  if (i == start) return std::nullopt;
  return n;
}

}  // namespace

Error rocks_status_error(const rocksdb::Status& s, const std::string& file, std::string_view what) {
  const std::string text = s.ToString();
  Error e(s.IsIOError() ? ErrorCode::kIOError : ErrorCode::kCorruption, fmt::format("{}: {}", what, text));
  e.file = file;
  e.offset = block_offset(text);
  return e;
}

}  // namespace ckpt
