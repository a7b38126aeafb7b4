// Decoders of the CEP library's serializers (MATCH_RECOGNIZE and DataStream CEP): the NFA's
// computation states and the shared buffer's ids, nodes, edges and locks (formats/serializers.md §14).
#include <string_view>

#include <fmt/format.h>

#include "types/flink_string.h"
#include "types/value_decoders.h"

namespace ckpt::decoders {
namespace {

constexpr std::string_view kNfa = "org.apache.flink.cep.nfa.";
constexpr std::string_view kBuffer = "org.apache.flink.cep.nfa.sharedbuffer.";

enum class Cep {
  kDewey,      // i32 n + n x i32 digits
  kEventId,    // i32 id + i64 timestamp
  kNodeId,     // u8 present; EventId + StringValue page name
  kEdge,       // NodeId target + DeweyNumber
  kNodeList,   // SharedBufferNode before Flink 1.15: ListSerializer of edges
  kNodeLocks,  // SharedBufferNode since 1.15: i32 n + n x (i32 ref count + edge)
  kLockable,   // i32 ref count + element
  kNfaState,   // partial then completed matches: i32 n + n computation states each
};

// The snapshot classes, the value layout each stands for and how many nested snapshots its
// composite form holds (0 for the simple ones).
struct CepClass {
  std::string_view prefix;
  std::string_view name;
  Cep kind;
  size_t children;
  std::string_view serializer;  // the serializer class, where the snapshot's name does not give it
};

constexpr CepClass kClasses[] = {
    {kNfa, "DeweyNumber$DeweyNumberSerializer$DeweyNumberSerializerSnapshot", Cep::kDewey, 0, {}},
    {kBuffer, "EventId$EventIdSerializer$EventIdSerializerSnapshot", Cep::kEventId, 0, {}},
    {kBuffer, "NodeId$NodeIdSerializer$NodeIdSerializerSnapshot", Cep::kNodeId, 1, {}},
    {kBuffer, "SharedBufferEdge$SharedBufferEdgeSerializer$SharedBufferEdgeSerializerSnapshot", Cep::kEdge, 2, {}},
    {kBuffer, "SharedBufferNode$SharedBufferNodeSerializer$SharedBufferNodeSerializerSnapshot", Cep::kNodeList, 1, {}},
    {kBuffer, "SharedBufferNodeSerializerSnapshotV2", Cep::kNodeLocks, 1,
     "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferNodeSerializer"},
    {kBuffer, "LockableTypeSerializerSnapshot", Cep::kLockable, 1,
     "org.apache.flink.cep.nfa.sharedbuffer.Lockable$LockableTypeSerializer"},
    {kNfa, "NFAStateSerializerSnapshot", Cep::kNfaState, 3, {}},
};

const CepClass* cep_class(std::string_view c) {
  for (const auto& k : kClasses)
    if (c.size() == k.prefix.size() + k.name.size() && c.starts_with(k.prefix) && c.ends_with(k.name)) return &k;
  return nullptr;
}

class CepDecoder final : public ValueDecoder {
 public:
  CepDecoder(std::string serializer, Cep kind, std::vector<DecoderPtr> children, bool previous_timestamp)
      : ValueDecoder(std::move(serializer)),
        kind_(kind),
        children_(std::move(children)),
        previous_timestamp_(previous_timestamp) {}

  bool decodable() const override { return all_decodable(children_); }
  std::string why_not() const override { return first_why_not(children_); }
  int32_t fixed_length() const override { return kind_ == Cep::kEventId ? 12 : -1; }

