// ckpt/walk.h - visiting every stream handle of a snapshot, with where it sits.
//
// File references hide at several depths (a private file of an incremental handle inside the
// materialized part of a changelog handle, say). Operations that care about files (resolving,
// inspecting, relocating) walk them all the same way through these templates, which work on
// const and mutable models alike. No allocation per handle: the site is a small value.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ckpt/export.h"
#include "ckpt/metadata.h"

namespace ckpt {

// The slot of a subtask (or operator) record a handle is stored in.
enum class HandleSlot : uint8_t {
  kCoordinator,         // operator coordinator state (V3+)
  kLegacy,              // V1/V2 legacy (Checkpointed) operator state
  kManagedOperator,
  kRawOperator,
  kManagedKeyed,
  kRawKeyed,
  kInputChannel,        // unaligned checkpoint, input side
  kResultSubpartition,  // unaligned checkpoint, output side
};
// "coordinator", "legacy-operator", "managed-operator", "raw-operator", "managed-keyed",
// "raw-keyed", "input-channel", "result-subpartition".
CKPT_API const char* handle_slot_name(HandleSlot slot);

// The part a stream plays inside the handle that holds it.
enum class StreamRole : uint8_t {
  kData,            // the stream itself, or a key-groups / operator / channel delegate
  kMeta,            // incremental RocksDB: the meta data stream
  kSharedFile,      // incremental RocksDB: a shared file (local name in the site)
  kPrivateFile,     // incremental RocksDB: a private file (local name in the site)
  kChangelogPiece,  // change log stored in files
};
// "data", "meta", "shared", "private", "changelog".
CKPT_API const char* stream_role_name(StreamRole role);

template <class T, class U>
concept SameOrConst = std::same_as<std::remove_const_t<T>, U>;

// f(stream, role, local_name) for every stream under a keyed handle; local_name is null
// except for the files of an incremental handle.
template <class K, class F>
  requires SameOrConst<K, KeyedHandle>
CKPT_API void visit_streams(K& h, F&& f);

// Every stream under a stream handle: itself, or for a key-groups handle used in stream
// context (type 3, e.g. a shared file of an incremental handle) the streams it holds.
template <class S, class F>
  requires SameOrConst<S, StreamHandle>
void visit_streams(S& s, StreamRole role, const std::string* local_name, F&& f) {
  if (s.type == handle_type::kKeyGroups && !s.key_groups.empty()) {
    for (auto& kg : s.key_groups) visit_streams(kg, f);
    return;
  }
  if (!s.is_null()) f(s, role, local_name);
}

template <class K, class F>
  requires SameOrConst<K, KeyedHandle>
void visit_streams(K& h, F&& f) {
  if (h.is_null()) return;
  bool incremental = handle_type::is_incremental(h.type);
  visit_streams(h.delegate, incremental ? StreamRole::kMeta : StreamRole::kData, nullptr, f);
  for (auto& n : h.shared_files) visit_streams(n.handle, StreamRole::kSharedFile, &n.name, f);
  for (auto& n : h.private_files) visit_streams(n.handle, StreamRole::kPrivateFile, &n.name, f);
  for (auto& m : h.materialized) visit_streams(m, f);
  for (auto& m : h.non_materialized) visit_streams(m, f);
  for (auto& p : h.pieces) visit_streams(p.handle, StreamRole::kChangelogPiece, nullptr, f);
}

template <class O, class F>
  requires SameOrConst<O, OperatorHandle>
void visit_streams(O& h, F&& f) {
  if (!h.is_null()) visit_streams(h.delegate, StreamRole::kData, nullptr, f);
}

template <class C, class F>
  requires SameOrConst<C, ChannelHandle>
void visit_streams(C& h, F&& f) {
  visit_streams(h.delegate, StreamRole::kData, nullptr, f);
}

// Where a stream handle sits in the whole snapshot.
struct CKPT_API StreamSite {
  size_t operator_index = 0;
  int32_t subtask = -1;  // subtask index as stored; -1 for the coordinator
  HandleSlot slot = HandleSlot::kManagedKeyed;
  StreamRole role = StreamRole::kData;
  const std::string* local_name = nullptr;  // RocksDB file name of shared/private files
};

// f(stream, site) for every non-null stream handle of every operator, in file order.
template <class M, class F>
  requires SameOrConst<M, Metadata>
void for_each_stream(M& m, F&& f) {
  for (size_t oi = 0; oi < m.operators.size(); ++oi) {
    auto& op = m.operators[oi];
    StreamSite site;
    site.operator_index = oi;
    auto at = [&](HandleSlot slot) {
      return [&, slot](auto& s, StreamRole role, const std::string* name) {
        StreamSite here = site;
        here.slot = slot;
        here.role = role;
        here.local_name = name;
        f(s, static_cast<const StreamSite&>(here));
      };
    };
    visit_streams(op.coordinator, StreamRole::kData, nullptr, at(HandleSlot::kCoordinator));
    for (auto& st : op.subtasks) {
      site.subtask = st.index;
      for (auto& s : st.legacy) visit_streams(s, StreamRole::kData, nullptr, at(HandleSlot::kLegacy));
      for (auto& h : st.managed_operator) visit_streams(h, at(HandleSlot::kManagedOperator));
      for (auto& h : st.raw_operator) visit_streams(h, at(HandleSlot::kRawOperator));
      visit_streams(st.managed_keyed, at(HandleSlot::kManagedKeyed));
      visit_streams(st.raw_keyed, at(HandleSlot::kRawKeyed));
      for (auto& h : st.input_channels) visit_streams(h, at(HandleSlot::kInputChannel));
      for (auto& h : st.result_subpartitions) visit_streams(h, at(HandleSlot::kResultSubpartition));
    }
  }
}

}  // namespace ckpt
