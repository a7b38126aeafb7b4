// CURRENT and MANIFEST files of a native handle checked record by record (RocksDB's log format).
#include "state/rocksdb/rocks_manifest.h"

#include <cctype>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "state/rocksdb/rocks_checksum.h"
#include "support/byte_reader.h"

namespace ckpt {
namespace {

constexpr uint64_t kBlockSize = 32768;
constexpr uint64_t kHeaderSize = 7;  // checksum (4), length (2), type (1)
enum RecordType : uint8_t { kFull = 1, kFirst = 2, kMiddle = 3, kLast = 4 };

uint32_t le32(std::string_view b, uint64_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
}

Error manifest_corrupt(const std::string& file, uint64_t at, std::string message) {
  Error e(ErrorCode::kCorruption, std::move(message), at);
  e.file = file;
  return e;
}

// "MANIFEST-" then digits then a newline, naming a MANIFEST file of the handle.
Status check_current(std::string_view bytes, uint64_t base, const std::string& file, const KeyedHandle& h) {
  static constexpr std::string_view kPrefix = "MANIFEST-";
  size_t i = 0;
  while (i < bytes.size() && i < kPrefix.size() && bytes[i] == kPrefix[i]) ++i;
  if (i < kPrefix.size()) return manifest_corrupt(file, base + i, "CURRENT does not start with \"MANIFEST-\"");
  while (i < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[i]))) ++i;
  if (i == kPrefix.size() || i + 1 != bytes.size() || bytes[i] != '\n')
    return manifest_corrupt(file, base + i, "CURRENT is not \"MANIFEST-<number>\" and a newline");
  std::string_view name = bytes.substr(0, i);
  for (const auto* list : {&h.private_files, &h.shared_files})
    for (const NamedStream& f : *list)
      if (f.name == name) return Status::OK();
  return manifest_corrupt(file, base, fmt::format("CURRENT names '{}', which the handle does not list", name));
}

// A whole record's payload (its fragments joined) and the offset of its first fragment.
using ManifestRecordFn = std::function<void(std::string_view payload, uint64_t at)>;

Status walk_manifest(std::string_view bytes, uint64_t base, const std::string& file, const ManifestRecordFn& each) {
  bool in_record = false;  // between a FIRST fragment and its LAST
  uint64_t records = 0;
  std::string joined;  // the fragments of a FIRST .. LAST record so far
  uint64_t joined_at = 0;
  for (uint64_t pos = 0; pos < bytes.size();) {
    const uint64_t left = kBlockSize - pos % kBlockSize;
    if (left < kHeaderSize) {
      // The writer pads a block's tail that cannot hold a header with zeros.
      for (uint64_t i = pos; i < std::min<uint64_t>(bytes.size(), pos + left); ++i)
        if (bytes[i] != 0) return manifest_corrupt(file, base + i, "non-zero byte in the padding at the end of a log block");
      pos += left;
      continue;
    }
    if (bytes.size() - pos < kHeaderSize) return manifest_corrupt(file, base + pos, "log record header cut off by the end of the file");
    const uint32_t stored = crc32c_unmask(le32(bytes, pos));
    const uint64_t length = static_cast<uint8_t>(bytes[pos + 4]) | static_cast<uint64_t>(static_cast<uint8_t>(bytes[pos + 5])) << 8;
    const uint8_t type = static_cast<uint8_t>(bytes[pos + 6]);
    if (type < kFull || type > kLast)
      return manifest_corrupt(file, base + pos + 6, fmt::format("log record of unknown type {}", type));
    if (kHeaderSize + length > left)
      return manifest_corrupt(file, base + pos + 4, fmt::format("log record of {} bytes crosses its block's end", length));
    if (pos + kHeaderSize + length > bytes.size())
      return manifest_corrupt(file, base + pos + 4, fmt::format("log record of {} bytes cut off by the end of the file", length));
    const uint32_t actual = crc32c(crc32c(0, bytes.substr(pos + 6, 1)), bytes.substr(pos + kHeaderSize, length));
    if (actual != stored) return manifest_corrupt(file, base + pos, "log record checksum mismatch");
    const bool starts = type == kFull || type == kFirst;
    if (starts == in_record)
      return manifest_corrupt(file, base + pos + 6, in_record ? "log record starts inside another" : "log record fragment without its start");
    in_record = type == kFirst || type == kMiddle;
    const std::string_view payload = bytes.substr(pos + kHeaderSize, length);
    if (type == kFull) {
      each(payload, base + pos);
    } else {
      if (type == kFirst) joined.clear(), joined_at = base + pos;
      joined.append(payload);
      if (type == kLast) each(joined, joined_at);
    }
    ++records;
    pos += kHeaderSize + length;
  }
  if (in_record) return manifest_corrupt(file, base + bytes.size(), "last log record cut off by the end of the file");
  if (records == 0) return manifest_corrupt(file, base, "MANIFEST holds no log record");
  return Status::OK();
}

