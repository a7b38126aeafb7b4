// Generated snapshots rewritten with hostile serializers or key-group ranges.
#include "testlib/hostile_snapshot.h"

#include "ckpt/generate.h"
#include "ckpt/io.h"
#include "state/backend_meta.h"
#include "types/serializer_snapshot.h"
#include "support/byte_reader.h"
#include "testlib/hostile_inputs.h"
#include "testlib/test_support.h"

namespace ckpt::test {
namespace {

Status write_metadata(const std::string& dir, const Metadata& m) {
  CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(m));
  return write_file_atomic(dir + "/_metadata", bytes);
}

}  // namespace

Status generate_rocksdb_savepoint(const std::string& dir) {
  GenerateOptions o;
  o.output = dir;
  o.backend = GenerateBackend::kRocksDb;
  o.parallelism = 2;
  o.keys = 200;
  o.value_size = 16;
  CKPT_ASSIGN_OR_RETURN(GenerateSummary summary, generate_snapshot(o));
  (void)summary;
  return Status::OK();
}

Status replace_value_serializers(const std::string& dir, const std::string& versioned_snapshot) {
  const SerializerSnapshot value = unparsed_snapshot(versioned_snapshot);
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(dir + "/_metadata"));
  for (OperatorState& op : m.operators) {
    for (SubtaskState& st : op.subtasks) {
      KeyedHandle& h = st.managed_keyed;
      if (h.type != handle_type::kIncremental && h.type != handle_type::kIncrementalV1) continue;
      const std::string path = dir + "/" + h.delegate.path;
      std::string bytes = read_file(path);
      ByteReader meta_reader(bytes);
      CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta meta, read_keyed_backend_meta(meta_reader));
      for (StateMetaInfo& s : meta.states)
        for (auto& [role, snapshot] : s.serializers)
          if (role == "VALUE_SERIALIZER") snapshot = value;
      CKPT_ASSIGN_OR_RETURN(std::string proxy, write_keyed_backend_meta(meta));
      CKPT_RETURN_IF_ERROR(write_file_atomic(path, proxy));
      h.delegate.size = static_cast<int64_t>(proxy.size());
    }
  }
  return write_metadata(dir, m);
}

Status set_key_group_range(const std::string& dir, int32_t subtask, KeyGroupRange range) {
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(dir + "/_metadata"));
  for (SubtaskState& st : m.operators.at(0).subtasks)
    if (st.index == subtask) st.managed_keyed.range = range;
  return write_metadata(dir, m);
}

}  // namespace ckpt::test
