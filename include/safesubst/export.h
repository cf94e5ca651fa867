// SPDX-License-Identifier: Apache-2.0
// SAFESUBST_API marks what libsafesubst.so exports: the declarations of the
// public headers. The library is compiled with hidden visibility
// (-fvisibility=hidden), so everything else, the internals and the
// yaml-cpp and RE2 code instantiated in it, stays inside the shared library,
// where it can change without breaking a program linked against it.
// tests/install/exported_symbols_test.sh keeps the list of exports to the
// public API (tests/install/exported-symbols.txt).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define SAFESUBST_API __attribute__((visibility("default")))
#else
#define SAFESUBST_API
#endif
