// tools/store_options.h - the object-store options (ckpt(1) OBJECT STORES), which any command
// takes anywhere on its command line, parsed once into the library's store options
// (ckpt/file_system.h). s3:// URIs are no concern of the tool: they pass to the commands as
// written, and the library reads and writes them through its file system.
#pragma once

#include <string>
#include <vector>

#include "command.h"

namespace ckpt::cli {

// A global option: `value` names a valued option's value, "" for a flag.
struct GlobalOption {
  const char* name;   // "--endpoint"
  const char* value;  // "URL"
  const char* help;
};
const std::vector<GlobalOption>& object_store_options();

// Takes the object-store options off `args` (up to a `--`) and gives them to the library for
// the run; `error()` says what was malformed. The destructor writes what the run cost the
// store, if it used one, as a JSON line to the file CKPT_S3_STATS names (bench and tests).
class StoreOptions {
 public:
  StoreOptions(std::vector<std::string>& args, Io& io);
  ~StoreOptions();
  StoreOptions(const StoreOptions&) = delete;
  StoreOptions& operator=(const StoreOptions&) = delete;
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

}  // namespace ckpt::cli
