// state/read_options.h - what the layout readers are asked to read, and where problems go.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/entry_kind.h"
#include "ckpt/error.h"

namespace ckpt {

// The keys of a point lookup (dump --key): each spelling of each key given (ops/key_spelling.h)
// as a tree and as its compact JSON text, so an entry is matched in whichever form its reader
// produced. `matched` (one per key given) is set from any worker thread when an entry of that
// key is seen, so the caller can name the keys nothing had.
struct KeySet {
  std::vector<nlohmann::json> keys;
  std::vector<std::string> texts;  // json_text() of each key
  std::vector<size_t> given;       // per spelling: the index of the key given it spells
  std::vector<std::string> given_texts;
  std::unique_ptr<std::atomic<bool>[]> matched;
  // index_texts(): each text's first index, so that a lookup of thousands of keys (`key IN
  // (SELECT ...)`) matches an entry in one probe rather than one comparison per key.
  std::unordered_map<std::string, size_t> by_text;

  // Once `texts` is complete.
  void index_texts() {
    by_text.clear();
    for (size_t i = 0; i < texts.size(); ++i) by_text.emplace(texts[i], i);
  }

  // The index of the key given as a tree or as its JSON text, or -1.
  int find(const nlohmann::json* tree, const std::string* text) const {
    if (!by_text.empty()) {
      auto at = by_text.find(text ? *text : tree->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      if (at != by_text.end()) return static_cast<int>(at->second);
      // Texts compare exactly; a tree may equal a key whose text differs (1 and 1.0).
      if (text) return -1;
    }
    for (size_t i = 0; i < keys.size(); ++i)
      if (text ? *text == texts[i] : *tree == keys[i]) return static_cast<int>(i);
    return -1;
  }
};

// Filters the readers apply as early as their layout allows (a skipped key group is never
// read, a skipped state is never decoded where the layout frames it).
struct StateFilter {
  std::string state;          // empty: every state
  int32_t first_key_group = 0;
  int32_t last_key_group = INT32_MAX;
  // If not empty: only these key groups (sorted), within [first_key_group, last_key_group].
  std::vector<int32_t> only_key_groups;
  // If set: only keyed and timer entries with one of these keys.
  std::shared_ptr<const KeySet> keys;
  // With `keys`, where every key's group is known: the key group Flink assigns each of
  // keys->keys (parallel to it), -1 for a spelling this key type cannot have. A RocksDB lookup
  // then seeks each key in its own key group only.
  std::vector<int32_t> key_groups_of_keys;
  // The consumer prints JSON text: readers may hand entries as text (StateEntry::is_text)
  // where they can, skipping the trees.
  bool json_text = false;
  // The consumer wants public Values (the entry iterator): readers may hand entries as Values
  // (StateEntry::is_value) where they can, skipping the trees. json_text wins where both are set.
  bool values = false;
  // With `values`: the fields the consumer reads (EntryReaderOptions::decode).
  EntryFields decode;
  // The consumer wants each entry's bytes too (StateEntry::has_raw): readers copy them where
  // their layout keeps an entry's fields in one place.
  bool raw_bytes = false;
  // Every state's entries of a key group before the next key group's, in every layout (a
  // RocksDB handle is otherwise read state by state): what compares two snapshots of different
  // backends in one pass.
  bool key_group_major = false;
  // The consumer drops every entry (a writing command's input check): readers may check the
  // bytes as decoding them would, with the same errors, without building entries.
  bool check_only = false;

  bool wants_state(const std::string& name) const { return state.empty() || state == name; }
  bool wants_key_group(int32_t kg) const {
    if (kg < first_key_group || kg > last_key_group) return false;
    return only_key_groups.empty() || std::binary_search(only_key_groups.begin(), only_key_groups.end(), kg);
  }
};

// Where a reader reports a problem it can step over (a damaged key group, an unreadable SST)
// when the caller asked to keep going. Returning the error instead stops the reader.
using ProblemSink = std::function<Status(Error&&)>;

}  // namespace ckpt
