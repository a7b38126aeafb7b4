// Parsing JSON from input without exceptions and without unbounded nesting.
#include "support/json_input.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace ckpt {
namespace {

// Where the nesting of `text` first exceeds `max_nesting`, or npos. Brackets inside strings
// do not count; the text need not be valid (the parser judges that afterwards).
size_t too_deep_at(std::string_view text, int max_nesting) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_nesting) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// The JSON most input is (dump's NDJSON: ASCII strings, small unsigned integers), parsed in
// place: nlohmann's lexer copies every character into its error token and reads through an
// input adapter one at a time, several times the cost of the scan. Anything else - a number
// other than a plain unsigned integer, a unicode escape, a non-ASCII byte, nesting past the limit,
// any error - is handed back (false) to nlohmann's parser, which accepts or explains it; what
// this accepts it builds exactly as nlohmann's DOM parser would (a repeated member: the last).
//
// Reusing (`reuse`), the value is built into what `out` held, keeping its strings', objects'
// and arrays' memory where the new value has the same shape: a line's members parsed into the
// last line's cost no allocation.
class PlainJson {
 public:
  PlainJson(std::string_view text, int max_nesting, bool reuse = false)
      : p_(text.data()), end_(text.data() + text.size()), max_nesting_(max_nesting), reuse_(reuse) {}

  bool parse(nlohmann::json* out) {
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool at(char c) {
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  bool word(const char* w, size_t n) {
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return false;
    p_ += n;
    return true;
  }

  // Whether none of the 8 bytes at `p` is '"', '\\', below 0x20 or above 0x7f (the classic
  // "has a zero byte" and "has a byte less than n" word tricks: exact for whether one has).
  static bool plain8(const char* p) {
    constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    uint64_t x;
    std::memcpy(&x, p, 8);
    const uint64_t quote = x ^ (kOnes * '"'), backslash = x ^ (kOnes * '\\');
    const uint64_t special = ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                             ((x - kOnes * 0x20) & ~x) | x;
    return (special & kHigh) == 0;
  }

  bool string(std::string* out) {
    ++p_;  // the opening quote
    const char* run = p_;
    while (p_ < end_) {
      // Eight bytes at a time past those that need no look (a value's long hex): none a quote,
      // a backslash, a control character or non-ASCII; the byte loop below takes the rest.
      while (end_ - p_ >= 8 && plain8(p_)) p_ += 8;
      if (p_ == end_) break;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out->append(run, p_);
        ++p_;
        return true;
      }
      if (c < 0x20 || c >= 0x80) return false;
      if (c != '\\') {
        ++p_;
        continue;
      }
      out->append(run, p_);
      if (++p_ == end_) return false;
      switch (*p_) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        default: return false;  // unicode escapes (surrogate pairs) and errors
      }
      run = ++p_;
    }
    return false;
  }

  bool number(nlohmann::json* out) {
    const char* start = p_;
    while (p_ < end_ &&
           ((*p_ >= '0' && *p_ <= '9') || *p_ == '-' || *p_ == '+' || *p_ == '.' || *p_ == 'e' || *p_ == 'E'))
      ++p_;
    const size_t n = static_cast<size_t>(p_ - start);
    bool plain = n > 0 && n <= 18 && (start[0] != '0' || n == 1);
    uint64_t v = 0;
    for (size_t i = 0; plain && i < n; ++i) {
      if (start[i] < '0' || start[i] > '9') plain = false;
      v = v * 10 + static_cast<uint64_t>(start[i] - '0');
    }
    if (plain) {
      *out = nlohmann::json::number_unsigned_t{v};
      return true;
    }
    if (n == 0) return false;
    // Signs, fractions, exponents and big integers: nlohmann's own conversion, on the token.
    *out = nlohmann::json::parse(start, p_, nullptr, /*allow_exceptions=*/false);
    return out->is_number();
  }