// RocksDB's VersionEdit tags (db/version_edit.h) that add, delete and place table files; every
// other known tag is read past. Tags with bit 13 set are RocksDB's forward-compatible records
// (a length-prefixed payload any reader may skip).
namespace version_edit_tag {
enum : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactCursor = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 9,
  kMinLogNumberToKeep = 10,
  kNewFile2 = 100,
  kNewFile3 = 102,
  kNewFile4 = 103,
  kColumnFamily = 200,
  kColumnFamilyAdd = 201,
  kColumnFamilyDrop = 202,
  kMaxColumnFamily = 203,
  kInAtomicGroup = 300,
  kSafeIgnoreMask = 1 << 13,
};
constexpr uint32_t kNewFile4Terminate = 1;
// The low 62 bits of a kNewFile3 number; the top two carry the path id.
constexpr uint64_t kFileNumberMask = 0x3FFFFFFFFFFFFFFFull;
}  // namespace version_edit_tag

// The table files live at the end of a MANIFEST: file number -> (column family, offset of the
// record that added it). None (live() is null) when a record holds what this reader does not
// know (a tag of a later RocksDB, blob files): then it claims nothing, and RocksDB's open judges.
class LiveTables {
 public:
  void apply(std::string_view edit, uint64_t at) {
    using namespace version_edit_tag;
    if (!known_) return;
    ByteReader r(edit);
    uint32_t family = 0;
    bool drop = false;
    std::vector<uint64_t> added, deleted;
    auto lp = [&r] { r.skip(r.varint(5)); };
    while (known_ && r.ok() && !r.at_end()) {
      const uint64_t tag = r.varint(5);
      switch (tag) {
        case kComparator:
        case kColumnFamilyAdd: lp(); break;
        case kLogNumber:
        case kNextFileNumber:
        case kLastSequence:
        case kPrevLogNumber:
        case kMinLogNumberToKeep: r.varint(); break;
        case kCompactCursor:
          r.varint(5);  // level
          lp();
          break;
        case kDeletedFile:
          r.varint(5);  // level
          deleted.push_back(r.varint());
          break;
        case kNewFile:
        case kNewFile2:
        case kNewFile3:
        case kNewFile4: {
          r.varint(5);  // level
          added.push_back(r.varint() & kFileNumberMask);
          if (tag == kNewFile3) r.varint(5);  // path id
          r.varint();                         // file size
          lp();                               // smallest key
          lp();                               // largest key
          if (tag != kNewFile) {              // smallest and largest sequence numbers
            r.varint();
            r.varint();
          }
          // Custom fields, each length-prefixed, up to the terminating tag.
          while (tag == kNewFile4 && r.ok() && r.varint(5) != kNewFile4Terminate) lp();
          break;
        }
        case kColumnFamily: family = static_cast<uint32_t>(r.varint(5)); break;
        case kColumnFamilyDrop: drop = true; break;
        case kMaxColumnFamily:
        case kInAtomicGroup: r.varint(5); break;
        default:
          if (tag & kSafeIgnoreMask)
            lp();
          else
            known_ = false;
      }
    }
    if (!r.ok()) known_ = false;
    if (!known_) return;
    for (uint64_t n : deleted) live_.erase(n);
    for (uint64_t n : added) live_[n] = {family, at};
    if (drop) std::erase_if(live_, [family](const auto& e) { return e.second.first == family; });
  }
  const std::map<uint64_t, std::pair<uint32_t, uint64_t>>* live() const { return known_ ? &live_ : nullptr; }

