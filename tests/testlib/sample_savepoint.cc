// Builds the sample savepoint from the model with the project's own writers.
#include "testlib/sample_savepoint.h"

#include <cstdint>
#include <filesystem>

#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "types/value_decoder.h"
#include "support/byte_writer.h"
#include "testlib/snapshot_classes.h"

namespace ckpt::test {
namespace {

constexpr int32_t kMaxParallelism = 128;
constexpr int32_t kKeyedParallelism = 2;

// A serializer snapshot of a configuration-less serializer, behind the serialization proxy
// (formats/keyed-state.md §2.1, §2.2, §2.3): proxy version 2, class name, snapshot version 3, no body.
void proxied_simple_snapshot(ByteWriter& w, const char* cls) {
  w.i32(2);
  w.utf(cls);
  w.i32(3);
}

// StateMetaInfoSnapshot (formats/keyed-state.md §3) with one option and the serializers in the order given.
void meta_info(ByteWriter& w, const std::string& name, int32_t backend_type, const char* option_key,
               const char* option_value, std::initializer_list<std::pair<const char*, const char*>> serializers) {
  w.utf(name);
  w.i32(backend_type);
  w.i32(1);
  w.utf(option_key);
  w.utf(option_value);
  w.i32(static_cast<int32_t>(serializers.size()));
  for (const auto& [role, cls] : serializers) {
    w.utf(role);
    proxied_simple_snapshot(w, cls);
  }
}

// KeyGroupRangeAssignment of a Long key: the murmur hash of Long.hashCode().
int32_t key_group_of(int64_t key) {
  auto u = static_cast<uint64_t>(key);
  return key_group_for_hash(static_cast<int32_t>(static_cast<uint32_t>(u ^ (u >> 32))), kMaxParallelism);
}

// Subtask i of p owns key groups ceil(i*M/p) .. floor(((i+1)*M - 1)/p) (formats/keyed-state.md §5).
KeyGroupRange range_of(int32_t subtask) {
  int32_t first = (subtask * kMaxParallelism + kKeyedParallelism - 1) / kKeyedParallelism;
  int32_t last = ((subtask + 1) * kMaxParallelism - 1) / kKeyedParallelism;
  return {first, last - first + 1};
}

// Heap key-group layout (formats/keyed-state.md §6): the keyed proxy, then per key group of the range its number and
// the one state's entries (namespace, key, value). Offsets of every key group go to `offsets`.
std::string heap_keyed_stream(KeyGroupRange range, std::vector<int64_t>* offsets) {
  ByteWriter w;
  w.i32(6);         // keyed backend proxy version
  w.boolean(false);  // no snapshot compression
  proxied_simple_snapshot(w, kLongSnapshot);  // key serializer
  w.i16(1);
  meta_info(w, "count", 0 /* KEY_VALUE */, "KEYED_STATE_TYPE", "VALUE",
            {{"VALUE_SERIALIZER", kLongSnapshot}, {"NAMESPACE_SERIALIZER", kVoidSnapshot}});
  for (int32_t kg = range.first; kg <= range.last(); ++kg) {
    offsets->push_back(static_cast<int64_t>(w.size()));
    w.i32(kg);
    w.i16(0);  // state id of "count"
    int32_t n = 0;
    for (const auto& [key, count] : sample_counts()) n += key_group_of(key) == kg;
    w.i32(n);
    for (const auto& [key, count] : sample_counts()) {
      if (key_group_of(key) != kg) continue;
      w.u8(0);  // VoidNamespace
      w.i64(key);
      w.i64(count);
    }
  }
  return w.take();
}

// Operator backend proxy v6 (formats/keyed-state.md §14) with one list state of Longs, then the elements.
std::string operator_stream(const std::vector<int64_t>& elements, std::vector<int64_t>* offsets) {
  ByteWriter w;
  w.i32(6);
  w.boolean(false);
  w.i16(1);
  meta_info(w, "source-offsets", 1 /* OPERATOR */, "OPERATOR_STATE_DISTRIBUTION_MODE", "SPLIT_DISTRIBUTE",
            {{"VALUE_SERIALIZER", kLongSnapshot}});
  w.i16(0);  // no broadcast states
  for (int64_t e : elements) {
    offsets->push_back(static_cast<int64_t>(w.size()));
    w.i64(e);
  }
  return w.take();
}

OperatorId id_of(const char* hex) {
  OperatorId id{};
  parse_operator_id(hex, &id);
  return id;
}

StreamHandle relative_file_holding(const std::string& name, const std::string& bytes) {
  StreamHandle h;
  h.type = handle_type::kRelativeFile;
  h.path = name;
  h.size = static_cast<int64_t>(bytes.size());
  return h;
}

}  // namespace

const std::map<int64_t, int64_t>& sample_counts() {
  static const std::map<int64_t, int64_t> counts = {{1, 3}, {2, 1}, {3, 4}, {4, 1}, {5, 5}, {6, 9}, {7, 2}, {8, 6}};
  return counts;
}

Result<std::map<std::string, std::string>> build_sample_savepoint() {
  std::map<std::string, std::string> files;
  Metadata m;
  m.version = 4;
  m.checkpoint_id = 7;

  OperatorState source;
  source.id = id_of("bc764cd8ddf7a0cff126f51c16239658");
  source.parallelism = 1;
  source.max_parallelism = kMaxParallelism;
  {
    SubtaskState st;
    st.index = 0;
    OperatorHandle h;
    h.type = handle_type::kPartitionableOperator;
    OperatorStateEntry e;
    e.name = "source-offsets";
    e.mode = DistributionMode::kSplitDistribute;
    std::string bytes = operator_stream({0, 42, 4242}, &e.offsets);
    h.states.push_back(std::move(e));
    const std::string name = "0b6e3f4c-5a2d-4e1f-8c7b-9d0a1e2f3a4b";
    h.delegate = relative_file_holding(name, bytes);
    files[name] = std::move(bytes);
    st.managed_operator.push_back(std::move(h));
    source.subtasks.push_back(std::move(st));
  }

  OperatorState counter;
  counter.id = id_of("20ba6b65f97481d5570070de90e4e791");
  counter.parallelism = kKeyedParallelism;
  counter.max_parallelism = kMaxParallelism;
  const char* const kKeyedFiles[] = {"6f1d2c3b-4a5e-4f60-9b7c-8d9e0f1a2b3c", "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"};
  const char* const kHandleIds[] = {"3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b0a", "d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70"};
  for (int32_t i = 0; i < kKeyedParallelism; ++i) {
    SubtaskState st;
    st.index = i;
    KeyedHandle& k = st.managed_keyed;
    k.type = handle_type::kKeyGroupsWithId;
    k.range = range_of(i);
    std::string bytes = heap_keyed_stream(k.range, &k.offsets);
    k.delegate = relative_file_holding(kKeyedFiles[i], bytes);
    k.handle_id = kHandleIds[i];
    files[kKeyedFiles[i]] = std::move(bytes);
    counter.subtasks.push_back(std::move(st));
  }
  m.operators.push_back(std::move(source));
  m.operators.push_back(std::move(counter));

  CheckpointProperties& p = m.properties;
  p.present = true;
  p.type_class = "org.apache.flink.runtime.checkpoint.SavepointType";
  p.type_name = "Savepoint";
  p.format_type = "NATIVE";
  p.post_checkpoint_action = "NONE";
  m.properties_raw = encode_checkpoint_properties(p);

  CKPT_ASSIGN_OR_RETURN(files["_metadata"], encode_metadata(m));
  return files;
}

Status write_sample_savepoint(const std::string& dir) {
  CKPT_ASSIGN_OR_RETURN(auto files, build_sample_savepoint());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    Error e(ErrorCode::kIOError, "cannot create directory: " + ec.message());
    e.file = dir;
    return e;
  }
  for (const auto& [name, bytes] : files) CKPT_RETURN_IF_ERROR(write_file_atomic(dir + "/" + name, bytes));
  return Status::OK();
}

}  // namespace ckpt::test
