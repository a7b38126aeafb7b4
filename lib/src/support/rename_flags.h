// support/rename_flags.h - renameat2(2) without relying on glibc's wrapper (2.28+).
#pragma once

namespace ckpt {

// 0, or the errno of the failed rename. EINVAL: the file system does not support the flag.
// `from` onto `to` only if `to` does not exist (EEXIST otherwise), atomically.
int rename_noreplace(const char* from, const char* to);
// `a` and `b` swapped atomically; both must exist (ENOENT otherwise).
int rename_exchange(const char* a, const char* b);

}  // namespace ckpt
