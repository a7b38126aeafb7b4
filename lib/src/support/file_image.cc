// Reading a whole file into anonymous memory advised to use huge pages.
#include "support/file_image.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <thread>

#include "ckpt/io.h"
#include "support/huge_pages.h"

namespace ckpt {
namespace {
constexpr size_t kTwoThreadsFrom = size_t{64} << 20;
}  // namespace

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
  void* data = map_huge_pages(mapped);
  if (!data) {
    ::close(fd);
    return std::nullopt;
  }
  FileImage image(data, 0, mapped);
  // The bytes [from, to) of the file, or fewer where it ends sooner (it shrank while read):
  // how many, or -1.
  auto read_range = [&](size_t from, size_t to) -> int64_t {
    size_t done = from;
    while (done < to) {
      ssize_t n = ::pread(fd, static_cast<char*>(data) + done, to - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return static_cast<int64_t>(done - from);
  };
  // A large file is read in two halves at once: copying it and faulting in its pages is a
  // tenth of inspecting a 216 MiB `_metadata`, and nothing else can start before it is done.
  const size_t half = size >= kTwoThreadsFrom ? size / 2 / kHugePage * kHugePage : size;
  int64_t second = 0;
  std::thread helper;
  if (half < size) {
    try {
      helper = std::thread([&] { second = read_range(half, size); });
    } catch (const std::system_error&) {
      second = read_range(half, size);  // no thread to be had
    }
  }
  const int64_t first = read_range(0, half);
  if (helper.joinable()) helper.join();
  ::close(fd);
  if (first < 0 || second < 0) return std::nullopt;
  image.size_ = static_cast<size_t>(first) < half ? static_cast<size_t>(first) : half + static_cast<size_t>(second);
  return image;
}

FileImage::FileImage(FileImage&& other) noexcept
    : data_(other.data_), size_(other.size_), mapped_(other.mapped_), dropped_(other.dropped_), given_(other.given_) {
  other.data_ = nullptr;
  other.size_ = other.mapped_ = other.dropped_ = other.given_ = 0;
}

FileImage::~FileImage() { release(); }

void FileImage::drop_before(size_t offset, PageStock* to) {
  size_t end = std::min(offset, size_) / kHugePage * kHugePage;
  if (!data_ || end <= dropped_) return;
  char* data = static_cast<char*>(data_);
  if (to) {
    to->give(data + given_, end - given_);  // pages cleared before included: the stock's now
    given_ = end;
  } else {
    ::madvise(data + dropped_, end - dropped_, MADV_DONTNEED);
  }
  dropped_ = end;
}

void FileImage::release() {
  if (data_) unmap_pages(static_cast<char*>(data_) + given_, mapped_ - given_);
  data_ = nullptr;
  size_ = mapped_ = dropped_ = given_ = 0;
}

}  // namespace ckpt
