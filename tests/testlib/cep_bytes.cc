// CEP snapshots and values written field by field as Flink's serializers write them.
#include "testlib/cep_bytes.h"

#include "support/byte_writer.h"
#include "testlib/table_bytes.h"

namespace ckpt::test::cep {
namespace {

constexpr std::string_view kNfa = "org.apache.flink.cep.nfa.";
constexpr std::string_view kBuffer = "org.apache.flink.cep.nfa.sharedbuffer.";

std::string cls(std::string_view package, std::string_view name) { return std::string(package) + std::string(name); }

// StringValue.writeString of an ASCII string: varint7 (length + 1), then one byte per char.
void ascii_string(ByteWriter& w, std::string_view s) {
  w.u8(static_cast<uint8_t>(s.size() + 1));
  w.bytes(s);
}

}  // namespace

std::string dewey_snapshot() {
  return simple_snapshot(cls(kNfa, "DeweyNumber$DeweyNumberSerializer$DeweyNumberSerializerSnapshot"));
}
std::string event_id_snapshot() {
  return simple_snapshot(cls(kBuffer, "EventId$EventIdSerializer$EventIdSerializerSnapshot"));
}
std::string node_id_snapshot() {
  return composite_snapshot(cls(kBuffer, "NodeId$NodeIdSerializer$NodeIdSerializerSnapshot"), 1, "",
                            {event_id_snapshot()});
}
std::string edge_snapshot() {
  return composite_snapshot(
      cls(kBuffer, "SharedBufferEdge$SharedBufferEdgeSerializer$SharedBufferEdgeSerializerSnapshot"), 1, "",
      {node_id_snapshot(), dewey_snapshot()});
}
std::string nfa_state_snapshot(int32_t outer_version, bool previous_timestamp) {
  // NFAStateSerializerSnapshot.writeOuterSnapshot (outer version 2): one boolean.
  std::string outer = outer_version >= 2 ? std::string(1, previous_timestamp ? '\1' : '\0') : std::string();
  return composite_snapshot(cls(kNfa, "NFAStateSerializerSnapshot"), outer_version, outer,
                            {dewey_snapshot(), node_id_snapshot(), event_id_snapshot()});
}
std::string node_snapshot_v2() {
  return composite_snapshot(cls(kBuffer, "SharedBufferNodeSerializerSnapshotV2"), 1, "", {edge_snapshot()});
}
std::string node_snapshot_v1() {
  return composite_snapshot(
      cls(kBuffer, "SharedBufferNode$SharedBufferNodeSerializer$SharedBufferNodeSerializerSnapshot"), 1, "",
      {composite_snapshot("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot", 1, "",
                          {edge_snapshot()})});
}
std::string lockable_snapshot(const std::string& element) {
  return composite_snapshot(cls(kBuffer, "LockableTypeSerializerSnapshot"), 1, "", {element});
}

std::string dewey(const std::vector<int32_t>& digits) {
  ByteWriter w;
  w.i32(static_cast<int32_t>(digits.size()));
  for (int32_t d : digits) w.i32(d);
  return w.take();
}

std::string event_id(EventId e) {
  ByteWriter w;
  w.i32(e.id);
  w.i64(e.timestamp);
  return w.take();
}

std::string node_id(const std::optional<NodeId>& n) {
  ByteWriter w;
  w.u8(n ? 1 : 0);
  if (n) {
    w.bytes(event_id(n->event));
    ascii_string(w, n->page);
  }
  return w.take();
}

std::string edge(const std::optional<NodeId>& target, const std::vector<int32_t>& version) {
  return node_id(target) + dewey(version);
}

std::string nfa_state(const std::vector<ComputationState>& partial, const std::vector<ComputationState>& completed,
                      bool previous_timestamp) {
  ByteWriter w;
  for (const auto* states : {&partial, &completed}) {
    w.i32(static_cast<int32_t>(states->size()));
    for (const auto& s : *states) {
      ascii_string(w, s.name);
      w.bytes(node_id(s.previous));
      w.bytes(dewey(s.version));
      w.i64(s.start_timestamp);
      if (previous_timestamp) w.i64(s.previous_timestamp);
      w.u8(s.start_event ? 1 : 0);
      if (s.start_event) w.bytes(event_id(*s.start_event));
    }
  }
  return w.take();
}

std::string node_v2(const std::vector<std::pair<int32_t, std::string>>& locked_edges) {
  ByteWriter w;
  w.i32(static_cast<int32_t>(locked_edges.size()));
  for (const auto& [ref_count, e] : locked_edges) {
    w.i32(ref_count);
    w.bytes(e);
  }
  return w.take();
}

std::string lockable(int32_t ref_count, std::string_view element) {
  ByteWriter w;
  w.i32(ref_count);
  w.bytes(element);
  return w.take();
}

}  // namespace ckpt::test::cep
