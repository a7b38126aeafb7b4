// A document of the repository cites documents a reader of the repository has: a path to a
// Markdown file (in `code` or a link) resolves inside the checkout, from the citing file's
// directory or from the top. Notes kept beside the repository (../shared) are not the reader's.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "testlib/test_support.h"

namespace fs = std::filesystem;

TEST_CASE("no document of the repository cites a Markdown file outside it", "[docs]") {
  const fs::path root = ckpt::test::source_dir();
  const std::regex cited(R"(`([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+\.md)`|\]\(([A-Za-z0-9_./-]+\.md)(#[^)]*)?\))");
  int citations = 0;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == ".git" || name.rfind("build", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".md") continue;
    const std::string text = ckpt::test::read_file(it->path().string());
    for (std::sregex_iterator m(text.begin(), text.end(), cited), end; m != end; ++m) {
      const std::string path = (*m)[1].matched ? (*m)[1].str() : (*m)[2].str();
      ++citations;
      INFO(fs::relative(it->path(), root).string() << " cites " << path);
      const fs::path from_dir = fs::weakly_canonical(it->path().parent_path() / path);
      const fs::path from_top = fs::weakly_canonical(root / path);
      const std::string top = fs::weakly_canonical(root).string() + "/";
      const bool inside = (fs::exists(from_dir) && from_dir.string().rfind(top, 0) == 0) ||
                          (fs::exists(from_top) && from_top.string().rfind(top, 0) == 0);
      CHECK(inside);
    }
  }
  CHECK(citations > 10);  // the scan found the documents' citations
}
