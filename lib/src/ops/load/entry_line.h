// ops/load/entry_line.h - one line of dump's NDJSON: its members, each parsed on its own.
//
// A line is an object of at most ten known members; a JSON tree of the whole line (a map node
// and a name string per member, looked up by name) cost load more than the members' values.
#pragma once

#include <array>
#include <iterator>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"

namespace ckpt {

// The members a line may have: what dump prints.
inline constexpr std::string_view kEntryMembers[] = {"operator",  "uid", "subtask",   "state",    "kind",
                                                     "key_group", "key", "namespace", "user_key", "value"};

class EntryLine {
 public:
  // Errors (kInvalidArgument, no line number: the caller adds it): "expected a JSON object as
  // ckpt dump prints entries[: <why not JSON>]", "<name>: not a member of dump's entries (...)".
  // A member given twice: the last, as a JSON tree would keep it.
  Status assign(std::string_view text);

  // The member `name` (one of kEntryMembers), or nullptr if the line has none.
  const nlohmann::json* find(std::string_view name) const;

 private:
  bool assign_in_place(std::string_view text);
  void forget();

  // Per member: its value, whether this line has it, and the text `members_` was parsed from
  // (`parsed_`: it was): lines repeat their operator, state, kind and namespace, which are then
  // not parsed again, and the members that differ are parsed into the last line's memory.
  std::array<nlohmann::json, std::size(kEntryMembers)> members_;
  std::array<bool, std::size(kEntryMembers)> present_{};
  std::array<std::string, std::size(kEntryMembers)> texts_;
  std::array<bool, std::size(kEntryMembers)> parsed_{};
};

}  // namespace ckpt
