// Path rules of file resolution and relocation: prefixes, file: URIs, rule parsing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "support/huge_pages.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("the longest prefix rule wins and prefixes match whole path components", "[unit][ops]") {
  // hdfs://nn/a/b/x matches both rules; the longer one applies; hdfs://nn/ab matches neither.
  std::vector<PrefixRule> rules = {{"hdfs://nn/a", "/short"}, {"hdfs://nn/a/b", "/long/"}};
  const PrefixRule* r = longest_prefix_rule(rules, "hdfs://nn/a/b/x");
  REQUIRE(r);
  CHECK(r->replacement == "/long/");
  CHECK(apply_prefix_rule(*r, "hdfs://nn/a/b/x") == "/long/x");
  CHECK(apply_prefix_rule(rules[0], "hdfs://nn/a/c") == "/short/c");
  CHECK(longest_prefix_rule(rules, "hdfs://nn/ab/x") == nullptr);
  CHECK(longest_prefix_rule(rules, "hdfs://nn/a") == &rules[0]);
  PrefixRule slash{"s3://b/", "/mnt"};
  CHECK(apply_prefix_rule(slash, "s3://b/x/y") == "/mnt/x/y");
}

TEST_CASE("a local prefix rule matches however the rule and the URI spell the path", "[unit][format]") {
  // /x, file:/x and file:///x are one place (the man page says so): as rules and as URIs.
  for (const char* prefix : {"/data/ckpt", "file:/data/ckpt", "file:///data/ckpt", "file://localhost/data/ckpt"}) {
    std::vector<PrefixRule> rules = {{prefix, "/mnt/copy"}};
    for (const char* uri : {"/data/ckpt/shared/a.sst", "file:/data/ckpt/shared/a.sst", "file:///data/ckpt/shared/a.sst",
                            "file://localhost/data/ckpt/shared/a.sst"}) {
      INFO(prefix << " on " << uri);
      const PrefixRule* r = longest_prefix_rule(rules, uri, PrefixMatch::kLocalPath);
      REQUIRE(r);
      CHECK(apply_prefix_rule(*r, uri, PrefixMatch::kLocalPath) == "/mnt/copy/shared/a.sst");
    }
    for (const char* other : {"file:///data/ckpt2/a", "s3://data/ckpt/a", "file://otherhost/data/ckpt/a"})
      CHECK(longest_prefix_rule(rules, other, PrefixMatch::kLocalPath) == nullptr);
  }
  // The longest match is measured on the place, not on the spelling.
  std::vector<PrefixRule> rules = {{"file:///data", "/a"}, {"/data/ckpt", "/b"}};
  CHECK(longest_prefix_rule(rules, "file:///data/ckpt/x", PrefixMatch::kLocalPath) == &rules[1]);
  // Matched as text (relocate's --map), spellings stay apart.
  CHECK(longest_prefix_rule(rules, "/data/ckpt/x") == &rules[1]);
  CHECK(longest_prefix_rule(rules, "file:/data/x") == nullptr);
}

TEST_CASE("the rules no absolute file reference matches are found", "[unit][format]") {
  Metadata m;
  OperatorState op;
  SubtaskState st;
  st.managed_keyed.type = handle_type::kKeyGroups;
  st.managed_keyed.delegate.type = handle_type::kFile;
  st.managed_keyed.delegate.path = "file:///data/job/chk-1/abc";
  StreamHandle relative;
  relative.type = handle_type::kRelativeFile;
  relative.path = "def";
  OperatorHandle oh;
  oh.delegate = relative;
  st.managed_operator.push_back(oh);
  op.subtasks.push_back(st);
  m.operators.push_back(op);
  std::vector<PrefixRule> rules = {{"/data/job", "/mnt"}, {"/data/jobs", "/x"}, {"def", "/y"}, {"s3://b", "/z"}};
  CHECK(used_prefix_rules(m, rules) == std::vector<size_t>{0});
}

TEST_CASE("file: URIs and absolute paths have local paths - other schemes do not", "[unit][ops]") {
  // The three spellings Flink and Hadoop produce for local files.
  CHECK(local_path_of_uri("file:/tmp/a") == "/tmp/a");
  CHECK(local_path_of_uri("file:///tmp/a") == "/tmp/a");
  CHECK(local_path_of_uri("file://localhost/tmp/a") == "/tmp/a");
  CHECK(local_path_of_uri("/tmp/a") == "/tmp/a");
  CHECK_FALSE(local_path_of_uri("file://otherhost/tmp/a"));
  CHECK_FALSE(local_path_of_uri("s3://bucket/a"));
  CHECK_FALSE(local_path_of_uri("relative/a"));
}

