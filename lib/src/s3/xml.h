// s3/xml.h - the small XML reader for what an S3 endpoint (or STS) answers: untrusted bytes.
//
// Elements, text, entities (the five named ones and numeric references), comments, CDATA,
// the XML declaration; attributes are skipped (S3 puts only xmlns there), namespace prefixes
// dropped. No DTD (refused), no recursion: nesting is kept on an explicit stack, bounded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"

namespace ckpt::s3 {

struct XmlNode {
  std::string name;  // local name
  std::string text;  // the element's character data, entities decoded (children's excluded)
  std::vector<int> children;
  uint64_t offset = 0;  // of its '<'
};

struct XmlDoc {
  std::vector<XmlNode> nodes;  // nodes[0] is the root element

  // The first child of `node` named `name`, or -1.
  int child(int node, std::string_view name) const;
  // Its text, or "" without such a child.
  std::string child_text(int node, std::string_view name) const;
  std::vector<int> children_named(int node, std::string_view name) const;
};

inline constexpr int kXmlMaxDepth = 32;
inline constexpr size_t kXmlMaxNodes = 1u << 20;

// kCorruption with the offset of what is malformed, naming `file` (the URI it came from).
Result<XmlDoc> parse_xml(std::string_view bytes, const std::string& file);

}  // namespace ckpt::s3
