#include "ckpt/version.h"

namespace ckpt {
const char* version_string() { return "0.1.0"; }
}
