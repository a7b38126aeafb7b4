// support/fs_listing.h - directory listings and temporary directories without exceptions.
//
// std::filesystem reports failures by throwing unless given a std::error_code, and a range-for
// over a directory_iterator advances with the throwing operator++. libckpt never throws across
// its API, so the few listings it needs go through here.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/error.h"

namespace ckpt {

// The entries of `dir` (not recursive, in the file system's order); kIOError / kNotFound
// naming `dir` if it cannot be listed to the end.
Result<std::vector<std::filesystem::directory_entry>> list_directory(const std::string& dir);

// The directory for temporary files (TMPDIR, else /tmp): kIOError naming it if it is not a
// directory, with a hint at TMPDIR.
Result<std::string> temp_directory();

}  // namespace ckpt
