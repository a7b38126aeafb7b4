// Decoding of `_metadata` files, every version V1-V7 (formats/metadata.md).
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "format/metadata_contexts.h"
#include "format/metadata_offsets.h"
#include "format/metadata_streaming.h"
#include "support/byte_reader.h"

namespace ckpt {
namespace {

using namespace metadata_format;

// Smallest encodings, used to bound counts before anything is allocated for them.
constexpr size_t kMinMasterState = 4 + 4 + 4 + 2 + 4;
constexpr size_t kMinOperatorStateEntry = 2 + 1 + 4;
constexpr size_t kMinNamedStream = 2 + 1;
constexpr size_t kMinChange = 4 + 4;
constexpr size_t kMinChangelogPiece = 8 + 1;
constexpr size_t kMinV3ChannelHandle = 4 + 4 + 4 + 8 + 1;  // 1.11 layout, no subtask index
constexpr size_t kMinV6ChannelHandle = 1 + 4 + 8 + 1 + 4;  // a merged handle
// Flink's UPPER_BOUND_MAX_PARALLELISM (KeyGroupRangeAssignment): key groups are 0 to 32767.
constexpr int64_t kMaxKeyGroups = 32768;

size_t min_operator_record(int32_t version) {
  if (version <= 2) return 16 + 4 + 4 + 4 + 4;
  if (version <= 4) return 16 + 4 + 4 + 1 + 4;
  return 2 + 2 + 16 + 4 + 4 + 1 + 4;
}

size_t min_subtask_record(int32_t version) {
  if (version <= 2) return 4 + 8 + 4 + 4 + 4 + 1 + 1;
  return 4;  // a finished subtask is its index alone
}

class Decoder {
 public:
  // `channel_subtask_index`: channel handles carry a leading subtask index (Flink 1.12+). Flink
  // 1.11 wrote V3 files without it; the caller retries with false when the first pass fails.
  // With a `sink`, operators go there as they are read instead of into the result.
  Decoder(std::string_view bytes, bool channel_subtask_index, OperatorSink* sink, MetadataOffsets* offsets = nullptr)
      : r_(bytes), channel_subtask_index_(channel_subtask_index), sink_(sink), offsets_(offsets) {}

  Result<Metadata> run() {
    Metadata m;
    read_body(m);
    if (!r_.ok()) {
      Error e = r_.take_error();
      if (context_.empty()) return e;
      return std::move(e).with_context(context_);
    }
    return m;
  }

 private:
  struct Nesting {
    explicit Nesting(Decoder& d) : d_(d) { ++d_.depth_; }
    ~Nesting() { --d_.depth_; }
    Decoder& d_;
  };

  // Reads a type byte and checks it against the context and the narrower set of the position.
  uint8_t type_byte(Context c, TypeMask allowed) {
    uint64_t at = r_.offset();
    uint8_t t = r_.u8();
    if (!r_.ok()) return 0;
    if (!in_mask(context_types(c), t) || !in_mask(allowed, t)) {
      r_.fail_at(at, illegal_type_message(c, t));
      return 0;
    }
    if (t != handle_type::kNull && depth_ >= kMaxNesting) {
      r_.fail_at(at, fmt::format("state handles nested deeper than {} levels", kMaxNesting));
      return 0;
    }
    return t;
  }

  // A byte that Flink writes as 0 or 1; any other value could not be written back as read.
  bool strict_flag(const char* what) {
    uint64_t at = r_.offset();
    uint8_t b = r_.u8();
    if (r_.ok() && b > 1) r_.fail_at(at, fmt::format("{} {:#04x} is neither 0 nor 1", what, b));
    return b == 1;
  }

