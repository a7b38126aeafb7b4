// state/state_entry.h - one logical state entry as the layout readers produce it.
//
// Whatever the layout (heap, canonical, RocksDB, operator stream, change log), a reader turns
// bytes into these, with values already decoded to JSON, so the dump and the parity tests see
// the same thing for the same logical state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/entry_kind.h"
#include "ckpt/error.h"
#include "ckpt/value.h"

namespace ckpt {


struct StateEntry {
  std::string state;
  EntryKind kind = EntryKind::kKeyed;
  int32_t key_group = -1;  // keyed and timer entries
  bool has_key = false;    // keyed, timer, broadcast
  bool has_namespace = false;
  bool has_user_key = false;  // map state
  nlohmann::json key;
  nlohmann::json ns;
  nlohmann::json user_key;
  nlohmann::json value;
  // A reader asked for text (StateFilter::json_text) may fill these instead of the trees: each
  // present field's compact JSON text, exactly json_text() of the tree it stands for.
  bool is_text = false;
  std::string key_text;
  std::string ns_text;
  std::string user_key_text;
  std::string value_text;
  // A reader asked for Values (StateFilter::values) may fill these instead of the trees: each
  // present field exactly value_of() of the tree it stands for.
  bool is_value = false;
  Value key_value;
  Value ns_value;
  Value user_key_value;
  Value value_value;
  // A reader asked for bytes (StateFilter::raw_bytes) fills these where its layout keeps the
  // entry's fields whole (ckpt/entries.h, Entry, says what each holds per layout).
  bool has_raw = false;
  std::string raw_key;
  std::string raw_ns;
  std::string raw_user_key;
  std::string raw_value;
};

// The error a sink returns to stop a reader early (the limit is reached, another subtask
// failed). Readers pass it up untouched and never report it as a problem.
Error stop_error();
bool is_stop(const Error& e);

// Receives entries in reading order; an error stops the reader (and is passed up).
using EntrySink = std::function<Status(StateEntry&&)>;

}  // namespace ckpt
