// Code cites the project's own format documents, and every citation resolves: a comment says
// `formats/<doc>.md` followed by one or more section numbers, each written as the section sign
// and the number (several of one document separated by commas), and the document has a heading
// with that number: "## 6. Title" for a section, "### 6.1 Title" for a subsection (the
// convention of every formats/*.md). A section sign without a document before it is an error:
// it once meant the numbering of a reference file outside the repository.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "testlib/test_support.h"

namespace fs = std::filesystem;

namespace {

const std::string kSection = "\xc2\xa7";  // the section sign, kept out of this file's own text

// Section numbers of formats/<doc>.md: "6" of "## 6. Title", "6.1" of "### 6.1 Title".
std::set<std::string> headings(const std::string& doc) {
  std::set<std::string> out;
  const std::string text = ckpt::test::read_file(ckpt::test::source_dir() + "/formats/" + doc);
  const std::regex heading(R"((?:^|\n)#{2,4} (\d+(?:\.\d+)*)\.? )");
  for (std::sregex_iterator it(text.begin(), text.end(), heading), end; it != end; ++it) out.insert((*it)[1].str());
  return out;
}

bool scanned(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".cc" || ext == ".h" || ext == ".md" || ext == ".txt" || ext == ".sh";
}

}  // namespace

TEST_CASE("every formats citation in lib tools and tests names a document and a heading it has", "[docs]") {
  const std::regex group("formats/([a-z-]+\\.md)((?: " + kSection + "[0-9.]*[0-9](?:, " + kSection +
                         "[0-9.]*[0-9])*)?)");
  const std::regex number(kSection + "([0-9.]*[0-9])");
  std::map<std::string, std::set<std::string>> docs;
  int citations = 0;
  for (const char* dir : {"lib", "tools", "tests"}) {
    for (const auto& e : fs::recursive_directory_iterator(ckpt::test::source_dir() + "/" + dir)) {
      if (!e.is_regular_file() || !scanned(e.path())) continue;
      std::string text = ckpt::test::read_file(e.path().string());
      const std::string rel = fs::relative(e.path(), ckpt::test::source_dir()).string();
      // Resolve each group, then blank it: what is left must hold no section sign.
      std::string rest = text;
      for (std::sregex_iterator it(text.begin(), text.end(), group), end; it != end; ++it) {
        const std::string doc = (*it)[1].str();
        const std::string sections = (*it)[2].str();
        if (!docs.count(doc)) docs[doc] = headings(doc);
        INFO(rel << ": formats/" << doc << sections);
        REQUIRE_FALSE(docs[doc].empty());  // the document exists and has numbered headings
        for (std::sregex_iterator n(sections.begin(), sections.end(), number); n != end; ++n) {
          ++citations;
          CHECK(docs[doc].count((*n)[1].str()) == 1);
        }
        rest.replace(static_cast<size_t>(it->position()), static_cast<size_t>(it->length()),
                     std::string(static_cast<size_t>(it->length()), ' '));
      }
      size_t at = rest.find(kSection);
      if (at != std::string::npos) {
        const size_t line = static_cast<size_t>(std::count(rest.begin(), rest.begin() + static_cast<long>(at), '\n')) + 1;
        FAIL_CHECK(rel << ":" << line << ": a section sign without formats/<doc>.md before it");
      }
    }
  }
  CHECK(citations > 50);  // the scan found the code's citations: the checks above were not vacuous
}
