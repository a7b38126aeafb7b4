// The `_metadata` codec on every real Flink snapshot: exact round trips and agreement with the
// independent decoding in flink-expected.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "testlib/test_support.h"

using namespace ckpt;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* handle_class(uint8_t type) {
  switch (type) {
    case handle_type::kByteStream: return "ByteStreamStateHandle";
    case handle_type::kFile: return "FileStateHandle";
    case handle_type::kKeyGroups:
    case handle_type::kKeyGroupsWithId: return "KeyGroupsStateHandle";
    case handle_type::kPartitionableOperator: return "OperatorStreamStateHandle";
    case handle_type::kIncrementalV1:
    case handle_type::kIncremental: return "IncrementalRemoteKeyedStateHandle";
    case handle_type::kRelativeFile: return "RelativeFileStateHandle";
    case handle_type::kSavepointKeyGroups: return "KeyGroupsSavepointStateHandle";
    case handle_type::kChangelogBackendV1:
    case handle_type::kChangelogBackend: return "ChangelogStateBackendHandle";
    case handle_type::kInMemoryChangelog: return "InMemoryChangelogStateHandle";
    case handle_type::kChangelogFileV1:
    case handle_type::kChangelogFile: return "ChangelogStateHandleStreamImpl";
  }
  return "?";
}

json range_json(const KeyGroupRange& r) {
  return {{"start", r.first}, {"end", r.last()}, {"count", r.count}};
}

// The model in the shape of flink-expected/*.metadata.json, for the kinds the corpus holds; a
// kind the expected files never show is rendered with its type only, so a mismatch shows up.
json stream_json(const StreamHandle& h) {
  if (h.is_null()) return nullptr;
  json j = {{"type", h.type}, {"kind", handle_class(h.type)}};
  switch (h.type) {
    case handle_type::kByteStream:
      j["handle_name"] = h.name;
      j["data_length"] = h.data.size();
      break;
    case handle_type::kRelativeFile:
      j["relative_path"] = h.path;
      j["state_size"] = h.size;
      break;
    default:
      break;
  }
  return j;
}

json keyed_json(const KeyedHandle& h) {
  if (h.is_null()) return nullptr;
  json j = {{"type", h.type}, {"kind", handle_class(h.type)}, {"key_group_range", range_json(h.range)}};
  auto named = [](const std::vector<NamedStream>& list) {
    json a = json::array();
    for (const auto& f : list) a.push_back({{"local_path", f.name}, {"handle", stream_json(f.handle)}});
    return a;
  };
  switch (h.type) {
    case handle_type::kKeyGroups:
    case handle_type::kSavepointKeyGroups:
    case handle_type::kKeyGroupsWithId:
      j["offsets"] = h.offsets;
      j["delegate"] = stream_json(h.delegate);
      if (h.type == handle_type::kKeyGroupsWithId) j["state_handle_id"] = h.handle_id;
      break;
    case handle_type::kIncremental:
      j["backend_identifier"] = h.backend_id;
      j["checkpoint_id"] = h.checkpoint_id;
      j["checkpointed_size"] = h.checkpointed_size;
      j["metadata"] = stream_json(h.delegate);
      j["shared_state"] = named(h.shared_files);
      j["private_state"] = named(h.private_files);
      j["state_handle_id"] = h.handle_id;
      break;
    case handle_type::kChangelogBackend: {
      j["checkpoint_id"] = h.checkpoint_id;
      j["checkpointed_size"] = h.checkpointed_size;
      j["materialization_id"] = h.materialization_id;
      json mat = json::array(), non = json::array();
      for (const auto& k : h.materialized) mat.push_back(keyed_json(k));
      for (const auto& k : h.non_materialized) non.push_back(keyed_json(k));
      j["materialized"] = mat;
      j["non_materialized"] = non;
      j["state_handle_id"] = h.handle_id;
      break;
    }
    case handle_type::kInMemoryChangelog: {
      j["from_sequence_number"] = h.from_sequence;
      j["to_sequence_number"] = h.to_sequence;
      json changes = json::array();
      for (const auto& c : h.changes) changes.push_back({{"key_group", c.key_group}, {"data_length", c.bytes.size()}});
      j["changes"] = changes;
      j["state_handle_id"] = h.handle_id;
      break;
    }
    default:
      break;
  }
  return j;
}

