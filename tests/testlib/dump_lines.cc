#include "testlib/dump_lines.h"

#include <catch2/catch.hpp>

#include "ckpt/dump.h"

namespace ckpt::test {
namespace {

// The lines as `ckpt dump` prints them: rendered on the workers from the decoders' text.
class LinesSink : public DumpSink {
 public:
  void entry(const Entry&) override { FAIL("entry() called on a sink that wants NDJSON text"); }
  bool wants_ndjson() const override { return true; }
  void ndjson(std::string_view text) override {
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      lines.emplace_back(text.substr(at, end - at));
      at = end + 1;
    }
  }
  void problem(const Error&) override {}
  std::vector<std::string> lines;
};

}  // namespace

std::vector<std::string> dump_lines(const std::string& snapshot, const DumpOptions& options) {
  LinesSink sink;
  auto r = dump_snapshot(snapshot, options, sink);
  INFO((r.ok() ? std::string() : r.error().to_string()));
  REQUIRE(r.ok());
  return sink.lines;
}

std::vector<Value> keys_of(const std::vector<std::string>& json) {
  std::vector<Value> keys;
  for (const std::string& text : json) {
    Result<Value> key = parse_value(text);
    INFO(text << ": " << (key.ok() ? std::string() : key.error().to_string()));
    REQUIRE(key.ok());
    keys.push_back(std::move(*key));
  }
  return keys;
}

}  // namespace ckpt::test
