// tests/testlib/change_records.h - change records (StateChangeLoggerImpl, KvStateChangeLoggerImpl:
// Long keys, VoidNamespace unless told) and change sets (StateChangeFormat) built by hand, with
// no test framework, for the changelog tests and the fuzz seeds (tests/fuzz/make_stream_seeds.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ckpt/metadata.h"
#include "support/byte_writer.h"
#include "testlib/snapshot_classes.h"

namespace ckpt::test {

// A List / Map serializer snapshot of Long elements, as Flink writes it.
void composite_of_longs(ByteWriter& w, const char* cls, int nested);
// A METADATA change (Flink 1.17: code 8, meta info version 6) of a key / value state.
Change metadata_change(int16_t id, const std::string& name, const char* type,
                       const std::function<void(ByteWriter&)>& value, const char* ns = kVoidSnapshot);
// A data change of state `id` for Long key `key` in VoidNamespace, then `payload`.
Change data_change(int32_t key_group, uint8_t op, int16_t id, int64_t key, const std::vector<int64_t>& payload = {});
// `c` followed by a whole list (i32 size, then the elements).
Change with_whole_list(Change c, const std::vector<int64_t>& elements);
// List "l" (id 0), map "m" (1) and value "v" (2) registered, then: l[1] += 11, l[2] addAll
// [20, 21] then cleared, l[3] = [30], m[1][6] = 60, m[1] remove 5, v[1] = 100, v[2] = 200 then
// cleared, and v[7] = 700 in key group 200.
std::vector<Change> list_map_value_changes();
// StateChangeFormat's bytes of one change set: changes grouped by key group in ascending order
// (metadata's -1 first), each group's changes in their order.
void write_change_set(ByteWriter& w, const std::vector<Change>& changes);

}  // namespace ckpt::test
