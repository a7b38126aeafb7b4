// `cmake --install` into a fresh prefix, then the prefix used as a user would: the program, its
// man pages, pkg-config, a CMake project with find_package(ckpt), and the completion scripts.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "testlib/cli_process.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// The prefix, installed once for every test case of this file.
const std::string& installed_prefix() {
  static test::ScratchDir scratch;
  static const std::string prefix = [] {
    const std::string p = scratch / "prefix";
    test::CliResult r = test::run_program({"cmake", "--install", test::build_dir(), "--prefix", p});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    return p;
  }();
  return prefix;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

// Where GNUInstallDirs put the library: lib, or lib/<multiarch> for /usr.
std::string libdir(const std::string& prefix) {
  for (const auto& e : fs::recursive_directory_iterator(prefix + "/lib"))
    if (e.path().filename() == "libckpt.so") return e.path().parent_path().string();
  FAIL("no libckpt.so under " << prefix << "/lib");
  return {};
}

// The directory holding the installed package ckpt/ (site-packages) under `lib`.
std::string package_dir_of(const std::string& lib) {
  for (const auto& e : fs::recursive_directory_iterator(lib))
    if (e.path().filename() == "__init__.py" && e.path().parent_path().filename() == "ckpt")
      return e.path().parent_path().parent_path().string();
  FAIL("no ckpt/__init__.py under " << lib);
  return {};
}

bool python_module_built() { return fs::exists(test::build_dir() + "/python/ckpt/__init__.py"); }

// Debian's python3 importing ckpt from `site` alone: its version and the sample's entry count.
test::CliResult run_python(const std::string& site, const std::string& library_path) {
  return test::run_shell("cd / && env -u PYTHONHOME -u LD_LIBRARY_PATH PYTHONPATH=" + q(site) +
                         (library_path.empty() ? "" : " LD_LIBRARY_PATH=" + q(library_path)) +
                         " /usr/bin/python3 -c 'import ckpt, sys; print(ckpt.__version__, "
                         "sum(1 for _ in ckpt.open(sys.argv[1]).entries()))' " +
                         q(test::sample_savepoint_dir()));
}

}  // namespace

TEST_CASE("install puts the program - library - headers and packaging files under the prefix", "[cli][install]") {
  const std::string& p = installed_prefix();
  const std::string lib = libdir(p);
  for (const std::string& f :
       {p + "/bin/ckpt", lib + "/libckpt.so.0", p + "/include/ckpt/metadata.h", p + "/include/ckpt/dump.h",
        lib + "/cmake/ckpt/ckptConfig.cmake", lib + "/cmake/ckpt/ckptConfigVersion.cmake",
        lib + "/cmake/ckpt/ckptTargets.cmake", lib + "/pkgconfig/ckpt.pc", p + "/share/man/man1/ckpt.1.gz",
        p + "/share/man/man1/ckpt-dump.1.gz", p + "/share/doc/ckpt/copyright",
        p + "/share/bash-completion/completions/ckpt", p + "/share/zsh/vendor-completions/_ckpt",
        p + "/share/fish/vendor_completions.d/ckpt.fish"}) {
    INFO(f);
    CHECK(fs::is_regular_file(f));
  }
  // Only the public headers: nothing of lib/src.
  for (const auto& e : fs::recursive_directory_iterator(p + "/include")) CHECK(e.path().string().find("/src/") == std::string::npos);
  // The installed program finds the installed library (its RPATH is relative to itself).
  test::CliResult v =
      test::run_shell("env -u LD_LIBRARY_PATH " + q(p + "/bin/ckpt") + " inspect " + q(test::sample_savepoint_dir()));
  INFO(v.err);
  REQUIRE(v.status == 0);
  CHECK(v.out.find("checkpoint id     7") != std::string::npos);
  // The SQLite extension under the name `.load` looks for, found by the linker's search, and
  // the shell of `ckpt query --shell` finding it beside the installed libckpt.
  REQUIRE(fs::exists(lib + "/libckpt_sqlite.so"));
  const std::string sql = "SELECT kind FROM ckpt_snapshots('" + test::sample_savepoint_dir() + "')";
  test::CliResult loaded =
      test::run_program({"env", "LD_LIBRARY_PATH=" + lib, "sqlite3", ":memory:", ".load libckpt_sqlite", sql});
  INFO(loaded.err);
  CHECK(loaded.out == "savepoint\n");
  test::CliResult shell = test::run_shell("echo 'SELECT count(*) > 0 FROM entries;' | env -u LD_LIBRARY_PATH " +
                                          q(p + "/bin/ckpt") + " query --shell " + q(test::sample_savepoint_dir()));
  INFO(shell.err);
  CHECK(shell.out == "count(*) > 0\n1\n");
}

