// One line of dump's NDJSON split into its members.
#include "ops/load/entry_line.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "support/json_input.h"

namespace ckpt {
namespace {

static_assert(kEntryMembers[0] == "operator" && kEntryMembers[1] == "uid" && kEntryMembers[2] == "subtask" &&
                  kEntryMembers[3] == "state" && kEntryMembers[4] == "kind" && kEntryMembers[5] == "key_group" &&
                  kEntryMembers[6] == "key" && kEntryMembers[7] == "namespace" && kEntryMembers[8] == "user_key" &&
                  kEntryMembers[9] == "value",
              "index_of() knows the members by these indices");

// kEntryMembers' index of `name`, or its size: by length and first letter, then one compare
// (a search of the list compared every line's names with most of it).
size_t index_of(std::string_view name) {
  size_t i = std::size(kEntryMembers);
  if (name.empty()) return i;
  switch (name.size()) {
    case 3: i = name[0] == 'u' ? 1 : 6; break;        // uid, key
    case 4: i = 4; break;                              // kind
    case 5: i = name[0] == 's' ? 3 : 9; break;        // state, value
    case 7: i = 2; break;                              // subtask
    case 8: i = name[0] == 'o' ? 0 : 8; break;        // operator, user_key
    case 9: i = name[0] == 'k' ? 5 : 7; break;        // key_group, namespace
    default: return std::size(kEntryMembers);
  }
  return kEntryMembers[i] == name ? i : std::size(kEntryMembers);
}

size_t skip_space(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// The position of the quote that closes the string whose contents start at t[from], or npos:
// a quote after an even run of backslashes (each pair one escaped backslash). memchr jumps over
// the long hex strings of byte values, which a scan byte by byte spent a tenth of load's time on.
size_t closing_quote(std::string_view t, size_t from) {
  for (size_t i = from; i < t.size();) {
    const void* q = std::memchr(t.data() + i, '"', t.size() - i);
    if (!q) return std::string_view::npos;
    const size_t at = static_cast<size_t>(static_cast<const char*>(q) - t.data());
    size_t backslashes = 0;
    while (at - backslashes > from && t[at - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return at;
    i = at + 1;
  }
  return std::string_view::npos;
}

// Where the JSON value starting at t[at] ends, or npos: only its extent (strings and brackets
// matched); whether it is valid JSON its parser judges.
size_t value_end(std::string_view t, size_t at) {
  if (at >= t.size()) return std::string_view::npos;
  if (t[at] == '"' || t[at] == '{' || t[at] == '[') {
    int depth = 0;
    for (size_t i = at; i < t.size(); ++i) {
      const char c = t[i];
      if (c == '"') {
        i = closing_quote(t, i + 1);
        if (i == std::string_view::npos) return i;
        if (depth == 0) return i + 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return std::string_view::npos;
  }
  size_t i = at;
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') ++i;
  return i;
}

}  // namespace

// A valid line of known members, split without a tree. Anything else (false) goes to the whole
// line's parse, which says what is wrong exactly as it always has.
bool EntryLine::assign_in_place(std::string_view t) {
  size_t i = skip_space(t, 0);
  if (i == t.size() || t[i] != '{') return false;
  i = skip_space(t, i + 1);
  if (i < t.size() && t[i] == '}') return skip_space(t, i + 1) == t.size();
  for (;;) {
    if (i >= t.size() || t[i] != '"') return false;
    const size_t name_end = t.find('"', i + 1);
    if (name_end == std::string_view::npos) return false;
    const size_t index = index_of(t.substr(i + 1, name_end - i - 1));  // no known name has an escape
    if (index == std::size(kEntryMembers)) return false;
    i = skip_space(t, name_end + 1);
    if (i >= t.size() || t[i] != ':') return false;
    i = skip_space(t, i + 1);
    const size_t end = value_end(t, i);
    if (end == std::string_view::npos) return false;
    // One level less: the line's object is one.
    const std::string_view text = t.substr(i, end - i);
    if (!parsed_[index] || texts_[index] != text) {
      parsed_[index] = false;
      if (!parse_plain_json_into(text, &members_[index], kMaxJsonInputNesting - 1)) {
        Result<nlohmann::json> value = parse_json_input(text, kMaxJsonInputNesting - 1);
        if (!value.ok()) return false;
        members_[index] = std::move(*value);
      }
      texts_[index].assign(text);
      parsed_[index] = true;
    }
    present_[index] = true;
    i = skip_space(t, end);
    if (i >= t.size()) return false;
    if (t[i] == '}') return skip_space(t, i + 1) == t.size();
    if (t[i] != ',') return false;
    i = skip_space(t, i + 1);
  }
}

void EntryLine::forget() {
  for (nlohmann::json& m : members_) m = nullptr;
  present_.fill(false);
  parsed_.fill(false);
}

Status EntryLine::assign(std::string_view text) {
  present_.fill(false);
  if (assign_in_place(text)) return Status::OK();
  forget();
  auto parsed = parse_json_input(text);
  if (!parsed.ok())
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("expected a JSON object as ckpt dump prints entries: {}", parsed.error().message));
  if (!parsed->is_object())
    return Error(ErrorCode::kInvalidArgument, "expected a JSON object as ckpt dump prints entries");
  for (auto it = parsed->begin(); it != parsed->end(); ++it) {
    const size_t index = index_of(it.key());
    if (index == std::size(kEntryMembers))
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: not a member of dump's entries (operator, subtask, state, kind, key_group, key, "
                               "namespace, user_key, value)",
                               it.key()));
    members_[index] = std::move(*it);
    present_[index] = true;
  }
  return Status::OK();
}

const nlohmann::json* EntryLine::find(std::string_view name) const {
  const size_t index = index_of(name);
  return index < members_.size() && present_[index] ? &members_[index] : nullptr;
}

}  // namespace ckpt