json operator_handle_json(const std::vector<OperatorHandle>& slot) {
  if (slot.empty() || slot.front().is_null()) return nullptr;
  const OperatorHandle& h = slot.front();
  json states = json::array();
  for (const auto& e : h.states)
    states.push_back({{"name", e.name}, {"mode", distribution_mode_name(e.mode)}, {"offsets", e.offsets}});
  return {{"type", h.type}, {"kind", handle_class(h.type)}, {"states", states}, {"delegate", stream_json(h.delegate)}};
}

json channels_json(const std::vector<ChannelHandle>& list, bool input) {
  json a = json::array();
  for (const auto& c : list) {
    json j = {{"subtask_index", c.subtask_index}, {"offsets", c.offsets}, {"state_size", c.size},
              {"delegate", stream_json(c.delegate)}};
    j[input ? "gate_index" : "partition_index"] = c.gate_or_partition;
    j[input ? "channel_index" : "subpartition_index"] = c.channel_or_subpartition;
    a.push_back(j);
  }
  return a;
}

json metadata_json(const Metadata& m) {
  json ops = json::array();
  for (const auto& op : m.operators) {
    json o = {{"operator_id", operator_id_hex(op.id)}, {"parallelism", op.parallelism},
              {"max_parallelism", op.max_parallelism}, {"fully_finished", op.fully_finished}};
    if (m.version <= 2) o["chain_length"] = op.chain_length;
    else o["coordinator_state"] = stream_json(op.coordinator);
    json subs = json::array();
    for (const auto& st : op.subtasks) {
      json s = {{"index", st.index},
                {"finished", st.finished},
                {"managed_operator_state", operator_handle_json(st.managed_operator)},
                {"raw_operator_state", operator_handle_json(st.raw_operator)},
                {"managed_keyed_state", keyed_json(st.managed_keyed)},
                {"raw_keyed_state", keyed_json(st.raw_keyed)}};
      if (m.version <= 2) {
        s["legacy_duration"] = st.duration;
        json legacy = json::array();
        for (const auto& h : st.legacy) legacy.push_back(stream_json(h));
        s["legacy_operator_states"] = legacy;
      } else {
        s["input_channel_state"] = channels_json(st.input_channels, true);
        s["result_subpartition_state"] = channels_json(st.result_subpartitions, false);
      }
      subs.push_back(s);
    }
    o["subtasks"] = subs;
    ops.push_back(o);
  }
  json j = {{"version", m.version}, {"checkpoint_id", m.checkpoint_id}, {"master_states", json::array()},
            {"operators", ops}};
  if (m.properties.present) {
    const CheckpointProperties& p = m.properties;
    json type = {{"class", p.type_class}, {"name", p.type_name}};
    if (!p.sharing_files_strategy.empty()) type["sharingFilesStrategy"] = p.sharing_files_strategy;
    if (!p.format_type.empty()) type["formatType"] = p.format_type;
    if (!p.post_checkpoint_action.empty()) type["postCheckpointAction"] = p.post_checkpoint_action;
    j["properties"] = {{"class", "org.apache.flink.runtime.checkpoint.CheckpointProperties"},
                       {"forced", p.forced},
                       {"discardSubsumed", p.discard_subsumed},
                       {"discardFinished", p.discard_finished},
                       {"discardCancelled", p.discard_cancelled},
                       {"discardFailed", p.discard_failed},
                       {"discardSuspended", p.discard_suspended},
                       {"unclaimed", p.unclaimed},
                       {"checkpointType", type}};
  }
  return j;
}

