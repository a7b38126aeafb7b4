// Opening a snapshot's streams: resolution of file handles, and the file their errors name.
#include "state/stream_opener.h"

#include <mutex>

#include "state/state_entry.h"

namespace ckpt {

StreamOpener StreamOpener::for_snapshot(const SnapshotLocation& where, const std::vector<PrefixRule>& remap) {
  // FileResolver caches directory listings and is not thread-safe; dump's workers share it.
  auto resolver = std::make_shared<FileResolver>(where.directory, remap);
  auto mutex = std::make_shared<std::mutex>();
  PathResolver resolve = [resolver, mutex](uint8_t type, const std::string& uri) -> Result<std::optional<std::string>> {
    std::lock_guard<std::mutex> lock(*mutex);
    auto found = resolver->find(type, uri);
    if (!found) return std::optional<std::string>();
    if (!found->escape.empty() || !found->unlisted.ok()) return found->usable().error();
    return std::optional<std::string>(found->path);
  };
  return StreamOpener(std::move(resolve), where.metadata_path);
}

Result<StateStream> StreamOpener::open(const StreamHandle& handle) const {
  static const PathResolver kNoFiles = [](uint8_t, const std::string&) -> Result<std::optional<std::string>> {
    return std::optional<std::string>();
  };
  Result<StateStream> stream = StateStream::open(handle, resolve_ ? resolve_ : kNoFiles, metadata_file_);
  if (stream.ok()) stream->progress_ = progress_;
  return stream;
}

Error StreamOpener::in_metadata(Error e) const {
  if (is_stop(e)) return e;
  return std::move(e).with_file(metadata_file_);
}

}  // namespace ckpt
