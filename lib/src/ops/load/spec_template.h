// ops/load/spec_template.h - a bootstrap's template snapshot, written from a spec alone.
//
// `ckpt load --spec` has no snapshot of the job: the spec (formats/load-spec.md) names each
// operator (uid, parallelism, max parallelism, key type) and its keyed states (name, kind, type).
// From it this writes, into an empty directory, the snapshot Flink would take of that job before
// any record: per subtask a keyed-state handle holding only the serialization proxy (the key
// serializer, each state's meta info and serializer snapshots) and no entries. `ckpt load` then
// reads it as any template (`--like`), so the lines of a bootstrap are checked, encoded and
// placed by the same code as those of a template snapshot.
#pragma once

#include <string>

#include "ckpt/convert.h"
#include "ckpt/error.h"

namespace ckpt {

// `spec_text`: the spec's JSON (errors name `spec_name`, the member and what was expected,
// kInvalidArgument). `dir` must exist and be empty; the template's keyed state is written in
// the `layout` given.
Status write_spec_template(const std::string& spec_text, const std::string& spec_name, const std::string& dir,
                           ConvertTarget layout);

}  // namespace ckpt
