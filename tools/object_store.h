// tools/object_store.h - s3:// (s3a://, s3p://) URIs wherever a command takes a snapshot path.
//
// The command runs on the library's staging tree (ckpt/object_store.h, ObjectStoreStaging):
// one LIST per prefix, `_metadata` fetched, every other object a placeholder whose bytes come
// when the command reads them, into a cache bounded by --cache-size. This file only finds the
// URIs and the object-store options on the command line, rewrites them to the staging paths
// and prints what the command printed with the URIs named again. gc does not stage: it works
// in the store (ckpt/gc.h, "Object stores").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "command.h"

namespace ckpt::cli {

// The object-store options (ckpt(1) OBJECT STORES), which any command takes anywhere on its
// command line: `value` names a valued option's value, "" for a flag.
struct GlobalOption {
  const char* name;   // "--endpoint"
  const char* value;  // "URL"
  const char* help;
};
const std::vector<GlobalOption>& object_store_options();

// True if `args` (without argv[0]) hold an object-store URI or option.
bool uses_object_store(const std::vector<std::string>& args);

// Strips the object-store options (ckpt(1) OBJECT STORES), stages the URIs, runs `local` on
// the rewritten arguments and prints its output with the staging paths named as the URIs.
int run_with_object_store(const std::vector<std::string>& args, Io& io,
                          const std::function<int(const std::vector<std::string>&, Io&)>& local);

}  // namespace ckpt::cli
