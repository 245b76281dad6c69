/* The world's error message (tl_world_fail, tl_world_error): the bottom of the world's floor,
 * which every module that reports a failure calls. */
#include <stdarg.h>
#include <stdio.h>

#include "world.h"

tl_status tl_world_fail(tl_world *w, tl_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    va_end(ap);
    return status;
}

const char *tl_world_error(const tl_world *w) { return w ? w->error : "no world"; }

