// Encoding of the snapshot model back into `_metadata` bytes, every version V1-V7.
//
// The writer mirrors the reader field for field, so a decoded file encodes to the same bytes.
// A model that the chosen version cannot hold (a handle type in the wrong position, a string over
// 65535 bytes, a V3+ field in a V2 file, ...) is a kInvalidArgument error, never silently
// dropped, because dropping it would make decode(encode(m)) differ from m.
#include <optional>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "format/metadata_contexts.h"
#include "support/byte_writer.h"

namespace ckpt {
namespace {

using namespace metadata_format;

class MetadataEncoder {
 public:
  explicit MetadataEncoder(const Metadata& m) : m_(m), version_(m.version) {}

  Result<std::string> run() {
    write_body();
    if (error_) {
      Error e = std::move(*error_);
      if (context_.empty()) return e;
      return std::move(e).with_context(context_);
    }
    return w_.take();
  }

 private:
  bool failed() const { return error_.has_value(); }
  void fail(std::string message) {
    if (!error_) error_ = Error(ErrorCode::kInvalidArgument, std::move(message));
  }

  void utf(const std::string& s, const char* what) {
    if (failed()) return;
    if (!w_.utf(s)) fail(fmt::format("{} of {} bytes is longer than the 65535 bytes a string can hold", what, s.size()));
  }
  void blob(const std::string& s, const char* what) {
    if (s.size() > static_cast<size_t>(INT32_MAX)) {
      fail(fmt::format("{} of {} bytes is too large", what, s.size()));
      return;
    }
    w_.i32(static_cast<int32_t>(s.size()));
    w_.bytes(s);
  }
  template <class T>
  bool count(const std::vector<T>& v, const char* what) {
    if (v.size() > static_cast<size_t>(INT32_MAX)) {
      fail(fmt::format("too many {} entries ({})", what, v.size()));
      return false;
    }
    w_.i32(static_cast<int32_t>(v.size()));
    return true;
  }
  bool check_type(Context c, TypeMask allowed, uint8_t type) {
    if (failed()) return false;
    if (!in_mask(context_types(c), type) || !in_mask(allowed, type)) {
      fail(illegal_type_message(c, type));
      return false;
    }
    if (type != handle_type::kNull && depth_ >= kMaxNesting) {
      fail(fmt::format("state handles nested deeper than {} levels", kMaxNesting));
      return false;
    }
    return true;
  }

  struct Nesting {
    explicit Nesting(MetadataEncoder& e) : e_(e) { ++e_.depth_; }
    ~Nesting() { --e_.depth_; }
    MetadataEncoder& e_;
  };

  void write_body() {
    if (version_ < kMinVersion || version_ > kMaxVersion) {
      fail(fmt::format("cannot write metadata version {} (known: {} to {})", version_, kMinVersion, kMaxVersion));
      return;
    }
    w_.i32(kMagic);
    w_.i32(version_);
    w_.i64(m_.checkpoint_id);
    if (version_ == 1) {
      if (!m_.master_states.empty()) return fail("version 1 has no master states");
    } else {
      count(m_.master_states, "master state");
      for (size_t i = 0; i < m_.master_states.size() && !failed(); ++i) {
        context_ = fmt::format("master state {}", i);
        write_master_state(m_.master_states[i]);
      }
      if (failed()) return;
      context_.clear();
    }
    count(m_.operators, "operator");
    for (size_t i = 0; i < m_.operators.size() && !failed(); ++i) write_operator(m_.operators[i]);
    if (failed()) return;
    context_.clear();
    write_properties();
  }

  void write_properties() {
    if (version_ <= 3) {
      if (m_.properties.present || !m_.properties_raw.empty())
        fail(fmt::format("version {} has no checkpoint properties", version_));
      return;
    }
    if (!m_.properties_raw.empty()) {
      // The stored bytes win unless the model's properties were changed since they were read.
      auto stored = decode_checkpoint_properties(m_.properties_raw);
      if (stored.ok()) {
        stored->present = true;
        CheckpointProperties wanted = m_.properties;
        wanted.present = true;
        if (*stored == wanted || !m_.properties.present) {
          w_.bytes(m_.properties_raw);
          return;
        }
      } else if (!m_.properties.present) {
        return fail("stored checkpoint properties do not decode: " + stored.error().message);
      }
    } else if (!m_.properties.present) {
      return fail(fmt::format("version {} needs checkpoint properties", version_));
    }
    w_.bytes(encode_checkpoint_properties(m_.properties));
  }

