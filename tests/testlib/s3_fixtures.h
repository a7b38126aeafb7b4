// tests/testlib/s3_fixtures.h - what the CLI tests of s3:// URIs share: the environment that
// points ckpt at a loopback server, listings of a bucket, and an incremental chain uploaded
// with its handles naming the bucket, as Flink writes them there.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "s3/sigv4.h"
#include "testlib/s3_servers.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

namespace ckpt::test {

// A moto server that checks no signature, required to start: moto 5.2.1 refuses correct
// signatures of keys with '=', '+', spaces and non-ASCII bytes and of listings whose prefix
// holds '/' (testlib/s3_servers.h); the client tests check signatures where moto can.
std::unique_ptr<MotoServer> unchecked_moto();

// The environment that points ckpt at `endpoint` with these keys, and nowhere else.
struct StoreEnvironment {
  std::vector<std::unique_ptr<ScopedEnv>> vars;
  StoreEnvironment(const std::string& endpoint, const s3::Credentials& c);
  void set(const char* name, const std::string& value);
};

// The stand-in S3 server (tests/s3/stand_in.py) in front of `m`, and the process's store
// pointed at it with `m`'s keys: what a test of a store that fails some requests starts with.
// `attempts` per request (AWS_MAX_ATTEMPTS): the stand-in fails those requests every time, so
// waiting out the default six only costs time. Fails the test when the stand-in cannot start.
struct FailingStore {
  std::unique_ptr<StandIn> proxy;
  std::unique_ptr<StoreEnvironment> env;
};
FailingStore failing_store_before(const MotoServer& m, int attempts = 2);

// Every key under `prefix` of `bucket`.
std::set<std::string> keys_under(const MotoServer& m, const std::string& bucket, const std::string& prefix);

// A generated chain of `checkpoints` (RocksDB, 2 subtasks) at dir/job whose `_metadata` files
// name their files as s3://bucket/`shared_job_key`/shared/.. and s3://bucket/`job_key`/chk-N/..,
// uploaded to the keys those URIs name (the local copy keeps the rewritten `_metadata` files).
void upload_chain(const MotoServer& m, const ScratchDir& dir, int checkpoints, const std::string& bucket,
                  const std::string& job_key, const std::string& shared_job_key);

// `text` with every `from` replaced by `to` (a disk run's output with its paths named as URIs).
std::string replaced(std::string text, const std::string& from, const std::string& to);

// Every object under s3://bucket/prefix/, by its key relative to the prefix, with its bytes.
std::vector<std::pair<std::string, std::string>> bucket_files(const MotoServer& m, const std::string& bucket,
                                                              const std::string& prefix);

}  // namespace ckpt::test
