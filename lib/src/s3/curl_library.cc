#include "s3/curl_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "s3/crypto.h"

namespace ckpt::s3 {

namespace {

// The soname Debian's libcurl4 installs; the headers compiled against are that ABI's.
constexpr const char* kSoname = "libcurl.so.4";

template <typename F>
bool bind(void* handle, const char* name, F& slot, std::string& missing) {
  slot = reinterpret_cast<F>(dlsym(handle, name));
  if (!slot && missing.empty()) missing = name;
  return slot != nullptr;
}

Result<const CurlLibrary*> load() {
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return Error(ErrorCode::kIOError,
                 fmt::format("cannot load {} for object-store requests: {}", kSoname, why ? why : "unknown reason"));
  }
  static CurlLibrary lib;
  std::string missing;
  bind(handle, "curl_global_init", lib.global_init, missing);
  bind(handle, "curl_easy_init", lib.easy_init, missing);
  bind(handle, "curl_easy_cleanup", lib.easy_cleanup, missing);
  bind(handle, "curl_easy_reset", lib.easy_reset, missing);
  bind(handle, "curl_easy_setopt", lib.easy_setopt, missing);
  bind(handle, "curl_easy_perform", lib.easy_perform, missing);
  bind(handle, "curl_easy_getinfo", lib.easy_getinfo, missing);
  bind(handle, "curl_easy_strerror", lib.easy_strerror, missing);
  bind(handle, "curl_slist_append", lib.slist_append, missing);
  bind(handle, "curl_slist_free_all", lib.slist_free_all, missing);
  if (!missing.empty()) return Error(ErrorCode::kIOError, fmt::format("{} has no symbol {}", kSoname, missing));
  s3::init_openssl();
  if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return Error(ErrorCode::kIOError, fmt::format("{}: curl_global_init failed", kSoname));
  return &lib;
}

}  // namespace

Result<const CurlLibrary*> curl_library() {
  static std::once_flag once;
  static Result<const CurlLibrary*> loaded = Error(ErrorCode::kIOError, "libcurl not loaded");
  std::call_once(once, [] { loaded = load(); });
  return loaded;
}

}  // namespace ckpt::s3
