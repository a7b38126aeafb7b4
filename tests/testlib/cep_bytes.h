// tests/testlib/cep_bytes.h - the CEP library's serializer snapshots and values, built the way
// Flink 1.16+ writes them (NFAStateSerializer, SharedBufferNodeSerializer, Lockable,
// NodeId, EventId, DeweyNumber), for the unit tests and the fuzz seeds. No test framework:
// make_table_seeds links it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::test::cep {

// Versioned snapshots as a CepOperator's state meta info nests them.
std::string dewey_snapshot();
std::string event_id_snapshot();
std::string node_id_snapshot();  // nested: EventId
std::string edge_snapshot();     // nested: NodeId, DeweyNumber
// NFAStateSerializerSnapshot: outer version 1 (no previous timestamp) or 2 (its flag stored).
std::string nfa_state_snapshot(int32_t outer_version, bool previous_timestamp);
std::string node_snapshot_v2();  // SharedBufferNodeSerializerSnapshotV2, nested: the edge
std::string node_snapshot_v1();  // SharedBufferNode$...Snapshot, nested: ListSerializer of edges
std::string lockable_snapshot(const std::string& element);

struct EventId {
  int32_t id;
  int64_t timestamp;
};
struct NodeId {
  EventId event;
  std::string page;
};
struct ComputationState {
  std::string name;
  std::optional<NodeId> previous;
  std::vector<int32_t> version;
  int64_t start_timestamp;
  int64_t previous_timestamp;  // written only when the snapshot says so
  std::optional<EventId> start_event;
};

// Values: DeweyNumberSerializer, EventIdSerializer, NodeIdSerializer (nullopt: the 0 byte),
// SharedBufferEdgeSerializer, NFAStateSerializer, SharedBufferNodeSerializer (v2: edges with
// their ref counts), Lockable (ref count + the element's bytes).
std::string dewey(const std::vector<int32_t>& digits);
std::string event_id(EventId e);
std::string node_id(const std::optional<NodeId>& n);
std::string edge(const std::optional<NodeId>& target, const std::vector<int32_t>& version);
std::string nfa_state(const std::vector<ComputationState>& partial, const std::vector<ComputationState>& completed,
                      bool previous_timestamp);
std::string node_v2(const std::vector<std::pair<int32_t, std::string>>& locked_edges);
std::string lockable(int32_t ref_count, std::string_view element);

}  // namespace ckpt::test::cep
