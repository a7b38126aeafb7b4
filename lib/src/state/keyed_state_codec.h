// state/keyed_state_codec.h - decoding the entries of one keyed state in either byte layout.
//
// The heap layout stores (namespace, key, whole state object) per entry; the RocksDB layout
// (SST files and the canonical stream) stores a composite key (key-group prefix, key,
// namespace, map user key) and a per-kind value (list elements joined by ',', map values
// behind a null flag, timers in the key). Both come out as the same StateEntry values, which
// is what makes heap and RocksDB snapshots of one job comparable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <unordered_set>
#include <vector>

#include "ckpt/error.h"
#include "state/backend_meta.h"
#include "state/heap/heap_block_delimiter.h"
#include "state/read_options.h"
#include "state/rocks_key_layout.h"
#include "state/state_entry.h"
#include "support/byte_reader.h"
#include "types/value_decoder.h"

namespace ckpt {

// What RocksDB's list merge operator (StringAppendTESTOperator, which Flink registers on every
// column family) puts between a list state's serialized elements.
constexpr char kListDelimiter = ',';

// A key serializer of timers (TimerSerializer): what a priority-queue state holds as its key.
bool is_timer_serializer(const SerializerSnapshot& s);

// One entry's bytes, from the JSON dump prints (KeyedStateCodec::encode_entry()).
struct EntryEncoding {
  std::string key;       // the key serializer's bytes (what the key group is computed from)
  std::string ns;        // the namespace serializer's bytes (none for a queue element)
  std::string user_key;  // a map state's user key
  std::string element;   // a queue element (a timer: timestamp, key, namespace): the RocksDB key's rest
  std::string value;     // the RocksDB value: a value, a list's elements joined by ',', a map value behind
                         // its null flag; empty for a queue element
};

// A namespace decoded once and shared by the heap entries after it (Flink 1.2's layout).
struct HeapNamespace {
  nlohmann::json value;
  std::string raw;  // its bytes, for consumers that want bytes
};

class KeyedStateCodec {
 public:
  // `key_decoder` decodes the backend's keys and must outlive the codec.
  static Result<std::unique_ptr<KeyedStateCodec>> make(const StateMetaInfo& info,
                                                       const ValueDecoder& key_decoder,
                                                       int32_t max_parallelism);

  const std::string& name() const { return name_; }
  StateKind kind() const { return kind_; }
  int prefix_bytes() const { return layout_.prefix_bytes(); }
  // False if the heap layout of this state cannot be walked (a value needs the job's
  // classes and heap entries carry no lengths); why_not() says why.
  bool heap_walkable() const;
  std::string why_not_heap() const;

  // The parts of this state's heap entries, for the delimiter (valid while the codec lives).
  HeapEntryLayout heap_entry_layout() const;

  // One heap entry of this state's block in key group `key_group` (formats/keyed-state.md §6). With `value_length`
  // >= 0 (inferred by the delimiter) the value is that many bytes, shown as the serializer's
  // opaque hex when it cannot be decoded, as the RocksDB layout shows it.
  // With `ns`, the entry's namespace is not in front of its key: it was read once for the
  // entries after it (Flink 1.2's heap layout, formats/keyed-state.md §6.2).
  Status read_heap_entry(ByteReader& r, int32_t key_group, const EntrySink& sink, int64_t value_length = -1,
                         const HeapNamespace* ns = nullptr) const;
  // read_heap_entry() for a consumer that drops the entry (StateFilter::check_only): the same
  // bytes consumed and the same errors, nothing built where the state's decoders can check
  // without decoding (ValueDecoder::check()).
  Status check_heap_entry(ByteReader& r, int32_t key_group, int64_t value_length = -1) const;
  // One namespace of Flink 1.2's heap layout, read once for the entries that follow it.
  Result<HeapNamespace> read_heap_namespace(ByteReader& r) const;
  // For consumers that print: read_rocks_entry() then hands entries as JSON text
  // (StateEntry::is_text) except priority-queue elements, which stay trees.
  void set_json_text(bool on) { json_text_ = on; }
  // For consumers of public Values (the entry iterator): the same, as Values
  // (StateEntry::is_value); set_json_text() wins.
  void set_values(bool on) { values_ = on; }
  // With set_values(): the fields to decode; the others are stepped over and left null.
  void set_decode(const EntryFields& fields) { decode_ = fields; }
  // For consumers that want bytes: entries then carry each field's bytes (StateEntry::has_raw).
  void set_raw_bytes(bool on) { raw_bytes_ = on; }
  // A point lookup (StateFilter::keys; may be null): an entry of another key is dropped as soon
  // as its key is decoded, its value skipped, not decoded. Timers pass (their key is inside).
  // Where the key serializer encodes every key given, each is serialized here once and an
  // entry's key bytes are compared with them before anything is decoded (lookup_key_bytes()).
  void set_key_filter(const KeySet* keys);
  // The serialized bytes an entry of a looked-up key starts its key with (sorted, one per
  // spelling of this key type), or null where they are not known and keys are compared decoded.
  // Flink's serializers write a value one way and encode() writes what they write, so no other
  // bytes decode to a key given.
  const std::vector<std::string>* lookup_key_bytes() const { return key_bytes_known_ ? &key_bytes_ : nullptr; }
  // With lookup_key_bytes(): each spelling's bytes with its index in the KeySet's `keys`, in
  // that order (what pairs a spelling with the key group Flink assigns its key).
  const std::vector<std::pair<std::string, size_t>>& lookup_key_spellings() const { return key_spellings_; }

