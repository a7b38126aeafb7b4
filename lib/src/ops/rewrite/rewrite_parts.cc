// The parts of a rewrite: written by each part, found and checked by the last step.
#include "ops/rewrite/rewrite_parts.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/io.h"
#include "ckpt/walk.h"

namespace ckpt {

namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Error damaged(const std::string& dir, std::string what) {
  Error e(ErrorCode::kCorruption, fmt::format("incomplete or foreign part: {}", what));
  e.file = dir;
  return e;
}

Result<FoundPart> read_part(const std::string& dir, const ShardSpec& shard) {
  FoundPart part;
  part.shard = shard;
  part.dir = dir;
  Result<std::string> manifest = read_whole_file(dir + "/" + kPartManifestName, 1 << 20);
  if (!manifest.ok()) return damaged(dir, fmt::format("no readable {}", kPartManifestName));
  nlohmann::json j = nlohmann::json::parse(*manifest, nullptr, /*allow_exceptions=*/false);
  auto number = [&](const char* name) -> std::optional<uint64_t> {
    if (!j.is_object() || !j.contains(name) || !j[name].is_number_unsigned()) return std::nullopt;
    return j[name].get<uint64_t>();
  };
  std::optional<uint64_t> index = number("part"), count = number("count");
  if (!index || !count || *index != static_cast<uint64_t>(shard.index) || *count != static_cast<uint64_t>(shard.count))
    return damaged(dir, fmt::format("{} does not name part {} of {}", kPartManifestName, shard.index, shard.count));
  PartCounts& c = part.counts;
  const std::pair<const char*, uint64_t*> fields[] = {{"subtask_count", &c.subtasks},    {"entry_count", &c.entries},
                                                      {"file_count", &c.files},          {"bytes", &c.bytes},
                                                      {"canonical_count", &c.canonical}, {"native_count", &c.native}};
  for (auto [name, field] : fields) {
    std::optional<uint64_t> v = number(name);
    if (!v) return damaged(dir, fmt::format("{} lacks {}", kPartManifestName, name));
    *field = *v;
  }
  if (!j.contains("fingerprint") || !j["fingerprint"].is_string())
    return damaged(dir, fmt::format("{} lacks fingerprint", kPartManifestName));
  c.fingerprint = j["fingerprint"].get<std::string>();
  // Absent from parts written before it existed: nothing found there is what they knew.
  if (j.contains("found")) {
    if (!j["found"].is_array()) return damaged(dir, fmt::format("{}: found is not a list", kPartManifestName));
    for (const auto& f : j["found"]) {
      if (!f.is_string()) return damaged(dir, fmt::format("{}: found holds a non-string", kPartManifestName));
      c.found.push_back(f.get<std::string>());
    }
  }
  Result<Metadata> metadata = read_metadata_file(dir + "/" + kPartMetadataName);
  if (!metadata.ok()) return std::move(metadata).error();
  part.metadata = std::move(*metadata);
  return part;
}

}  // namespace

std::string part_fingerprint(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

std::string part_directory(const std::string& output, const ShardSpec& shard) {
  return fmt::format("{}.part-{}-of-{}", trimmed(output), shard.index, shard.count);
}

Status write_part_files(const std::string& dir, const ShardSpec& shard, const std::string& metadata_bytes,
                        const PartCounts& c) {
  CKPT_RETURN_IF_ERROR(write_file_atomic(dir + "/" + kPartMetadataName, metadata_bytes));
  nlohmann::ordered_json j;
  j["part"] = shard.index;
  j["count"] = shard.count;
  j["subtask_count"] = c.subtasks;
  j["entry_count"] = c.entries;
  j["file_count"] = c.files;
  j["bytes"] = c.bytes;
  j["canonical_count"] = c.canonical;
  j["native_count"] = c.native;
  j["fingerprint"] = c.fingerprint;
  j["found"] = c.found;
  return write_file_atomic(dir + "/" + kPartManifestName, j.dump(2) + "\n");
}

Result<std::vector<FoundPart>> find_parts(const std::string& output) {
  const fs::path out(trimmed(output));
  fs::path parent = out.parent_path();
  if (parent.empty()) parent = ".";
  const std::string prefix = out.filename().string() + ".part-";
  std::map<int32_t, std::set<int32_t>> by_count;  // count -> indices found
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !it->is_directory(ec)) continue;
    // "K-of-N", as part_directory() names it (parse_shard reads "K/N").
    std::string spec = name.substr(prefix.size());
    const size_t of = spec.find("-of-");
    if (of == std::string::npos) continue;
    spec.replace(of, 4, "/");
    Result<ShardSpec> shard = parse_shard(spec);
    if (!shard.ok() || name != prefix + fmt::format("{}-of-{}", shard->index, shard->count)) continue;
    by_count[shard->count].insert(shard->index);
  }
  if (ec) return Error(ErrorCode::kIOError, fmt::format("cannot list {}: {}", parent.string(), ec.message()));
  if (by_count.empty())
    return Error(ErrorCode::kNotFound,
                 fmt::format("no part of {} found (run the command with --shard K/N for every K first)", output));
  if (by_count.size() > 1) {
    std::string counts;
    for (const auto& [n, _] : by_count) counts += fmt::format("{}{}", counts.empty() ? "" : ", ", n);
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("parts of {} cut in different numbers ({}): remove the stale ones", output, counts));
  }
  const int32_t count = by_count.begin()->first;
  const std::set<int32_t>& found = by_count.begin()->second;
  std::string missing;
  for (int32_t k = 0; k < count; ++k)
    if (!found.count(k)) missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", k, count);
  if (!missing.empty())
    return Error(ErrorCode::kNotFound,
                 fmt::format("parts of {} missing: {} (run them with --shard first)", output, missing));
  std::vector<FoundPart> parts;
  for (int32_t k = 0; k < count; ++k) {
    const ShardSpec shard{k, count};
    CKPT_ASSIGN_OR_RETURN(FoundPart p, read_part(part_directory(output, shard), shard));
    parts.push_back(std::move(p));
  }
  return parts;
}

