// A block-based table's footer, meta-index and properties blocks, checked with our own reader.
#include "state/rocksdb/sst_table_check.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "state/rocksdb/rocks_checksum.h"
#include "support/byte_reader.h"

namespace ckpt {
namespace {

// table/format.h of RocksDB 7.8.
constexpr uint64_t kBlockBasedMagic = 0x88e241b785f4cff7ull;        // footer of format version >= 1
constexpr uint64_t kLegacyBlockBasedMagic = 0xdb4775248b80fb57ull;  // format version 0
constexpr uint64_t kHandlesBytes = 40;    // two block handles of at most 10 + 10 varint bytes, padded
constexpr uint64_t kTableFooterBytes = 1 + kHandlesBytes + 4 + 8;  // checksum type, handles, version, magic
constexpr uint64_t kLegacyFooterBytes = kHandlesBytes + 8;
constexpr uint32_t kMaxFormatVersion = 5;  // the newest RocksDB 7.8 reads
constexpr uint64_t kTrailerBytes = 5;      // compression type, checksum
constexpr uint32_t kHashIndexBit = 1u << 31;  // in a block's restart count: a data block hash index follows

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct Footer {
  BlockChecksumType checksum = BlockChecksumType::kCrc32c;
  BlockHandle meta_index;
  BlockHandle index;
  uint64_t at = 0;  // where the footer starts (stream offset): table blocks end before it
};

class TableCheck {
 public:
  explicit TableCheck(const StateStream& s) : s_(s) {}

  Error fail(uint64_t at, std::string message) const {
    return s_.stamp(Error(ErrorCode::kCorruption, std::move(message), s_.base() + at));
  }

  Result<Footer> footer() const {
    const uint64_t size = s_.size();
    if (size < kLegacyFooterBytes)
      return fail(0, fmt::format("sst of {} bytes is shorter than a table footer ({} bytes)", size, kLegacyFooterBytes));
    std::string tail;
    const uint64_t tail_at = size - std::min(size, kTableFooterBytes);
    CKPT_RETURN_IF_ERROR(s_.read(tail_at, size - tail_at, &tail));
    ByteReader magic_reader(std::string_view(tail).substr(tail.size() - 8), s_.base() + size - 8);
    const uint64_t magic = magic_reader.u64le();
    Footer f;
    uint64_t handles_at = 0;
    if (magic == kLegacyBlockBasedMagic) {
      f.at = size - kLegacyFooterBytes;
      handles_at = f.at;
    } else if (magic == kBlockBasedMagic) {
      if (size < kTableFooterBytes)
        return fail(0, fmt::format("sst of {} bytes is shorter than its table footer ({} bytes)", size, kTableFooterBytes));
      f.at = size - kTableFooterBytes;
      const auto type = static_cast<uint8_t>(tail[0]);
      if (type > static_cast<uint8_t>(BlockChecksumType::kXxh3))
        return fail(f.at, fmt::format("sst footer: unknown checksum type {} (expected 0 to 4)", type));
      f.checksum = static_cast<BlockChecksumType>(type);
      ByteReader v(std::string_view(tail).substr(1 + kHandlesBytes, 4), s_.base() + f.at + 1 + kHandlesBytes);
      const uint32_t version = v.u32le();
      if (version < 1 || version > kMaxFormatVersion)
        return s_.stamp(Error(ErrorCode::kNotSupported,
                              fmt::format("sst footer: table format version {} (expected 1 to {})", version,
                                          kMaxFormatVersion),
                              s_.base() + f.at + 1 + kHandlesBytes));
      handles_at = f.at + 1;
    } else {
      return fail(size - 8, fmt::format("sst footer: magic number {:#018x} is not a block-based table's", magic));
    }
    ByteReader r(std::string_view(tail).substr(handles_at - tail_at, kHandlesBytes), s_.base() + handles_at);
    f.meta_index = {r.varint(), r.varint()};
    f.index = {r.varint(), r.varint()};
    if (!r.ok()) return s_.stamp(r.take_error());
    CKPT_RETURN_IF_ERROR(in_table(f, f.meta_index, handles_at, "meta-index block"));
    CKPT_RETURN_IF_ERROR(in_table(f, f.index, handles_at, "index block"));
    return f;
  }

  // The block and its trailer lie before the footer (`named_at`: where the handle was read).
  Status in_table(const Footer& f, const BlockHandle& h, uint64_t named_at, const char* what) const {
    if (h.offset > f.at || h.size > f.at - h.offset || kTrailerBytes > f.at - h.offset - h.size)
      return fail(named_at, fmt::format("sst {} at {} of {} bytes (and its {}-byte trailer) reaches past the "
                                        "table's end at {}",
                                        what, h.offset, h.size, kTrailerBytes, f.at));
    return Status::OK();
  }

