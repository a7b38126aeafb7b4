// ckpt/export.h - which symbols libckpt exports.
//
// The library is compiled with hidden visibility (-fvisibility=hidden): only what its public
// headers mark CKPT_API is visible to programs linking libckpt.so, so internal functions can
// change without breaking them. Inline and template code in the public headers needs no mark.
#pragma once

#if defined(_WIN32)
#define CKPT_API
#else
#define CKPT_API __attribute__((visibility("default")))
#endif
