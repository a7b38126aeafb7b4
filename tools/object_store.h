// tools/object_store.h - s3:// (s3a://, s3p://) URIs wherever a command takes a snapshot path.
//
// The command runs on a local staging copy: one LIST per prefix gives every object and its
// size; `_metadata` files are fetched whole (ranged GETs, resumed on drops), the other objects
// in parallel (--connections) when the command reads them, or stand as sparse files of their
// listed size and LastModified when it only checks existence, sizes and ages (verify without
// --deep, gc). What the command prints names the URIs, not the staging copy, which is deleted
// when it ends. Files a `_metadata` names by an s3:// URI outside the named prefix (a chain's
// shared/) are staged by those URIs and found through --remap. gc does not stage: it works in
// the store (ckpt/gc.h, "Object stores").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "command.h"

namespace ckpt::cli {

// True if `args` (without argv[0]) hold an object-store URI or option.
bool uses_object_store(const std::vector<std::string>& args);

// Strips the object-store options (ckpt(1) OBJECT STORES), stages the URIs, runs `local` on
// the rewritten arguments and prints its output with the staging paths named as the URIs.
int run_with_object_store(const std::vector<std::string>& args, Io& io,
                          const std::function<int(const std::vector<std::string>&, Io&)>& local);

}  // namespace ckpt::cli
