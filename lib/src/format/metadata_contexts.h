// format/metadata_contexts.h - which handle type bytes are legal where, shared by reader and writer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "ckpt/metadata.h"

namespace ckpt::metadata_format {

inline constexpr int32_t kMagic = 0x4960672D;
inline constexpr uint32_t kMasterStateMagic = 0xC96B1696u;
inline constexpr int32_t kMinVersion = 1;
inline constexpr int32_t kMaxVersion = 7;
// Nesting of handles inside handles (changelog parts, key-groups used as streams). Flink's own
// writers nest at most three levels; the bound only keeps hostile input from exhausting the stack.
inline constexpr int kMaxNesting = 32;

// A set of type bytes (0..17) as a bit mask.
using TypeMask = uint32_t;
constexpr TypeMask bits(std::initializer_list<uint8_t> types) {
  TypeMask m = 0;
  for (uint8_t t : types) m |= TypeMask{1} << t;
  return m;
}
constexpr bool in_mask(TypeMask m, uint8_t type) { return type < 32 && ((m >> type) & 1u) != 0; }

namespace ht = handle_type;
inline constexpr TypeMask kStreamTypes =
    bits({ht::kNull, ht::kByteStream, ht::kFile, ht::kKeyGroups, ht::kRelativeFile, ht::kSegmentFile,
          ht::kEmptySegmentFile});
inline constexpr TypeMask kKeyedTypes =
    bits({ht::kNull, ht::kKeyGroups, ht::kIncrementalV1, ht::kSavepointKeyGroups, ht::kChangelogBackendV1,
          ht::kInMemoryChangelog, ht::kChangelogFileV1, ht::kIncremental, ht::kKeyGroupsWithId,
          ht::kChangelogFile, ht::kChangelogBackend});
inline constexpr TypeMask kOperatorTypes = bits({ht::kNull, ht::kPartitionableOperator, ht::kFileMergingOperator});
// Narrower positions inside those contexts.
inline constexpr TypeMask kCoordinatorTypes = bits({ht::kNull, ht::kByteStream});
inline constexpr TypeMask kChangelogDeltaTypes =
    bits({ht::kNull, ht::kInMemoryChangelog, ht::kChangelogFileV1, ht::kChangelogFile});
inline constexpr TypeMask kFileMergingDelegateTypes =
    bits({ht::kNull, ht::kSegmentFile, ht::kEmptySegmentFile});

enum class Context { kStream, kKeyed, kOperator };
inline const char* context_name(Context c) {
  switch (c) {
    case Context::kStream: return "stream";
    case Context::kKeyed: return "keyed";
    case Context::kOperator: return "operator";
  }
  return "?";
}
inline TypeMask context_types(Context c) {
  switch (c) {
    case Context::kStream: return kStreamTypes;
    case Context::kKeyed: return kKeyedTypes;
    case Context::kOperator: return kOperatorTypes;
  }
  return 0;
}

// "unknown keyed state handle type 0x2a" for bytes outside the registry, "stream state handle
// type 0x04 not allowed here" for registered kinds in the wrong position.
inline std::string illegal_type_message(Context c, uint8_t type) {
  if (type > handle_type::kFileMergingOperator)
    return fmt::format("unknown {} state handle type {:#04x}", context_name(c), type);
  return fmt::format("{} state handle type {:#04x} not allowed here", context_name(c), type);
}

// V6+ channel-state handle kinds (ChannelStateHandleSerializerV2).
inline constexpr uint8_t kChannelInput = 1;
inline constexpr uint8_t kChannelOutput = 2;
inline constexpr uint8_t kChannelMergedInput = 3;
inline constexpr uint8_t kChannelMergedOutput = 4;

}  // namespace ckpt::metadata_format
