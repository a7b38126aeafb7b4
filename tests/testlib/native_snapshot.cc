// A RocksDB native snapshot of any size, generated (see native_snapshot.h).
#include "testlib/native_snapshot.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/utilities/checkpoint.h>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/backend_meta.h"
#include "state/rocksdb/rocks_sst.h"
#include "state/stream_opener.h"
#include "support/byte_reader.h"

namespace ckpt::test {

namespace fs = std::filesystem;

namespace {

Error rocks_failure(const rocksdb::Status& s) { return Error(ErrorCode::kIOError, s.ToString()); }

// The first incremental handle of the template, its operator, and its meta stream's bytes.
struct Template {
  Metadata metadata;
  OperatorState op;
  KeyedHandle handle;
  std::string meta_bytes;
  std::string state;
};

Result<Template> load_template(const std::string& dir) {
  Template t;
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(dir));
  CKPT_ASSIGN_OR_RETURN(t.metadata, read_metadata_file(where.metadata_path));
  const StreamOpener streams = StreamOpener::for_snapshot(where, {});
  for (const OperatorState& op : t.metadata.operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == handle_type::kIncremental && t.meta_bytes.empty()) {
        t.op = op;
        t.handle = st.managed_keyed;
        CKPT_ASSIGN_OR_RETURN(StateStream s, streams.open(st.managed_keyed.delegate));
        CKPT_RETURN_IF_ERROR(s.read_all(&t.meta_bytes));
        ByteReader r(t.meta_bytes, 0);
        CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta meta, read_keyed_backend_meta(r));
        if (meta.states.empty()) return Error(ErrorCode::kNotFound, "template meta data names no state");
        t.state = meta.states.front().name;
      }
  if (t.meta_bytes.empty()) return Error(ErrorCode::kNotFound, "template has no incremental handle");
  return t;
}

StreamHandle relative_file(const std::string& name, uint64_t size) {
  StreamHandle h;
  h.type = handle_type::kRelativeFile;
  h.path = name;
  h.size = static_cast<int64_t>(size);
  return h;
}

}  // namespace

Status write_native_snapshot(const NativeSnapshotSpec& spec) {
  const std::string& out = spec.out;
  const int32_t subtasks = spec.subtasks;
  const int32_t max_par = spec.max_parallelism;
  CKPT_ASSIGN_OR_RETURN(Template t, load_template(spec.template_dir));
  fs::create_directories(out);
  std::string work = out + ".work";
  fs::remove_all(work);
  fs::create_directories(work);

  Metadata m = t.metadata;
  m.operators.clear();
  OperatorState op = t.op;
  op.parallelism = subtasks;
  op.max_parallelism = max_par;
  op.subtasks.clear();
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<rocksdb::MergeOperator> merge, flink_merge_operator());
  std::mt19937_64 rng(42);
  std::string value(spec.value_size, '\0');
  uint64_t file_counter = 0;
  for (int32_t i = 0; i < subtasks; ++i) {
    int32_t first = (i * max_par + subtasks - 1) / subtasks;
    int32_t last = ((i + 1) * max_par - 1) / subtasks;
    std::string db_dir = fmt::format("{}/db-{}", work, i);
    rocksdb::Options options;
    options.create_if_missing = true;
    options.compression = rocksdb::kNoCompression;
    options.merge_operator = merge;
    options.write_buffer_size = 64 << 20;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, db_dir, &raw);
    if (!s.ok()) return rocks_failure(s);
    std::unique_ptr<rocksdb::DB> db(raw);
    rocksdb::ColumnFamilyOptions cfo(options);
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    s = db->CreateColumnFamily(cfo, t.state, &cf);
    if (!s.ok()) return rocks_failure(s);
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    uint64_t per_subtask = spec.bytes / static_cast<uint64_t>(subtasks);
    for (uint64_t n = 0, written = 0; written < per_subtask; ++n) {
      int32_t kg = first + static_cast<int32_t>(n % static_cast<uint64_t>(last - first + 1));
      std::string key(1, static_cast<char>(kg));
      for (int b = 7; b >= 0; --b) key.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
      key.push_back('\0');  // VoidNamespace
      if (value.size() == 8) {
        for (int b = 0; b < 8; ++b) value[static_cast<size_t>(b)] = static_cast<char>((n >> (8 * (7 - b))) & 0xff);
      } else {
        for (size_t k = 0; k < value.size(); k += 8) {
          uint64_t r = rng();
          std::memcpy(value.data() + k, &r, std::min<size_t>(8, value.size() - k));
        }
      }
      s = db->Put(wo, cf, key, value);
      if (!s.ok()) return rocks_failure(s);
      written += key.size() + value.size();
    }
    s = db->Flush(rocksdb::FlushOptions(), cf);
    if (!s.ok()) return rocks_failure(s);
    if (spec.compact) {
      s = db->CompactRange(rocksdb::CompactRangeOptions(), cf, nullptr, nullptr);
      if (!s.ok()) return rocks_failure(s);
    }
    rocksdb::Checkpoint* cp = nullptr;
    s = rocksdb::Checkpoint::Create(db.get(), &cp);
    std::string cp_dir = fmt::format("{}/cp-{}", work, i);
    if (s.ok()) s = cp->CreateCheckpoint(cp_dir);
    delete cp;
    db->DestroyColumnFamilyHandle(cf);
    if (!s.ok()) return rocks_failure(s);

    SubtaskState st;
    st.index = i;
    KeyedHandle h = t.handle;
    h.range = {first, last - first + 1};
    h.shared_files.clear();
    h.private_files.clear();
    int64_t total = 0;
    for (const auto& e : fs::directory_iterator(cp_dir)) {
      std::string local = e.path().filename().string();
      std::string stored = fmt::format("{:08x}-{}", ++file_counter, local);
      fs::rename(e.path(), out + "/" + stored);
      uint64_t size = fs::file_size(out + "/" + stored);
      total += static_cast<int64_t>(size);
      NamedStream f{local, relative_file(stored, size)};
      (local.ends_with(".sst") ? h.shared_files : h.private_files).push_back(std::move(f));
    }
    std::string meta_name = fmt::format("{:08x}-meta", ++file_counter);
    std::ofstream(out + "/" + meta_name, std::ios::binary) << t.meta_bytes;
    h.delegate = relative_file(meta_name, t.meta_bytes.size());
    h.checkpointed_size = total;
    st.managed_keyed = std::move(h);
    op.subtasks.push_back(std::move(st));
  }
  m.operators.push_back(std::move(op));
  CKPT_ASSIGN_OR_RETURN(std::string encoded, encode_metadata(m));
  std::ofstream(out + "/_metadata", std::ios::binary) << encoded;
  fs::remove_all(work);
  return Status::OK();
}

}  // namespace ckpt::test
