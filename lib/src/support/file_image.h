// support/file_image.h - a whole input file in anonymous memory that the kernel may back with
// huge pages, for inputs of hundreds of MiB that are read once and decoded in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt {

class PageStock;

class FileImage {
 public:
  // The file's bytes, or nullopt where this way of reading does not work (no such file, not a
  // regular file, larger than `max_size`, no memory): read_whole_file() then says why.
  static std::optional<FileImage> read(const std::string& path, uint64_t max_size = uint64_t{1} << 32);

  FileImage(FileImage&& other) noexcept;
  FileImage& operator=(FileImage&&) = delete;
  ~FileImage();

  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  // Gives the memory back before the image goes out of scope.
  void release();
  // Gives back the whole pages (of 2 MiB, not to split huge pages) before `offset`, for a reader
  // that is done with them: to the kernel (they read as zeros afterwards), or to `to` for other
  // uses (they must not be read afterwards: another owner writes them).
  void drop_before(size_t offset, PageStock* to = nullptr);

 private:
  FileImage(void* data, size_t size, size_t mapped) : data_(data), size_(size), mapped_(mapped) {}
  void* data_;
  size_t size_;
  size_t mapped_;
  size_t dropped_ = 0;  // pages before it given back
  size_t given_ = 0;    // of those, to a PageStock: no longer the image's to unmap
};

}  // namespace ckpt
