// ckpt_inspect_bench: writes a large incremental-checkpoint `_metadata` with the project's
// writer and measures `ckpt inspect` (wall time and peak RSS of the child) against its size.
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <malloc.h>
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
#include "format/java/java_serialization.h"

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
  double cpu_seconds = 0;  // user + sys of the child
  long max_rss_kib = 0;
  int status = -1;
};

// Runs `program args...` with stdout to `out` (default /dev/null) and stderr to /dev/null;
// the child's own CPU time and peak RSS come from wait4.
Run run_child(const char* program, const std::vector<std::string>& args, const std::string& out = "/dev/null") {
  std::vector<const char*> argv{program};
  for (const auto& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(fd, 1);
    ::dup2(null, 2);
    ::execv(program, const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  r.cpu_seconds = secs(ru.ru_utime) + secs(ru.ru_stime);
  r.max_rss_kib = ru.ru_maxrss;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The floors a child process of this program measures (`--floor WHAT FILE`): what inspect
// cannot avoid, so the table can say how close it is.
int floor_main(const std::string& what, const std::string& file) {
  if (what == "copy") {
    // Reading a file from the page cache and writing it to stdout, as `cat FILE > /dev/null`.
    int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0) return 2;
    std::vector<char> buf(1 << 20);
    ssize_t n;
    while ((n = ::read(fd, buf.data(), buf.size())) > 0)
      if (::write(1, buf.data(), static_cast<size_t>(n)) != n) return 2;
    ::close(fd);
    return n < 0 ? 2 : 0;
  }
  auto bytes = ckpt::read_whole_file(file);
  if (!bytes.ok()) return 2;
  if (what == "read") return 0;
  if (what == "decode") return ckpt::decode_metadata(*bytes, file).ok() ? 0 : 2;
  return 2;
}

void print_runs(const std::string& what, std::vector<Run> all, double mib) {
  std::sort(all.begin(), all.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
  long rss = 0;
  for (const auto& r : all) rss = std::max(rss, r.max_rss_kib);
  std::printf("%-34s exit %d  min %.3f s (user+sys %.3f s)  median %.3f s  peak RSS %.1f MiB = %.2fx the file\n",
              what.c_str(), all[0].status, all[0].seconds, all[0].cpu_seconds, all[all.size() / 2].seconds,
              rss / 1024.0, rss / 1024.0 / mib);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--floor") return floor_main(argv[2], argv[3]);
  Shape s;
  std::string dir = (std::filesystem::temp_directory_path() / "ckpt-inspect-bench").string();
  int runs = 5;
  bool floors = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--floors") {
      floors = true;
      continue;
    }
    if (i + 1 >= argc) flag = "";
    int v = flag.empty() ? 0 : std::atoi(argv[i + 1]);
    if (flag == "--operators") s.operators = v;
    else if (flag == "--subtasks") s.subtasks = v;
    else if (flag == "--shared") s.shared = v;
    else if (flag == "--private") s.privates = std::min(v, 4);
    else if (flag == "--runs") runs = std::max(v, 1);
    else if (flag == "--dir") dir = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: ckpt_inspect_bench [--operators N] [--subtasks N] [--shared N] [--private N<=4] [--runs N] [--dir DIR] [--floors]\n");
      return 2;
    }
    ++i;
  }
  std::filesystem::create_directories(dir);
  std::string path = dir + "/_metadata";
  size_t size = 0;
  {
    auto encoded = ckpt::encode_metadata(build(s));
    if (!encoded.ok()) {
      std::fprintf(stderr, "ckpt_inspect_bench: %s\n", encoded.error().to_string().c_str());
      return 2;
    }
    if (auto st = ckpt::write_file_atomic(path, *encoded); !st.ok()) {
      std::fprintf(stderr, "ckpt_inspect_bench: %s\n", st.error().to_string().c_str());
      return 2;
    }
    size = encoded->size();
  }
  // Children inherit this process's peak RSS up to their exec (the kernel keeps the larger of
  // the two): give the model's pages back first so that each child's peak is its own.
  ::malloc_trim(0);
  double mib = static_cast<double>(size) / (1 << 20);
  long handles = static_cast<long>(s.operators) * s.subtasks;
  std::printf("_metadata: %s, %.1f MiB (%zu bytes): %d operators x %d subtasks, %ld incremental handles, %ld file references\n",
              path.c_str(), mib, size, s.operators, s.subtasks, handles, handles * (1 + s.shared + s.privates));
  // The floors run in children of this program re-executed, so that none inherits this
  // process's memory and each peak RSS is its own.
  auto floor = [&](const char* what, const std::string& file, const std::string& label) {
    std::vector<Run> all;
    for (int i = 0; i < runs; ++i) all.push_back(run_child("/proc/self/exe", {"--floor", what, file}));
    print_runs(label, all, mib);
  };
  if (floors) {
    floor("read", path, "floor: read _metadata");
    floor("decode", path, "floor: read + decode_metadata");
  }
  for (const char* mode : {"--json", ""}) {
    std::vector<std::string> args = {"inspect", path};
    if (*mode) args.push_back(mode);
    std::vector<Run> all;
    for (int i = 0; i < runs; ++i) all.push_back(run_child(CKPT_BINARY, args));
    print_runs(fmt::format("ckpt inspect {}", *mode ? mode : "(text)"), all, mib);
    if (floors) {
      // What merely writing this much output costs: the saved output copied to /dev/null.
      std::string saved = dir + "/inspect-output";
      run_child(CKPT_BINARY, args, saved);
      auto bytes = std::filesystem::file_size(saved);
      floor("copy", saved, fmt::format("floor: copy {:.0f} MiB of output", static_cast<double>(bytes) / (1 << 20)));
      std::filesystem::remove(saved);
    }
  }
  return 0;
}
