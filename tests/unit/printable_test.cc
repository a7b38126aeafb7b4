// printable(): what text output makes of strings from input.
#include <catch2/catch.hpp>

#include <string>

#include "ckpt/printable.h"

using namespace ckpt;

TEST_CASE("printable escapes control characters and bytes that are not UTF-8 and keeps the rest", "[support][unit]") {
  CHECK(printable("chk-42/_metadata") == "chk-42/_metadata");
  CHECK(printable("") == "");
  CHECK(printable("a\nb\r\tc") == "a\\nb\\r\\tc");
  CHECK(printable("\x1b]0;title\x07\x1b[2K") == "\\x1b]0;title\\x07\\x1b[2K");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("\x7f") == "\\x7f");
  // C1 controls as UTF-8 (U+009B is CSI to some terminals), and a lone C1 byte.
  CHECK(printable("\xc2\x9b"
                  "1m") == "\\u009b1m");
  CHECK(printable("\xc2\x85") == "\\u0085");
  CHECK(printable("\x9b") == "\\x9b");
  // Valid UTF-8 stays; overlong forms, surrogates and truncated sequences do not.
  CHECK(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0") ==
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0");
  CHECK(printable("\xc0\x8a") == "\\xc0\\x8a");
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");
}
