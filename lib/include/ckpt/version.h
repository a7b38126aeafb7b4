// ckpt/version.h - the library's version.
#pragma once

#include "ckpt/export.h"

namespace ckpt {
CKPT_API const char* version_string();
}
