// support/io_internal.h - what the output layer's files (io.cc, temp_dir.cc) share.
#pragma once

#include <string>

#include "ckpt/error.h"

namespace ckpt {

// kNotFound for ENOENT, else kIOError; "<what>: <strerror(err)>", naming `path`.
Error io_error(const std::string& path, const std::string& what, int err);

// The directory holding `path` ("." for a bare name): what to sync after a rename into it.
std::string parent_directory(const std::string& path);

}  // namespace ckpt
