// state/read_options.h - what the layout readers are asked to read, and where problems go.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ckpt/error.h"

namespace ckpt {

// Filters the readers apply as early as their layout allows (a skipped key group is never
// read, a skipped state is never decoded where the layout frames it).
struct StateFilter {
  std::string state;          // empty: every state
  int32_t first_key_group = 0;
  int32_t last_key_group = INT32_MAX;
  // The consumer prints JSON text: readers may hand entries as text (StateEntry::is_text)
  // where they can, skipping the trees.
  bool json_text = false;
  // The consumer wants each entry's bytes too (StateEntry::has_raw): readers copy them where
  // their layout keeps an entry's fields in one place.
  bool raw_bytes = false;

  bool wants_state(const std::string& name) const { return state.empty() || state == name; }
  bool wants_key_group(int32_t kg) const { return kg >= first_key_group && kg <= last_key_group; }
};

// Where a reader reports a problem it can step over (a damaged key group, an unreadable SST)
// when the caller asked to keep going. Returning the error instead stops the reader.
using ProblemSink = std::function<Status(Error&&)>;

}  // namespace ckpt
