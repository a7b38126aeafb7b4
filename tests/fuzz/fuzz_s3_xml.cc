// Arbitrary bytes as an S3 or STS answer: the XML reader and every answer read from it. Stops
// when an error has no offset or one beyond the input, or when the reader and the answers
// disagree (an answer read from bytes the reader refuses).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "s3/responses.h"
#include "s3/xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto doc = ckpt::s3::parse_xml(in, "fuzz");
  if (!doc) {
    if (!doc.error().offset || *doc.error().offset > size) std::abort();
  } else {
    for (const auto& n : doc.value().nodes)
      for (int c : n.children)
        if (c <= 0 || static_cast<size_t>(c) >= doc.value().nodes.size()) std::abort();
  }
  bool parsed = doc.ok();
  auto list = ckpt::s3::parse_list_objects_v2(in, "fuzz");
  auto del = ckpt::s3::parse_delete_result(in, "fuzz");
  auto id = ckpt::s3::parse_upload_id(in, "fuzz");
  auto sts = ckpt::s3::parse_sts_credentials(in, "fuzz");
  if (!parsed && (list || del || id || sts)) std::abort();
  (void)ckpt::s3::parse_error_body(in);
  return 0;
}
