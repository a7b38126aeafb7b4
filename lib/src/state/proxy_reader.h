// state/proxy_reader.h - the backend proxies at the head of a subtask's state handles.
//
// Tools that only need state names, kinds and serializers (inspect, diff) read the head of
// each stream up to where its data starts, never the data itself.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/backend_meta.h"
#include "state/stream_opener.h"

namespace ckpt {

// "MapSerializer[StringSerializer,LongSerializer]": the display names of a snapshot tree,
// enough to tell a changed type apart.
std::string serializer_signature(const SerializerSnapshot& s);

class ProxyReader {
 public:
  ProxyReader(const SnapshotLocation& where, const std::vector<PrefixRule>& remap);
  explicit ProxyReader(StreamOpener streams);

  // Calls `visit` with the keyed backend proxy of `h`: heap and canonical key-groups streams,
  // the meta stream of RocksDB native handles, each materialized part of a changelog handle.
  // Handles without a proxy (null, change logs only) visit nothing.
  Status keyed(const KeyedHandle& h, const std::function<void(const KeyedBackendMeta&)>& visit);
  // The operator backend proxy of a (non-null) operator state handle.
  Result<OperatorBackendMeta> operator_state(const OperatorHandle& h);

 private:
  Status keyed_proxy(const StreamHandle& s, uint64_t end,
                     const std::function<void(const KeyedBackendMeta&)>& visit);

  StreamOpener streams_;
};

}  // namespace ckpt
