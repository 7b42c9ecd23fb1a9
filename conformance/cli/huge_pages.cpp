// The runner's large tensors in transparent huge pages. Every case allocates its tensors anew (and poisons dst with
// 0xFF before each call), so a run of large shapes spends much of its time in page faults: 22 % of the samples of
// `convcheck run --backend optimized --suite shapes_resnet_50` in the hypervisor's fault path and 21 % in memset on
// an AMD EPYC Zen 5 VM (bench/results/zen5.md). glibc's malloc puts its large (mmap'ed) blocks in huge pages when
// its tunable glibc.malloc.hugetlb=1 is set (glibc 2.35+; Debian 12 has 2.36): that run took 54 s instead of 76.
// glibc reads its tunables only when a program starts, so convcheck starts itself once more with the tunable added.
// A user who sets glibc.malloc.hugetlb in GLIBC_TUNABLES (to 0, say) keeps that setting; where the exec fails, the
// run goes on without it. Forked children (the plugin calls) inherit the setting; results do not depend on it.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "commands.hpp"

namespace convcheck::cli {

void restart_with_huge_page_malloc(char** argv) {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;  // set: kept
    const std::string value = tunables != nullptr && *tunables != '\0'
                                  ? std::string(tunables) + ":glibc.malloc.hugetlb=1"
                                  : std::string("glibc.malloc.hugetlb=1");
    if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
    execv("/proc/self/exe", argv);
    // the exec failed (no /proc, say): go on as started, with the tunable left in the environment
}

}  // namespace convcheck::cli
