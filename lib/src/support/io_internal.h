// support/io_internal.h - what the output layer's files (io.cc, temp_dir.cc) share.
#pragma once

#include <sys/types.h>

#include <string>

#include "ckpt/error.h"

namespace ckpt {

// kNotFound for ENOENT, else kIOError; "<what>: <strerror(err)>", naming `path`.
Error io_error(const std::string& path, const std::string& what, int err);

// The directory holding `path` ("." for a bare name): what to sync after a rename into it.
std::string parent_directory(const std::string& path);

// The process's umask. Outputs made through mkstemp/mkdtemp (0600/0700) are given the modes
// open()/mkdir() would give them, 0666 or 0777 less the umask: a Flink process running as
// another user can read what ckpt wrote, and a umask of 077 keeps it private.
mode_t process_umask();
inline mode_t file_mode() { return 0666 & ~process_umask(); }
inline mode_t directory_mode() { return 0777 & ~process_umask(); }

}  // namespace ckpt
