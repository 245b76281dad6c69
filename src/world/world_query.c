/* Engine hooks for the scene layer; see world_query.h. */
#include "world_query.h"

#include "world.h"

tl_status tl_world_refresh_laws(tl_world *w) {
    if (!w) return TL_ERROR_ARGUMENT;
    return w->prepared ? tl_world_check_laws(w) : TL_OK;
}

void tl_world_mark_run_callback(tl_world *w, bool on) { w->in_run_callback = on; }
