// ckpt_inspect_bench: writes a large incremental-checkpoint `_metadata` with the project's
// writer and measures `ckpt inspect` (wall time and peak RSS of the child) against its size.
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "format/java_serialization.h"

namespace {

struct Shape {
  int operators = 1000;
  int subtasks = 128;
  int shared = 10;
  int privates = 4;
};

// Distinct, UUID-shaped names, as Flink gives uploaded files.
std::string uuid(uint64_t n) {
  return fmt::format("{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}", static_cast<uint32_t>(n * 2654435761u),
                     (n >> 8) & 0xffff, n & 0xfff, (n >> 12) & 0xfff, n);
}

ckpt::StreamHandle file(uint8_t type, std::string path, int64_t size) {
  ckpt::StreamHandle h;
  h.type = type;
  h.path = std::move(path);
  h.size = size;
  return h;
}

// A V4 checkpoint: every subtask of every operator has an incremental RocksDB handle with a
// relative meta file, `shared` SSTs under an absolute shared/ URI and `privates` relative
// private files, one key group each (max parallelism = subtasks).
ckpt::Metadata build(const Shape& s) {
  ckpt::Metadata m;
  m.version = 4;
  m.checkpoint_id = 42;
  uint64_t n = 0;
  const std::string shared_dir = "s3://bench-bucket/flink/checkpoints/5f0c3d2e9a8b7c6d5e4f3a2b1c0d9e8f/shared/";
  static const char* const kPrivate[] = {"MANIFEST-000004", "CURRENT", "OPTIONS-000009", "000003.log"};
  m.operators.reserve(s.operators);
  for (int o = 0; o < s.operators; ++o) {
    ckpt::OperatorState op;
    for (int b = 0; b < 16; ++b) op.id[b] = static_cast<uint8_t>((o * 31 + b * 7) & 0xff);
    op.id[0] = static_cast<uint8_t>(o >> 8);
    op.id[1] = static_cast<uint8_t>(o);
    op.parallelism = s.subtasks;
    op.max_parallelism = s.subtasks;
    op.subtasks.reserve(s.subtasks);
    for (int t = 0; t < s.subtasks; ++t) {
      ckpt::SubtaskState st;
      st.index = t;
      ckpt::KeyedHandle& k = st.managed_keyed;
      k.type = ckpt::handle_type::kIncremental;
      k.range = {t, 1};
      k.checkpoint_id = 42;
      k.backend_id = uuid(++n);
      k.delegate = file(ckpt::handle_type::kRelativeFile, uuid(++n), 1200);
      int64_t total = 0;
      for (int f = 0; f < s.shared; ++f) {
        k.shared_files.push_back({fmt::format("{:06}.sst", 10 + f), file(ckpt::handle_type::kFile, shared_dir + uuid(++n), 64 << 20)});
        total += 64 << 20;
      }
      for (int f = 0; f < s.privates; ++f) {
        k.private_files.push_back({kPrivate[f % 4], file(ckpt::handle_type::kRelativeFile, uuid(++n), 4096)});
        total += 4096;
      }
      k.checkpointed_size = total / 4;
      k.handle_id = uuid(++n);
      op.subtasks.push_back(std::move(st));
    }
    m.operators.push_back(std::move(op));
  }
  ckpt::CheckpointProperties& p = m.properties;
  p.present = true;
  p.type_class = "org.apache.flink.runtime.checkpoint.CheckpointType";
  p.type_name = "Checkpoint";
  p.sharing_files_strategy = "FORWARD_BACKWARD";
  p.discard_subsumed = p.discard_finished = p.discard_cancelled = p.discard_failed = p.discard_suspended = true;
  m.properties_raw = ckpt::encode_checkpoint_properties(p);
  return m;
}

struct Run {
  double seconds = 0;
  long max_rss_kib = 0;
  int status = -1;
};

// Runs `ckpt args...` with stdout to /dev/null; the child's own peak RSS comes from wait4.
Run run_ckpt(const std::vector<std::string>& args) {
  std::vector<const char*> argv{CKPT_BINARY};
  for (const auto& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(CKPT_BINARY, const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kib = ru.ru_maxrss;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Shape s;
  std::string dir = (std::filesystem::temp_directory_path() / "ckpt-inspect-bench").string();
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (flag == "--operators") s.operators = v;
    else if (flag == "--subtasks") s.subtasks = v;
    else if (flag == "--shared") s.shared = v;
    else if (flag == "--private") s.privates = std::min(v, 4);
    else if (flag == "--runs") runs = std::max(v, 1);
    else if (flag == "--dir") dir = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: ckpt_inspect_bench [--operators N] [--subtasks N] [--shared N] [--private N<=4] [--runs N] [--dir DIR]\n");
      return 2;
    }
  }
  std::filesystem::create_directories(dir);
  auto encoded = ckpt::encode_metadata(build(s));
  if (!encoded.ok()) {
    std::fprintf(stderr, "ckpt_inspect_bench: %s\n", encoded.error().to_string().c_str());
    return 2;
  }
  std::string path = dir + "/_metadata";
  if (auto st = ckpt::write_file_atomic(path, *encoded); !st.ok()) {
    std::fprintf(stderr, "ckpt_inspect_bench: %s\n", st.error().to_string().c_str());
    return 2;
  }
  double mib = static_cast<double>(encoded->size()) / (1 << 20);
  long handles = static_cast<long>(s.operators) * s.subtasks;
  std::printf("_metadata: %s, %.1f MiB (%zu bytes): %d operators x %d subtasks, %ld incremental handles, %ld file references\n",
              path.c_str(), mib, encoded->size(), s.operators, s.subtasks, handles, handles * (1 + s.shared + s.privates));
  for (const char* mode : {"--json", ""}) {
    std::vector<Run> all;
    for (int i = 0; i < runs; ++i) {
      std::vector<std::string> args = {"inspect", path};
      if (*mode) args.push_back(mode);
      all.push_back(run_ckpt(args));
    }
    std::sort(all.begin(), all.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
    long rss = 0;
    for (const auto& r : all) rss = std::max(rss, r.max_rss_kib);
    std::printf("ckpt inspect %-6s  exit %d  min %.3f s  median %.3f s  peak RSS %.1f MiB = %.2fx the file\n",
                *mode ? mode : "(text)", all[0].status, all[0].seconds, all[all.size() / 2].seconds, rss / 1024.0,
                rss / 1024.0 / mib);
  }
  return 0;
}
