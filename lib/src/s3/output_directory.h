// s3/output_directory.h - an operation's output directory, written on the local disk and
// published at its final path through the file system of that path (ckpt/file_system.h).
//
// On disk: TempDir (ckpt/io.h), a temporary name beside the output and one rename. At an
// object-store URI: a local scratch directory (what RocksDB's writers need: they write files by
// name), whose files commit() uploads under their final keys, data objects first and every
// `_metadata` last. A prefix without its `_metadata` is never taken for a snapshot (discovery
// and ls show it as incomplete), so readers see nothing or the whole output; when an upload
// fails, the objects uploaded are deleted.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/io.h"
#include "s3/store_files.h"

namespace ckpt {

class OutputDirectory {
 public:
  // For an object-store URI, refused when objects are there already (a store has no rename that
  // would swap an old output for the new one: nothing is replaced in a store).
  static Result<std::unique_ptr<OutputDirectory>> create(const std::string& final_path);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // Where the output is written.
  const std::string& path() const { return path_; }
  // Publishes the output at its final path (`replace`: as TempDir::commit; refused in a store).
  Status commit(bool replace = false);

 private:
  OutputDirectory() = default;
  std::optional<TempDir> local_;
  StoreScratch scratch_;  // an object-store output's local copy
  std::string path_, final_;
};

// The parts "<uri>.part-K-of-N/..." that runs with --shard published in a store
// (ops/rewrite/rewrite_parts.h), downloaded for the last step: they are "<output()>.part-K-of-N"
// on the disk. remove() deletes their objects once the assembled output is published, as the
// last step on a disk removes the part directories.
class FetchedParts {
 public:
  static Result<std::unique_ptr<FetchedParts>> fetch(const std::string& uri);
  ~FetchedParts();
  FetchedParts(const FetchedParts&) = delete;
  FetchedParts& operator=(const FetchedParts&) = delete;
  const std::string& output() const { return output_; }
  Status remove();

 private:
  FetchedParts() = default;
  StoreScratch scratch_;
  std::string output_;
  std::vector<std::string> objects_;
};

// The file `path` (a local path or an object's URI) copied whole to the local file `local_path`:
// what builds an output from input files on the local disk (compact's copies, RocksDB's inputs).
Status copy_to_local(const std::string& path, const std::string& local_path);

// kInvalidArgument naming `uri` when any object is at it or under it as a prefix.
Status check_no_objects_at(const std::string& uri);

}  // namespace ckpt
