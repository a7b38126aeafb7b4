// support/io_internal.h - what the output layer's files (io.cc, temp_dir.cc) share, and the
// marker of ckpt's scratch directories (the object-store file system's too).
#pragma once

#include <sys/types.h>

#include <string>

#include "ckpt/error.h"

namespace ckpt {

// kNotFound for ENOENT, else kIOError; "<what>: <strerror(err)>", naming `path`.
Error io_error(const std::string& path, const std::string& what, int err);

// The directory holding `path` ("." for a bare name): what to sync after a rename into it.
std::string parent_directory(const std::string& path);

// A synced file `tmp` beside `path` renamed to it, as publish_file() does with the bytes it
// wrote there: an existing `path` replaced only with `replace`; `tmp` is gone afterwards.
Status publish_synced_temp(const std::string& tmp, const std::string& path, bool replace);
// fsync of one file or directory (e.g. the parent of a rename that published an output).
Status sync_path(const std::string& path);
// fsync of every regular file and directory under `dir`, then of `dir` itself: what must be
// durable before a rename publishes it (TempDir::commit; writers that skip per-file syncs rely
// on it).
Status sync_tree(const std::string& dir);

// The process's umask. Outputs made through mkstemp/mkdtemp (0600/0700) are given the modes
// open()/mkdir() would give them, 0666 or 0777 less the umask: a Flink process running as
// another user can read what ckpt wrote, and a umask of 077 keeps it private.
mode_t process_umask();
inline mode_t file_mode() { return 0666 & ~process_umask(); }
inline mode_t directory_mode() { return 0777 & ~process_umask(); }

// The marker of a directory that ckpt works in (TempDir's, an object-store cache or output's): a lock
// file in `dir`, held locked (flock) by the returned descriptor while the run lives. It gets its
// name only once locked, so no other run ever finds it unlocked while this one lives.
Result<int> hold_temp_lock(const std::string& dir);
// Removes `dir` if it is a directory (not a symlink) holding that marker and nobody holds it
// locked: the directory of a ckpt that was killed. Anything else stays.
void remove_temp_if_abandoned(const std::string& dir);

}  // namespace ckpt
