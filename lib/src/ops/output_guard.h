// ops/output_guard.h - the rules every operation's output obeys before anything is written
// (ckpt(1), OUTPUTS): it never is, contains or lies inside what the operation reads, and it
// replaces an existing output only when told to.
#pragma once

#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"

namespace ckpt {

enum class OutputKind {
  kDirectory,  // restore, convert, compact, generate
  kFile,       // relocate: may lie inside a snapshot directory, never be a file it reads
};

// A snapshot the operation reads, with the rules that find its files: `where` and `metadata`
// as the operation read them, or else `snapshot`, read here (a snapshot the operation reads
// only in part, as --key-serializers-from; empty: no input).
struct GuardedInput {
  const SnapshotLocation* where = nullptr;
  const Metadata* metadata = nullptr;
  const std::vector<PrefixRule>* remap = nullptr;
  std::string snapshot;
};

// Refuses, with kInvalidArgument naming `output` and the input path it meets, an output that
// - is, contains or (a directory output) lies inside the directory of an input;
// - is an input's `_metadata`, or is or contains a file an input references, where it was found
//   or where its URI or --remap would have it;
// - (checked after those, so that --force never lifts them) exists without `force`: a non-empty
//   directory, or for a file output any file; a directory output that is a file, or a file
//   output that is a directory, is refused with `force` too.
// Paths are compared after resolving `..`, trailing slashes and the symlinks of existing
// ancestors (std::filesystem::weakly_canonical).
Status check_output(const std::string& output, OutputKind kind, bool force, const std::vector<GuardedInput>& inputs);

}  // namespace ckpt
