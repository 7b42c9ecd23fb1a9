/* Fault zoo: a plugin built for a future major version of the ABI. The runner must refuse it. */
#include "convcheck/plugin.h"

static convcheck_api api = {sizeof(convcheck_api), 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
