#include "testlib/path_sets.h"

namespace ckpt::test {

std::set<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  for (const std::string& x : a)
    if (!b.count(x)) out.insert(x);
  return out;
}

std::set<std::string> orphan_paths(const GcReport& r) {
  std::set<std::string> out;
  for (const GcFile& f : r.orphans) out.insert(f.path);
  return out;
}

}  // namespace ckpt::test
