#include "s3/xml.h"

#include <fmt/format.h>

#include "support/byte_reader.h"

namespace ckpt::s3 {

int XmlDoc::child(int node, std::string_view name) const {
  if (node < 0 || static_cast<size_t>(node) >= nodes.size()) return -1;
  for (int c : nodes[node].children)
    if (nodes[c].name == name) return c;
  return -1;
}

std::string XmlDoc::child_text(int node, std::string_view name) const {
  int c = child(node, name);
  return c < 0 ? std::string() : nodes[c].text;
}

std::vector<int> XmlDoc::children_named(int node, std::string_view name) const {
  std::vector<int> out;
  if (node < 0 || static_cast<size_t>(node) >= nodes.size()) return out;
  for (int c : nodes[node].children)
    if (nodes[c].name == name) out.push_back(c);
  return out;
}

namespace {

class XmlParser {
 public:
  explicit XmlParser(std::string_view bytes) : in_(bytes), r_(bytes) {}

  Result<XmlDoc> run(const std::string& file) {
    parse();
    if (!r_.ok()) return r_.take_error().with_file(file);
    return std::move(doc_);
  }

 private:
  // -1 at the end and once the reader has failed: its skips stop moving then, so every loop
  // on peek() must see an end (a fuzz finding: "</ >" spun in skip_space()).
  int peek(size_t ahead = 0) const {
    if (!r_.ok()) return -1;
    size_t p = r_.position() + ahead;
    return p < in_.size() ? static_cast<unsigned char>(in_[p]) : -1;
  }
  bool starts(std::string_view s) const { return in_.substr(r_.position()).substr(0, s.size()) == s; }
  // Skips past `end`; false (and an error) when the input ends first.
  bool skip_past(std::string_view end, const char* what) {
    size_t at = in_.find(end, r_.position());
    if (at == std::string_view::npos) {
      r_.fail(fmt::format("unterminated {}", what));
      return false;
    }
    r_.skip(at + end.size() - r_.position());
    return true;
  }
  static bool name_char(int c) {
    return c > 0x7f || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':';
  }
  std::string read_name() {
    size_t start = r_.position();
    while (name_char(peek())) r_.skip(1);
    std::string_view n = in_.substr(start, r_.position() - start);
    if (n.empty()) r_.fail("expected an element name");
    size_t colon = n.rfind(':');
    return std::string(colon == std::string_view::npos ? n : n.substr(colon + 1));
  }
  void skip_space() {
    while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') r_.skip(1);
  }

