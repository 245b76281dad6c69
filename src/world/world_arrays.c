/* The particle store read in place (tl_world_particle_arrays): pointers into
 * the structure of arrays, and the generation that tells views when to
 * refresh. The store keeps the blocks it replaces while views are out
 * (particles.c). */
#include "world.h"

tl_status tl_world_particle_arrays(tl_world *w, tl_particle_arrays *o) {
    if (!w || !o) return TL_ERROR_ARGUMENT;
    tl_particles *p = &w->p;
    p->exported = true;
    o->count = p->count;
    o->generation = p->generation;
    o->id = p->id;
    o->material = p->material;
    o->shape = p->shape;
    o->flags = p->flags;
    o->radius = p->radius;
    o->mass = p->mass;
    o->position = p->x ? &p->x[0][0] : NULL;
    o->velocity = p->v ? &p->v[0][0] : NULL;
    o->angular_velocity = p->w ? &p->w[0][0] : NULL;
    o->force = p->f ? &p->f[0][0] : NULL;
    o->torque = p->t ? &p->t[0][0] : NULL;
    o->orientation = p->q ? &p->q[0][0] : NULL;
    return TL_OK;
}

void tl_world_release_particle_arrays(tl_world *w, uint64_t generation) {
    if (w) tl_particles_release(&w->mem, &w->p, generation);
}