  void read_body(Metadata& m) {
    uint64_t at = r_.offset();
    int32_t magic = r_.i32();
    if (!r_.ok()) return;
    if (magic != kMagic) {
      r_.fail_at(at, fmt::format("not a flink metadata file: magic {:#010x}, expected {:#010x}",
                                 static_cast<uint32_t>(magic), static_cast<uint32_t>(kMagic)));
      return;
    }
    at = r_.offset();
    m.version = r_.i32();
    if (!r_.ok()) return;
    if (m.version < kMinVersion || m.version > kMaxVersion) {
      r_.not_supported_at(at, fmt::format("unsupported metadata version {} (known: {} to {})",
                                          m.version, kMinVersion, kMaxVersion));
      return;
    }
    version_ = m.version;
    at = r_.offset();
    m.checkpoint_id = r_.i64();
    if (version_ >= 2) {
      if (r_.ok() && m.checkpoint_id < 0) {
        r_.fail_at(at, fmt::format("invalid checkpoint id {}", m.checkpoint_id));
        return;
      }
      int32_t n = r_.count(kMinMasterState, "master state");
      m.master_states.reserve(n);
      for (int32_t i = 0; i < n && r_.ok(); ++i) {
        context_ = fmt::format("master state {}", i);
        m.master_states.push_back(read_master_state());
      }
      if (!r_.ok()) return;
      context_.clear();
    }
    int32_t n = r_.count(min_operator_record(version_), "operator");
    if (!sink_) m.operators.reserve(n);
    for (int32_t i = 0; i < n && r_.ok(); ++i) {
      if (offsets_) offsets_->operators.push_back({r_.offset(), 0, {}});
      OperatorState op = read_operator(i);
      if (!sink_) m.operators.push_back(std::move(op));
      else if (r_.ok()) {
        sink_->operator_state(op, static_cast<size_t>(i));
        if (version_ != 3) sink_->decoded_through(r_.offset());
      }
    }
    if (!r_.ok()) return;
    context_.clear();
    if (version_ <= 3) {
      if (!r_.at_end())
        r_.fail(fmt::format("{} trailing bytes after the last operator record", r_.remaining()));
      return;
    }
    read_properties(m);
  }

  void read_properties(Metadata& m) {
    uint64_t at = r_.offset();
    if (r_.at_end()) {
      r_.fail_at(at, "missing checkpoint properties after the last operator record");
      return;
    }
    m.properties_raw = std::string(r_.bytes(r_.remaining()));
    auto props = decode_checkpoint_properties(m.properties_raw, at);
    if (!props.ok()) {
      Error e = std::move(props).error();
      r_.fail_at(e.offset.value_or(at), std::move(e.message), e.code);
      return;
    }
    m.properties = std::move(props).value();
    m.properties.present = true;
  }

  MasterState read_master_state() {
    MasterState ms;
    uint64_t at = r_.offset();
    uint32_t magic = r_.u32();
    if (r_.ok() && magic != kMasterStateMagic) {
      r_.fail_at(at, fmt::format("master state magic {:#010x}, expected {:#010x}", magic, kMasterStateMagic));
      return ms;
    }
    at = r_.offset();
    int32_t len = r_.count(1, "master state byte");
    if (r_.ok() && len == 0) {
      r_.fail_at(at, "empty master state block");
      return ms;
    }
    uint64_t block_at = r_.offset();
    std::string_view block = r_.bytes(static_cast<size_t>(len));
    if (!r_.ok()) return ms;
    ByteReader in(block, block_at);
    ms.version = in.i32();
    ms.name = in.utf();
    int32_t p = in.count(1, "master state payload byte");
    ms.payload = std::string(in.bytes(static_cast<size_t>(p)));
    if (in.ok() && !in.at_end())
      in.fail(fmt::format("{} trailing bytes in the master state block", in.remaining()));
    if (!in.ok()) {
      Error e = in.take_error();
      r_.fail_at(*e.offset, std::move(e.message), e.code);
    }
    return ms;
  }

