#include "testlib/dump_lines.h"

#include <catch2/catch.hpp>

#include "ckpt/dump.h"

namespace ckpt::test {
namespace {

class LinesSink : public DumpSink {
 public:
  void entry(const DumpEntry& e) override { lines.push_back(to_ndjson(e)); }
  void problem(const Error&) override {}
  std::vector<std::string> lines;
};

}  // namespace

std::vector<std::string> dump_lines(const std::string& snapshot) {
  LinesSink sink;
  auto r = dump_snapshot(snapshot, DumpOptions{}, sink);
  INFO((r.ok() ? std::string() : r.error().to_string()));
  REQUIRE(r.ok());
  return sink.lines;
}

}  // namespace ckpt::test