TEST_CASE("prefix rules need a non-empty prefix and an equals sign", "[unit][ops]") {
  // The value may be empty (strip a prefix); the prefix may not.
  auto ok = parse_prefix_rule("hdfs://nn/a=b=c", "--map");
  REQUIRE(ok.ok());
  CHECK(ok->prefix == "hdfs://nn/a");
  CHECK(ok->replacement == "b=c");
  CHECK(parse_prefix_rule("x=", "--map").ok());
  auto bad = parse_prefix_rule("=x", "--remap");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().message == "--remap '=x': expected PREFIX=VALUE with a non-empty prefix");
  CHECK_FALSE(parse_prefix_rule("nothing", "--map").ok());
}

TEST_CASE("relative handle paths stay inside the snapshot directory or are refused", "[format][unit][safety]") {
  // Flink stores a bare file name; anything that climbs out is refused with the reason.
  for (const char* ok : {"f1d2c3b", "sub/file", "./file", "...", "a..b", "x/.../y"}) {
    INFO(ok);
    CHECK(check_relative_path(ok).ok());
  }
  struct Bad {
    std::string path;
    const char* why;
  };
  for (const Bad& b : {Bad{"..", "it has a '..' component"}, Bad{"../x", "it has a '..' component"},
                       Bad{"a/../../x", "it has a '..' component"}, Bad{"x/..", "it has a '..' component"},
                       Bad{"/etc/passwd", "it is absolute"}, Bad{std::string("x\0/../y", 7), "it holds a NUL character"}}) {
    INFO(b.path);
    Status s = check_relative_path(b.path);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kCorruption);
    CHECK(s.error().message == "relative handle path '" + b.path + "' leaves the snapshot directory: " + b.why);
  }
  Status at = check_relative_path_at("../x", "s/_metadata", "00ff", 3);
  REQUIRE_FALSE(at.ok());
  CHECK(at.error().to_string() == "'s/_metadata': operator 00ff, subtask 3: relative handle path '../x' leaves the snapshot "
                                  "directory: it has a '..' component");
}

TEST_CASE("FileResolver refuses a link out of the directory it looks in unless links are followed",
          "[format][unit][safety]") {
  // Links that stay in the snapshot are followed; a file or a directory on the way that leads
  // out of it is found but flagged, with the path it leads to, and usable() says why.
  namespace fs = std::filesystem;
  test::ScratchDir s;
  const std::string snap = s / "snap", outside = s / "outside";
  fs::create_directories(snap + "/dir");
  fs::create_directories(outside);
  test::write_file(snap + "/real", "1234");
  test::write_file(outside + "/secret", "12345678");
  fs::create_symlink(snap + "/real", snap + "/inside");
  fs::create_symlink(outside + "/secret", snap + "/out");
  fs::create_directory_symlink(outside, snap + "/linked");
  {
    FileResolver r(snap, {});
    for (const char* name : {"real", "inside"}) {
      auto f = r.find(handle_type::kRelativeFile, name);
      REQUIRE(f);
      CHECK(f->escape.empty());
      CHECK(f->size == 4);
      CHECK(f->usable().ok());
    }
    for (const char* name : {"out", "linked/secret"}) {
      INFO(name);
      auto f = r.find(handle_type::kRelativeFile, name);
      REQUIRE(f);
      CHECK_FALSE(f->regular);
      CHECK(f->escape.find("leads through a symbolic link to '" + fs::canonical(outside + "/secret").string() +
                           "', outside the snapshot directory '" + snap + "'") == 0);
      Status u = f->usable();
      REQUIRE_FALSE(u.ok());
      CHECK(u.error().file == snap + "/" + name);
    }
  }
  set_follow_symlinks(true);
  FileResolver following(snap, {});
  set_follow_symlinks(false);
  auto f = following.find(handle_type::kRelativeFile, "out");
  REQUIRE(f);
  CHECK(f->escape.empty());
  CHECK(f->size == 8);
}

