// The practical limit for `ckpt convert` (bench/README.md): the keys and values `ckpt generate`
// writes, put straight into one SstFileWriter per subtask and state. Only Put and Finish are
// timed: each key group's pairs are generated and sorted before its clock starts, so the limit
// pays nothing that convert does not (convert reads its pairs instead of generating them).
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <rocksdb/convenience.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>

#include "ops/generate/generate_model.h"

using namespace ckpt;
using Clock = std::chrono::steady_clock;

namespace {

struct Totals {
  uint64_t entries = 0, bytes = 0;
  double seconds = 0;      // Put and Finish only
  double cpu_seconds = 0;  // the same on the thread's CPU clock (user + sys), for a loaded machine
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// One subtask of one operator: its states' SSTs, key group by key group.
bool write_subtask(const GenerateModel& model, const rocksdb::Options& options, int32_t op, int32_t sub,
                   Totals& t) {
  const GenerateOptions& o = model.options();
  KeyGroupRange range = key_group_range_of_subtask(o.max_parallelism, o.parallelism, sub);
  std::vector<std::unique_ptr<rocksdb::SstFileWriter>> writers;
  std::vector<bool> opened(model.meta().states.size(), false);
  for (size_t s = 0; s < model.meta().states.size(); ++s)
    writers.push_back(std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options));
  std::vector<std::vector<RocksPair>> by_state;
  for (int32_t kg = range.first; kg <= range.last(); ++kg) {
    by_state.clear();
    model.pairs(op, kg, 0, &by_state);
    for (auto& pairs : by_state) std::sort(pairs.begin(), pairs.end());
    auto start = Clock::now();
    const double cpu_start = thread_cpu_seconds();
    for (size_t s = 0; s < by_state.size(); ++s) {
      if (by_state[s].empty()) continue;
      if (!opened[s]) {
        // Opening creates the file, as the writer in convert does on its first pair.
        rocksdb::Status st = writers[s]->Open(fmt::format("{}/{}-{}-{}.sst", o.output, op, sub, s));
        if (!st.ok()) return std::fprintf(stderr, "%s\n", st.ToString().c_str()), false;
        opened[s] = true;
      }
      for (const RocksPair& p : by_state[s]) {
        rocksdb::Status st = writers[s]->Put(p.key, p.value);
        if (!st.ok()) return std::fprintf(stderr, "%s\n", st.ToString().c_str()), false;
        ++t.entries;
        t.bytes += p.key.size() + p.value.size();
      }
    }
    t.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    t.cpu_seconds += thread_cpu_seconds() - cpu_start;
  }
  auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  for (size_t s = 0; s < writers.size(); ++s)
    if (opened[s] && !writers[s]->Finish().ok()) return false;
  t.seconds += std::chrono::duration<double>(Clock::now() - start).count();
  t.cpu_seconds += thread_cpu_seconds() - cpu_start;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9 && argc != 10) {
    std::fprintf(stderr, "usage: %s OUT_DIR OPERATORS PARALLELISM KEYS VALUE_SIZE STATES SEED THREADS [MAX_PARALLELISM]\n",
                 argv[0]);
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
  const int threads = std::max(1, std::atoi(argv[8]));
  if (argc == 10) o.max_parallelism = std::atoi(argv[9]);
  auto model = GenerateModel::make(o);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.error().to_string().c_str());
    return 2;
  }
  std::filesystem::create_directories(o.output);
  rocksdb::Options options;
  rocksdb::ConfigOptions config;
  (void)rocksdb::MergeOperator::CreateFromString(config, "stringappendtest", &options.merge_operator);

  // Subtasks are shared out as convert -j shares them; each thread's timed seconds add up, and
  // the slowest thread's total is the limit's wall time.
  const int32_t tasks = o.operators * o.parallelism;
  std::atomic<int32_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<Totals> per_thread(threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i]() {
      for (int32_t task; !failed && (task = next++) < tasks;)
        if (!write_subtask(*model, options, task / o.parallelism, task % o.parallelism, per_thread[i])) failed = true;
    });
  for (auto& t : pool) t.join();
  if (failed) return 1;
  Totals all;
  for (const Totals& t : per_thread) {
    all.entries += t.entries;
    all.bytes += t.bytes;
    all.seconds = std::max(all.seconds, t.seconds);
    all.cpu_seconds += t.cpu_seconds;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "sst-loop threads %d entries %llu key+value-bytes %llu timed-seconds %.2f MB/s %.1f entries/s %.0f "
      "max-rss-kib %ld timed-cpu-seconds %.2f\n",
      threads, static_cast<unsigned long long>(all.entries), static_cast<unsigned long long>(all.bytes), all.seconds,
      all.bytes / all.seconds / 1e6, all.entries / all.seconds, ru.ru_maxrss, all.cpu_seconds);
  return 0;
}
