// Directory listings and the temporary directory, with std::error_code throughout.
#include "support/fs_listing.h"

#include <cstdlib>
#include <system_error>

namespace ckpt {
namespace fs = std::filesystem;

namespace {

Error fs_error(const std::string& path, const std::string& what, const std::error_code& ec) {
  Error e(ec == std::errc::no_such_file_or_directory ? ErrorCode::kNotFound : ErrorCode::kIOError,
          what + ": " + ec.message());
  e.file = path;
  return e;
}

}  // namespace

Result<std::vector<fs::directory_entry>> list_directory(const std::string& dir) {
  std::vector<fs::directory_entry> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) out.push_back(*it);
  if (ec) return fs_error(dir, "cannot list the directory", ec);
  return out;
}

Result<std::string> temp_directory() {
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec);
  if (!ec) return dir.string();
  const char* env = std::getenv("TMPDIR");
  return fs_error(env && *env ? env : "/tmp", "no directory for temporary files (set TMPDIR to one)", ec);
}

}  // namespace ckpt