TEST_CASE("man finds every installed page", "[cli][install]") {
  const std::string& p = installed_prefix();
  for (const char* page : {"ckpt", "ckpt-dump", "ckpt-verify", "ckpt-completion"}) {
    test::CliResult where = test::run_shell("MANPATH=" + q(p + "/share/man") + " man -w " + page);
    INFO(page << ": " << where.err);
    REQUIRE(where.status == 0);
    CHECK(where.out.rfind(p + "/share/man/man1/", 0) == 0);
  }
  test::CliResult dump = test::run_shell("MANPATH=" + q(p + "/share/man") + " MANPAGER=cat MANWIDTH=100 man ckpt-dump");
  REQUIRE(dump.status == 0);
  CHECK(dump.out.find("ckpt-dump - print every state entry") != std::string::npos);
  CHECK(dump.out.find("SYNOPSIS") != std::string::npos);
  CHECK(dump.out.find("EXIT STATUS") != std::string::npos);
}

TEST_CASE("pkg-config and find_package(ckpt) build a program against the installed library in its own C++ standard",
          "[cli][install]") {
  const std::string& p = installed_prefix();
  const std::string lib = libdir(p);
  test::CliResult libs = test::run_shell("PKG_CONFIG_PATH=" + q(lib + "/pkgconfig") + " pkg-config --libs --cflags ckpt");
  INFO(libs.err);
  REQUIRE(libs.status == 0);
  CHECK(libs.out.find("-L" + lib) != std::string::npos);
  CHECK(libs.out.find("-lckpt") != std::string::npos);
  // The C++20 the headers need is documented, not forced: a -std here would come after, and
  // override, the user's own -std=c++23.
  CHECK(libs.out.find("-std") == std::string::npos);
  // The -I directory holds the headers (pkg-config keeps ${pcfiledir}/../.. as it is).
  const size_t i = libs.out.find("-I");
  REQUIRE(i != std::string::npos);
  const std::string include = libs.out.substr(i + 2, libs.out.find_first_of(" \n", i) - i - 2);
  CHECK(fs::equivalent(include, p + "/include"));

  test::ScratchDir scratch;
  const std::string source = test::source_dir() + "/tests/install/consumer";
  // With pkg-config and the compiler alone, in a newer standard than the library's.
  test::CliResult cc = test::run_shell("export PKG_CONFIG_PATH=" + q(lib + "/pkgconfig") +
                                       "; c++ -std=c++23 -DCKPT_CONSUMER_AFTER_CXX20 " + q(source + "/main.cc") +
                                       " -o " + q(scratch / "by_pkg_config") + " $(pkg-config --cflags --libs ckpt)" +
                                       " && LD_LIBRARY_PATH=" + q(lib) + " " + q(scratch / "by_pkg_config") + " " +
                                       q(test::sample_savepoint_dir() + "/_metadata"));
  INFO(cc.out << cc.err);
  REQUIRE(cc.status == 0);
  CHECK(cc.out == "ckpt 0.1.0: checkpoint 7, 2 operators\n");
  // With CMake: find_package(ckpt) gives ckpt::ckpt, and with it C++20 (the project sets no
  // standard; the compiler's default, C++17 for GCC 12, does not compile the headers).
  const std::string build = scratch / "cmake-build";
  test::CliResult configure = test::run_program(
      {"cmake", "-S", source, "-B", build, "-DCMAKE_PREFIX_PATH=" + p, "-DCMAKE_BUILD_TYPE=Release"});
  INFO(configure.out << configure.err);
  REQUIRE(configure.status == 0);
  test::CliResult built = test::run_program({"cmake", "--build", build});
  INFO(built.out << built.err);
  REQUIRE(built.status == 0);
  test::CliResult run = test::run_program({build + "/consumer", test::sample_savepoint_dir() + "/_metadata"});
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out == "ckpt 0.1.0: checkpoint 7, 2 operators\n");
}

