// The build compiles each target's sources in batches, one translation unit per batch
// (CKPT_UNITY_BUILD, CMakeLists.txt). Two sources of a target that each define the same name in
// their anonymous namespace then meet in one unit: a redefinition stops the build, but two
// overloads compile, and a call in one source can silently bind to the other source's function
// (gc once resolved `checkpoint_id` of a string to the other file's version that way). So each
// file-local name is unique within its target, and no file-local name reuses a name that a
// header of the target declares. The scan follows the project's layout: `namespace {` and its
// closing `}  // namespace` at the start of a line, definitions unindented inside.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "testlib/test_support.h"

namespace fs = std::filesystem;

namespace {

// Names defined unindented inside the file's anonymous namespaces (or `static` at file scope).
std::set<std::string> file_local_names(const std::string& text) {
  static const std::regex type_name(R"(^(?:struct|class|enum class|enum|union) (\w+))");
  static const std::regex alias_name(R"(^using (\w+) =)");
  static const std::regex function_name(R"(^(?:static )?(?:inline )?[A-Za-z_][\w:<>,*& ]*[ *&](\w+)\()");
  static const std::regex variable_name(R"(^(?:static )?(?:inline )?(?:constexpr|const) [^=(]*?\b(\w+)(?:\[\w*\])? =)");
  std::set<std::string> names;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "namespace {") {
      inside = true;
      continue;
    }
    if (line.starts_with("}  // namespace")) inside = false;
    if (!inside && !line.starts_with("static ")) continue;
    std::smatch m;
    if (std::regex_search(line, m, type_name) || std::regex_search(line, m, alias_name) ||
        std::regex_search(line, m, variable_name) || std::regex_search(line, m, function_name))
      names.insert(m[1].str());
  }
  return names;
}

// Functions a header declares unindented (outside classes): names any source may call.
std::set<std::string> header_function_names(const std::string& text) {
  static const std::regex declared(R"(^(?:inline )?(?:constexpr )?[A-Za-z_][\w:<>,*& ]*[ *&](\w+)\()");
  std::set<std::string> names;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, declared)) names.insert(m[1].str());
  }
  return names;
}

struct UnityTarget {
  std::string name;
  std::vector<std::string> dirs;  // relative to the checkout
  bool recursive;
};

}  // namespace

TEST_CASE("no two sources of a unity-built target define the same file-local name", "[docs]") {
  const std::vector<UnityTarget> targets = {
      {"libckpt", {"lib/src"}, true},
      {"ckpt_cli", {"tools"}, false},
      {"ckpt_python", {"python/src"}, false},
      {"ckpt_tests", {"tests/unit", "tests/corpus", "tests/cli", "tests/docs", "tests/testlib"}, true},
  };
  int scanned = 0;
  for (const UnityTarget& t : targets) {
    std::map<std::string, std::set<std::string>> defined_in;  // name -> sources
    std::map<std::string, std::string> declared_in;          // name -> a header
    std::vector<fs::path> files;
    for (const std::string& d : t.dirs) {
      const fs::path dir = ckpt::test::source_dir() + "/" + d;
      if (t.recursive) {
        for (const auto& e : fs::recursive_directory_iterator(dir)) files.push_back(e.path());
      } else {
        for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
      }
    }
    for (const fs::path& p : files) {
      const std::string rel = fs::relative(p, ckpt::test::source_dir()).string();
      const std::string text = ckpt::test::read_file(p.string());
      if (p.extension() == ".cc") {
        ++scanned;
        for (const std::string& n : file_local_names(text)) defined_in[n].insert(rel);
      } else if (p.extension() == ".h") {
        for (const std::string& n : header_function_names(text)) declared_in.emplace(n, rel);
      }
    }
    for (const auto& [name, sources] : defined_in) {
      INFO(t.name << ": `" << name << "` is file-local in " << Catch::Detail::stringify(sources));
      CHECK(sources.size() == 1);
      auto h = declared_in.find(name);
      INFO("and declared by " << (h == declared_in.end() ? std::string("no header") : h->second));
      CHECK(h == declared_in.end());
    }
  }
  CHECK(scanned > 250);  // the scan found the sources: lib, tools and tests
}

TEST_CASE("the file-local name scan sees functions types aliases and constants", "[docs]") {
  const std::string text =
      "namespace ckpt {\n"
      "namespace {\n"
      "constexpr size_t kChunk = 8;\n"
      "const char* const kWhy = \"x\";\n"
      "struct Slot {\n"
      "  int not_this(int);\n"
      "};\n"
      "using Item = int;\n"
      "std::optional<int64_t> checkpoint_id(std::string_view name) {\n"
      "  return 1;\n"
      "}\n"
      "}  // namespace\n"
      "int public_one(int x) {\n"
      "static bool helper(int x) {\n"
      "}  // namespace ckpt\n";
  CHECK(file_local_names(text) ==
        std::set<std::string>{"kChunk", "kWhy", "Slot", "Item", "checkpoint_id", "helper"});
  CHECK(header_function_names("Result<Metadata> read_snapshot(const SnapshotDir& s);\n  int member(int);\n") ==
        std::set<std::string>{"read_snapshot"});
}
