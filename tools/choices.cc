#include "choices.h"

#include <tuple>

namespace ckpt::cli {

namespace {

struct Row {
  std::string_view command, option;
  std::vector<std::string> words;
};

// The layouts are the library's (parse_convert_target, parse_generate_backend): the test of this
// table parses each word with them. `help COMMAND` completes from the command table itself.
const std::vector<Row>& table() {
  static const std::vector<Row> rows = {
      {"convert", "--to", {"rocksdb", "heap", "hashmap", "canonical"}},
      {"edit", "--to", {"rocksdb", "heap", "hashmap", "canonical"}},
      {"generate", "--backend", {"rocksdb", "heap", "hashmap", "canonical"}},
      {"dump", "--format", {"ndjson", "table"}},
      {"query", "--format", {"table", "csv", "ndjson", "json"}},
      {"diff", "--format", {"ndjson"}},
      {"compact", "--compression", {"zstd", "lz4", "snappy", "none"}},
      {"completion", "SHELL", {"bash", "zsh", "fish"}},
  };
  return rows;
}

}  // namespace

const std::vector<std::string>& option_choices(std::string_view command, std::string_view option) {
  static const std::vector<std::string> none;
  for (const Row& r : table())
    if (r.command == command && r.option == option) return r.words;
  return none;
}

}  // namespace ckpt::cli
