/* Preloaded into the children the tests spawn in AddressSanitizer builds: dlclose does
 * nothing, so that a GL driver Mesa unloads when the last EGL display goes (at the
 * program's end) is still there when LeakSanitizer looks. Its small blocks are then no
 * leak, and a leak LeakSanitizer reports is one of the program's own, with its stack. */
#include <dlfcn.h>

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