TEST_CASE("the installed completion scripts complete commands and flags in bash - zsh and fish", "[cli][install]") {
  const std::string& p = installed_prefix();
  // bash: the function the script registers, asked as bash asks it.
  const std::string bash_script = p + "/share/bash-completion/completions/ckpt";
  test::CliResult bash = test::run_program(
      {"bash", "-c",
       "source " + q(bash_script) +
           "; COMP_WORDS=(ckpt du); COMP_CWORD=1; _ckpt; echo \"${COMPREPLY[*]}\";"
           " COMP_WORDS=(ckpt dump --ke); COMP_CWORD=2; _ckpt; echo \"${COMPREPLY[*]}\";"
           " COMP_WORDS=(ckpt verify --de); COMP_CWORD=2; _ckpt; echo \"${COMPREPLY[*]}\";"
           " complete -p ckpt"});
  INFO(bash.err);
  REQUIRE(bash.status == 0);
  CHECK(bash.out.find("dump\n") == 0);
  CHECK(bash.out.find("--keep-going") != std::string::npos);
  CHECK(bash.out.find("--key-group") != std::string::npos);
  CHECK(bash.out.find("--deep\n") != std::string::npos);
  CHECK(bash.out.find("-F _ckpt ckpt\n") != std::string::npos);

  // fish: its own completion engine on the installed file.
  REQUIRE(test::program_available("/usr/bin/fish"));
  const std::string fish_script = p + "/share/fish/vendor_completions.d/ckpt.fish";
  test::CliResult fish = test::run_program(
      {"fish", "--no-config", "-c", "source " + q(fish_script) + "; complete -C 'ckpt ver'; complete -C 'ckpt gc --ap'"});
  INFO(fish.err);
  REQUIRE(fish.status == 0);
  CHECK(fish.out.find("verify\tCheck that a snapshot is complete and readable\n") != std::string::npos);
  CHECK(fish.out.find("--apply\t") != std::string::npos);

  // zsh: the file parses, and defines the completion of every command.
  REQUIRE(test::program_available("/usr/bin/zsh"));
  const std::string zsh_script = p + "/share/zsh/vendor-completions/_ckpt";
  test::CliResult zsh = test::run_program({"zsh", "-n", zsh_script});
  INFO(zsh.err);
  CHECK(zsh.status == 0);
  const std::string text = test::read_file(zsh_script);
  CHECK(text.rfind("#compdef ckpt\n", 0) == 0);
  for (const char* c : {"inspect)", "dump)", "convert)", "gc)", "restore)", "'*--apply["})
    CHECK(text.find(c) != std::string::npos);
}

