/*
 * Constant external forces on chosen particles (a magnet's preload, a
 * weight hung on a bead): a small list sorted by particle id, added to the
 * particles' forces at the end of every contact stage (after the contact
 * sums, in id order: the result does not depend on the thread count).
 *
 * A constant force F is the gradient of the potential -F.x: the energy
 * balance counts it in the potential term (measure.c), and a wrap across a
 * periodic axis books the jump of that potential as boundary work, as for
 * gravity (step.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"
#include "world.h"
#include "external.h"

static bool finite3(tl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* index of id in the sorted list, or where it would go (*found false) */
static size_t find(const tl_world *w, uint32_t id, bool *found) {
    size_t lo = 0, hi = w->ext.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->ext.list[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < w->ext.count && w->ext.list[lo].id == id;
    return lo;
}

tl_status tl_world_set_particle_force(tl_world *w, uint32_t id, tl_vec3 force) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (tl_particles_index(&w->p, id) < 0)
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "external force: no particle with id %u", (unsigned)id);
    if (!finite3(force))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "external force of particle %u must be finite (N)", (unsigned)id);
    bool found;
    size_t k = find(w, id, &found);
    bool zero = force.x == 0.0 && force.y == 0.0 && force.z == 0.0;
    if (zero) {
        if (found) {
            memmove(&w->ext.list[k], &w->ext.list[k + 1], (w->ext.count - k - 1) * sizeof *w->ext.list);
            w->ext.count--;
        }
        return TL_OK;
    }
    if (!found) {
        if (tl_mem_reserve(&w->mem, (void **)&w->ext.list, &w->ext.cap, w->ext.count + 1, sizeof *w->ext.list) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (external forces)");
        memmove(&w->ext.list[k + 1], &w->ext.list[k], (w->ext.count - k) * sizeof *w->ext.list);
        w->ext.count++;
        w->ext.list[k].id = id;
    }
    v3_set(w->ext.list[k].f, force.x, force.y, force.z);
    return TL_OK;
}

tl_vec3 tl_world_particle_external_force(const tl_world *w, uint32_t id) {
    if (!w) return (tl_vec3){0.0, 0.0, 0.0};
    bool found;
    size_t k = find(w, id, &found);
    if (!found) return (tl_vec3){0.0, 0.0, 0.0};
    return (tl_vec3){w->ext.list[k].f[0], w->ext.list[k].f[1], w->ext.list[k].f[2]};
}

const double *tl_external_force_of(const tl_world *w, uint32_t id) {
    if (!w->ext.count) return NULL;
    bool found;
    size_t k = find(w, id, &found);
    return found ? w->ext.list[k].f : NULL;
}

void tl_external_apply(tl_world *w) {
    for (size_t k = 0; k < w->ext.count; k++) {
        int64_t i = tl_particles_index(&w->p, (uint32_t)w->ext.list[k].id);
        if (i < 0 || w->p.inv_mass[i] == 0.0) continue; /* left the domain, or immovable */
        v3_add(w->p.f[i], w->p.f[i], w->ext.list[k].f);
    }
}

double tl_external_potential(const tl_world *w) {
    double e = 0.0;
    for (size_t k = 0; k < w->ext.count; k++) {
        int64_t i = tl_particles_index(&w->p, (uint32_t)w->ext.list[k].id);
        if (i < 0 || w->p.inv_mass[i] == 0.0) continue;
        e -= v3_dot(w->ext.list[k].f, w->p.x[i]);
    }
    return e;
}

static int by_id(const void *a, const void *b) {
    uint64_t x = ((const tl_external *)a)->id, y = ((const tl_external *)b)->id;
    return x < y ? -1 : x > y;
}

/* the entries with a zero force taken out, the rest sorted by id */
static void tidy(tl_world *w) {
    size_t m = 0;
    for (size_t k = 0; k < w->ext.count; k++)
        if (w->ext.list[k].f[0] != 0.0 || w->ext.list[k].f[1] != 0.0 || w->ext.list[k].f[2] != 0.0) w->ext.list[m++] = w->ext.list[k];
    w->ext.count = m;
    if (m > 1) qsort(w->ext.list, m, sizeof *w->ext.list, by_id);
}

tl_status tl_external_set_many(tl_world *w, const uint32_t *ids, size_t n, const double *f) {
    /* room for every new one first: a failure changes nothing */
    size_t fresh = 0;
    bool found;
    for (size_t k = 0; k < n; k++) {
        (void)find(w, ids[k], &found);
        fresh += !found;
    }
    if (fresh && tl_mem_reserve(&w->mem, (void **)&w->ext.list, &w->ext.cap, w->ext.count + fresh, sizeof *w->ext.list) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (external forces)");
    const size_t sorted = w->ext.count; /* the new ones go after the sorted list, then all are sorted */
    for (size_t k = 0; k < n; k++) {
        size_t lo = 0, hi = sorted;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (w->ext.list[mid].id < ids[k]) lo = mid + 1;
            else hi = mid;
        }
        size_t at = lo < sorted && w->ext.list[lo].id == ids[k] ? lo : w->ext.count++;
        w->ext.list[at].id = ids[k];
        v3_set(w->ext.list[at].f, f[3 * k], f[3 * k + 1], f[3 * k + 2]);
    }
    tidy(w);
    return TL_OK;
}

void tl_external_drop(tl_world *w, const uint8_t *keep) {
    for (size_t k = 0; k < w->ext.count; k++) {
        int64_t i = tl_particles_index(&w->p, (uint32_t)w->ext.list[k].id);
        if (i >= 0 && !keep[i]) v3_zero(w->ext.list[k].f);
    }
    tidy(w);
}
