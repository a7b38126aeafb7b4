// s3/credentials.h - the AWS CLI's credential chain, in its order (botocore's
// create_credential_resolver): environment variables; web identity (token file + role ARN,
// exchanged at STS); the profile in the shared credentials file, then in the config file;
// container credentials (ECS, EKS Pod Identity); EC2 instance metadata (IMDSv2). The first
// source that is configured answers: one that is configured but fails is an error, never
// skipped for the next (a typo must not silently pick other credentials).
#pragma once

#include <map>
#include <string>

#include "ckpt/error.h"
#include "s3/sigv4.h"

namespace ckpt::s3 {

// One section of an AWS INI file: "key" -> value, a nested "s3 =" block as "s3.key".
using ProfileSection = std::map<std::string, std::string>;

// Section `profile` of a credentials file ("[name]") or a config file ("[profile name]", or
// "[default]"); empty if the file or section is absent. kCorruption for a malformed file.
Result<ProfileSection> read_profile(const std::string& path, const std::string& profile, bool config_file);

// The environment variable `name`, empty when unset.
std::string env(const char* name);

// The values of every environment variable the client's settings and credentials are resolved
// from, as one string: a store opened under other values is stale.
std::string settings_environment();

// The profile in use (AWS_PROFILE, else "default"), and its two files' paths.
std::string profile_name(const std::string& explicit_profile);
std::string credentials_file_path();
std::string config_file_path();

// The profile's settings: the config file's section with the credentials file's on top.
Result<ProfileSection> profile_settings(const std::string& profile);

// The chain; kNotFound ("no credentials: ...") when no source is configured.
Result<Credentials> resolve_credentials(const std::string& explicit_profile, const std::string& region);

}  // namespace ckpt::s3