  void write_master_state(const MasterState& ms) {
    ByteWriter block;
    block.i32(ms.version);
    if (!block.utf(ms.name))
      return fail(fmt::format("master state name of {} bytes is longer than 65535 bytes", ms.name.size()));
    if (ms.payload.size() > static_cast<size_t>(INT32_MAX) - 64)
      return fail("master state payload is too large");
    block.i32(static_cast<int32_t>(ms.payload.size()));
    block.bytes(ms.payload);
    w_.u32(kMasterStateMagic);
    w_.i32(static_cast<int32_t>(block.size()));
    w_.bytes(block.buffer());
  }

  void write_operator(const OperatorState& op) {
    context_ = "operator " + operator_id_hex(op.id);
    if (version_ >= 5) {
      utf(op.name, "operator name");
      utf(op.uid, "operator uid");
    } else if (!op.name.empty() || !op.uid.empty()) {
      return fail(fmt::format("version {} cannot hold operator names or uids", version_));
    }
    w_.bytes(std::string_view(reinterpret_cast<const char*>(op.id.data()), op.id.size()));
    w_.i32(op.parallelism);
    w_.i32(op.max_parallelism);
    if (version_ <= 2) {
      if (!op.coordinator.is_null()) return fail(fmt::format("version {} has no coordinator state", version_));
      if (op.fully_finished) return fail(fmt::format("version {} has no fully finished operators", version_));
      w_.i32(op.chain_length);
    } else {
      write_stream(op.coordinator, kCoordinatorTypes);
    }
    if (op.fully_finished) {
      if (!op.coordinator.is_null()) return fail("fully finished operator has coordinator state");
      if (!op.subtasks.empty()) return fail("fully finished operator has subtask states");
      w_.i32(-1);
      return;
    }
    count(op.subtasks, "subtask");
    const std::string op_context = context_;
    for (const auto& st : op.subtasks) {
      if (failed()) return;
      context_ = fmt::format("{}, subtask {}", op_context, st.index);
      write_subtask(st);
    }
    if (!failed()) context_ = op_context;
  }

  void write_subtask(const SubtaskState& st) {
    if (st.finished) {
      if (version_ <= 2) return fail(fmt::format("version {} has no finished subtasks", version_));
      if (st.index < 0) return fail(fmt::format("finished subtask index {} is negative", st.index));
      w_.i32(static_cast<int32_t>(-static_cast<int64_t>(st.index) - 1));
      return;
    }
    if (version_ >= 3 && st.index < 0)
      return fail(fmt::format("subtask index {} is negative", st.index));
    w_.i32(st.index);
    if (version_ <= 2) {
      w_.i64(st.duration);
      count(st.legacy, "legacy state handle");
      for (const auto& h : st.legacy) write_stream(h, kStreamTypes);
    } else if (!st.legacy.empty()) {
      return fail(fmt::format("version {} has no legacy operator state", version_));
    }
    if (version_ == 1) {
      for (const auto* list : {&st.managed_operator, &st.raw_operator}) {
        count(*list, "chained operator state");
        for (const auto& h : *list) write_operator_handle(h);
      }
    } else {
      for (const auto* list : {&st.managed_operator, &st.raw_operator}) {
        if (list->size() > 1)
          return fail(fmt::format("version {} holds at most one operator state handle per slot, not {}",
                                  version_, list->size()));
        w_.i32(list->empty() ? 0 : 1);
        if (!list->empty()) write_operator_handle(list->front());
      }
    }
    write_keyed(st.managed_keyed, kKeyedTypes);
    write_keyed(st.raw_keyed, kKeyedTypes);
    if (version_ >= 3) {
      write_channels(st.input_channels, true);
      write_channels(st.result_subpartitions, false);
    } else if (!st.input_channels.empty() || !st.result_subpartitions.empty()) {
      return fail(fmt::format("version {} has no channel state", version_));
    }
    if (version_ >= 7) {
      w_.u8(st.reused_checkpoint_id ? 1 : 0);
      if (st.reused_checkpoint_id) w_.i64(*st.reused_checkpoint_id);
    } else if (st.reused_checkpoint_id) {
      fail(fmt::format("version {} cannot hold a reused checkpoint id", version_));
    }
  }

