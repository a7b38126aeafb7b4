// ckpt/entry_kind.h - which of a state's three sorts an entry is, and which of its fields a
// consumer reads.
//
// Apart from ckpt/entries.h because the state layer's readers produce entries of each kind
// (state/state_entry.h) and skip the fields nobody reads (state/read_options.h), while the
// public reader over them lives above, in the operations.
#pragma once

#include <cstdint>

#include "ckpt/export.h"

namespace ckpt {

enum class EntryKind : uint8_t { kKeyed, kTimer, kOperator };
CKPT_API const char* entry_kind_name(EntryKind k);  // "keyed", "timer", "operator"

// The decoded fields of an Entry (ckpt/entries.h) a consumer reads.
struct CKPT_API EntryFields {
  bool key = true;
  bool ns = true;
  bool user_key = true;
  bool value = true;
};

}  // namespace ckpt
