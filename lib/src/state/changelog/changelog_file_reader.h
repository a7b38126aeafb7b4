// state/changelog/changelog_file_reader.h - the changes of one change log, inline (type 9) or in files (10, 13).
//
// Flink's DFS changelog storage (flink-dstl-dfs) uploads change sets to log files and hands the
// checkpoint a ChangelogStateHandleStreamImpl: (log file, offset) pieces, each the start of one
// change set. A log file is a compression flag byte (1: framed Snappy) and then the stream that
// StateChangeFormat writes; piece offsets count bytes of that stream after the flag, uncompressed.
// Changes come out as the in-memory kind stores them, so one applier serves both.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/stream_opener.h"

namespace ckpt {

// One change of a log: `bytes` is the record StateChangeFormat or the in-memory handle holds,
// `offset` the absolute offset of bytes[0] in its log file (0 for an in-memory log, whose
// records are not at known offsets of `_metadata`), `index` its place in the in-memory log or
// in its piece's change set.
struct LoggedChange {
  int32_t key_group = 0;
  std::string_view bytes;
  uint64_t offset = 0;
  size_t index = 0;
};
using LoggedChangeFn = std::function<Status(const LoggedChange&)>;

// Visits the changes of `log` in the order Flink applies them: an in-memory log's in stored
// order; a file log's piece by piece, exactly one change set at each piece's offset. Errors of
// a file log (including those `fn` returns) name the log file and the piece; its files are
// opened by `streams`.
Status for_each_logged_change(const KeyedHandle& log, const StreamOpener& streams, const LoggedChangeFn& fn);

bool is_file_changelog(uint8_t handle_type);

}  // namespace ckpt