  bool value(nlohmann::json* out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '"': {
        if (reuse_ && out->is_string()) {
          std::string& s = out->get_ref<std::string&>();
          s.clear();
          return string(&s);
        }
        std::string s;
        if (!string(&s)) return false;
        *out = std::move(s);
        return true;
      }
      case '{': {
        if (depth + 1 > max_nesting_) return false;
        ++p_;
        if (reuse_ && out->is_object()) return reused_object(out, depth);
        *out = nlohmann::json::object();
        skip_space();
        if (at('}')) return true;
        auto& members = out->get_ref<nlohmann::json::object_t&>();
        for (;;) {
          skip_space();
          if (p_ == end_ || *p_ != '"') return false;
          std::string name;
          if (!string(&name)) return false;
          skip_space();
          if (!at(':')) return false;
          skip_space();
          if (!value(&members[std::move(name)], depth + 1)) return false;
          skip_space();
          if (at(',')) continue;
          return at('}');
        }
      }
      case '[': {
        if (depth + 1 > max_nesting_) return false;
        ++p_;
        if (!reuse_ || !out->is_array()) *out = nlohmann::json::array();
        auto& elements = out->get_ref<nlohmann::json::array_t&>();
        size_t n = 0;  // elements parsed; those after them (a reused array's) dropped at the end
        skip_space();
        if (at(']')) {
          elements.clear();
          return true;
        }
        for (;;) {
          skip_space();
          if (n == elements.size()) elements.emplace_back();
          if (!value(&elements[n++], depth + 1)) return false;
          skip_space();
          if (at(',')) continue;
          if (!at(']')) return false;
          elements.resize(n);
          return true;
        }
      }
      case 't':
        if (!word("true", 4)) return false;
        *out = true;
        return true;
      case 'f':
        if (!word("false", 5)) return false;
        *out = false;
        return true;
      case 'n':
        if (!word("null", 4)) return false;
        *out = nullptr;
        return true;
      default: return number(out);
    }
  }

  static constexpr size_t kReusedMembers = 16;

  // An object parsed into the object `out` held: a member of a name it had is parsed into the
  // old one's value, the names it no longer has are dropped. The members seen are tracked up to
  // kReusedMembers; past that, those not seen yet are dropped at once (every member the tree
  // holds from then on is this object's).
  bool reused_object(nlohmann::json* out, int depth) {
    auto& members = out->get_ref<nlohmann::json::object_t&>();
    std::array<nlohmann::json::object_t::iterator, kReusedMembers> seen;
    size_t seen_count = 0;
    bool tracking = true;
    auto was_seen = [&](nlohmann::json::object_t::iterator m) {
      return std::find(seen.begin(), seen.begin() + seen_count, m) != seen.begin() + seen_count;
    };
    std::string name;
    skip_space();
    if (!at('}')) {
      for (;;) {
        skip_space();
        if (p_ == end_ || *p_ != '"') return false;
        name.clear();
        if (!string(&name)) return false;
        skip_space();
        if (!at(':')) return false;
        skip_space();
        auto it = members.find(name);
        if (it == members.end()) it = members.emplace(name, nlohmann::json()).first;
        if (tracking && !was_seen(it)) {
          if (seen_count < kReusedMembers) {
            seen[seen_count++] = it;
          } else {
            for (auto m = members.begin(); m != members.end();)
              m = m == it || was_seen(m) ? std::next(m) : members.erase(m);
            tracking = false;
          }
        }
        if (!value(&it->second, depth + 1)) return false;
        skip_space();
        if (at(',')) continue;
        if (!at('}')) return false;
        break;
      }
    }
    if (tracking)
      for (auto it = members.begin(); it != members.end();) it = was_seen(it) ? std::next(it) : members.erase(it);
    return true;
  }

  const char* p_;
  const char* end_;
  int max_nesting_;
  bool reuse_;
};

}  // namespace

Result<nlohmann::json> parse_json_input(std::string_view text, int max_nesting) {
  {
    nlohmann::json value;
    if (PlainJson(text, max_nesting).parse(&value)) return value;
  }
  if (size_t at = too_deep_at(text, max_nesting); at != std::string_view::npos)
    return Error(ErrorCode::kCorruption,
                 fmt::format("JSON nested deeper than {} levels (at byte {} of the text)", max_nesting, at));
  // A parse error message names the byte; the SAX interface gets it without an exception.
  struct ErrorOnly : nlohmann::json_sax<nlohmann::json> {
    std::string message;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
      message = e.what();
      return false;
    }
  };
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) return value;
  ErrorOnly why;
  (void)nlohmann::json::sax_parse(text, &why);
  return Error(ErrorCode::kCorruption, fmt::format("not valid JSON ({})", why.message));
}

bool parse_plain_json_into(std::string_view text, nlohmann::json* out, int max_nesting) {
  return PlainJson(text, max_nesting, /*reuse=*/true).parse(out);
}

const nlohmann::json* json_member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace ckpt
