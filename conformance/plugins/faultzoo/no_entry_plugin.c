/* Fault zoo: a shared library that is not a convcheck plugin (no convcheck_get_api). */
#include "convcheck/plugin.h"

CONVCHECK_EXPORT int not_the_entry_point(void) { return 42; }
