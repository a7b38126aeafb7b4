#include "s3/curl_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include <openssl/crypto.h>

namespace ckpt::s3 {

namespace {

// The soname Debian's libcurl4 installs; the headers compiled against are that ABI's.
constexpr const char* kSoname = "libcurl.so.4";

// OpenSSL (libcurl's TLS, mapped with it) initialised without its exit handler, before
// curl_global_init would register it: OPENSSL_cleanup at exit would run before the process's
// store file system (a static) joins its threads ahead, and the per-thread state of those threads
// would then never be freed. Reached through the loader: libckpt does not link OpenSSL.
void init_openssl_without_exit_handler() {
  void* crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!crypto) return;  // a libcurl built on another TLS library
  if (auto init = reinterpret_cast<decltype(&OPENSSL_init_crypto)>(dlsym(crypto, "OPENSSL_init_crypto")))
    init(OPENSSL_INIT_NO_ATEXIT, nullptr);
  dlclose(crypto);  // libcurl keeps it mapped
}

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
  init_openssl_without_exit_handler();
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