  OperatorState read_operator(int32_t ordinal) {
    OperatorState op;
    context_ = fmt::format("operator #{}", ordinal);
    if (version_ >= 5) {
      op.name = r_.utf();
      op.uid = r_.utf();
    }
    std::string_view id = r_.bytes(16);
    if (!r_.ok()) return op;
    std::copy(id.begin(), id.end(), op.id.begin());
    context_ = "operator " + operator_id_hex(op.id);
    const uint64_t parallelism_at = r_.offset();
    if (offsets_) offsets_->operators.back().parallelism = parallelism_at;
    op.parallelism = r_.i32();
    op.max_parallelism = r_.i32();
    if (!r_.ok()) return op;
    // What Flink's OperatorState constructor refuses (a HashMap of `parallelism` buckets, then
    // parallelism <= max parallelism); a max parallelism of 0 with parallelism 0 it accepts.
    if (op.parallelism < 0) {
      r_.fail_at(parallelism_at, fmt::format("invalid parallelism {}", op.parallelism));
      return op;
    }
    if (op.parallelism > op.max_parallelism) {
      r_.fail_at(parallelism_at, fmt::format("parallelism {} exceeds max parallelism {}", op.parallelism,
                                             op.max_parallelism));
      return op;
    }
    if (version_ <= 2) {
      op.chain_length = r_.i32();
    } else {
      op.coordinator = read_stream(kCoordinatorTypes);
    }
    uint64_t at = r_.offset();
    int32_t n;
    if (version_ >= 3) {
      n = r_.i32();
      if (!r_.ok()) return op;
      if (n < 0) {
        // FLIP-147: a fully finished operator; Flink writes exactly -1 and no coordinator state.
        if (n != -1) {
          r_.fail_at(at, fmt::format("invalid subtask count {}", n));
        } else if (!op.coordinator.is_null()) {
          r_.fail_at(at, "fully finished operator has coordinator state");
        }
        op.fully_finished = true;
        return op;
      }
      r_.seek(r_.position() - 4);
    }
    n = r_.count(min_subtask_record(version_), "subtask");
    op.subtasks.reserve(n);
    const std::string op_context = context_;
    for (int32_t i = 0; i < n && r_.ok(); ++i) {
      SubtaskState st;
      const uint64_t record_at = r_.offset();
      int32_t stored = r_.i32();
      if (version_ >= 3 && stored < 0) {
        st.finished = true;
        st.index = static_cast<int32_t>(-static_cast<int64_t>(stored) - 1);
      } else {
        st.index = stored;
      }
      context_ = fmt::format("{}, subtask {}", op_context, st.index);
      if (offsets_) offsets_->operators.back().subtasks.push_back({st.index, record_at, record_at, record_at});
      if (!st.finished) read_subtask(st);
      op.subtasks.push_back(std::move(st));
    }
    if (r_.ok()) context_ = op_context;
    return op;
  }

  void read_subtask(SubtaskState& st) {
    if (version_ <= 2) {
      st.duration = r_.i64();
      int32_t n = r_.count(1, "legacy state handle");
      for (int32_t i = 0; i < n && r_.ok(); ++i) st.legacy.push_back(read_stream(kStreamTypes));
    }
    if (version_ == 1) {
      // One entry per chained operator, null entries included.
      for (auto* list : {&st.managed_operator, &st.raw_operator}) {
        int32_t n = r_.count(1, "chained operator state");
        for (int32_t i = 0; i < n && r_.ok(); ++i) list->push_back(read_operator_handle());
      }
    } else {
      for (auto* list : {&st.managed_operator, &st.raw_operator}) {
        uint64_t at = r_.offset();
        int32_t present = r_.i32();
        if (!r_.ok()) return;
        if (present != 0 && present != 1) {
          r_.fail_at(at, fmt::format("operator state presence flag {} is neither 0 nor 1", present));
          return;
        }
        if (present) list->push_back(read_operator_handle());
      }
    }
    if (offsets_) offsets_->operators.back().subtasks.back().managed_keyed = r_.offset();
    st.managed_keyed = read_keyed(kKeyedTypes);
    if (offsets_) offsets_->operators.back().subtasks.back().raw_keyed = r_.offset();
    st.raw_keyed = read_keyed(kKeyedTypes);
    if (version_ >= 3) {
      read_channels(st.input_channels, /*input=*/true);
      read_channels(st.result_subpartitions, /*input=*/false);
    }
    if (version_ >= 7) {
      if (strict_flag("reused checkpoint id marker")) st.reused_checkpoint_id = r_.i64();
    }
  }

