// renameat2 through syscall(2): glibc before 2.28 has no wrapper, and the kernel call is the same.
#include "support/rename_flags.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

namespace ckpt {

static int renameat2_errno(const char* from, const char* to, unsigned flags) {
#ifdef SYS_renameat2
  if (::syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags) == 0) return 0;
  return errno == ENOSYS ? EINVAL : errno;  // a kernel before 3.15: as a file system without the flag
#else
  (void)from, (void)to, (void)flags;
  return EINVAL;
#endif
}

int rename_noreplace(const char* from, const char* to) { return renameat2_errno(from, to, RENAME_NOREPLACE); }

int rename_exchange(const char* a, const char* b) { return renameat2_errno(a, b, RENAME_EXCHANGE); }

}  // namespace ckpt