TEST_CASE("the file table keeps each file once with its references in the order they came", "[unit][format]") {
  // Proves the flat table inspect reports from: a URI seen again adds a reference to its file (and
  // keeps the largest size), a relative and an absolute handle of the same name are two files,
  // each file's references come back first one first with their RocksDB names, a bad RocksDB
  // name refuses the file, and referenced_files() is the same list in owning form.
  test::ScratchDir s;
  test::write_file(s / "rel", "12345");
  auto stream = [](uint8_t type, std::string path, int64_t size) {
    StreamHandle h;
    h.type = type;
    h.path = std::move(path);
    h.size = size;
    return h;
  };
  const std::string sst = "000042.sst", manifest = "MANIFEST-1", bad = "../x.sst";
  auto site = [](size_t op, int32_t subtask, StreamRole role, const std::string* name) {
    StreamSite at;
    at.operator_index = op;
    at.subtask = subtask;
    at.role = role;
    at.local_name = name;
    return at;
  };
  FileCollector c;
  CHECK(c.add(stream(handle_type::kFile, "hdfs://nn/shared/a", 10), site(0, 0, StreamRole::kSharedFile, &sst)) == 0);
  CHECK(c.add(stream(handle_type::kRelativeFile, "rel", 5), site(0, 1, StreamRole::kPrivateFile, &manifest)) == 1);
  CHECK(c.add(stream(handle_type::kFile, "rel", 4), site(1, 0, StreamRole::kData, nullptr)) == 2);
  CHECK(c.add(stream(handle_type::kFile, "hdfs://nn/shared/a", 30), site(1, 3, StreamRole::kSharedFile, &sst)) == 0);
  CHECK(c.add(stream(handle_type::kFile, "hdfs://nn/shared/bad", 1), site(2, 0, StreamRole::kSharedFile, &bad)) == 3);
  StreamHandle inline_bytes;
  inline_bytes.type = handle_type::kByteStream;
  CHECK(c.add(inline_bytes, site(2, 0, StreamRole::kData, nullptr)) == -1);
  FileResolver resolver(s.path(), {});
  FileTable t = std::move(c).finish(resolver);

  REQUIRE(t.size() == 4);
  const FileTable::File shared = t[0];
  CHECK(shared.uri == "hdfs://nn/shared/a");
  CHECK(shared.size == 30);
  CHECK_FALSE(shared.exists);
  CHECK_FALSE(shared.path);
  REQUIRE(shared.references.size() == 2);
  std::vector<std::string> refs;
  for (const FileTable::Reference r : shared.references)
    refs.push_back(std::to_string(r.operator_index) + "/" + std::to_string(r.subtask) + " " +
                   std::string(r.local_name));
  CHECK(refs == std::vector<std::string>{"0/0 000042.sst", "1/3 000042.sst"});
  const FileTable::File rel = t[1];
  CHECK(rel.exists);
  CHECK(rel.actual_size == 5);
  const std::string rel_path = s / "rel";
  REQUIRE(rel.path);
  CHECK(*rel.path == rel_path);
  CHECK(rel.references.front().local_name == "MANIFEST-1");
  CHECK(t[2].handle_type == handle_type::kFile);
  CHECK(t[2].references.front().local_name.empty());
  CHECK_FALSE(t[3].refused.empty());

  std::vector<ReferencedFile> owned = referenced_files(t);
  REQUIRE(owned.size() == 4);
  size_t i = 0;
  for (const FileTable::File f : t) {
    CHECK(owned[i].uri == f.uri);
    CHECK(owned[i].refused == f.refused);
    CHECK(owned[i].references.size() == f.references.size());
    ++i;
  }
  CHECK(owned[0].references[1].subtask == 3);
  CHECK(owned[1].path == rel_path);
}

