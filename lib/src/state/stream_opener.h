// state/stream_opener.h - the one place a snapshot's state streams are opened.
//
// Every byte a reader decodes comes from a stream handle of `_metadata`: a state file, a segment
// of a merged file, or bytes inline in `_metadata` itself. Decoders only know offsets; the file
// is named here, once, at the input boundary (as LLVM's createFileError attaches the file to an
// object file's errors), so that a damaged state file is never reported as `_metadata`:
// - an error returned from read(), or handed to the problem sink read() passes on, gets the
//   stream's file if it names none (an inner, more precise file wins);
// - errors about the handle itself (a state file that is not there) name `_metadata`, where the
//   reference is, as do errors in_metadata() stamps.
// Inline bytes (type 1) have no position in the decoded model: their errors name `_metadata`
// with the context "inline stream '<name>' (offsets from its first byte)", and the caller's
// context adds the operator and subtask.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/read_options.h"
#include "state/state_stream.h"

namespace ckpt {

class StreamOpener {
 public:
  StreamOpener() = default;
  // `resolve` finds a file handle's file (none: every file handle is "not found").
  StreamOpener(PathResolver resolve, std::string metadata_file)
      : resolve_(std::move(resolve)), metadata_file_(std::move(metadata_file)) {}
  // The files of the snapshot at `where`, found by a FileResolver (safe to share between
  // threads: lookups are serialized, the streams opened are independent).
  static StreamOpener for_snapshot(const SnapshotLocation& where, const std::vector<PrefixRule>& remap);

  Result<StateStream> open(const StreamHandle& handle) const;

  // Opens `handle` and returns `fn(stream)` with its error, if any, stamped with the stream's
  // file. `fn` returns a Status or a Result<T>.
  template <class Fn>
  auto read(const StreamHandle& handle, Fn&& fn) const -> decltype(fn(std::declval<const StateStream&>())) {
    Result<StateStream> stream = open(handle);
    if (!stream.ok()) return std::move(stream).error();
    return stream->stamp(fn(*stream));
  }
  // As above for readers that step over damage: `fn(stream, problems)` gets a problem sink
  // that stamps what it is handed before passing it to `problems`.
  template <class Fn>
  Status read(const StreamHandle& handle, const ProblemSink& problems, Fn&& fn) const {
    Result<StateStream> stream = open(handle);
    if (!stream.ok()) return std::move(stream).error();
    const StateStream& s = *stream;
    ProblemSink stamped = [&s, &problems](Error&& e) { return problems(s.stamp(std::move(e))); };
    return s.stamp(fn(s, stamped));
  }

  // An error about what `_metadata` says (not about a stream's bytes) names `_metadata`.
  Error in_metadata(Error e) const;

  const std::string& metadata_file() const { return metadata_file_; }

  // Bytes read from the streams opened from now on are counted in `progress` (may be null).
  void set_progress(Progress* progress) { progress_ = progress; }
  Progress* progress() const { return progress_; }

 private:
  PathResolver resolve_;
  std::string metadata_file_;
  Progress* progress_ = nullptr;
};

}  // namespace ckpt