  void read(ByteReader& r, nlohmann::json& out) const override {
    switch (kind_) {
      case Cep::kDewey: out = dewey(r); return;
      case Cep::kEventId: out = event_id(r); return;
      case Cep::kNodeId:
        // NodeIdSerializer.deserialize: a 0 byte is null, any other byte a present id.
        if (r.u8() == 0) {
          out = nullptr;
          return;
        }
        out = nlohmann::json::object();
        children_[0]->read(r, out["event_id"]);
        if (r.ok()) out["page_name"] = string_value(r);
        return;
      case Cep::kEdge:
        out = nlohmann::json::object();
        children_[0]->read(r, out["target"]);
        if (r.ok()) children_[1]->read(r, out["dewey_number"]);
        return;
      case Cep::kNodeList:
        out = nlohmann::json::object();
        children_[0]->read(r, out["edges"]);
        return;
      case Cep::kNodeLocks: {
        // An edge is at least a null target byte and an empty DeweyNumber.
        int32_t n = r.count(4 + 1 + 4, "shared buffer edge");
        nlohmann::json edges = nlohmann::json::array();
        for (int32_t i = 0; i < n && r.ok(); ++i) lockable(r, *children_[0], edges.emplace_back());
        out = {{"edges", std::move(edges)}};
        return;
      }
      case Cep::kLockable: lockable(r, *children_[0], out); return;
      case Cep::kNfaState: {
        nlohmann::json partial = computation_states(r);
        nlohmann::json completed;
        if (r.ok()) completed = computation_states(r);
        out = {{"partial_matches", std::move(partial)}, {"completed_matches", std::move(completed)}};
        return;
      }
    }
  }

 private:
  // Flink's DeweyNumber.toString(): the digits joined by dots.
  static nlohmann::json dewey(ByteReader& r) {
    int32_t n = r.count(4, "dewey number digit");
    std::string text;
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      if (i > 0) text += '.';
      text += std::to_string(r.i32());
    }
    return text;
  }
  static nlohmann::json event_id(ByteReader& r) {
    int32_t id = r.i32();
    int64_t timestamp = r.i64();
    return {{"id", id}, {"timestamp", timestamp}};
  }
  static nlohmann::json string_value(ByteReader& r) {
    std::string s;
    if (read_flink_string(r, &s)) return s;
    return nullptr;
  }
  static void lockable(ByteReader& r, const ValueDecoder& element, nlohmann::json& out) {
    int32_t ref_count = r.i32();
    nlohmann::json v;
    if (r.ok()) element.read(r, v);
    out = {{"ref_count", ref_count}, {"element", std::move(v)}};
  }

  // NFAStateSerializer.deserializeComputationStates / deserializeSingleComputationState.
  nlohmann::json computation_states(ByteReader& r) const {
    // Name, null node id, empty version, start timestamp and the start event's flag at least.
    size_t min_size = 1 + 1 + 4 + 8 + (previous_timestamp_ ? 8 : 0) + 1;
    int32_t n = r.count(min_size, "computation state");
    nlohmann::json states = nlohmann::json::array();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      nlohmann::json& s = states.emplace_back(nlohmann::json::object());
      s["state_name"] = string_value(r);
      if (r.ok()) children_[1]->read(r, s["previous_entry"]);
      if (r.ok()) children_[0]->read(r, s["version"]);
      s["start_timestamp"] = r.i64();
      if (previous_timestamp_) s["previous_timestamp"] = r.i64();
      // deserializeStartEvent: only a 1 byte is followed by an event id.
      if (r.u8() == 1)
        children_[2]->read(r, s["start_event_id"]);
      else
        s["start_event_id"] = nullptr;
    }
    return states;
  }

  Cep kind_;
  std::vector<DecoderPtr> children_;
  bool previous_timestamp_;
};

}  // namespace

Result<DecoderPtr> make_cep(const SerializerSnapshot& s) {
  const CepClass* k = cep_class(s.snapshot_class);
  if (!k) return DecoderPtr();
  bool composite = k->children > 0;
  if (composite != (s.form == SnapshotForm::kComposite) || (!composite && s.form != SnapshotForm::kSimple))
    return DecoderPtr();
  if (s.nested.size() != k->children)
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} snapshot has {} nested serializers, expected {}", s.display_name(), s.nested.size(),
                             k->children),
                 s.offset);
  std::vector<DecoderPtr> children;
  for (const auto& n : s.nested) {
    CKPT_ASSIGN_OR_RETURN(auto d, make_decoder(n));
    children.push_back(std::move(d));
  }
  std::string serializer = k->serializer.empty() ? s.serializer_class : std::string(k->serializer);
  return DecoderPtr(
      std::make_unique<CepDecoder>(std::move(serializer), k->kind, std::move(children), s.nfa_previous_timestamp));
}

}  // namespace ckpt::decoders
