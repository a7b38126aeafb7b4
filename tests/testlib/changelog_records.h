// tests/testlib/changelog_records.h - hand-built change records and change logs, as Flink writes them.
//
// Change records follow StateChangeLoggerImpl / KvStateChangeLoggerImpl (Long keys, VoidNamespace
// unless told), logs either InMemoryChangelogStateHandle (type 9) or the log files of
// flink-dstl-dfs (StateChangeFsUploader, StateChangeFormat) that types 10 and 13 point into.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/metadata.h"
#include "state/changelog/changelog_reader.h"
#include "types/serializer_snapshot.h"
#include "support/byte_writer.h"
#include "testlib/change_records.h"

namespace ckpt::test {

KeyedHandle in_memory_log(std::vector<Change> changes);
// The proxy-framed snapshot of LongSerializer: the key serializer of these records.
SerializerSnapshot long_key_serializer();

// The decoded replay's entries as "state key [user key] = value", in emit order.
std::vector<std::string> emitted(ChangelogState& state);
// A byte-level replayer of `logs`' states with Long keys (max parallelism 128); `meta` gets
// the states it indexes.
std::unique_ptr<ChangelogState> raw_replayer(const std::vector<KeyedHandle>& logs, KeyedBackendMeta* meta,
                                             const StreamOpener& files = {});

// Flink's RocksDB key of a Long key in VoidNamespace, key group 0 (max parallelism 128): one
// prefix byte, the key, the namespace byte; map user keys follow.
std::string rocks_key(int64_t key, const std::vector<int64_t>& user_key = {});
// Longs joined by RocksDB's list delimiter; a map value behind MapSerializer's null flag.
std::string rocks_longs(const std::vector<int64_t>& values, bool map_value = false);

// A flink-dstl-dfs log file holding `change_sets` back to back: StateChangeFsUploader's flag
// byte, then StateChangeFormat's stream, framed Snappy when `compressed`.
struct LogFile {
  std::string bytes;
  std::vector<int64_t> offsets;  // each change set's start, after the flag, uncompressed
  int64_t stream_size = 0;       // what the file's handle declares (OutputStreamWithPos#getPos)
};
LogFile changelog_file(const std::vector<std::vector<Change>>& change_sets, bool compressed);
// A ChangelogStateHandleStreamImpl (type 13, or 10) of pieces in relative files (type 6), each
// file's handle declaring `stream_size` bytes.
struct LogPiece {
  std::string file;
  int64_t offset = 0;
  int64_t stream_size = 0;
};
KeyedHandle file_log(const std::vector<LogPiece>& pieces, uint8_t type = handle_type::kChangelogFile);
// `log` (type 9) written as a flink-dstl-dfs log file `dir/name`: its changes split into two
// change sets, one piece each; returns the type-13 handle that replaces it.
KeyedHandle to_file_log(const KeyedHandle& log, const std::string& dir, const std::string& name, bool compressed);

}  // namespace ckpt::test