TEST_CASE("the file table is the same whether files are added in batches and looked up as they come or not",
          "[unit][format]") {
  // Proves what inspect's two threads rely on: FileCollector::add of a batch gives each stream the
  // index one add() each gives it, and resolve() of the files so far between batches leaves the
  // table finish() alone makes, across more files than a block of records holds (37449: 2 MiB)
  // and through the slot table's growth; a RocksDB name refused by a later reference still
  // refuses its file, and a file found on disk still is. Built on pages taken from a PageStock
  // (as inspect builds it on its file image's pages) that held other bytes, the table is the same.
  test::ScratchDir s;
  test::write_file(s / "present", "1234567");
  const std::string good = "000007.sst", bad = "a/b.sst";
  std::vector<StreamHandle> streams;
  std::vector<StreamSite> sites;
  auto push = [&](uint8_t type, std::string path, int64_t size, size_t op, StreamRole role, const std::string* name) {
    StreamHandle h;
    h.type = type;
    h.path = std::move(path);
    h.size = size;
    streams.push_back(std::move(h));
    StreamSite at;
    at.operator_index = op;
    at.subtask = static_cast<int32_t>(op % 7);
    at.role = role;
    at.local_name = name;
    sites.push_back(at);
  };
  for (size_t i = 0; i < 40000; ++i)
    push(handle_type::kFile, "hdfs://nn/shared/f" + std::to_string(i), static_cast<int64_t>(i), i / 100,
         StreamRole::kSharedFile, &good);
  push(handle_type::kRelativeFile, "present", 7, 400, StreamRole::kPrivateFile, &good);
  push(handle_type::kFile, "hdfs://nn/shared/f5", 99, 401, StreamRole::kSharedFile, &bad);  // again, bad name
  push(handle_type::kFile, "hdfs://nn/shared/f6", 1, 401, StreamRole::kData, nullptr);
  StreamHandle inline_bytes;
  inline_bytes.type = handle_type::kByteStream;
  streams.push_back(inline_bytes);
  sites.push_back({});

  auto summary = [](const FileTable& t) {
    std::vector<std::string> out;
    for (const FileTable::File f : t) {
      std::string line = std::string(f.uri) + " " + std::to_string(f.handle_type) + " " +
                         (f.path ? std::string(*f.path) : "-") + " " + std::to_string(f.size) + " " +
                         std::to_string(f.exists) + " " + std::to_string(f.actual_size) + " " +
                         std::string(f.refused) + " " + std::to_string(f.outside) + " |";
      for (const FileTable::Reference r : f.references)
        line += " " + std::to_string(r.operator_index) + "/" + std::to_string(r.subtask) + "/" +
                stream_role_name(r.role) + "/" + std::string(r.local_name);
      out.push_back(std::move(line));
    }
    return out;
  };

  FileCollector one;
  std::vector<int64_t> one_indices;
  for (size_t i = 0; i < streams.size(); ++i) one_indices.push_back(one.add(streams[i], sites[i]));
  FileResolver one_resolver(s.path(), {});
  const FileTable whole = std::move(one).finish(one_resolver);

  FileCollector batched;
  std::vector<int64_t> batched_indices, indices;
  FileResolver resolver(s.path(), {});
  for (size_t from = 0; from < streams.size(); from += 1000) {
    std::vector<FileCollector::Pending> batch;
    for (size_t i = from; i < std::min(streams.size(), from + 1000); ++i) batch.push_back({&streams[i], sites[i]});
    batched.add(batch, indices);
    batched_indices.insert(batched_indices.end(), indices.begin(), indices.end());
    batched.resolve(resolver, batched.size() / 2);  // some of what is there, as a waiting thread would
  }
  const FileTable stepped = std::move(batched).finish(resolver);

  std::optional<FileTable> recycled;
  {
    PageStock stock;
    const size_t bytes = size_t{16} << 20;
    void* used = map_huge_pages(bytes);
    REQUIRE(used != nullptr);
    std::memset(used, 0xAB, bytes);  // what a file image held: not zeros
    stock.give(used, bytes);
    FileCollector on_stock;
    on_stock.take_pages_from(&stock);
    std::vector<int64_t> stock_indices;
    for (size_t i = 0; i < streams.size(); ++i) stock_indices.push_back(on_stock.add(streams[i], sites[i]));
    CHECK(stock_indices == one_indices);
    FileResolver stock_resolver(s.path(), {});
    recycled = std::move(on_stock).finish(stock_resolver);
    size_t got = 0;
    void* rest = stock.take(1, bytes, got);
    REQUIRE(rest != nullptr);
    CHECK(got <= bytes - 3 * kHugePage);  // the table took pages of the stock (two blocks of records, refs...)
    unmap_pages(rest, got);
  }  // the stock is gone: the table's pages are its own
  CHECK(summary(*recycled) == summary(whole));

  CHECK(batched_indices == one_indices);
  CHECK(one_indices.back() == -1);
  REQUIRE(whole.size() == 40001);
  CHECK(summary(stepped) == summary(whole));
  CHECK(whole[5].size == 99);
  CHECK(whole[5].refused == "rocksdb file name 'a/b.sst' is not a plain file name");
  CHECK_FALSE(whole[5].exists);
  CHECK(whole[40000].exists);
  CHECK(whole[40000].actual_size == 7);
  CHECK(whole[6].references.size() == 2);
  CHECK(whole[6].refused.empty());
}
