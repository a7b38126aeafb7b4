// Reading only the backend proxies of state handles: names, kinds, serializers.
#include "state/proxy_reader.h"

#include <algorithm>

#include "state/changelog/changelog_reader.h"
#include "support/byte_reader.h"

namespace ckpt {

std::string serializer_signature(const SerializerSnapshot& s) {
  std::string out = s.display_name();
  if (!s.nested.empty()) {
    out += '[';
    for (size_t i = 0; i < s.nested.size(); ++i) {
      if (i) out += ',';
      out += serializer_signature(s.nested[i]);
    }
    out += ']';
  }
  return out;
}

ProxyReader::ProxyReader(const SnapshotLocation& where, const std::vector<PrefixRule>& remap)
    : streams_(StreamOpener::for_snapshot(where, remap)) {}

ProxyReader::ProxyReader(StreamOpener streams) : streams_(std::move(streams)) {}

namespace {

// The first `limit` bytes of a stream (all of it if smaller), decoded by `read`.
template <class Read>
auto read_head(const StateStream& stream, uint64_t limit, Read&& read) -> decltype(read(std::declval<ByteReader&>())) {
  std::string bytes;
  CKPT_RETURN_IF_ERROR(stream.read(0, std::min<uint64_t>(limit, stream.size()), &bytes));
  ByteReader r(bytes, stream.base());
  return read(r);
}

}  // namespace

Status ProxyReader::keyed(const KeyedHandle& h, const std::function<void(const KeyedBackendMeta&)>& visit) {
  switch (h.type) {
    case handle_type::kKeyGroups:
    case handle_type::kSavepointKeyGroups:
    case handle_type::kKeyGroupsWithId: {
      // The proxy ends where the first key group starts (empty key groups may say 0).
      uint64_t end = UINT64_MAX;
      for (int64_t off : h.offsets)
        if (off > 0) end = std::min<uint64_t>(end, static_cast<uint64_t>(off));
      return keyed_proxy(h.delegate, end, visit);
    }
    case handle_type::kIncrementalV1:
    case handle_type::kIncremental:
      return keyed_proxy(h.delegate, UINT64_MAX, visit);
    case handle_type::kChangelogBackendV1:
    case handle_type::kChangelogBackend:
      for (const KeyedHandle& m : h.materialized) CKPT_RETURN_IF_ERROR(keyed(m, visit));
      if (!h.non_materialized.empty()) {
        // States registered after the last materialization exist only in the change logs.
        CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta logged, read_changelog_meta(h.non_materialized, streams_));
        if (!logged.states.empty()) visit(logged);
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

Result<OperatorBackendMeta> ProxyReader::operator_state(const OperatorHandle& h) {
  uint64_t end = UINT64_MAX;
  for (const OperatorStateEntry& e : h.states)
    for (int64_t off : e.offsets)
      if (off > 0) end = std::min<uint64_t>(end, static_cast<uint64_t>(off));
  return streams_.read(h.delegate, [&](const StateStream& stream) {
    return read_head(stream, end, [](ByteReader& r) { return read_operator_backend_meta(r); });
  });
}

Status ProxyReader::keyed_proxy(const StreamHandle& s, uint64_t end,
                                const std::function<void(const KeyedBackendMeta&)>& visit) {
  CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta meta, streams_.read(s, [&](const StateStream& stream) {
    auto meta = read_head(stream, end, [](ByteReader& r) { return read_keyed_backend_meta(r); });
    if (meta.ok()) meta->set_source(stream.file(), stream.offsets_context());
    return meta;
  }));
  visit(meta);
  return Status::OK();
}

}  // namespace ckpt