  void read_channels(std::vector<ChannelHandle>& out, bool input) {
    const char* what = input ? "input channel state handle" : "result subpartition state handle";
    int32_t n = r_.count(version_ >= 6 ? kMinV6ChannelHandle : kMinV3ChannelHandle, what);
    out.reserve(n);
    for (int32_t i = 0; i < n && r_.ok(); ++i) {
      ChannelHandle h;
      if (version_ >= 6) {
        uint64_t at = r_.offset();
        h.v6_kind = r_.u8();
        if (!r_.ok()) return;
        uint8_t plain = input ? kChannelInput : kChannelOutput;
        uint8_t merged = input ? kChannelMergedInput : kChannelMergedOutput;
        if (h.v6_kind != plain && h.v6_kind != merged) {
          r_.fail_at(at, h.v6_kind >= kChannelInput && h.v6_kind <= kChannelMergedOutput
                             ? fmt::format("{} kind {:#04x} not allowed here", what, h.v6_kind)
                             : fmt::format("unknown {} kind {:#04x}", what, h.v6_kind));
          return;
        }
        if (h.v6_kind == merged) {
          h.subtask_index = r_.i32();
          h.size = r_.i64();
          h.delegate = read_stream(kStreamTypes);
          int32_t len = r_.count(1, "merged channel offsets byte");
          h.merged_offsets = std::string(r_.bytes(static_cast<size_t>(len)));
          out.push_back(std::move(h));
          continue;
        }
      }
      h.has_subtask_index = channel_subtask_index_ || version_ >= 6;
      if (h.has_subtask_index) h.subtask_index = r_.i32();
      h.gate_or_partition = r_.i32();
      h.channel_or_subpartition = r_.i32();
      int32_t m = r_.count(8, "channel state offset");
      h.offsets.reserve(m);
      for (int32_t j = 0; j < m && r_.ok(); ++j) h.offsets.push_back(r_.i64());
      h.size = r_.i64();
      h.delegate = read_stream(kStreamTypes);
      out.push_back(std::move(h));
    }
  }

  // Key-group range (first, count); `offset_count` says whether `count` offsets follow.
  KeyGroupRange read_range(bool offsets_follow) {
    KeyGroupRange kg;
    uint64_t at = r_.offset();
    kg.first = r_.i32();
    kg.count = r_.count(offsets_follow ? 8 : 0, "key group");
    if (r_.ok() && kg.count > 0 &&
        (kg.first < 0 || int64_t{kg.first} + kg.count - 1 > INT32_MAX)) {
      r_.fail_at(at, fmt::format("invalid key-group range: first {}, count {}", kg.first, kg.count));
    } else if (r_.ok() && kg.count > 0 && int64_t{kg.first} + kg.count > kMaxKeyGroups) {
      // No job has more key groups (max parallelism is at most 32768): readers and writers
      // size tables by ranges, so an impossible one stops here rather than as gigabytes.
      r_.fail_at(at, fmt::format("key-group range {}+{} ends beyond key group {}, the last any job can have",
                                 kg.first, kg.count, kMaxKeyGroups - 1));
    }
    return kg;
  }

  void read_key_groups_body(KeyedHandle& h) {
    h.range = read_range(true);
    h.offsets.reserve(h.range.count);
    for (int32_t i = 0; i < h.range.count && r_.ok(); ++i) h.offsets.push_back(r_.i64());
    h.delegate = read_stream(kStreamTypes);
  }

  void read_named_streams(std::vector<NamedStream>& out, const char* what) {
    int32_t n = r_.count(kMinNamedStream, what);
    out.reserve(n);
    for (int32_t i = 0; i < n && r_.ok(); ++i) {
      NamedStream f;
      f.name = r_.utf();
      f.handle = read_stream(kStreamTypes);
      out.push_back(std::move(f));
    }
  }

  StreamHandle read_stream(TypeMask allowed) {
    StreamHandle h;
    h.type = type_byte(Context::kStream, allowed);
    if (!r_.ok()) return h;
    Nesting nest(*this);
    switch (h.type) {
      case handle_type::kByteStream: {
        h.name = r_.utf();
        int32_t n = r_.count(1, "inline state byte");
        h.data = std::string(r_.bytes(static_cast<size_t>(n)));
        break;
      }
      case handle_type::kFile:
        h.size = r_.i64();
        h.path = r_.utf();
        break;
      case handle_type::kRelativeFile:
        h.path = r_.utf();
        h.size = r_.i64();
        break;
      case handle_type::kKeyGroups: {
        KeyedHandle k;
        k.type = handle_type::kKeyGroups;
        read_key_groups_body(k);
        h.key_groups.push_back(std::move(k));
        break;
      }
      case handle_type::kSegmentFile: {
        h.start = r_.i64();
        h.size = r_.i64();
        uint64_t at = r_.offset();
        h.scope = r_.i32();
        if (r_.ok() && (h.scope < 0 || h.scope > 1))
          r_.fail_at(at, fmt::format("unknown file-merging scope {}", h.scope));
        h.path = r_.utf();
        h.logical_id = r_.utf();
        break;
      }
      default:  // 0 and 16 carry nothing
        break;
    }
    return h;
  }

