// Replays files through a libFuzzer target without libFuzzer (as LLVM's
// StandaloneFuzzTargetMain.c does), so that the ordinary build runs every target over its
// regression corpus and seeds under ctest: a finding aborts, and ctest reports the test failed.
//
// Usage: replay_<target> [--shared DIR] [--name NAME] [--append NAME] PATH...
//   PATH     a file, or a directory whose regular files are all replayed (recursively, sorted)
//   --shared Flink's snapshots are needed: relative PATHs are under $CKPT_SHARED_DIR, or DIR
//            when it is unset; without them the run is skipped (exit 77, ctest SKIP_RETURN_CODE)
//   --name   in directories, only files with this name (`_metadata`)
//   --append each file is followed by its sibling NAME, when there is one (a serializer
//            snapshot followed by the values it describes)
// Exit: 0 every input ran; 2 usage error, unreadable input, or a PATH with no inputs in it (a
// replay of nothing would pass without checking anything); 77 skipped; a finding aborts.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

// The input being run, for the crash handler: a report of a finding names its file.
char current[4096];

void name_the_input(int sig) {
  static const char kPrefix[] = "\nreplay: finding while running ";
  (void)!write(STDERR_FILENO, kPrefix, sizeof kPrefix - 1);
  (void)!write(STDERR_FILENO, current, strnlen(current, sizeof current));
  (void)!write(STDERR_FILENO, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

struct Options {
  std::string shared;
  std::string name;
  std::string append;
  std::vector<std::string> paths;
};

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr, "replay: %s\nusage: replay_<target> [--shared DIR] [--name NAME] [--append NAME] PATH...\n", message);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value of " + a).c_str());
      return argv[++i];
    };
    if (a == "--shared") o.shared = value();
    else if (a == "--name") o.name = value();
    else if (a == "--append") o.append = value();
    else if (a.starts_with("--")) usage(("unknown option " + a).c_str());
    else o.paths.push_back(a);
  }
  if (o.paths.empty()) usage("no PATH given");
  return o;
}

[[noreturn]] void skip(const std::string& missing) {
  std::fprintf(stderr, "SKIP: %s not found (set CKPT_SHARED_DIR or check out ../shared beside the project)\n", missing.c_str());
  std::exit(77);
}

// Relative paths under the shared directory; skips the run when it or one of them is not
// there (absolute paths are seeds made from it in the build tree, only meaningful with it).
void resolve_shared(Options& o) {
  if (o.shared.empty()) return;
  if (const char* env = std::getenv("CKPT_SHARED_DIR")) o.shared = env;
  std::error_code ec;
  if (!fs::is_directory(fs::path(o.shared) / "testdata", ec)) skip(o.shared + "/testdata");
  for (auto& p : o.paths) {
    if (fs::path(p).is_relative()) p = (fs::path(o.shared) / p).string();
    if (!fs::exists(p, ec)) skip(p);
  }
}

std::vector<fs::path> inputs_of(const std::string& path, const Options& o) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    out.push_back(path);
    return out;
  }
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && (o.name.empty() || it->path().filename() == o.name)) out.push_back(it->path());
  if (ec) {
    std::fprintf(stderr, "replay: cannot list %s: %s\n", path.c_str(), ec.message().c_str());
    std::exit(2);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.is_open() || in.bad()) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
    std::exit(2);
  }
  return bytes;
}

void run_one(const fs::path& p, const Options& o) {
  std::snprintf(current, sizeof current, "%s", p.c_str());
  std::string bytes = slurp(p);
  if (!o.append.empty()) {
    fs::path sibling = p.parent_path() / o.append;
    std::error_code ec;
    if (fs::is_regular_file(sibling, ec)) bytes += slurp(sibling);
  }
  // A buffer of exactly the input's size, as libFuzzer hands over: AddressSanitizer then sees
  // any read past the end.
  std::unique_ptr<uint8_t[]> data(new uint8_t[bytes.size()]);
  std::memcpy(data.get(), bytes.data(), bytes.size());
  LLVMFuzzerTestOneInput(data.get(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  resolve_shared(o);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(sig, name_the_input);
  auto start = std::chrono::steady_clock::now();
  size_t total = 0;
  for (const auto& path : o.paths) {
    std::vector<fs::path> files = inputs_of(path, o);
    if (files.empty()) {
      std::fprintf(stderr, "replay: no inputs in %s%s%s\n", path.c_str(), o.name.empty() ? "" : " named ", o.name.c_str());
      return 2;
    }
    for (const auto& f : files) run_one(f, o);
    std::printf("replay: %zu inputs from %s\n", files.size(), path.c_str());
    total += files.size();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("replay: %zu inputs ran without a finding in %.2f s\n", total, seconds);
  return 0;
}