TEST_CASE("cpack makes a .deb with the program - library - pages and its Debian dependencies that lintian passes",
          "[cli][install]") {
  test::ScratchDir scratch;
  test::CliResult pack = test::run_shell("cd " + q(test::build_dir()) + " && cpack -G DEB -B " + q(scratch.path()), 600);
  INFO(pack.out << pack.err);
  REQUIRE(pack.status == 0);
  std::string deb;
  for (const auto& e : fs::directory_iterator(scratch.path()))
    if (e.path().extension() == ".deb") deb = e.path().string();
  REQUIRE_FALSE(deb.empty());
  test::CliResult contents = test::run_program({"dpkg-deb", "-c", deb});
  REQUIRE(contents.status == 0);
  for (const char* f : {"./usr/bin/ckpt", "/libckpt.so.0", "/pkgconfig/ckpt.pc", "./usr/share/man/man1/ckpt-dump.1.gz",
                        "./usr/include/ckpt/metadata.h", "/cmake/ckpt/ckptConfig.cmake",
                        "./usr/share/doc/ckpt/copyright", "./usr/share/doc/ckpt/changelog.Debian.gz"}) {
    INFO(f);
    CHECK(contents.out.find(f) != std::string::npos);
  }
  // The library in the multiarch directory, where Debian policy and ld.so want it.
  CHECK(std::regex_search(contents.out, std::regex(R"( \./usr/lib/[a-z0-9_]+-linux-[a-z0-9]+/libckpt\.so\.0)")));
  test::CliResult depends = test::run_program({"dpkg-deb", "-f", deb, "Depends"});
  REQUIRE(depends.status == 0);
  CHECK(depends.out.find("librocksdb") != std::string::npos);
  CHECK(depends.out.find("libsnappy") != std::string::npos);
  // libcurl is loaded on the first object-store request (s3/curl_library.cc): declared by hand.
  CHECK(depends.out.find("libcurl4") != std::string::npos);
  // `ckpt report` reads Chart.js at run time; restore's output is for RocksDB's ldb.
  CHECK(depends.out.find("libjs-chart.js") != std::string::npos);
  CHECK(test::run_program({"dpkg-deb", "-f", deb, "Recommends"}).out == "rocksdb-tools, sqlite3\n");
  // The SQLite extension, under the name `.load libckpt_sqlite` finds, declared in shlibs.
  CHECK(std::regex_search(contents.out, std::regex(R"( \./usr/lib/[a-z0-9_]+-linux-[a-z0-9]+/libckpt_sqlite\.so )")));
  // The shlibs file of libckpt.so.0 and the ldconfig trigger.
  CHECK(test::contains(test::run_program({"dpkg-deb", "-I", deb, "shlibs"}).out, "libckpt 0 ckpt"));
  CHECK(test::contains(test::run_program({"dpkg-deb", "-I", deb, "shlibs"}).out, "libckpt_sqlite 0 ckpt"));
  CHECK(test::contains(test::run_program({"dpkg-deb", "-I", deb, "triggers"}).out, "activate-noawait ldconfig"));

  // Debian's own checker: no error (.ci/install-deps installs lintian).
  REQUIRE(test::program_available("/usr/bin/lintian"));
  test::CliResult lintian = test::run_program({"lintian", "--tag-display-limit", "0", deb}, 600);
  INFO(lintian.out << lintian.err);
  CHECK_FALSE(std::regex_search(lintian.out, std::regex("(^|\n)E: ")));
  CHECK(lintian.status == 0);

  // The Python module, unpacked into a clean directory: it imports and reads with the
  // package's own libckpt (under /usr it has no RUNPATH: ld.so's path finds the library).
  if (!python_module_built()) return;
  const std::string root = scratch / "unpacked";
  REQUIRE(test::run_program({"dpkg-deb", "-x", deb, root}).status == 0);
  const std::string site = package_dir_of(root + "/usr/lib");
  CHECK(site == root + "/usr/lib/python3/dist-packages");  // Debian's place for Python 3 modules
  // An extension of the interpreter it was built for.
  CHECK(std::regex_search(depends.out, std::regex(R"(python3 \(>= 3\.[0-9]+~\), python3 \(<< 3\.[0-9]+\))")));
  test::CliResult imported = run_python(site, libdir(root + "/usr"));
  INFO(imported.err);
  REQUIRE(imported.status == 0);
  CHECK(imported.out == "0.1.0 11\n");
}

TEST_CASE("install puts the python module into site-packages where it imports and reads a snapshot", "[cli][install]") {
  if (!python_module_built()) CKPT_SKIP("the build has no Python module (CKPT_PYTHON=OFF)");
  const std::string& p = installed_prefix();
  const std::string site = package_dir_of(p + "/lib");
  for (const char* f : {"/ckpt/__init__.py", "/ckpt/__init__.pyi", "/ckpt/py.typed", "/ckpt/_pandas.py"}) {
    INFO(f);
    CHECK(fs::is_regular_file(site + f));
  }
  // Its RUNPATH leads to the prefix's libckpt: nothing else is on the library path.
  test::CliResult imported = run_python(site, "");
  INFO(imported.err);
  REQUIRE(imported.status == 0);
  CHECK(imported.out == "0.1.0 11\n");
}
