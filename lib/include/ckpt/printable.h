// ckpt/printable.h - strings from input made safe to print on a terminal.
//
// Paths, operator names and uids, state and serializer names, keys and values come from
// `_metadata` and state files that anyone could have written. Printed raw, a newline forges an
// output line and an ESC or OSC sequence moves the cursor, clears lines or sets the window
// title. Every text printer passes such strings through printable(); JSON output needs no
// such step (its writer escapes every control character).
#pragma once

#include <string>
#include <string_view>

#include "ckpt/export.h"

namespace ckpt {

// `s` with every control character escaped: \n, \r, \t as such, other C0 bytes and DEL as \xNN,
// C1 controls (U+0080 to U+009F, which some terminals obey as ESC sequences) as \u0080..\u009f,
// and bytes that are not UTF-8 as \xNN. Printable ASCII and valid UTF-8 are kept as they are.
CKPT_API std::string printable(std::string_view s);

}  // namespace ckpt
