// tests/support/changelog_records.h - hand-built change records and change logs, as Flink writes them.
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
#include "state/changelog_reader.h"
#include "state/serializer_snapshot.h"
#include "support/byte_writer.h"

namespace ckpt::test {

inline constexpr const char* kLongSnapshot = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
inline constexpr const char* kListSnapshot = "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot";
inline constexpr const char* kMapSnapshot = "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot";
inline constexpr const char* kVoidSnapshot =
    "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";

// A List / Map serializer snapshot of Long elements, as Flink writes it.
void composite_of_longs(ByteWriter& w, const char* cls, int nested);
// A METADATA change (Flink 1.17: code 8, meta info version 6) of a key / value state.
Change metadata_change(int16_t id, const std::string& name, const char* type,
                       const std::function<void(ByteWriter&)>& value, const char* ns = kVoidSnapshot);
// A data change of state `id` for Long key `key` in VoidNamespace, then `payload`.
Change data_change(int32_t key_group, uint8_t op, int16_t id, int64_t key, const std::vector<int64_t>& payload = {});
// `c` followed by a whole list (i32 size, then the elements).
Change with_whole_list(Change c, const std::vector<int64_t>& elements);
KeyedHandle in_memory_log(std::vector<Change> changes);
// List "l" (id 0), map "m" (1) and value "v" (2) registered, then: l[1] += 11, l[2] addAll
// [20, 21] then cleared, l[3] = [30], m[1][6] = 60, m[1] remove 5, v[1] = 100, v[2] = 200 then
// cleared, and v[7] = 700 in key group 200.
std::vector<Change> list_map_value_changes();
// The proxy-framed snapshot of LongSerializer: the key serializer of these records.
SerializerSnapshot long_snapshot();

// The decoded replay's entries as "state key [user key] = value", in emit order.
std::vector<std::string> emitted(ChangelogState& state);
// A byte-level replayer of `logs`' states with Long keys (max parallelism 128); `meta` gets
// the states it indexes.
std::unique_ptr<ChangelogState> raw_replayer(const std::vector<KeyedHandle>& logs, KeyedBackendMeta* meta,
                                             const ChangelogFiles& files = {});

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

}  // namespace ckpt::test