  // One RocksDB key / value pair (formats/keyed-state.md §10). `key_offset` and `value_offset` are the absolute
  // offsets of the bytes, for errors (0 when unknown, as inside an SST).
  Status read_rocks_entry(std::string_view key, uint64_t key_offset, std::string_view value,
                          uint64_t value_offset, const EntrySink& sink) const;
  // A LIST state's RocksDB value as its elements' bytes, in order, for edits that drop elements
  // and join the rest with kListDelimiter, copied as read. kNotSupported where the elements
  // cannot be told apart without the job's classes; kCorruption (at the offset in `value`)
  // where the value is not elements joined by delimiters.
  Status list_elements(std::string_view value, std::vector<std::string_view>* out) const;
  // The inverse of read_rocks_entry(): the bytes of one entry as dump prints it (`key`, `ns`,
  // `user_key` null where the line has none; a timer's timestamp is its `value`), each written
  // as the state's serializers write it. Errors (kInvalidArgument) name the member and what was
  // expected: "user_key.fields[1]: expected a 64-bit integer, got \"x\"".
  Status encode_entry(const nlohmann::json* key, const nlohmann::json* ns, const nlohmann::json* user_key,
                      const nlohmann::json& value, EntryEncoding* out) const;
  // The decoded key of one RocksDB pair (a timer's key for a timer), or nullopt for an entry
  // without one; for edits that select or re-key pairs by key. Only the key is decoded
  // (a queue element whole).
  Result<std::optional<nlohmann::json>> key_of_rocks_entry(std::string_view key, std::string_view value) const;
  // The Java hashCode() of that key (Flink's key-group assignment hashes it), from its bytes where
  // the type hashes bytes (SQL rows); nullopt where the key's hashCode is not known or the pair has
  // no key.
  Result<std::optional<int32_t>> key_hash_of_rocks_entry(std::string_view key, std::string_view value) const;

 private:
  // make() without its errors placed at the state's meta info.
  static Result<std::unique_ptr<KeyedStateCodec>> make_unlocated(const StateMetaInfo& info,
                                                                 const ValueDecoder& key_decoder,
                                                                 int32_t max_parallelism);
  KeyedStateCodec() = default;
  Status emit_timer(nlohmann::json&& timer, int32_t key_group, std::string_view raw, const EntrySink& sink) const;
  // A heap map value's pairs as bytes (user key; null flag and user value), in stored order;
  // false if they cannot be delimited.
  bool heap_map_pairs(std::string_view value, std::vector<std::pair<std::string_view, std::string_view>>* out) const;

  std::string name_;
  StateKind kind_ = StateKind::kUnknown;
  bool is_timer_ = false;
  bool json_text_ = false;
  bool values_ = false;
  EntryFields decode_;
  bool raw_bytes_ = false;
  const KeySet* keys_ = nullptr;
  RocksKeyLayout layout_;
  std::vector<std::string> key_bytes_;  // lookup_key_bytes()
  std::vector<std::pair<std::string, size_t>> key_spellings_;  // lookup_key_spellings()
  // key_bytes_ by their length, each length's as a set: an entry's key is looked up once per
  // length (one, nearly always), not compared with every key given.
  std::vector<std::pair<size_t, std::unordered_set<std::string_view>>> key_bytes_by_length_;
  bool key_bytes_known_ = false;
  // True if `key` (bytes after the key-group prefix, or a heap entry's after its namespace)
  // starts with none of lookup_key_bytes(): another key's entry, dropped undecoded.
  bool other_key_bytes(std::string_view key) const;
  const ValueDecoder* key_ = nullptr;
  std::unique_ptr<ValueDecoder> namespace_;
  std::unique_ptr<ValueDecoder> value_;    // whole-state serializer (heap); PQ element
  std::unique_ptr<ValueDecoder> element_;  // LIST element; MAP user value
  std::unique_ptr<ValueDecoder> user_key_; // MAP user key
  // read_rocks_entry()'s entry, handed to its sink each time (a codec reads on one thread).
  mutable StateEntry scratch_;
};

}  // namespace ckpt