  // A meta block's bytes, checksum verified; RocksDB writes meta blocks uncompressed.
  Status read_block(const Footer& f, const BlockHandle& h, const char* what, std::string* out) const {
    CKPT_RETURN_IF_ERROR(s_.read(h.offset, h.size + kTrailerBytes, out));
    const auto compression = static_cast<uint8_t>((*out)[h.size]);
    if (auto computed = block_checksum(f.checksum, std::string_view(*out).substr(0, h.size + 1))) {
      ByteReader r(std::string_view(*out).substr(h.size + 1, 4), s_.base() + h.offset + h.size + 1);
      const uint32_t stored = r.u32le();
      if (stored != *computed)
        return fail(h.offset, fmt::format("sst {} at {} of {} bytes: {} checksum mismatch (stored {:#010x}, "
                                          "computed {:#010x})",
                                          what, h.offset, h.size, block_checksum_name(f.checksum), stored, *computed));
    }
    if (compression != 0)
      return fail(h.offset + h.size, fmt::format("sst {} at {}: compression type {} (expected 0: meta blocks are "
                                                 "not compressed)",
                                                 what, h.offset, compression));
    out->resize(h.size);
    return Status::OK();
  }

  // Calls fn(key, value, value_offset) for each entry of a block built with restart points,
  // parsed to its restart array: what RocksDB's Block and its iterator read.
  template <class Fn>
  Status for_each_entry(const std::string& block, uint64_t at, const char* what, Fn&& fn) const {
    const uint64_t base = s_.base() + at;
    auto bad = [&](uint64_t rel, std::string m) {
      return s_.stamp(Error(ErrorCode::kCorruption, fmt::format("sst {} at {}: {}", what, at, m), base + rel));
    };
    if (block.size() < 4) return bad(0, fmt::format("{} bytes cannot hold a restart count", block.size()));
    ByteReader tail(std::string_view(block).substr(block.size() - 4), base + block.size() - 4);
    const uint32_t word = tail.u32le();
    if (word & kHashIndexBit)
      return bad(block.size() - 4, "restart count word announces a data block hash index, which meta blocks never have");
    const uint64_t restarts = word;
    if (restarts == 0 || restarts > (block.size() - 4) / 4)
      return bad(block.size() - 4, fmt::format("{} restart points do not fit in its {} bytes", restarts, block.size()));
    const uint64_t restarts_at = block.size() - 4 - 4 * restarts;
    ByteReader rr(std::string_view(block).substr(restarts_at, 4 * restarts), base + restarts_at);
    uint64_t previous = 0;
    std::vector<uint64_t> points;
    for (uint64_t i = 0; i < restarts; ++i) {
      const uint64_t p = rr.u32le();
      if ((i == 0 && p != 0) || (i > 0 && (p <= previous || p >= restarts_at)))
        return bad(restarts_at + 4 * i, fmt::format("restart point {} at {} is out of order or past the entries", i, p));
      previous = p;
      points.push_back(p);
    }
    ByteReader r(std::string_view(block).substr(0, restarts_at), base);
    std::string key;
    size_t next_restart = 0;
    while (r.ok() && !r.at_end()) {
      const uint64_t entry_at = r.position();
      const bool restart = next_restart < points.size() && points[next_restart] == entry_at;
      if (restart) ++next_restart;
      const uint64_t shared = r.varint(5), non_shared = r.varint(5), value_size = r.varint(5);
      if (!r.ok()) break;
      if (shared > key.size() || (restart && shared != 0))
        return bad(entry_at, fmt::format("entry shares {} bytes with a previous key of {}", shared, key.size()));
      if (non_shared > r.remaining() || value_size > r.remaining() - non_shared)
        return bad(entry_at, fmt::format("entry of {} key and {} value bytes runs past the entries' end at {}",
                                         non_shared, value_size, restarts_at));
      key.resize(shared);
      key.append(r.bytes(non_shared));
      const uint64_t value_at = r.offset();
      CKPT_RETURN_IF_ERROR(fn(key, r.bytes(value_size), value_at));
    }
    if (!r.ok()) return s_.stamp(r.take_error());
    if (next_restart != points.size() && restarts_at > 0)
      return bad(restarts_at, fmt::format("restart point {} falls inside an entry", points[next_restart]));
    return Status::OK();
  }

 private:
  const StateStream& s_;
};

}  // namespace

Status check_sst_table(const StateStream& stream) {
  TableCheck t(stream);
  CKPT_ASSIGN_OR_RETURN(Footer f, t.footer());
  std::string meta;
  CKPT_RETURN_IF_ERROR(t.read_block(f, f.meta_index, "meta-index block", &meta));
  std::optional<BlockHandle> properties;
  CKPT_RETURN_IF_ERROR(t.for_each_entry(
      meta, f.meta_index.offset, "meta-index block",
      [&](const std::string& key, std::string_view value, uint64_t value_at) -> Status {
        ByteReader r(value, stream.base() + value_at);
        BlockHandle h{r.varint(), r.varint()};
        if (!r.ok() || !r.at_end())
          return t.fail(value_at - stream.base(), fmt::format("sst meta-index entry '{}' is not a block handle", key));
        CKPT_RETURN_IF_ERROR(t.in_table(f, h, value_at - stream.base(), key.c_str()));
        // "rocksdb.stats": the properties block's name before RocksDB 3.
        if (key == "rocksdb.properties" || key == "rocksdb.stats") properties = h;
        return Status::OK();
      }));
  if (!properties) return Status::OK();  // RocksDB opens a table without properties
  std::string props;
  CKPT_RETURN_IF_ERROR(t.read_block(f, *properties, "properties block", &props));
  return t.for_each_entry(props, properties->offset, "properties block",
                          [](const std::string&, std::string_view, uint64_t) { return Status::OK(); });
}

}  // namespace ckpt
