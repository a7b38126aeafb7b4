// s3/curl_library.h - libcurl, loaded when the first request is sent. A run that reads only
// local files never maps libcurl and the thirty libraries it pulls in (TLS, Kerberos, LDAP...):
// they were most of ckpt's start-up, and a `dump --key` is mostly start-up.
#pragma once

#include <curl/curl.h>

#include "ckpt/error.h"

namespace ckpt::s3 {

// The few entry points http.cc calls, by the names curl.h gives them without the `curl_` prefix
// (curl.h defines curl_easy_setopt as a type-checking macro: a member name avoids it).
struct CurlLibrary {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  void (*easy_cleanup)(CURL* curl) = nullptr;
  void (*easy_reset)(CURL* curl) = nullptr;
  CURLcode (*easy_setopt)(CURL* curl, CURLoption option, ...) = nullptr;
  CURLcode (*easy_perform)(CURL* curl) = nullptr;
  CURLcode (*easy_getinfo)(CURL* curl, CURLINFO info, ...) = nullptr;
  const char* (*easy_strerror)(CURLcode code) = nullptr;
  curl_slist* (*slist_append)(curl_slist* list, const char* text) = nullptr;
  void (*slist_free_all)(curl_slist* list) = nullptr;
};

// libcurl.so.4, loaded and globally initialised once per process (thread-safe); never unloaded.
// kIOError naming the library and the loader's message when it cannot be loaded.
Result<const CurlLibrary*> curl_library();

}  // namespace ckpt::s3
