// The library's folders are layers (lib/README.md): support < s3 < format < types < state < ops.
// A file may include its own layer and the ones below, never one above, so that a change of a
// higher layer can never break a lower one and each layer can be read and tested alone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>

#include "testlib/test_support.h"

namespace fs = std::filesystem;

namespace {

// Public headers belong to the layer that implements them.
const std::map<std::string, int>& public_header_layers() {
  static const std::map<std::string, int> layers = {
      {"error.h", 0},    {"error_codes.h", 0}, {"export.h", 0},       {"io.h", 0},          {"version.h", 0},
      {"progress.h", 0}, {"printable.h", 0},   {"metadata.h", 2},     {"names.h", 2},       {"walk.h", 2},
      {"resolve.h", 2},  {"entry_kind.h", 4},  {"object_store.h", 1}, {"file_system.h", 1}, {"value.h", 3},
  };
  return layers;
}

int layer_of_folder(const std::string& first) {
  static const std::map<std::string, int> layers = {{"support", 0}, {"s3", 1},    {"format", 2},
                                                    {"types", 3},   {"state", 4}, {"ops", 5}};
  auto it = layers.find(first);
  return it == layers.end() ? -1 : it->second;
}

// Layer of an include as written ("state/heap/x.h", "ckpt/dump.h"); -1 for unknown folders.
int layer_of_include(const std::string& inc) {
  size_t slash = inc.find('/');
  if (slash == std::string::npos) return -1;
  std::string first = inc.substr(0, slash);
  if (first == "ckpt") {
    auto it = public_header_layers().find(inc.substr(slash + 1));
    return it == public_header_layers().end() ? 5 : it->second;  // operations' headers: the top
  }
  return layer_of_folder(first);
}

// Inside ops/, each verb's folder sits on the shared parts: the files of ops/ itself, the entry
// engine (entries/), the engines several verbs run (engine/) and the snapshot rewrite convert,
// edit, load, upgrade and generate write through (rewrite/). A verb's folder never includes
// another verb's, and the shared parts include no verb's, so a verb can change without another
// one breaking. What still crosses, until it moves below the verbs:
bool shared_ops_folder(const std::string& folder) {
  return folder.empty() || folder == "entries" || folder == "engine" || folder == "rewrite";
}

const std::set<std::pair<std::string, std::string>>& verb_includes_allowed() {
  static const std::set<std::pair<std::string, std::string>> allowed = {
      {"edit", "load"},         // load/keyed_lines.h: --upsert reads NDJSON lines as load does
      {"edit", "query"},        // query/state_columns.h: the columns --delete-where's SQL reads, as query's
  };
  return allowed;
}

// The folder of ops/ a path below lib/src ("ops/dump/dump.cc") or an include ("ops/dump/x.h")
// is in: "dump"; "" for a file of ops/ itself; nullopt outside ops/.
std::optional<std::string> ops_folder(const std::string& path) {
  if (path.rfind("ops/", 0) != 0) return std::nullopt;
  size_t slash = path.find('/', 4);
  return slash == std::string::npos ? std::string() : path.substr(4, slash - 4);
}

}  // namespace

TEST_CASE("library files include only their own layer and the layers below", "[docs][architecture]") {
  const std::string src = ckpt::test::source_dir() + "/lib/src";
  const std::regex include(R"re(#include\s+"([^"]+)")re");
  int files = 0, includes = 0;
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), src).generic_string();
    int own = layer_of_folder(rel.substr(0, rel.find('/')));
    INFO(rel);
    REQUIRE(own >= 0);  // every file sits in a layer's folder
    ++files;
    const std::string text = ckpt::test::read_file(e.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      std::string inc = (*it)[1].str();
      int layer = layer_of_include(inc);
      INFO("includes " << inc);
      CHECK(layer >= 0);
      CHECK(layer <= own);
      ++includes;
    }
  }
  CHECK(files > 100);
  CHECK(includes > 300);
}

TEST_CASE("a verb's folder includes no other verb's folder and shared engines include no verb",
          "[docs][architecture]") {
  const std::string src = ckpt::test::source_dir() + "/lib/src";
  const std::regex include(R"re(#include\s+"(ops/[^"]+)")re");
  std::set<std::pair<std::string, std::string>> crossing;
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(src + "/ops")) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), src).generic_string();
    std::string own = *ops_folder(rel);
    ++files;
    const std::string text = ckpt::test::read_file(e.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      std::string theirs = *ops_folder((*it)[1].str());
      if (theirs == own || shared_ops_folder(theirs)) continue;
      INFO(rel << " includes " << (*it)[1].str());
      CHECK(!shared_ops_folder(own));
      CHECK(verb_includes_allowed().count({own, theirs}) == 1);
      crossing.emplace(own, theirs);
    }
  }
  CHECK(files > 100);
  // An exception no longer used goes from the list.
  for (const auto& allowed : verb_includes_allowed()) {
    INFO(allowed.first << " no longer includes " << allowed.second);
    CHECK(crossing.count(allowed) == 1);
  }
}

TEST_CASE("public headers include only public headers and no file outside tests includes tests", "[docs][architecture]") {
  const std::regex include(R"re(#include\s+"([^"]+)")re");
  for (const auto& e : fs::recursive_directory_iterator(ckpt::test::source_dir() + "/lib/include")) {
    if (!e.is_regular_file()) continue;
    const std::string text = ckpt::test::read_file(e.path().string());
    // A public header of a lower layer includes none of a higher one: state/ including
    // ckpt/entry_kind.h must not reach ckpt/plan.h, which the operations implement.
    const int own = layer_of_include("ckpt/" + e.path().filename().string());
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      INFO(e.path().filename().string() << " includes " << (*it)[1].str());
      CHECK((*it)[1].str().rfind("ckpt/", 0) == 0);
      CHECK(layer_of_include((*it)[1].str()) <= own);
    }
  }
  int scanned = 0;
  for (const char* dir : {"lib", "tools", "bench", "examples"}) {
    fs::path base = fs::path(ckpt::test::source_dir()) / dir;
    if (!fs::exists(base)) continue;
    for (const auto& e : fs::recursive_directory_iterator(base)) {
      if (!e.is_regular_file()) continue;
      auto ext = e.path().extension();
      if (ext != ".cc" && ext != ".h" && e.path().filename() != "CMakeLists.txt") continue;
      ++scanned;
      const std::string text = ckpt::test::read_file(e.path().string());
      INFO(e.path().string());
      CHECK(text.find("testlib/") == std::string::npos);
      CHECK(text.find("/tests") == std::string::npos);
    }
  }
  CHECK(scanned > 100);
}
