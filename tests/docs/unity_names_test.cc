// The build compiles each target's sources in batches of one folder each, one translation unit
// per batch (CKPT_UNITY_BUILD, cmake/unity.cmake): a folder is a layer of lib/src (its subfolders
// included), a folder of tests/, or tools/. Two sources of a folder that each define the same
// name in their anonymous namespace may then meet in one unit: a redefinition stops the build,
// but two overloads compile, and a call in one source can silently bind to the other source's
// function (gc once resolved `checkpoint_id` of a string to the other file's version that way).
// So each file-local name is unique within its folder, and no file-local name reuses a name that
// a header of the target declares. The scan follows the project's layout: `namespace {` and its
// closing `}  // namespace` at the start of a line, definitions unindented inside. A second test
// reads the batches the build made and checks that none holds two folders' sources.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_process.h"
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

// The folder a source (relative to the checkout) is batched with: as cmake/unity.cmake cuts them.
std::string unity_folder(const std::string& source) {
  static const std::regex layered(R"(^(lib/src/[^/]+|tests/[^/]+)/)");
  std::smatch m;
  if (std::regex_search(source, m, layered)) return m[1].str();
  return fs::path(source).parent_path().string();
}

struct UnityTarget {
  std::string name;
  std::vector<std::string> dirs;  // relative to the checkout
  bool recursive;
};

}  // namespace

TEST_CASE("no two sources of a unity-built folder define the same file-local name", "[docs]") {
  const std::vector<UnityTarget> targets = {
      {"libckpt", {"lib/src"}, true},
      {"ckpt_cli", {"tools"}, false},
      {"ckpt_python", {"python/src"}, false},
      {"ckpt_tests", {"tests/unit", "tests/corpus", "tests/cli", "tests/docs", "tests/testlib"}, true},
  };
  int scanned = 0;
  for (const UnityTarget& t : targets) {
    std::map<std::string, std::map<std::string, std::set<std::string>>> defined_in;  // folder -> name -> sources
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
        for (const std::string& n : file_local_names(text)) defined_in[unity_folder(rel)][n].insert(rel);
      } else if (p.extension() == ".h") {
        for (const std::string& n : header_function_names(text)) declared_in.emplace(n, rel);
      }
    }
    for (const auto& [folder, names] : defined_in) {
      for (const auto& [name, sources] : names) {
        INFO(t.name << ": `" << name << "` is file-local in " << Catch::Detail::stringify(sources));
        CHECK(sources.size() == 1);
        auto h = declared_in.find(name);
        INFO("and declared by " << (h == declared_in.end() ? std::string("no header") : h->second));
        CHECK(h == declared_in.end());
      }
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

TEST_CASE("each unity batch of the build holds the sources of one folder", "[docs]") {
  // The batches this build compiles, as its compilation database lists them (a unity build's
  // sources appear there only through their batch files).
  const std::string database = ckpt::test::build_dir() + "/compile_commands.json";
  if (!fs::exists(database)) CKPT_SKIP("no compile_commands.json in the build tree");
  const nlohmann::json commands = nlohmann::json::parse(ckpt::test::read_file(database));
  static const std::regex included(R"re(^#include "([^"]+)")re");
  const std::string root = fs::weakly_canonical(ckpt::test::source_dir()).string() + "/";
  int batches = 0;
  for (const nlohmann::json& c : commands) {
    const std::string file = c.at("file").get<std::string>();
    if (file.find("/Unity/unity_") == std::string::npos) continue;
    ++batches;
    std::set<std::string> folders;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, included)) continue;
      std::string source = fs::weakly_canonical(m[1].str()).string();
      if (source.starts_with(root)) source = source.substr(root.size());
      folders.insert(unity_folder(source));
    }
    INFO(file << " batches " << Catch::Detail::stringify(folders));
    CHECK(folders.size() == 1);
  }
  // None when the build is not a unity build (-DCKPT_UNITY_BUILD=OFF): nothing to check.
  if (batches == 0) WARN("no unity batches in " << database);
}
