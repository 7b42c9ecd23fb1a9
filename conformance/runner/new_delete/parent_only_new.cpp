// The replacement operator new and delete of the programs that link convcheck_parent_only_new (the convcheck
// command and the pool's test): a block of 2 MiB or more allocated while a case is checked comes from the
// parent-only blocks (parent_only_memory.hpp), everything else from malloc as the standard library's would. Each
// keeps the standard's contract: the new-handler called until memory comes or it throws, std::bad_alloc after,
// nullptr from the nothrow forms. Left out under a sanitizer, whose own operator new checks every access.
#include "convcheck/core/sanitizer_build.hpp"

#if !defined(CONVCHECK_SANITIZER_BUILD)

#include <cstdlib>
#include <new>

#include "convcheck/runner/parent_only_memory.hpp"

namespace {

namespace pool = convcheck::runner::parent_only_memory;

void* allocate(std::size_t bytes, std::size_t alignment) {
    if (void* p = pool::allocate(bytes, alignment)) return p;
    if (bytes == 0) bytes = 1;
    for (;;) {
        void* p = nullptr;
        if (alignment <= alignof(std::max_align_t)) p = std::malloc(bytes);
        else if (posix_memalign(&p, alignment, bytes) != 0) p = nullptr;
        if (p != nullptr) return p;
        const std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) throw std::bad_alloc();
        handler();
    }
}

void* allocate_or_null(std::size_t bytes, std::size_t alignment) noexcept {
    try {
        return allocate(bytes, alignment);
    } catch (...) {
        return nullptr;
    }
}

void release(void* p) noexcept {
    if (p != nullptr && !pool::release(p)) std::free(p);
}

constexpr std::size_t kPlain = alignof(std::max_align_t);

}  // namespace

void* operator new(std::size_t n) { return allocate(n, kPlain); }
void* operator new[](std::size_t n) { return allocate(n, kPlain); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate_or_null(n, kPlain); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate_or_null(n, kPlain); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate_or_null(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate_or_null(n, static_cast<std::size_t>(a));
}

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }

#endif
