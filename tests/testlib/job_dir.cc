#include "testlib/job_dir.h"

#include <filesystem>
#include <stdexcept>

#include "ckpt/generate.h"

namespace fs = std::filesystem;

namespace ckpt::test {

void write_job_dir(const std::string& dir) {
  GenerateOptions o;
  o.output = dir;
  o.chain = 3;  // parallelism 2, the default
  o.keys = 300;
  o.value_size = 20;
  Result<GenerateSummary> s = generate_snapshot(o);
  if (!s.ok()) throw std::runtime_error("generate " + dir + ": " + s.error().to_string());
}

std::map<std::string, int64_t> tree_of(const std::string& dir) {
  std::map<std::string, int64_t> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = fs::relative(e.path(), dir).string();
    out[rel] = e.is_directory() ? -1 : static_cast<int64_t>(e.file_size());
  }
  return out;
}

}  // namespace ckpt::test
