/* What the engine's tests set and read inside a world (world_probe.h). */
#include "world_probe.h"

#include "world.h"

void tl_probe_set_knobs(tl_world *w, const tl_debug_knobs *k) { w->knobs = *k; }

void tl_probe_set_domain_size(tl_world *w, size_t n) { w->broad.nb.domain_size = n; }

void tl_probe_set_all_to_shapes(tl_world *w, bool on) { w->broad.nb.all_to_shapes = on; }

void tl_probe_fail_alloc_in(tl_world *w, int64_t k) { w->mem.fail_in = k; }

void tl_probe_read(const tl_world *w, tl_probe *out) {
    out->lanes_on = w->scratch.lanes_on;
    out->lanes_width_on = w->scratch.lanes_width_on;
    out->far_skipped = w->broad.far.skipped;
    out->arrived = w->ranks.arrived;
    out->domains = w->broad.dom.count;
    out->cross = w->broad.dom.ncross;
    out->log_on = w->log.on;
    out->log_pending = w->log.npend;
}

const tl_law *tl_probe_law(const tl_world *w, int a, int b) {
    if (a < 0 || b < 0 || (size_t)a >= w->cat.law_dim || (size_t)b >= w->cat.law_dim) return NULL;
    int32_t k = w->cat.law_of[(size_t)a * w->cat.law_dim + (size_t)b];
    return k < 0 ? NULL : &w->cat.laws[k];
}

tl_probe_parts tl_probe_parts_of(tl_world *w) {
    tl_probe_parts t = {&w->mem, &w->p, &w->walls, &w->per, &w->contacts.pp, &w->contacts.pw, &w->broad.nb,
                        &w->broad.dom};
    return t;
}