  KeyedHandle read_keyed(TypeMask allowed) {
    KeyedHandle h;
    h.type = type_byte(Context::kKeyed, allowed);
    if (!r_.ok()) return h;
    Nesting nest(*this);
    switch (h.type) {
      case handle_type::kKeyGroups:
      case handle_type::kSavepointKeyGroups:
        read_key_groups_body(h);
        break;
      case handle_type::kKeyGroupsWithId:
        read_key_groups_body(h);
        h.handle_id = r_.utf();
        break;
      case handle_type::kIncrementalV1:
      case handle_type::kIncremental: {
        bool v2 = h.type == handle_type::kIncremental;
        h.checkpoint_id = r_.i64();
        h.backend_id = r_.utf();
        h.range = read_range(false);
        if (v2) h.checkpointed_size = r_.i64();
        h.delegate = read_stream(kStreamTypes);
        read_named_streams(h.shared_files, "shared file");
        read_named_streams(h.private_files, "private file");
        if (v2) h.handle_id = r_.utf();
        break;
      }
      case handle_type::kChangelogBackendV1:
      case handle_type::kChangelogBackend: {
        h.range = read_range(false);
        h.checkpointed_size = r_.i64();
        int32_t n = r_.count(1, "materialized state handle");
        for (int32_t i = 0; i < n && r_.ok(); ++i) h.materialized.push_back(read_keyed(kKeyedTypes));
        n = r_.count(1, "non-materialized state handle");
        for (int32_t i = 0; i < n && r_.ok(); ++i)
          h.non_materialized.push_back(read_keyed(kChangelogDeltaTypes));
        h.materialization_id = r_.i64();
        h.checkpoint_id = h.type == handle_type::kChangelogBackend ? r_.i64() : h.materialization_id;
        h.handle_id = r_.utf();
        break;
      }
      case handle_type::kInMemoryChangelog: {
        h.range = read_range(false);
        h.from_sequence = r_.i64();
        h.to_sequence = r_.i64();
        int32_t n = r_.count(kMinChange, "change");
        h.changes.reserve(n);
        for (int32_t i = 0; i < n && r_.ok(); ++i) {
          Change c;
          c.key_group = r_.i32();
          int32_t len = r_.count(1, "change byte");
          c.bytes = std::string(r_.bytes(static_cast<size_t>(len)));
          h.changes.push_back(std::move(c));
        }
        h.handle_id = r_.utf();
        break;
      }
      case handle_type::kChangelogFileV1:
      case handle_type::kChangelogFile: {
        h.range = read_range(false);
        int32_t n = r_.count(kMinChangelogPiece, "change log piece");
        h.pieces.reserve(n);
        for (int32_t i = 0; i < n && r_.ok(); ++i) {
          ChangelogPiece p;
          p.offset = r_.i64();
          p.handle = read_stream(kStreamTypes);
          h.pieces.push_back(std::move(p));
        }
        h.state_size_field = r_.i64();
        h.checkpointed_size = r_.i64();
        h.handle_id = r_.utf();
        if (h.type == handle_type::kChangelogFile) h.storage_id = r_.utf();
        break;
      }
      default:
        break;
    }
    return h;
  }