  // One "&...;" at the reader, decoded onto `out`.
  void entity(std::string* out) {
    uint64_t at = r_.offset();
    size_t semi = in_.find(';', r_.position());
    if (semi == std::string_view::npos || semi - r_.position() > 12) {
      r_.fail_at(at, "malformed entity reference");
      return;
    }
    std::string_view e = in_.substr(r_.position() + 1, semi - r_.position() - 1);
    r_.skip(semi + 1 - r_.position());
    if (e == "amp")
      *out += '&';
    else if (e == "lt")
      *out += '<';
    else if (e == "gt")
      *out += '>';
    else if (e == "quot")
      *out += '"';
    else if (e == "apos")
      *out += '\'';
    else if (e.size() >= 2 && e[0] == '#') {
      bool hex = e[1] == 'x' || e[1] == 'X';
      std::string_view digits = e.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      if (digits.empty()) cp = 0xffffffff;
      for (char c : digits) {
        int d = (c >= '0' && c <= '9')          ? c - '0'
                : hex && (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : hex && (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                : -1;
        if (d < 0 || cp > 0x10ffff) {
          cp = 0xffffffff;
          break;
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
      }
      if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        r_.fail_at(at, "character reference out of range");
        return;
      }
      append_utf8(cp, out);
    } else {
      r_.fail_at(at, fmt::format("unknown entity '&{};'", e));
    }
  }
  static void append_utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xc0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xe0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      *out += static_cast<char>(0xf0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  // Skips attributes up to '>' or "/>"; true for an empty element.
  bool finish_tag() {
    while (r_.ok()) {
      skip_space();
      int c = peek();
      if (c == '>') {
        r_.skip(1);
        return false;
      }
      if (c == '/' && peek(1) == '>') {
        r_.skip(2);
        return true;
      }
      if (c < 0) {
        r_.fail("unterminated tag");
        return false;
      }
      read_name();
      skip_space();
      if (peek() != '=') {
        r_.fail("expected '=' after an attribute name");
        return false;
      }
      r_.skip(1);
      skip_space();
      int q = peek();
      if (q != '"' && q != '\'') {
        r_.fail("expected a quoted attribute value");
        return false;
      }
      r_.skip(1);
      if (!skip_past(q == '"' ? "\"" : "'", "attribute value")) return false;
    }
    return false;
  }

  void parse() {
    std::vector<int> open;  // the elements not yet closed, innermost last
    bool done = false;
    while (r_.ok() && peek() >= 0) {
      int c = peek();
      if (c != '<') {
        if (open.empty()) {
          if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            r_.skip(1);
            continue;
          }
          r_.fail("text outside the root element");
          return;
        }
        std::string& text = doc_.nodes[open.back()].text;
        if (c == '&') {
          entity(&text);
        } else {
          size_t end = in_.find_first_of("<&", r_.position());
          if (end == std::string_view::npos) end = in_.size();
          text.append(r_.bytes(end - r_.position()));
        }
        continue;
      }
      uint64_t at = r_.offset();
      if (starts("<?")) {
        skip_past("?>", "processing instruction");
      } else if (starts("<!--")) {
        skip_past("-->", "comment");
      } else if (starts("<![CDATA[")) {
        if (open.empty()) {
          r_.fail("CDATA outside the root element");
          return;
        }
        r_.skip(9);
        size_t end = in_.find("]]>", r_.position());
        if (end == std::string_view::npos) {
          r_.fail("unterminated CDATA section");
          return;
        }
        doc_.nodes[open.back()].text.append(r_.bytes(end - r_.position()));
        r_.skip(3);
      } else if (starts("<!")) {
        r_.not_supported_at(at, "document type declarations are not accepted");
        return;
      } else if (starts("</")) {
        r_.skip(2);
        std::string name = read_name();
        skip_space();
        if (peek() != '>') {
          r_.fail("expected '>' closing an end tag");
          return;
        }
        r_.skip(1);
        if (open.empty() || doc_.nodes[open.back()].name != name) {
          r_.fail_at(at, fmt::format("end tag </{}> does not close the open element", name));
          return;
        }
        open.pop_back();
        if (open.empty()) done = true;
      } else {
        if (done) {
          r_.fail_at(at, "a second root element");
          return;
        }
        r_.skip(1);
        std::string name = read_name();
        if (!r_.ok()) return;
        if (open.size() >= static_cast<size_t>(kXmlMaxDepth)) {
          r_.fail_at(at, fmt::format("elements nested deeper than {}", kXmlMaxDepth));
          return;
        }
        if (doc_.nodes.size() >= kXmlMaxNodes) {
          r_.fail_at(at, fmt::format("more than {} elements", kXmlMaxNodes));
          return;
        }
        int index = static_cast<int>(doc_.nodes.size());
        doc_.nodes.push_back(XmlNode{std::move(name), {}, {}, at});
        if (!open.empty()) doc_.nodes[open.back()].children.push_back(index);
        bool empty = finish_tag();
        if (!empty)
          open.push_back(index);
        else if (open.empty())
          done = true;
      }
    }
    if (!r_.ok()) return;
    if (!open.empty())
      r_.fail(fmt::format("document ends inside <{}>", doc_.nodes[open.back()].name));
    else if (doc_.nodes.empty())
      r_.fail("no root element");
  }

  std::string_view in_;
  ByteReader r_;
  XmlDoc doc_;
};

}  // namespace

Result<XmlDoc> parse_xml(std::string_view bytes, const std::string& file) { return XmlParser(bytes).run(file); }

}  // namespace ckpt::s3