  void write_channels(const std::vector<ChannelHandle>& list, bool input) {
    const char* what = input ? "input channel state handle" : "result subpartition state handle";
    count(list, what);
    for (const auto& h : list) {
      if (failed()) return;
      bool merged = false;
      if (version_ >= 6) {
        uint8_t plain = input ? kChannelInput : kChannelOutput;
        uint8_t merged_kind = input ? kChannelMergedInput : kChannelMergedOutput;
        if (h.v6_kind != plain && h.v6_kind != merged_kind)
          return fail(fmt::format("{} kind {:#04x} cannot be written here (expected {} or {})", what,
                                  h.v6_kind, plain, merged_kind));
        w_.u8(h.v6_kind);
        merged = h.v6_kind == merged_kind;
        if (!h.has_subtask_index) return fail("only version 3 has the Flink 1.11 channel layout");
      } else {
        if (h.v6_kind != 0) return fail(fmt::format("version {} has no channel handle kinds", version_));
        if (!h.has_subtask_index && version_ != 3)
          return fail("only version 3 has the Flink 1.11 channel layout");
        // The reader picks one layout per file, so a file cannot mix them.
        if (channel_layout_ && *channel_layout_ != h.has_subtask_index)
          return fail("channel handles mix the Flink 1.11 and 1.12 layouts");
        channel_layout_ = h.has_subtask_index;
      }
      if (merged) {
        if (!h.offsets.empty() || h.gate_or_partition != 0 || h.channel_or_subpartition != 0)
          return fail("a merged channel handle stores no offsets, gate or channel index");
        w_.i32(h.subtask_index);
        w_.i64(h.size);
        write_stream(h.delegate, kStreamTypes);
        blob(h.merged_offsets, "merged channel offsets");
        continue;
      }
      if (!h.merged_offsets.empty()) return fail("only a merged channel handle has serialized offsets");
      if (h.has_subtask_index) w_.i32(h.subtask_index);
      w_.i32(h.gate_or_partition);
      w_.i32(h.channel_or_subpartition);
      count(h.offsets, "channel state offset");
      for (int64_t o : h.offsets) w_.i64(o);
      w_.i64(h.size);
      write_stream(h.delegate, kStreamTypes);
    }
  }

  void write_range(const KeyGroupRange& kg) {
    if (kg.count < 0) return fail(fmt::format("negative key-group count {}", kg.count));
    w_.i32(kg.first);
    w_.i32(kg.count);
  }

  void write_key_groups_body(const KeyedHandle& h) {
    if (h.offsets.size() != static_cast<size_t>(std::max(h.range.count, 0)))
      return fail(fmt::format("key-groups handle has {} offsets for {} key groups", h.offsets.size(),
                              h.range.count));
    write_range(h.range);
    for (int64_t o : h.offsets) w_.i64(o);
    write_stream(h.delegate, kStreamTypes);
  }

  void write_named_streams(const std::vector<NamedStream>& list, const char* what) {
    count(list, what);
    for (const auto& f : list) {
      utf(f.name, "local file name");
      write_stream(f.handle, kStreamTypes);
    }
  }

  void write_stream(const StreamHandle& h, TypeMask allowed) {
    if (!check_type(Context::kStream, allowed, h.type)) return;
    Nesting nest(*this);
    w_.u8(h.type);
    switch (h.type) {
      case handle_type::kByteStream:
        utf(h.name, "inline handle name");
        blob(h.data, "inline state");
        break;
      case handle_type::kFile:
        w_.i64(h.size);
        utf(h.path, "file path");
        break;
      case handle_type::kRelativeFile:
        utf(h.path, "relative path");
        w_.i64(h.size);
        break;
      case handle_type::kKeyGroups:
        if (h.key_groups.size() != 1 || h.key_groups.front().type != handle_type::kKeyGroups)
          return fail("a key-groups stream handle needs exactly one type-3 key-groups entry");
        write_key_groups_body(h.key_groups.front());
        break;
      case handle_type::kSegmentFile:
        if (h.scope != 0 && h.scope != 1) return fail(fmt::format("unknown file-merging scope {}", h.scope));
        w_.i64(h.start);
        w_.i64(h.size);
        w_.i32(h.scope);
        utf(h.path, "segment file path");
        utf(h.logical_id, "logical file id");
        break;
      default:
        break;
    }
  }

