// How many pages of [data, data + bytes) hold memory, without touching them (mincore: for shared memory, the pages
// the mapping's object has allocated, whichever process touched them); -1 where mincore fails.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace convcheck::testing {

inline long resident_pages(const void* data, std::size_t bytes) {
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = begin / page * page, end = begin + bytes;
    std::vector<unsigned char> resident((end - first + page - 1) / page);
    if (mincore(reinterpret_cast<void*>(first), end - first, resident.data()) != 0) return -1;
    long n = 0;
    for (const unsigned char r : resident) n += r & 1;
    return n;
}

}  // namespace convcheck::testing
