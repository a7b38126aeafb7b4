// Writes two incremental checkpoints of a large job, metadata only, for bench/diff_bench.sh:
// DIR/chk-1 and DIR/chk-2, each referencing N shared SSTs (type-2 URIs under DIR/shared,
// never created) over S subtasks; chk-2 keeps half of chk-1's SSTs and adds as many new ones.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "ckpt/metadata.h"

using namespace ckpt;

static StreamHandle file_handle(const std::string& uri, int64_t size) {
  StreamHandle h;
  h.type = handle_type::kFile;
  h.path = uri;
  h.size = size;
  return h;
}

static Metadata checkpoint(const std::string& base, int id, int ssts, int subtasks) {
  Metadata m;
  m.version = 3;
  m.checkpoint_id = id;
  OperatorState op;
  parse_operator_id("0a1b2c3d4e5f60718293a4b5c6d7e8f9", &op.id);
  op.parallelism = subtasks;
  op.max_parallelism = 32768;
  int per = ssts / subtasks;
  for (int st = 0; st < subtasks; ++st) {
    SubtaskState s;
    s.index = st;
    KeyedHandle& k = s.managed_keyed;
    k.type = handle_type::kIncremental;
    k.range = {st * (32768 / subtasks), 32768 / subtasks};
    k.checkpoint_id = id;
    k.backend_id = fmt::format("backend-{}", st);
    k.handle_id = fmt::format("handle-{}-{}", id, st);
    k.delegate = file_handle(fmt::format("{}/chk-{}/meta-{}", base, id, st), 1024);
    k.private_files.push_back({"MANIFEST-000001", file_handle(fmt::format("{}/chk-{}/manifest-{}", base, id, st), 512)});
    // chk-1 holds SSTs [0, per); chk-2 holds [per/2, per + per/2): half kept, half new.
    int first = id == 1 ? 0 : per / 2;
    for (int i = first; i < first + per; ++i)
      k.shared_files.push_back({fmt::format("{:06d}.sst", i),
                                file_handle(fmt::format("{}/shared/{:04d}-{:08d}-sst", base, st, i), 64 << 20)});
    k.checkpointed_size = int64_t{per} * (64 << 20);
    op.subtasks.push_back(std::move(s));
  }
  m.operators.push_back(std::move(op));
  return m;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ckpt_diff_bench_gen DIR [SSTS=10000] [SUBTASKS=100]\n");
    return 2;
  }
  std::string dir = argv[1];
  int ssts = argc > 2 ? std::atoi(argv[2]) : 10000;
  int subtasks = argc > 3 ? std::atoi(argv[3]) : 100;
  if (ssts <= 0 || subtasks <= 0 || ssts % subtasks != 0) {
    std::fprintf(stderr, "SSTS must be a positive multiple of SUBTASKS\n");
    return 2;
  }
  std::string base = "file:" + std::filesystem::absolute(dir).string();
  for (int id = 1; id <= 2; ++id) {
    std::string chk = fmt::format("{}/chk-{}", dir, id);
    std::filesystem::create_directories(chk);
    Result<std::string> bytes = encode_metadata(checkpoint(base, id, ssts, subtasks));
    if (!bytes.ok()) {
      std::fprintf(stderr, "%s\n", bytes.error().to_string().c_str());
      return 2;
    }
    std::ofstream(chk + "/_metadata", std::ios::binary) << *bytes;
    std::printf("%s: %d SSTs, %zu bytes of _metadata\n", chk.c_str(), ssts, bytes->size());
  }
  return 0;
}
