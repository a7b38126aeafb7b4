// The serialization proxies inside real snapshots: keyed streams, RocksDB meta streams and
// operator-state streams parse, name the states the independent decoding found, and write back
// byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "support/byte_reader.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// The bytes of a stream handle of a corpus snapshot: inline, relative, or an absolute path
// whose file was copied beside `_metadata`.
std::optional<std::string> stream_bytes(const StreamHandle& s, const std::string& dir) {
  if (s.type == handle_type::kByteStream) return s.data;
  if (s.type == handle_type::kRelativeFile) return test::read_file(dir + "/" + s.path);
  if (s.type == handle_type::kFile) {
    std::string local = dir + "/" + fs::path(s.path).filename().string();
    if (fs::exists(local)) return test::read_file(local);
  }
  return std::nullopt;
}

struct Proxies {
  std::map<std::string, std::map<std::string, StateKind>> states;  // operator hex -> name -> kind
  int keyed = 0, operator_streams = 0, rewritten = 0;
};

void check_keyed(const KeyedHandle& h, const std::string& op, const std::string& dir, Proxies& out) {
  for (const auto& m : h.materialized) check_keyed(m, op, dir, out);
  bool stream_layout = h.type == handle_type::kKeyGroups || h.type == handle_type::kKeyGroupsWithId ||
                       h.type == handle_type::kSavepointKeyGroups;
  bool rocks = h.type == handle_type::kIncremental || h.type == handle_type::kIncrementalV1;
  if (!stream_layout && !rocks) return;
  auto bytes = stream_bytes(h.delegate, dir);
  REQUIRE(bytes);
  // The proxy ends before the first key group's data; a RocksDB meta stream is only the proxy.
  size_t end = bytes->size();
  if (stream_layout)
    for (int64_t off : h.offsets)
      if (off > 0) { end = std::min(end, static_cast<size_t>(off)); }
  ByteReader r(bytes->data(), end);
  auto meta = read_keyed_backend_meta(r);
  if (!meta.ok()) FAIL(meta.error().to_string());
  if (rocks) CHECK(r.at_end());
  if (stream_layout && !h.offsets.empty() && h.offsets[0] > 0) CHECK(r.position() <= end);
  CHECK(meta->version == 6);
  CHECK_FALSE(meta->key_serializer.snapshot_class.empty());
  for (const auto& s : meta->states) {
    CHECK(is_keyed_kind(s.kind()));
    CHECK(s.value_serializer() != nullptr);
    out.states[op][s.name] = s.kind();
  }
  auto again = write_keyed_backend_meta(*meta);
  REQUIRE(again.ok());
  CHECK(*again == bytes->substr(0, r.position()));
  ++out.keyed;
  ++out.rewritten;
}

void check_operator(const OperatorHandle& h, const std::string& op, const std::string& dir, Proxies& out) {
  if (h.is_null()) return;
  auto bytes = stream_bytes(h.delegate, dir);
  REQUIRE(bytes);
  size_t end = bytes->size();
  for (const auto& st : h.states)
    for (int64_t off : st.offsets) end = std::min(end, static_cast<size_t>(off));
  ByteReader r(bytes->data(), end);
  auto meta = read_operator_backend_meta(r);
  if (!meta.ok()) FAIL(meta.error().to_string());
  // Every state the handle has offsets for is described by the proxy, with the same mode.
  for (const auto& st : h.states) {
    INFO(st.name);
    const StateMetaInfo* m = meta->find(st.name);
    REQUIRE(m != nullptr);
    CHECK(std::string(state_kind_name(m->kind())) == distribution_mode_name(st.mode));
  }
  for (const auto* list : {&meta->list_states, &meta->broadcast_states})
    for (const auto& s : *list) out.states[op][s.name] = s.kind();
  auto again = write_operator_backend_meta(*meta);
  REQUIRE(again.ok());
  CHECK(*again == bytes->substr(0, r.position()));
  ++out.operator_streams;
  ++out.rewritten;
}

}  // namespace

TEST_CASE("every keyed and operator proxy of the corpus parses - names the expected states and writes back exactly",
          "[corpus][state]") {
  // Proves the proxy readers on 107 real snapshots of Flink 1.8-1.20, heap and RocksDB, and
  // cross-checks state names and kinds with the independent decoding in flink-expected.
  CKPT_REQUIRE_SHARED();
  int total_keyed = 0, total_operator = 0, names_checked = 0;
  for (const auto& dir : test::corpus_snapshots()) {
    INFO(dir);
    auto md = read_metadata_file(dir);
    REQUIRE(md.ok());
    Proxies p;
    for (const auto& op : md->operators) {
      std::string id = operator_id_hex(op.id);
      for (const auto& st : op.subtasks) {
        check_keyed(st.managed_keyed, id, dir, p);
        for (const auto& oh : st.managed_operator) check_operator(oh, id, dir, p);
      }
    }
    total_keyed += p.keyed;
    total_operator += p.operator_streams;
    std::ifstream in(test::expected_dir() + "/" + fs::path(dir).filename().string() + ".ndjson");
    REQUIRE(in);
    for (std::string line; std::getline(in, line);) {
      auto e = nlohmann::json::parse(line);
      if (e.value("raw_keyed", false)) continue;  // legacy timers: no proxy
      std::string op = e["operator"], name = e["state"];
      auto ops = p.states.find(op);
      if (ops == p.states.end() && e["kind"] == "keyed") continue;  // change log without a materialized part
      INFO(op << " " << name);
      REQUIRE(ops != p.states.end());
      auto it = ops->second.find(name);
      REQUIRE(it != ops->second.end());
      StateKind k = it->second;
      if (e["kind"] == "operator") {
        CHECK(std::string(state_kind_name(k)) == e["mode"].get<std::string>());
      } else if (name.starts_with("_timer_state/")) {
        CHECK(k == StateKind::kPriorityQueue);
      } else {
        CHECK(is_keyed_kind(k));
        if (e.contains("user_key")) CHECK(k == StateKind::kMap);
        if (k == StateKind::kList) CHECK(e["value"].is_array());
      }
      ++names_checked;
    }
  }
  CHECK(total_keyed > 300);
  CHECK(total_operator > 300);
  CHECK(names_checked > 5000);
}
