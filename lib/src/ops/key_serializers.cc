// Key serializers of another snapshot of the job, for change logs that store none.
#include "ops/key_serializers.h"

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "state/raw_keyed_reader.h"

namespace ckpt {

// Per operator, the first key serializer a keyed proxy of `snapshot` names.
Result<std::map<std::string, SerializerSnapshot>> key_serializers_of(const std::string& snapshot,
                                                                     const std::vector<PrefixRule>& remap) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata metadata, read_metadata_file(where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(metadata, where.metadata_path));
  const StreamOpener streams = StreamOpener::for_snapshot(where, remap);
  std::map<std::string, SerializerSnapshot> keys;
  for (const OperatorState& op : metadata.operators)
    for (const SubtaskState& st : op.subtasks) {
      if (st.managed_keyed.is_null()) continue;
      auto source = open_raw_keyed(st.managed_keyed, streams, op.max_parallelism);
      if (!source.ok()) {
        if (source.error().code == ErrorCode::kNotSupported) continue;  // no key serializer there either
        return std::move(source).error().with_context(
            fmt::format("key serializers from operator {}, subtask {}", operator_id_hex(op.id), st.index));
      }
      if (source->meta.key_serializer.serializer_class.empty()) continue;
      keys.emplace(operator_id_hex(op.id), source->meta.key_serializer);
      break;
    }
  return keys;
}

}  // namespace ckpt
