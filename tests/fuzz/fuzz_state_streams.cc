// libFuzzer target: keyed state streams (heap and canonical key groups, framed Snappy,
// proxy, value decoders, heap value-length inference) behind a key-groups handle,
// operator-state streams, RocksDB entries as trees and as JSON text, and change logs.
//
// Input: u8 mode, then by mode:
//   bit 7 (SST): the rest is one RocksDB table file, served inline: ckpt's check of what RocksDB
//     trusts (footer, meta-index and properties blocks; an error must name an offset inside
//     the table) and, where that passes, RocksDB's open, scan and checksum pass, which must end
//     in a table or an error, never an abort inside RocksDB;
//   bit 3 (change log): records `i32 key group, u16 length, bytes` to the end, one in-memory
//     change log (type 9) replayed by ChangelogState; bit 4 picks the byte-level mode (convert),
//     bit 5 gives the decoding mode a Long key serializer; bit 6: instead `u32 offset, u32
//     offset`, then one log file (types 10, 13) read at those two offsets;
//   bit 2 (JSON text): a keyed proxy, then records `u8 state, u16 key length, key, u16 value
//     length, value`, each read by KeyedStateCodec::read_rocks_entry as a tree and as JSON text:
//     both must fail or both give the same entry, text equal to the tree's text;
//   otherwise: u8 key-group count n (at most 8), n x u32 offsets, then the stream bytes, served
//     inline; bit 0: operator state (then cut, as edit --drop-state does: bit 1 cuts the list
//     state, else the broadcast one; the other must read back the same); bit 1: savepoint
//     key-groups handle (type 7, canonical).
//   Keyed handles are also read by convert's reader (read_raw_keyed), with checks on its pairs.
// Must never crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "state/backend_meta.h"
#include "state/changelog/changelog_reader.h"
#include "state/heap/key_groups_reader.h"
#include "state/keyed_state_codec.h"
#include "state/operator_state_cut.h"
#include "state/operator_state_reader.h"
#include "state/raw_keyed_reader.h"
#include "state/rocksdb/rocks_sst.h"
#include "state/rocksdb/sst_table_check.h"
#include "state/state_stream.h"
#include "support/json_text.h"

using namespace ckpt;

