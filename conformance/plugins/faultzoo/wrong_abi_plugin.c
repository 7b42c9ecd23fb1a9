/* Fault zoo: a plugin built for a future major version of the ABI. The runner must refuse it. */
#include "convcheck/plugin.h"

static convcheck_api api = {.struct_size = sizeof(convcheck_api), .abi_major = 99, .abi_minor = 0};

CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
