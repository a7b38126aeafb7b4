// The snapshot model's names and small derived facts (ckpt/metadata.h).
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "support/murmur3.h"

namespace ckpt {

const char* handle_type_name(uint8_t type) {
  switch (type) {
    case handle_type::kNull: return "null";
    case handle_type::kByteStream: return "byte-stream";
    case handle_type::kFile: return "file";
    case handle_type::kKeyGroups: return "key-groups";
    case handle_type::kPartitionableOperator: return "operator-stream";
    case handle_type::kIncrementalV1: return "incremental-v1";
    case handle_type::kRelativeFile: return "relative-file";
    case handle_type::kSavepointKeyGroups: return "savepoint-key-groups";
    case handle_type::kChangelogBackendV1: return "changelog-backend-v1";
    case handle_type::kInMemoryChangelog: return "in-memory-changelog";
    case handle_type::kChangelogFileV1: return "changelog-file-v1";
    case handle_type::kIncremental: return "incremental";
    case handle_type::kKeyGroupsWithId: return "key-groups-with-id";
    case handle_type::kChangelogFile: return "changelog-file";
    case handle_type::kChangelogBackend: return "changelog-backend";
    case handle_type::kSegmentFile: return "segment-file";
    case handle_type::kEmptySegmentFile: return "empty-segment-file";
    case handle_type::kFileMergingOperator: return "file-merging-operator";
  }
  return "unknown";
}

const char* distribution_mode_name(DistributionMode m) {
  switch (m) {
    case DistributionMode::kSplitDistribute: return "SPLIT_DISTRIBUTE";
    case DistributionMode::kUnion: return "UNION";
    case DistributionMode::kBroadcast: return "BROADCAST";
  }
  return "unknown";
}

const char* snapshot_kind_name(SnapshotKind k) {
  switch (k) {
    case SnapshotKind::kUnknown: return "unknown";
    case SnapshotKind::kCheckpoint: return "checkpoint";
    case SnapshotKind::kSavepointCanonical: return "savepoint-canonical";
    case SnapshotKind::kSavepointNative: return "savepoint-native";
  }
  return "unknown";
}

std::string operator_id_hex(const OperatorId& id) {
  std::string out;
  out.reserve(32);
  for (uint8_t b : id) out += fmt::format("{:02x}", b);
  return out;
}

bool parse_operator_id(const std::string& hex, OperatorId* out) {
  if (hex.size() != 32) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  OperatorId id{};
  for (size_t i = 0; i < 16; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    id[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  *out = id;
  return true;
}

OperatorId operator_id_of_uid(std::string_view uid) { return murmur3_x64_128(uid, 0); }

namespace {

bool is_hex_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// `filter` is hex digits, in any case, that begin `hex` (lower case).
bool starts_id(const std::string& hex, std::string_view filter) {
  if (filter.size() > hex.size() || !is_hex_digits(filter)) return false;
  return std::equal(filter.begin(), filter.end(), hex.begin(),
                    [](char f, char h) { return std::tolower(static_cast<unsigned char>(f)) == h; });
}

bool is_id_prefix(const std::string& hex, std::string_view filter) {
  return filter.size() >= 4 && filter.size() < hex.size() && starts_id(hex, filter);
}

// Every way of naming `op` but an id prefix.
bool names_exactly(const OperatorState& op, const std::string& hex, std::string_view filter) {
  if (filter.empty()) return false;
  if (filter.size() == hex.size() && starts_id(hex, filter)) return true;  // the full id, any case
  if (!op.uid.empty() && op.uid == filter) return true;
  if (!op.name.empty() && op.name == filter) return true;
  return operator_id_of_uid(filter) == op.id;
}

}  // namespace

bool operator_matches(const OperatorState& op, std::string_view filter) {
  if (filter.empty()) return true;  // as select_operators(): no filter, every operator
  const std::string hex = operator_id_hex(op.id);
  return names_exactly(op, hex, filter) || is_id_prefix(hex, filter);
}

Result<std::vector<const OperatorState*>> select_operators(const Metadata& m, std::string_view filter) {
  std::vector<const OperatorState*> exact, by_prefix;
  for (const OperatorState& op : m.operators) {
    if (filter.empty()) {
      exact.push_back(&op);
      continue;
    }
    const std::string hex = operator_id_hex(op.id);
    if (names_exactly(op, hex, filter)) exact.push_back(&op);
    else if (is_id_prefix(hex, filter)) by_prefix.push_back(&op);
  }
  if (!exact.empty() || (filter.empty() && m.operators.empty())) return exact;
  if (by_prefix.size() == 1) return by_prefix;
  if (by_prefix.empty())
    return Error(ErrorCode::kNotFound, fmt::format("no operator with id, id prefix, uid or name '{}'", filter));
  std::string ids;
  for (const OperatorState* op : by_prefix) ids += (ids.empty() ? "" : ", ") + operator_id_hex(op->id);
  return Error(ErrorCode::kNotFound,
               fmt::format("id prefix '{}' fits {} operators: {}", filter, by_prefix.size(), ids));
}

int64_t StreamHandle::state_size() const {
  switch (type) {
    case handle_type::kByteStream: return static_cast<int64_t>(data.size());
    case handle_type::kFile:
    case handle_type::kRelativeFile:
    case handle_type::kSegmentFile: return size;
    case handle_type::kKeyGroups:
      return key_groups.empty() ? 0 : key_groups.front().delegate.state_size();
    default: return 0;
  }
}

bool CheckpointProperties::is_savepoint() const {
  // Flink 1.16+ serializes savepoints as SavepointType, the only class with a format type; the
  // second test covers models built by hand that set the format but not the class.
  static constexpr std::string_view kSavepointType = "org.apache.flink.runtime.checkpoint.SavepointType";
  return present && (type_class == kSavepointType || !format_type.empty());
}

namespace {

bool has_canonical_keyed(const KeyedHandle& h) {
  if (h.type == handle_type::kSavepointKeyGroups) return true;
  for (const auto& k : h.materialized)
    if (has_canonical_keyed(k)) return true;
  return false;
}

}  // namespace

// V4+ files say what they are. Older files do not; the only handle that exists solely in a
// canonical savepoint is type 7 (KeyGroupsSavepointStateHandle), so any type-7 keyed handle makes
// a V1-V3 snapshot a canonical savepoint. Without one nothing in the bytes separates a checkpoint
// from a savepoint (pre-1.13 savepoints and checkpoints wrote the same handles), so the kind is
// unknown.
SnapshotKind Metadata::kind(bool* inferred) const {
  if (properties.present) {
    if (inferred) *inferred = false;
    if (!properties.is_savepoint()) return SnapshotKind::kCheckpoint;
    if (properties.format_type == "NATIVE") return SnapshotKind::kSavepointNative;
    if (properties.format_type == "CANONICAL") return SnapshotKind::kSavepointCanonical;
    return SnapshotKind::kUnknown;
  }
  if (inferred) *inferred = true;
  for (const auto& op : operators)
    for (const auto& st : op.subtasks)
      if (has_canonical_keyed(st.managed_keyed) || has_canonical_keyed(st.raw_keyed))
        return SnapshotKind::kSavepointCanonical;
  return SnapshotKind::kUnknown;
}

}  // namespace ckpt
