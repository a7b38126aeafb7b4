// ckpt/file_system.h on the local disk.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "s3/store_files.h"
#include "support/io_internal.h"

namespace ckpt {
namespace fs = std::filesystem;

namespace {

class LocalFile : public ReadableFile {
 public:
  LocalFile(InputFile in, std::string path) : in_(in), path_(std::move(path)) {}
  ~LocalFile() override { ::close(in_.fd); }
  uint64_t size() const override { return in_.size; }
  Status read(uint64_t offset, uint64_t length, std::string* out) const override {
    out->resize(length);
    uint64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(in_.fd, out->data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return io_error(path_, "cannot read state file", errno);
      }
      if (n == 0)
        return Error(ErrorCode::kCorruption, "state file shrank while being read", offset + done).with_file(path_);
      done += static_cast<uint64_t>(n);
    }
    return Status::OK();
  }
  Result<std::string> local_path() const override { return path_; }
  bool is_copy() const override { return false; }

 private:
  InputFile in_;
  std::string path_;
};

FileInfo info_of(const std::string& path, const struct stat& st) {
  FileInfo f;
  f.path = path;
  f.directory = S_ISDIR(st.st_mode);
  f.regular = S_ISREG(st.st_mode);
  f.size = f.regular ? static_cast<uint64_t>(st.st_size) : 0;
  f.modified = st.st_mtim.tv_sec;
  return f;
}

class LocalFileSystem : public FileSystem {
 public:
  Result<std::shared_ptr<ReadableFile>> open(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(InputFile in, open_regular_input(path));
    return std::shared_ptr<ReadableFile>(std::make_shared<LocalFile>(in, path));
  }
  Result<FileInfo> stat(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return io_error(path, "cannot stat", errno);
    return info_of(path, st);
  }
  Result<std::vector<FileInfo>> list(const std::string& path) override {
    std::vector<FileInfo> out;
    std::error_code ec;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      struct stat st;
      const std::string p = it->path().string();
      if (::stat(p.c_str(), &st) == 0) out.push_back(info_of(p, st));
    }
    if (ec) return io_error(path, "cannot list", ec.value());
    return out;
  }
  Status write(const std::string& path, std::string_view bytes) override { return write_file_atomic(path, bytes); }
  Status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return io_error(path, "cannot remove", errno);
    return Status::OK();
  }
};

}  // namespace

Status FileSystem::write_from_local(const std::string& path, const std::string& local_path) {
  CKPT_ASSIGN_OR_RETURN(std::string bytes, read_whole_file(local_path));
  return write(path, bytes);
}

std::shared_ptr<FileSystem> local_file_system() {
  static const std::shared_ptr<FileSystem> local = std::make_shared<LocalFileSystem>();
  return local;
}

}  // namespace ckpt
