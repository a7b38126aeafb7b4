// Heap, canonical and changelog handles restored as RocksDB instances: their entries re-framed in Flink's
// RocksDB key layout (values untouched) and written with the RocksDB API.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "ops/restore/restore_instance.h"
#include "state/raw_keyed_reader.h"
#include "state/rocksdb/rocks_instance_writer.h"

namespace ckpt {

Status build_instance(const InstanceJob& job, const StreamOpener& streams, RestoredInstance& out,
                      std::vector<std::string>* states) {
  const int32_t max_par = job.op->max_parallelism;
  CKPT_ASSIGN_OR_RETURN(RawKeyedSource source, open_raw_keyed(*job.handle, streams, max_par, job.key_fallback));
  for (const StateMetaInfo& s : source.meta.states) states->push_back(s.name);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(job.directory).parent_path(), ec);
  CKPT_ASSIGN_OR_RETURN(auto writer, RocksInstanceWriter::create(job.directory + ".build", *states));
  // Key groups outside `keep` are never written: nothing to clip afterwards.
  CKPT_RETURN_IF_ERROR(read_raw_keyed(*job.handle, source, streams, max_par,
                                      [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
                                        if (!job.keep.contains(kg)) return Status::OK();
                                        for (size_t id = 0; id < by_state.size(); ++id) {
                                          std::sort(by_state[id].begin(), by_state[id].end());
                                          for (const RocksPair& p : by_state[id])
                                            CKPT_RETURN_IF_ERROR(writer->add(id, p.key, p.value));
                                        }
                                        return Status::OK();
                                      }));
  CKPT_ASSIGN_OR_RETURN(RocksInstanceFiles files, writer->finish(job.directory));
  for (const RocksInstanceFile& f : files.files) {
    ++out.files;
    out.bytes += f.size;
  }
  return Status::OK();
}

}  // namespace ckpt