namespace {

[[noreturn]] void finding(const char* what, const Error* e = nullptr) {
  std::fprintf(stderr, "fuzz_state_streams: %s%s%s\n", what, e ? ": " : "", e ? e->to_string().c_str() : "");
  std::abort();
}

uint32_t be(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

SerializerSnapshot long_key_serializer() {
  ByteWriter w;
  w.utf("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot");
  w.i32(3);
  ByteReader r(w.buffer());
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  if (!s.ok()) finding("the Long key serializer snapshot does not read", &s.error());
  return *s;
}

// Bit 6: `u32 offset, u32 offset`, then one log file (flag byte, change sets) served inline,
// read by a type-13 handle of two pieces at those offsets.
KeyedHandle file_log(const uint8_t* data, size_t size) {
  KeyedHandle log;
  log.type = handle_type::kChangelogFile;
  if (size < 8) return log;
  for (int i = 0; i < 2; ++i) {
    ChangelogPiece p;
    p.offset = be(data + 4 * i, 4);
    p.handle.type = handle_type::kByteStream;
    p.handle.data.assign(reinterpret_cast<const char*>(data + 8), size - 8);
    log.pieces.push_back(std::move(p));
  }
  return log;
}

void fuzz_changelog(uint8_t mode, const uint8_t* data, size_t size) {
  KeyedHandle log;
  log.type = handle_type::kInMemoryChangelog;
  if (mode & 64) log = file_log(data, size);
  for (size_t at = 0; !(mode & 64) && at + 6 <= size;) {
    Change c;
    c.key_group = static_cast<int32_t>(be(data + at, 4));
    size_t n = be(data + at + 4, 2);
    at += 6;
    n = std::min(n, size - at);
    c.bytes.assign(reinterpret_cast<const char*>(data + at), n);
    at += n;
    log.changes.push_back(std::move(c));
  }
  std::vector<KeyedHandle> logs{log};
  KeyGroupRange range{0, 128};
  if (mode & 16) {
    auto meta = read_changelog_meta(logs);
    if (!meta.ok()) return;
    if (meta->key_serializer.snapshot_class.empty()) meta->key_serializer = long_key_serializer();
    auto state = ChangelogState::make_raw(*meta, 128);
    if (!state.ok()) return;
    if (!(*state)->replay(logs, range).ok()) return;
    (void)(*state)->emit_raw([](int32_t, std::vector<std::vector<RocksPair>>&) { return Status::OK(); });
    return;
  }
  ChangelogState state;
  if (mode & 32) state.set_key_serializer(long_key_serializer());
  if (!state.replay(logs, range).ok()) return;
  (void)state.emit(StateFilter{}, [](StateEntry&&) { return Status::OK(); });
}

// An entry as the dump prints it: the text fields, from the tree where the reader gave one.
std::string printed(const StateEntry& e) {
  auto text = [&](const nlohmann::json& tree, const std::string& t) { return e.is_text ? t : json_text(tree); };
  std::string s = e.state + '\x1f' + std::to_string(static_cast<int>(e.kind)) + '\x1f' + std::to_string(e.key_group);
  if (e.has_key) s += '\x1f' + text(e.key, e.key_text);
  if (e.has_namespace) s += '\x1f' + text(e.ns, e.ns_text);
  if (e.has_user_key) s += '\x1f' + text(e.user_key, e.user_key_text);
  return s + '\x1f' + text(e.value, e.value_text);
}

void fuzz_json_text(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ByteReader r(in);
  auto meta = read_keyed_backend_meta(r);
  if (!meta.ok() || meta->states.empty()) return;
  auto key = make_decoder(meta->key_serializer);
  if (!key.ok()) return;
  std::vector<std::unique_ptr<KeyedStateCodec>> trees, texts;
  for (const auto& s : meta->states) {
    auto a = KeyedStateCodec::make(s, **key, 128);
    auto b = KeyedStateCodec::make(s, **key, 128);
    if (!a.ok() || !b.ok()) return;
    (*b)->set_json_text(true);
    trees.push_back(std::move(*a));
    texts.push_back(std::move(*b));
  }
  size_t at = r.position();
  for (int i = 0; i < 64 && at + 3 <= size; ++i) {
    size_t id = data[at] % trees.size();
    size_t kn = std::min<size_t>(be(data + at + 1, 2), size - at - 3);
    size_t k = at + 3;
    size_t v = k + kn;
    size_t vn = v + 2 <= size ? std::min<size_t>(be(data + v, 2), size - v - 2) : 0;
    v = std::min(v + 2, size);
    at = v + vn;
    std::string_view kb = in.substr(k, kn), vb = in.substr(v, vn);
    std::vector<std::string> got[2];
    Status st[2];
    for (int t = 0; t < 2; ++t) {
      const auto& codec = t ? texts[id] : trees[id];
      st[t] = codec->read_rocks_entry(kb, k, vb, v, [&](StateEntry&& e) {
        got[t].push_back(printed(e));
        return Status::OK();
      });
    }
    if (st[0].ok() != st[1].ok()) finding(st[0].ok() ? "the text path fails where the tree path succeeds" : "the text path succeeds where the tree path fails", st[0].ok() ? &st[1].error() : &st[0].error());
    if (!st[0].ok() && st[0].error().offset != st[1].error().offset) finding("the text path fails at another offset", &st[1].error());
    if (st[0].ok() && got[0] != got[1]) finding("the text path prints a different entry than the tree path");
    // A list value edit --delete-where splits into elements: where the tree path read a whole
    // list, the split finds as many elements, and they join back into the value.
    if (trees[id]->kind() == StateKind::kList && st[0].ok()) {
      std::vector<std::string_view> elements;
      Status split = trees[id]->list_elements(vb, &elements);
      size_t listed = 0;
      bool whole_list = false;
      (void)trees[id]->read_rocks_entry(kb, k, vb, v, [&](StateEntry&& e) {
        whole_list = e.value.is_array();
        listed = e.value.size();
        return Status::OK();
      });
      if (split.ok()) {
        std::string joined;
        for (size_t i = 0; i < elements.size(); ++i) {
          if (i) joined += ',';
          joined += elements[i];
        }
        if (joined != vb) finding("list elements do not join back into the list value", nullptr);
        if (whole_list && listed != elements.size()) finding("list elements split apart from those read", nullptr);
      } else if (whole_list && split.error().code != ErrorCode::kNotSupported) {
        finding("a list value read whole does not split into its elements", &split.error());
      }
    }
  }
}

// The same key groups through convert's reader (heap entries re-framed into Flink's RocksDB
// layout): each pair must be in the key group it was handed over with and name a proxy state.
void fuzz_raw_keyed(const KeyedHandle& h, const StreamOpener& no_files) {
  auto source = open_raw_keyed(h, no_files, 128);
  if (!source.ok()) return;
  const size_t states = source->meta.states.size();
  int32_t previous = -1;
  (void)read_raw_keyed(h, *source, no_files, 128, [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) {
    if (kg <= previous || kg < h.range.first || kg > h.range.last()) finding("raw key groups out of order or range");
    previous = kg;
    if (by_state.size() > states) finding("raw pairs of a state the proxy does not name");
    for (const auto& pairs : by_state)
      for (const RocksPair& p : pairs)
        // max parallelism 128: a one-byte key-group prefix (Flink's computeRequiredBytesInKeyGroupPrefix)
        if (p.key.empty() || static_cast<uint8_t>(p.key[0]) != kg) finding("a raw pair's key-group prefix differs from its key group");
    return Status::OK();
  });
}

// Bit 7: one table file. RocksDB parses the properties block before it verifies its checksum
// (and Debian's 7.8 asserts on what it finds there), so every table check_sst_table() lets
// through must open, scan and checksum without a signal.
void fuzz_sst(const uint8_t* data, size_t size) {
  StreamHandle table;
  table.type = handle_type::kByteStream;
  table.name = "fuzz.sst";
  table.data.assign(reinterpret_cast<const char*>(data), size);
  const StreamOpener no_files({}, "fuzz");
  Result<StateStream> stream = no_files.open(table);
  if (!stream.ok()) return;
  Status checked = check_sst_table(*stream);
  if (!checked.ok()) {
    const Error& e = checked.error();
    if (!e.offset || *e.offset > size) finding("an sst check error without an offset inside the table", &e);
    return;
  }
  Result<SstFile> sst = SstFile::open(*stream);
  if (!sst.ok()) return;
  (void)sst->for_each([](std::string_view, std::string_view) { return Status::OK(); });
  (void)SstFile::verify_checksum(*stream);
}

}  // namespace

// The entries of `keep` in `h`'s stream as text, or nullopt if any part could not be read.
std::optional<std::vector<std::string>> entries_of(const OperatorHandle& h, const StreamOpener& streams,
                                                   const std::string& keep) {
  std::vector<std::string> out;
  bool clean = true;
  StateFilter all;
  Status s = read_operator_handle(
      h, streams, all,
      [&](StateEntry&& e) {
        if (e.state == keep) out.push_back(json_text(e.key) + " " + json_text(e.value));
        return Status::OK();
      },
      [&](Error&&) {
        clean = false;
        return Status::OK();
      });
  if (!s.ok() || !clean) return std::nullopt;
  return out;
}

// Bit 0 again: `cut` cut out of the stream (edit's --drop-state); where that succeeds, the
// other state must read back entry for entry and the cut one be gone from the handle.
void fuzz_operator_cut(const OperatorHandle& h, const StreamOpener& streams, const std::string& cut) {
  std::string keep;
  for (const OperatorStateEntry& s : h.states)
    if (s.name != cut) keep = s.name;
  auto before = entries_of(h, streams, keep);
  OperatorHandle edited = h;
  std::string bytes = h.delegate.data;
  auto removed = cut_operator_states(edited, bytes, {cut});
  if (!removed.ok()) return;
  for (const OperatorStateEntry& s : edited.states)
    if (s.name == cut) finding("a cut state is still in the handle");
  edited.delegate.data = bytes;
  auto after = entries_of(edited, streams, keep);
  if (before && after && *before != *after) finding("a kept operator state reads differently once another is cut");
  if (before && !after) finding("a kept operator state no longer reads once another is cut");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if (data[0] & 128) {
    fuzz_sst(data + 1, size - 1);
    return 0;
  }
  if (data[0] & 8) {
    fuzz_changelog(data[0], data + 1, size - 1);
    return 0;
  }
  if (data[0] & 4) {
    fuzz_json_text(data + 1, size - 1);
    return 0;
  }
  if (size < 2) return 0;
  bool operator_state = data[0] & 1;
  size_t n = data[1] % 9;
  if (size < 2 + 4 * n) return 0;
  std::vector<int64_t> offsets;
  for (size_t i = 0; i < n; ++i) offsets.push_back(be(data + 2 + 4 * i, 4));
  StreamHandle inline_stream;
  inline_stream.type = handle_type::kByteStream;
  inline_stream.name = "fuzz";
  inline_stream.data.assign(reinterpret_cast<const char*>(data + 2 + 4 * n), size - 2 - 4 * n);
  const StreamOpener no_files({}, "fuzz");  // no file is found: inline bytes only
  EntrySink discard = [](StateEntry&&) { return Status::OK(); };
  ProblemSink keep_going = [](Error&&) { return Status::OK(); };
  StateFilter all;
  if (operator_state) {
    OperatorHandle h;
    h.type = handle_type::kPartitionableOperator;
    h.delegate = inline_stream;
    OperatorStateEntry list{"list", DistributionMode::kSplitDistribute, offsets};
    h.states.push_back(list);
    if (!offsets.empty()) h.states.push_back({"broadcast", DistributionMode::kBroadcast, {offsets.back()}});
    (void)read_operator_handle(h, no_files, all, discard, keep_going);
    fuzz_operator_cut(h, no_files, (data[0] & 2) ? "list" : "broadcast");
    return 0;
  }
  KeyedHandle h;
  h.type = (data[0] & 2) ? handle_type::kSavepointKeyGroups : handle_type::kKeyGroupsWithId;
  h.range = {0, static_cast<int32_t>(n)};
  h.offsets = offsets;
  h.delegate = inline_stream;
  Result<StateStream> stream = no_files.open(h.delegate);
  if (!stream.ok()) return 0;
  (void)read_key_groups_handle(h, *stream, 128, all, discard, keep_going);
  fuzz_raw_keyed(h, no_files);
  return 0;
}
