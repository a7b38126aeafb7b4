// ckpt/version.h - the library's version.
#pragma once

namespace ckpt {
const char* version_string();
}