// Visits every stream handle of a file, nested ones included.
template <class F>
void each_stream(const StreamHandle& h, F&& f);
template <class F>
void each_stream(const KeyedHandle& h, F&& f) {
  each_stream(h.delegate, f);
  for (const auto& n : h.shared_files) each_stream(n.handle, f);
  for (const auto& n : h.private_files) each_stream(n.handle, f);
  for (const auto& k : h.materialized) each_stream(k, f);
  for (const auto& k : h.non_materialized) each_stream(k, f);
  for (const auto& p : h.pieces) each_stream(p.handle, f);
}
template <class F>
void each_stream(const StreamHandle& h, F&& f) {
  f(h);
  for (const auto& k : h.key_groups) each_stream(k, f);
}
template <class F>
void each_stream(const Metadata& m, F&& f) {
  for (const auto& op : m.operators) {
    each_stream(op.coordinator, f);
    for (const auto& st : op.subtasks) {
      for (const auto& h : st.legacy) each_stream(h, f);
      for (const auto* slot : {&st.managed_operator, &st.raw_operator})
        for (const auto& h : *slot) each_stream(h.delegate, f);
      each_stream(st.managed_keyed, f);
      each_stream(st.raw_keyed, f);
      for (const auto* list : {&st.input_channels, &st.result_subpartitions})
        for (const auto& c : *list) each_stream(c.delegate, f);
    }
  }
}

}  // namespace

TEST_CASE("every corpus _metadata decodes to its last byte and encodes back to the same bytes", "[corpus][format]") {
  // Proves the reader consumes every real file exactly and the writer reproduces it byte for byte.
  CKPT_REQUIRE_SHARED();
  std::map<int, int> versions;
  auto dirs = ckpt::test::corpus_snapshots();
  for (const auto& dir : dirs) {
    INFO(dir);
    std::string bytes = ckpt::test::read_file(dir + "/_metadata");
    auto m = read_metadata_file(dir);
    if (!m.ok()) FAIL(m.error().to_string());
    ++versions[m->version];
    auto out = encode_metadata(*m);
    if (!out.ok()) FAIL(out.error().to_string());
    CHECK(out->size() == bytes.size());
    CHECK(*out == bytes);
    auto again = decode_metadata(*out);
    REQUIRE(again.ok());
    CHECK(*again == *m);
  }
  CHECK(dirs.size() == 107);
  CHECK(versions == std::map<int, int>{{2, 12}, {3, 29}, {4, 66}});
}

TEST_CASE("decoded corpus files agree with the independent decoding in flink-expected", "[corpus][format]") {
  // Proves operator ids, parallelism, every handle's type, ranges, offsets, file references,
  // sizes, ids and the V4 properties match a decoder written separately from Flink's source.
  CKPT_REQUIRE_SHARED();
  int compared = 0;
  for (const auto& dir : ckpt::test::corpus_snapshots()) {
    std::string name = fs::path(dir).filename().string();
    INFO(name);
    std::ifstream in(ckpt::test::expected_dir() + "/" + name + ".metadata.json");
    REQUIRE(in.good());
    json expected = json::parse(in);
    auto m = read_metadata_file(dir);
    REQUIRE(m.ok());
    CHECK(expected["bytes_consumed"] == expected["file_size"]);
    CHECK(expected["file_size"] == fs::file_size(dir + "/_metadata"));
    for (const char* k : {"bytes_consumed", "file_size", "format", "magic", "channel_state_layout"}) expected.erase(k);
    json actual = metadata_json(*m);
    if (actual != expected) {
      json patch = json::diff(expected, actual);
      FAIL("differs from flink-expected: " << patch.dump().substr(0, 2000));
    }
    ++compared;
  }
  CHECK(compared == 107);
}

TEST_CASE("the corpus holds 2 - 194 relative file references - each naming a file of the stored size", "[corpus][format]") {
  // Proves path facts of formats/metadata.md §10 from our own decoding: relative handles are counted
  // through every nesting level and every one resolves beside _metadata with the stored size.
  CKPT_REQUIRE_SHARED();
  int relative = 0, absolute = 0, segments = 0;
  for (const auto& dir : ckpt::test::corpus_snapshots()) {
    auto m = read_metadata_file(dir);
    REQUIRE(m.ok());
    each_stream(*m, [&](const StreamHandle& h) {
      if (h.type == handle_type::kRelativeFile) {
        ++relative;
        std::error_code ec;
        auto size = fs::file_size(dir + "/" + h.path, ec);
        INFO(dir << "/" << h.path);
        CHECK(!ec);
        CHECK(static_cast<int64_t>(size) == h.size);
      }
      if (h.type == handle_type::kFile) ++absolute;
      if (h.type == handle_type::kSegmentFile || h.type == handle_type::kEmptySegmentFile) ++segments;
    });
  }
  CHECK(relative == 2194);
  CHECK(absolute == 0);
  CHECK(segments == 0);
}