  OperatorHandle read_operator_handle() {
    OperatorHandle h;
    h.type = type_byte(Context::kOperator, kOperatorTypes);
    if (!r_.ok() || h.type == handle_type::kNull) return h;
    Nesting nest(*this);
    int32_t n = r_.count(kMinOperatorStateEntry, "operator state entry");
    h.states.reserve(n);
    for (int32_t i = 0; i < n && r_.ok(); ++i) {
      OperatorStateEntry e;
      e.name = r_.utf();
      uint64_t at = r_.offset();
      uint8_t mode = r_.u8();
      if (r_.ok() && mode > static_cast<uint8_t>(DistributionMode::kBroadcast)) {
        r_.fail_at(at, fmt::format("unknown distribution mode {}", mode));
        return h;
      }
      e.mode = static_cast<DistributionMode>(mode);
      int32_t m = r_.count(8, "partition offset");
      e.offsets.reserve(m);
      for (int32_t j = 0; j < m && r_.ok(); ++j) e.offsets.push_back(r_.i64());
      h.states.push_back(std::move(e));
    }
    if (h.type == handle_type::kFileMergingOperator) {
      h.taskowned_dir = r_.utf();
      h.shared_dir = r_.utf();
      h.empty_variant = strict_flag("file-merging empty flag");
      h.delegate = read_stream(kFileMergingDelegateTypes);
    } else {
      h.delegate = read_stream(kStreamTypes);
    }
    return h;
  }

  ByteReader r_;
  bool channel_subtask_index_;
  OperatorSink* sink_;
  MetadataOffsets* offsets_;
  int32_t version_ = 0;
  int depth_ = 0;
  std::string context_;
};

bool is_version_3(std::string_view bytes) {
  ByteReader r(bytes);
  r.skip(4);
  return r.i32() == 3 && r.ok();
}

Result<Metadata> decode(std::string_view bytes, const std::string& file, OperatorSink* sink,
                        MetadataOffsets* offsets = nullptr) {
  auto result = Decoder(bytes, /*channel_subtask_index=*/true, sink, offsets).run();
  if (!result.ok() && is_version_3(bytes)) {
    // Flink 1.11 wrote channel handles without the subtask index under the same version 3.
    if (sink) sink->restart();
    if (offsets) offsets->operators.clear();
    auto legacy = Decoder(bytes, /*channel_subtask_index=*/false, sink, offsets).run();
    if (legacy.ok()) return legacy;
  }
  if (!result.ok() && !file.empty()) return std::move(result).error().with_file(file);
  return result;
}

}  // namespace

Result<Metadata> decode_metadata(std::string_view bytes, const std::string& file) {
  return decode(bytes, file, nullptr);
}

Result<Metadata> decode_metadata_streaming(std::string_view bytes, const std::string& file, OperatorSink& sink) {
  return decode(bytes, file, &sink);
}

Result<Metadata> decode_metadata_located(std::string_view bytes, const std::string& file, MetadataOffsets& offsets) {
  offsets.operators.clear();
  return decode(bytes, file, nullptr, &offsets);
}

std::optional<uint64_t> MetadataOffsets::find(const Metadata& m, const std::string& op_hex, int32_t subtask,
                                              std::string_view slot) const {
  for (size_t i = 0; i < m.operators.size() && i < operators.size(); ++i) {
    if (operator_id_hex(m.operators[i].id) != op_hex) continue;
    const Operator& op = operators[i];
    if (subtask < 0) return op.parallelism;
    for (const Subtask& st : op.subtasks) {
      if (st.index != subtask) continue;
      if (slot.starts_with("managed-keyed")) return st.managed_keyed;
      if (slot.starts_with("raw-keyed")) return st.raw_keyed;
      return st.record;
    }
    return op.record;
  }
  return std::nullopt;
}

// `_metadata` of a snapshot in an object store (ckpt/file_system.h): the object, or the one
// under the prefix `path` names.
static Result<Metadata> read_stored_metadata_file(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(path));
  std::string file = path;
  if (Result<FileInfo> info = files->stat(path); info.ok() && info->directory)
    file = (path.back() == '/') ? path + "_metadata" : path + "/_metadata";
  Result<std::string> bytes = read_through_file_system(file);
  if (!bytes.ok()) return std::move(bytes).error().with_file(file);
  return decode_metadata(*bytes, file);
}

Result<Metadata> read_metadata_file(const std::string& path) {
  if (is_object_store_uri(path)) return read_stored_metadata_file(path);
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec))
    file = (!path.empty() && path.back() == '/') ? path + "_metadata" : path + "/_metadata";
  auto bytes = read_whole_file(file);
  if (!bytes.ok()) return std::move(bytes).error().with_file(file);
  return decode_metadata(*bytes, file);
}

}  // namespace ckpt
