// CONVCHECK_SANITIZER_BUILD is defined where this translation unit is built under a sanitizer whose allocator
// serves malloc and whose shadow memory adds to every allocation (ASan, TSan, MSan). g++ says so by
// __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang-14 (the sanitizer build's compiler) only by __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CONVCHECK_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CONVCHECK_SANITIZER_BUILD 1
#endif
#endif