  void write_keyed(const KeyedHandle& h, TypeMask allowed) {
    if (!check_type(Context::kKeyed, allowed, h.type)) return;
    Nesting nest(*this);
    w_.u8(h.type);
    switch (h.type) {
      case handle_type::kKeyGroups:
      case handle_type::kSavepointKeyGroups:
        write_key_groups_body(h);
        break;
      case handle_type::kKeyGroupsWithId:
        write_key_groups_body(h);
        utf(h.handle_id, "state handle id");
        break;
      case handle_type::kIncrementalV1:
      case handle_type::kIncremental: {
        bool v2 = h.type == handle_type::kIncremental;
        w_.i64(h.checkpoint_id);
        utf(h.backend_id, "backend identifier");
        write_range(h.range);
        if (v2) w_.i64(h.checkpointed_size);
        write_stream(h.delegate, kStreamTypes);
        write_named_streams(h.shared_files, "shared file");
        write_named_streams(h.private_files, "private file");
        if (v2) utf(h.handle_id, "state handle id");
        break;
      }
      case handle_type::kChangelogBackendV1:
      case handle_type::kChangelogBackend:
        write_range(h.range);
        w_.i64(h.checkpointed_size);
        count(h.materialized, "materialized state handle");
        for (const auto& k : h.materialized) write_keyed(k, kKeyedTypes);
        count(h.non_materialized, "non-materialized state handle");
        for (const auto& k : h.non_materialized) write_keyed(k, kChangelogDeltaTypes);
        w_.i64(h.materialization_id);
        if (h.type == handle_type::kChangelogBackend) w_.i64(h.checkpoint_id);
        utf(h.handle_id, "state handle id");
        break;
      case handle_type::kInMemoryChangelog:
        write_range(h.range);
        w_.i64(h.from_sequence);
        w_.i64(h.to_sequence);
        count(h.changes, "change");
        for (const auto& c : h.changes) {
          w_.i32(c.key_group);
          blob(c.bytes, "change");
        }
        utf(h.handle_id, "state handle id");
        break;
      case handle_type::kChangelogFileV1:
      case handle_type::kChangelogFile:
        write_range(h.range);
        count(h.pieces, "change log piece");
        for (const auto& p : h.pieces) {
          w_.i64(p.offset);
          write_stream(p.handle, kStreamTypes);
        }
        w_.i64(h.state_size_field);
        w_.i64(h.checkpointed_size);
        utf(h.handle_id, "state handle id");
        if (h.type == handle_type::kChangelogFile) utf(h.storage_id, "storage identifier");
        break;
      default:
        break;
    }
  }

  void write_operator_handle(const OperatorHandle& h) {
    if (!check_type(Context::kOperator, kOperatorTypes, h.type)) return;
    Nesting nest(*this);
    w_.u8(h.type);
    if (h.type == handle_type::kNull) return;
    count(h.states, "operator state entry");
    for (const auto& e : h.states) {
      utf(e.name, "operator state name");
      if (static_cast<uint8_t>(e.mode) > static_cast<uint8_t>(DistributionMode::kBroadcast))
        return fail(fmt::format("unknown distribution mode {}", static_cast<int>(e.mode)));
      w_.u8(static_cast<uint8_t>(e.mode));
      count(e.offsets, "partition offset");
      for (int64_t o : e.offsets) w_.i64(o);
    }
    if (h.type == handle_type::kFileMergingOperator) {
      utf(h.taskowned_dir, "task-owned directory");
      utf(h.shared_dir, "shared directory");
      w_.boolean(h.empty_variant);
      write_stream(h.delegate, kFileMergingDelegateTypes);
    } else {
      write_stream(h.delegate, kStreamTypes);
    }
  }

  const Metadata& m_;
  int32_t version_;
  ByteWriter w_;
  std::optional<Error> error_;
  std::string context_;
  int depth_ = 0;
  std::optional<bool> channel_layout_;  // has_subtask_index of the first channel handle written
};

}  // namespace

Result<std::string> encode_metadata(const Metadata& m) { return MetadataEncoder(m).run(); }

}  // namespace ckpt
