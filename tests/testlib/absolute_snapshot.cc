// Builds the synthetic absolute-path snapshot with the project's writer.
#include "testlib/absolute_snapshot.h"

#include <filesystem>

#include "testlib/stream_handles.h"
#include "testlib/test_support.h"

namespace ckpt::test {

Metadata absolute_metadata(const std::string& snap_dir, const std::string& shared_prefix) {
  Metadata m;
  m.version = 3;
  m.checkpoint_id = 11;
  OperatorState op;
  parse_operator_id("00112233445566778899aabbccddeeff", &op.id);
  op.parallelism = 2;
  op.max_parallelism = 128;

  SubtaskState s0;
  s0.index = 0;
  s0.managed_keyed.type = handle_type::kKeyGroupsWithId;
  s0.managed_keyed.range = {0, 64};
  for (int i = 0; i < 64; ++i) s0.managed_keyed.offsets.push_back(i);
  s0.managed_keyed.delegate = file_handle("file:" + snap_dir + "/kg-0", 100);
  s0.managed_keyed.handle_id = "kg-handle-0";
  op.subtasks.push_back(std::move(s0));

  SubtaskState s1;
  s1.index = 1;
  KeyedHandle& k = s1.managed_keyed;
  k.type = handle_type::kIncremental;
  k.range = {64, 64};
  k.checkpoint_id = 11;
  k.backend_id = "backend-1";
  k.checkpointed_size = 360;
  k.delegate = file_handle("file://" + snap_dir + "/meta-1", 40);
  k.shared_files.push_back({"000007.sst", file_handle(shared_prefix + "/sst-1", 300)});
  k.private_files.push_back({"MANIFEST-000004", file_handle("file:" + snap_dir + "/MANIFEST-1", 20)});
  k.handle_id = "inc-handle-1";
  OperatorHandle o;
  o.type = handle_type::kPartitionableOperator;
  o.states.push_back({"offsets", DistributionMode::kUnion, {0}});
  o.delegate.type = handle_type::kByteStream;
  o.delegate.name = "file:/tmp/not-a-file";
  o.delegate.data = std::string(8, '\x01');
  s1.managed_operator.push_back(std::move(o));
  op.subtasks.push_back(std::move(s1));
  m.operators.push_back(std::move(op));
  return m;
}

std::string write_absolute_snapshot(const std::string& snap_dir, const std::string& shared_prefix,
                                    const std::string& shared_dir) {
  std::filesystem::create_directories(snap_dir);
  Result<std::string> bytes = encode_metadata(absolute_metadata(snap_dir, shared_prefix));
  if (!bytes.ok()) return {};
  write_file(snap_dir + "/_metadata", *bytes);
  write_file(snap_dir + "/kg-0", std::string(100, 'k'));
  write_file(snap_dir + "/meta-1", std::string(40, 'm'));
  write_file(snap_dir + "/MANIFEST-1", std::string(20, 'f'));
  if (!shared_dir.empty()) {
    std::filesystem::create_directories(shared_dir);
    write_file(shared_dir + "/sst-1", std::string(300, 's'));
  }
  return *bytes;
}

}  // namespace ckpt::test
