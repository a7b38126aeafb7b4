// tests/testlib/path_sets.h - sets of file paths, as the tests of diff and gc compare what
// those report with what a chain holds.
#pragma once

#include <set>
#include <string>

#include "ckpt/gc.h"

namespace ckpt::test {

std::set<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b);
// gc's orphans by path: the files it found unreferenced, deleted or not.
std::set<std::string> orphan_paths(const GcReport& r);

}  // namespace ckpt::test