 private:
  bool known_ = true;
  std::map<uint64_t, std::pair<uint32_t, uint64_t>> live_;
};

// Every table file the MANIFEST leaves live is one of the handle's files: Flink's restore opens
// the instance through it, and RocksDB refuses an instance whose table is missing, while the
// tables read one by one (dump, verify) would silently leave that one out.
Status check_manifest_tables(std::string_view bytes, uint64_t base, const std::string& file, const KeyedHandle& h) {
  LiveTables tables;
  CKPT_RETURN_IF_ERROR(
      walk_manifest(bytes, base, file, [&](std::string_view edit, uint64_t at) { tables.apply(edit, at); }));
  if (!tables.live()) return Status::OK();
  for (const auto& [number, where] : *tables.live()) {
    // RocksDB looks for "<number>.sst", then the old "<number>.ldb".
    const std::string sst = fmt::format("{:06}.sst", number), ldb = fmt::format("{:06}.ldb", number);
    bool listed = false;
    for (const auto* list : {&h.private_files, &h.shared_files})
      for (const NamedStream& f : *list) listed = listed || f.name == sst || f.name == ldb;
    if (!listed)
      return manifest_corrupt(
          file, where.second,
          fmt::format("the MANIFEST record here adds table file {}, which the handle does not list", sst));
  }
  return Status::OK();
}

}  // namespace

Status check_manifest(std::string_view bytes, uint64_t base, const std::string& file) {
  return walk_manifest(bytes, base, file, [](std::string_view, uint64_t) {});
}

Status check_instance_files(const KeyedHandle& h, const StreamOpener& streams) {
  auto read_whole = [&streams](const NamedStream& f,
                               const std::function<Status(std::string_view, const StateStream&)>& check) {
    return streams.read(f.handle, [&](const StateStream& stream) -> Status {
      std::string bytes;
      CKPT_RETURN_IF_ERROR(stream.read_all(&bytes));
      return check(bytes, stream);
    });
  };
  // CURRENT first: the MANIFEST it names is the one whose tables RocksDB opens.
  std::string opened;
  bool current = false;
  for (const auto* list : {&h.private_files, &h.shared_files})
    for (const NamedStream& f : *list) {
      if (f.name != "CURRENT") continue;
      current = true;
      CKPT_RETURN_IF_ERROR(read_whole(f, [&](std::string_view bytes, const StateStream& stream) -> Status {
        CKPT_RETURN_IF_ERROR(check_current(bytes, stream.base(), stream.file(), h));
        opened = std::string(bytes.substr(0, bytes.size() - 1));
        return Status::OK();
      }));
    }
  for (const auto* list : {&h.private_files, &h.shared_files})
    for (const NamedStream& f : *list) {
      if (f.name.rfind("MANIFEST-", 0) != 0) continue;
      CKPT_RETURN_IF_ERROR(read_whole(f, [&](std::string_view bytes, const StateStream& stream) -> Status {
        if (f.name == opened) return check_manifest_tables(bytes, stream.base(), stream.file(), h);
        // Without a CURRENT (one damaged byte of its name) RocksDB, and Flink's restore, cannot
        // open the instance, although each of its tables reads.
        if (!current)
          return manifest_corrupt(stream.file(), stream.base(),
                                  "no file of the handle is named CURRENT, by which RocksDB opens the instance");
        return check_manifest(bytes, stream.base(), stream.file());
      }));
    }
  return Status::OK();
}

}  // namespace ckpt
