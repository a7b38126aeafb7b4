#include "testlib/stream_handles.h"

namespace ckpt::test {

StreamHandle file_handle(const std::string& uri, int64_t size) {
  StreamHandle h;
  h.type = handle_type::kFile;
  h.path = uri;
  h.size = size;
  return h;
}

}  // namespace ckpt::test
