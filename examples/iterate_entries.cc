// examples/iterate_entries.cc - every state entry of a snapshot through libckpt's public API.
//
//   iterate_entries SNAPSHOT [STATE]
//
// Prints one line per entry: where it is (operator, subtask, state, kind, key group), its
// fields as typed values and its bytes in hex, then a count and the sum of the integer values.
// Only <ckpt/entries.h> is used: the program links libckpt.so and nothing of its internals.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "ckpt/entries.h"

namespace {

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// A value with its type, e.g. `int 42`, `string "a"`, `object {...}`.
std::string typed(const ckpt::Value& v) {
  using K = ckpt::Value::Kind;
  switch (v.kind()) {
    case K::kNull: return "null";
    case K::kBool: return v.as_bool() ? "bool true" : "bool false";
    case K::kInt: return "int " + std::to_string(v.as_int());
    case K::kUnsigned: return "unsigned " + std::to_string(v.as_unsigned());
    case K::kDouble: return "double " + v.json();
    case K::kString: return "string " + v.json();
    case K::kArray: return "array[" + std::to_string(v.size()) + "] " + v.json();
    case K::kObject: return "object[" + std::to_string(v.size()) + "] " + v.json();
    case K::kBytes: return "bytes[" + std::to_string(v.as_bytes().size()) + "] " + hex(v.as_bytes());
  }
  return v.json();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: iterate_entries SNAPSHOT [STATE]\n");
    return 2;
  }
  ckpt::EntryReaderOptions options;
  if (argc == 3) options.state = argv[2];
  ckpt::Result<std::unique_ptr<ckpt::EntryReader>> reader = ckpt::EntryReader::open(argv[1], options);
  if (!reader.ok()) {
    std::fprintf(stderr, "iterate_entries: %s\n", reader.error().to_string().c_str());
    return 1;
  }
  uint64_t entries = 0;
  int64_t sum = 0;
  std::unique_ptr<ckpt::EntryIterator> it = (*reader)->entries();
  for (; it->valid(); it->next()) {
    const ckpt::Entry& e = it->entry();
    std::string line = e.operator_id + " subtask " + std::to_string(e.subtask) + " " + e.state + " " +
                       ckpt::entry_kind_name(e.kind);
    if (e.key_group) line += " key_group " + std::to_string(*e.key_group);
    if (e.key) line += " | key " + typed(*e.key);
    if (e.ns) line += " | namespace " + typed(*e.ns);
    if (e.user_key) line += " | user_key " + typed(*e.user_key);
    line += " | value " + typed(e.value);
    if (e.has_raw) {
      line += " | bytes";
      if (e.key) line += " key " + hex(e.raw_key);
      if (e.ns) line += " namespace " + hex(e.raw_namespace);
      if (e.user_key) line += " user_key " + hex(e.raw_user_key);
      line += " value " + hex(e.raw_value);
    }
    std::printf("%s\n", line.c_str());
    ++entries;
    if (e.value.kind() == ckpt::Value::Kind::kInt) sum += e.value.as_int();
  }
  if (!it->status().ok()) {
    std::fprintf(stderr, "iterate_entries: %s\n", it->status().error().to_string().c_str());
    return 1;
  }
  std::printf("%" PRIu64 " entries, integer values sum to %" PRId64 "\n", entries, sum);
  return 0;
}