Status take_part_subtasks(const FoundPart& part, const Plan& plan, Metadata& out) {
  const PlanPart& cut = plan.parts.at(static_cast<size_t>(part.shard.index));
  const Metadata& in = part.metadata;
  if (in.operators.size() != out.operators.size())
    return damaged(part.dir,
                   fmt::format("{} operators where this command writes {}", in.operators.size(), out.operators.size()));
  for (size_t i = cut.first; i < cut.first + cut.count; ++i) {
    const PlanUnit& u = plan.units[i];
    const size_t oi = static_cast<size_t>(u.op - out.operators.data());
    OperatorState& op = out.operators[oi];
    const OperatorState& from = in.operators[oi];
    auto find = [&](auto& subtasks) -> decltype(&subtasks[0]) {
      for (auto& st : subtasks)
        if (st.index == u.subtask && !st.finished) return &st;
      return nullptr;
    };
    SubtaskState* to = find(op.subtasks);
    const SubtaskState* st = find(from.subtasks);
    if (from.id != op.id || !to || !st)
      return damaged(part.dir, fmt::format("it has no subtask {} of operator {}", u.subtask, operator_id_hex(op.id)));
    Status files = Status::OK();
    auto check = [&](const StreamHandle& h, StreamRole, const std::string*) {
      if (!files.ok() || h.type != handle_type::kRelativeFile) return;
      const std::string path = part.dir + "/" + h.path;
      struct stat sb;
      if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode) || static_cast<int64_t>(sb.st_size) != h.size)
        files = damaged(part.dir, fmt::format("{} is missing or not {} bytes", h.path, h.size));
    };
    for (const StreamHandle& s : st->legacy) visit_streams(s, StreamRole::kData, nullptr, check);
    for (const OperatorHandle& h : st->managed_operator) visit_streams(h, check);
    for (const OperatorHandle& h : st->raw_operator) visit_streams(h, check);
    visit_streams(st->managed_keyed, check);
    visit_streams(st->raw_keyed, check);
    for (const ChannelHandle& h : st->input_channels) visit_streams(h, check);
    for (const ChannelHandle& h : st->result_subpartitions) visit_streams(h, check);
    CKPT_RETURN_IF_ERROR(files);
    *to = *st;
  }
  return Status::OK();
}

Status link_part_files(const std::string& part_dir, const std::string& dir) {
  std::error_code ec;
  fs::recursive_directory_iterator it(part_dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(part_dir);
    const std::string name = rel.string();
    if (name == kPartMetadataName || name == kPartManifestName) continue;
    const std::string to = dir + "/" + name;
    if (it->is_directory(ec)) {
      if (!fs::create_directory(to, ec) && !ec)
        return Error(ErrorCode::kInvalidArgument, fmt::format("{} is in two parts", name));
      if (ec) break;
      continue;
    }
    if (::link(it->path().c_str(), to.c_str()) == 0) continue;
    if (errno == EEXIST) return Error(ErrorCode::kInvalidArgument, fmt::format("{} is in two parts", name));
    CKPT_RETURN_IF_ERROR(copy_file_contents(it->path().string(), to));
  }
  if (ec) return Error(ErrorCode::kIOError, fmt::format("cannot read part {}: {}", part_dir, ec.message()));
  return Status::OK();
}

}  // namespace ckpt
