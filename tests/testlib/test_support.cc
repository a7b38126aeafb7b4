#include "testlib/test_support.h"

#include <unistd.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;

namespace ckpt::test {

std::string shared_dir() {
  if (const char* env = std::getenv("CKPT_SHARED_DIR")) return env;
  return CKPT_SHARED_DIR;
}
std::string corpus_dir() { return shared_dir() + "/testdata/flink"; }
std::string expected_dir() { return shared_dir() + "/testdata/flink-expected"; }
std::string source_dir() { return CKPT_SOURCE_DIR; }
std::string sample_savepoint_dir() { return source_dir() + "/testdata/sample-savepoint"; }

bool shared_available() {
  std::error_code ec;
  return fs::is_directory(corpus_dir(), ec);
}

bool program_available(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

std::vector<std::string> corpus_snapshots() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(corpus_dir(), ec))
    if (e.is_directory() && fs::exists(e.path() / "_metadata")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string sql_corpus_dir() { return shared_dir() + "/testdata/flink-sql"; }
std::string sql_expected_dir() { return shared_dir() + "/testdata/flink-sql-expected"; }

std::string sql_plan_of(const std::string& savepoint) {
  for (fs::path dir = fs::path(savepoint).parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
    if (!fs::is_directory(dir / "plan")) continue;
    for (const auto& f : fs::directory_iterator(dir / "plan"))
      if (f.path().extension() == ".json") return f.path().string();
  }
  return "";
}

std::vector<std::string> sql_corpus_snapshots() {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(sql_corpus_dir(), ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (it->path().filename() == "savepoint" && fs::exists(it->path() / "_metadata")) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::pair<std::string, std::string>> tree_files(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      out.emplace_back(std::filesystem::relative(e.path(), dir).generic_string(), read_file(e.path().string()));
  std::sort(out.begin(), out.end());
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string memory_temp_dir() {
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return fs::temp_directory_path().string();
}

ScratchDir::ScratchDir(const std::string& base) {
  std::random_device rd;
  const fs::path dir = base.empty() ? fs::temp_directory_path() : fs::path(base);
  for (;;) {
    path_ = (dir / ("ckpt-test-" + std::to_string(rd()))).string();
    std::error_code ec;
    if (fs::create_directory(path_, ec)) break;
  }
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace ckpt::test
