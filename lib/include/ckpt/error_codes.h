// ckpt/error_codes.h - the stable names of ErrorCode that programs match on.
#pragma once

#include "ckpt/error.h"
#include "ckpt/export.h"

namespace ckpt {

// "corruption", "not_supported", "io_error", "invalid_argument", "not_found": the `code` of
// `--json` errors (formats/json.md §3) and of the Python module's ckpt.Error. Unlike
// error_code_name()'s words for people, these never change.
CKPT_API const char* error_code_id(ErrorCode code);

}  // namespace ckpt
