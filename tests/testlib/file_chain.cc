// Builds placeholder incremental chains with the project's metadata writer.
#include "testlib/file_chain.h"

#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "testlib/stream_handles.h"
#include "testlib/test_support.h"

namespace ckpt::test {

FileChain write_file_chain(const std::string& root, const FileChainSpec& spec) {
  FileChain chain;
  chain.root = root;
  std::mt19937 rng(spec.seed);
  std::uniform_int_distribution<int> size_dist(1024, 4096);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::string base = spec.uri_base.empty() ? "file:" + root : spec.uri_base;
  std::filesystem::create_directories(root + "/shared");
  int next_file = 1;
  // The live SSTs of each subtask: (name in shared/, RocksDB name, size).
  struct Sst {
    std::string file, local;
    int64_t size;
  };
  std::vector<std::vector<Sst>> live(spec.subtasks);
  auto new_sst = [&](int subtask) {
    int n = next_file++;
    Sst s{fmt::format("{:08x}-{:04x}-sst", rng(), n), fmt::format("{:06d}.sst", n), size_dist(rng)};
    write_file(root + "/shared/" + s.file, std::string(static_cast<size_t>(s.size), static_cast<char>('a' + n % 26)));
    live[subtask].push_back(s);
  };
  for (int c = 1; c <= spec.checkpoints; ++c) {
    std::string chk = fmt::format("chk-{}", c);
    std::filesystem::create_directories(root + "/" + chk);
    std::set<std::string> refs, shared;
    Metadata m;
    m.version = 3;
    m.checkpoint_id = c;
    OperatorState op;
    parse_operator_id("0a1b2c3d4e5f60718293a4b5c6d7e8f9", &op.id);
    op.parallelism = spec.subtasks;
    op.max_parallelism = 128;
    for (int st = 0; st < spec.subtasks; ++st) {
      if (c == 1) {
        for (int i = 0; i < spec.initial_ssts; ++i) new_sst(st);
      } else {
        std::vector<Sst> kept;
        for (const Sst& s : live[st])
          if (coin(rng) >= spec.churn) kept.push_back(s);
        live[st] = std::move(kept);
        for (int i = 0; i < spec.new_ssts; ++i) new_sst(st);
      }
      SubtaskState s;
      s.index = st;
      KeyedHandle& k = s.managed_keyed;
      k.type = handle_type::kIncremental;
      int32_t per = 128 / spec.subtasks;
      k.range = {st * per, st == spec.subtasks - 1 ? 128 - st * per : per};
      k.checkpoint_id = c;
      k.backend_id = fmt::format("backend-{}", st);
      k.handle_id = fmt::format("handle-{}-{}", c, st);
      std::string meta = fmt::format("meta-{}", st), manifest = fmt::format("MANIFEST-{}", st);
      write_file(root + "/" + chk + "/" + meta, std::string(64, 'm'));
      write_file(root + "/" + chk + "/" + manifest, std::string(32, 'f'));
      k.delegate = file_handle(base + "/" + chk + "/" + meta, 64);
      k.private_files.push_back({"MANIFEST-000001", file_handle(base + "/" + chk + "/" + manifest, 32)});
      refs.insert(chk + "/" + meta);
      refs.insert(chk + "/" + manifest);
      int64_t total = 96;
      for (const Sst& sst : live[st]) {
        k.shared_files.push_back({sst.local, file_handle(base + "/shared/" + sst.file, sst.size)});
        refs.insert("shared/" + sst.file);
        shared.insert("shared/" + sst.file);
        total += sst.size;
      }
      k.checkpointed_size = total;
      op.subtasks.push_back(std::move(s));
    }
    m.operators.push_back(std::move(op));
    Result<std::string> bytes = encode_metadata(m);
    if (bytes.ok()) write_file(root + "/" + chk + "/_metadata", *bytes);
    chain.referenced.push_back(std::move(refs));
    chain.shared.push_back(std::move(shared));
    chain.metadata.push_back(std::move(m));
  }
  return chain;
}

}  // namespace ckpt::test
