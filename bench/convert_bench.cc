// The practical limit for `ckpt convert --to rocksdb` (bench/README.md): the same keys and values
// as `ckpt generate` writes, put straight into one SstFileWriter per subtask and state, with no
// snapshot to read, no framing to change and no DB to ingest into.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>

#include "ops/generate_model.h"

using namespace ckpt;

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s OUT_DIR OPERATORS PARALLELISM KEYS VALUE_SIZE STATES SEED\n", argv[0]);
    return 2;
  }
  GenerateOptions o;
  o.output = argv[1];
  o.operators = std::atoi(argv[2]);
  o.parallelism = std::atoi(argv[3]);
  o.keys = std::strtoull(argv[4], nullptr, 10);
  o.value_size = static_cast<uint32_t>(std::atoi(argv[5]));
  o.states.clear();
  std::stringstream ss(argv[6]);
  for (std::string s; std::getline(ss, s, ',');) o.states.push_back(s);
  o.seed = std::strtoull(argv[7], nullptr, 10);
  auto model = GenerateModel::make(o);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.error().to_string().c_str());
    return 2;
  }
  std::filesystem::create_directories(o.output);
  rocksdb::Options options;
  rocksdb::ConfigOptions config;
  (void)rocksdb::MergeOperator::CreateFromString(config, "stringappendtest", &options.merge_operator);
  auto start = std::chrono::steady_clock::now();
  uint64_t entries = 0, bytes = 0;
  std::vector<std::vector<RocksPair>> by_state;
  for (int32_t op = 0; op < o.operators; ++op)
    for (int32_t sub = 0; sub < o.parallelism; ++sub) {
      KeyGroupRange range = subtask_key_groups(sub, o.parallelism, o.max_parallelism);
      std::vector<std::unique_ptr<rocksdb::SstFileWriter>> writers;
      for (size_t s = 0; s < o.states.size(); ++s) {
        writers.push_back(std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options));
        rocksdb::Status st = writers.back()->Open(fmt::format("{}/{}-{}-{}.sst", o.output, op, sub, s));
        if (!st.ok()) return std::fprintf(stderr, "%s\n", st.ToString().c_str()), 2;
      }
      for (int32_t kg = range.first; kg <= range.last(); ++kg) {
        model->pairs(op, kg, 0, &by_state);
        for (size_t s = 0; s < by_state.size(); ++s) {
          std::sort(by_state[s].begin(), by_state[s].end());
          for (const RocksPair& p : by_state[s]) {
            (void)writers[s]->Put(p.key, p.value);
            ++entries;
            bytes += p.key.size() + p.value.size();
          }
        }
      }
      for (auto& w : writers) (void)w->Finish();
    }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("sst-loop entries %llu key+value bytes %llu seconds %.2f MB/s %.1f entries/s %.0f max-rss-kib %ld\n",
              static_cast<unsigned long long>(entries), static_cast<unsigned long long>(bytes), secs,
              bytes / secs / 1e6, entries / secs, ru.ru_maxrss);
  return 0;
}
