// OPTIONS files without the writing machine's paths.
#include "state/rocksdb/rocks_options_file.h"

#include <filesystem>
#include <string_view>

#include "ckpt/io.h"

namespace ckpt {
namespace fs = std::filesystem;

std::string portable_options_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string_view line(text.data() + pos, end - pos);
    const size_t key_at = line.find_first_not_of(" \t");
    const size_t eq = line.find('=');
    if (key_at != std::string_view::npos && eq != std::string_view::npos && eq > key_at) {
      std::string_view key = line.substr(key_at, eq - key_at);
      while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
      if (key == "wal_dir" || key == "db_log_dir") {
        out.append(line.substr(0, eq + 1));
        if (line.ends_with("\r\n")) out += "\r\n";
        else if (line.ends_with('\n')) out += '\n';
        pos = end;
        continue;
      }
    }
    out.append(line);
    pos = end;
  }
  return out;
}

Status make_options_files_portable(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return Error(ErrorCode::kIOError, "cannot list the instance: " + ec.message()).with_file(dir);
  for (; it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with("OPTIONS-")) continue;
    const std::string path = it->path().string();
    CKPT_ASSIGN_OR_RETURN(std::string text, read_whole_file(path));
    std::string portable = portable_options_text(text);
    if (portable != text) CKPT_RETURN_IF_ERROR(write_file_atomic(path, portable));
  }
  if (ec) return Error(ErrorCode::kIOError, "cannot list the instance: " + ec.message()).with_file(dir);
  return Status::OK();
}

}  // namespace ckpt
