// Reading a whole file into anonymous memory advised to use huge pages.
#include "support/file_image.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ckpt/io.h"

namespace ckpt {

// A std::string of the file's size costs a page fault per 4 KiB and a pass of zeroing before
// the read: for a 216 MiB `_metadata` more than the read itself. Huge pages make the faults
// 512 times fewer where the kernel allows them (transparent huge pages in madvise mode).
std::optional<FileImage> FileImage::read(const std::string& path, uint64_t max_size) {
  Result<InputFile> in = open_regular_input(path);
  if (!in.ok()) return std::nullopt;
  int fd = in->fd;
  if (in->size > max_size) {
    ::close(fd);
    return std::nullopt;
  }
  size_t size = static_cast<size_t>(in->size);
  size_t mapped = size > 0 ? size : 1;
  void* data = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) {
    ::close(fd);
    return std::nullopt;
  }
#ifdef MADV_HUGEPAGE
  ::madvise(data, mapped, MADV_HUGEPAGE);
#endif
  FileImage image(data, 0, mapped);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, static_cast<char*>(data) + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;  // shrank while reading
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  image.size_ = done;
  return image;
}

FileImage::FileImage(FileImage&& other) noexcept
    : data_(other.data_), size_(other.size_), mapped_(other.mapped_), dropped_(other.dropped_) {
  other.data_ = nullptr;
  other.size_ = other.mapped_ = 0;
}

FileImage::~FileImage() { release(); }

void FileImage::drop_before(size_t offset) {
  constexpr size_t kHugePage = size_t{2} << 20;
  size_t end = std::min(offset, size_) / kHugePage * kHugePage;
  if (!data_ || end <= dropped_) return;
  ::madvise(static_cast<char*>(data_) + dropped_, end - dropped_, MADV_DONTNEED);
  dropped_ = end;
}

void FileImage::release() {
  if (data_) ::munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

}  // namespace ckpt
