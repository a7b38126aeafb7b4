// ops/key_spelling.h - a key as a person writes it (`dump --key`, a line of `edit --delete-keys`),
// read into the values the key decoders produce, so that every form `ckpt dump` prints a key in
// finds the entries of that key.
//
// dump prints a SQL key row as `{"fields":[6,"c"],"kind":"+I"}`, and with `--plan` names its
// fields after the plan's columns, `{"fields":{"a":6,"b":"c"},"kind":"+I"}`; a key row's kind is
// always +I (Flink's key selectors project keys into new rows), so a key given without `kind`
// means +I. Every other key is compared as the JSON value it is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"

namespace ckpt {

struct GivenKey {
  std::string text;  // as given
  // The values a decoded key equal to it may have: the JSON as written, then, where it can
  // be a key row written another way, the row as the decoders spell it. Never empty.
  std::vector<nlohmann::json> spellings;
};

// Errors (kInvalidArgument, naming `what` and the text): not exactly one JSON value, or JSON
// nested too deep.
Result<GivenKey> parse_given_key(std::string_view text, std::string_view what);

// Each of `texts`, in order; keys given twice (in any spelling) are kept once.
Result<std::vector<GivenKey>> parse_given_keys(const std::vector<std::string>& texts, std::string_view what);

}  // namespace ckpt
