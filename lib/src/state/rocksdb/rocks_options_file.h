// state/rocksdb/rocks_options_file.h - a RocksDB OPTIONS-NNNNNN file made portable.
//
// RocksDB records the DBOptions an instance was opened with in OPTIONS-NNNNNN (an INI text
// file), paths included: a TaskManager's instance names its own working directory as
// `wal_dir` (and may name `db_log_dir`). A copy on another machine then makes `ldb` warn on
// every call and a program that opens it with LoadLatestOptions + DB::Open fail ("While mkdir
// if missing: <that directory>"). Emptied, both mean "inside the instance's directory".
#pragma once

#include <string>

#include "ckpt/error.h"

namespace ckpt {

// `text` with the values of wal_dir and db_log_dir removed; every other byte kept.
std::string portable_options_text(const std::string& text);

// Every OPTIONS-* file directly in `dir` rewritten by portable_options_text (atomically, only
// when it changes).
Status make_options_files_portable(const std::string& dir);

}  // namespace ckpt
