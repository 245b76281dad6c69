/*
 * The state of a world as bytes, for checkpoints: everything a step reads
 * that a world rebuilt from its scene does not already have. Particles (every
 * array, in storage order), the candidate lists with their contact records
 * (every history value), the walls where they are and their last forces,
 * the neighbor-build references, time and step, the energy ledger, the
 * random generator, the collision log. A world created from the same
 * definitions (materials, laws, walls, in the same order) and given these
 * bytes continues bit for bit as the saved one would have: the lists and
 * the storage order are restored as they were, not rebuilt.
 *
 * Layout: a header (magic, format version, the sizes of the structures
 * copied raw, a fingerprint of the world's definitions), then the sections
 * in a fixed order. The bytes are for the same build of Talus on the same
 * kind of machine; the scene-level checkpoint file (run.c) adds a checksum.
 * Every read is bounds-checked and every index validated before anything is
 * replaced, so a truncated or foreign buffer is refused and leaves the world
 * as it was.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "world.h"
#include "stages.h"
#include "measure.h"
#include "checkpoint.h"
#include "blowup.h"

#define MAGIC 0x31534c5553554154ULL /* "TALUSLS1" */
#define FORMAT 14u /* 7: structures field by field (no padding bytes, bools as 0 or 1); 8: the rolling
                    * terms of the energy ledger and of the contact records; 9: a shape contact
                    * record keeps its patch's fn_scale; the fingerprint, a mesh's contact readings;
                    * 10: a shape candidate's domain (its place in the order of the sums); 11: the
                    * twisting terms of the ledger and of the contact records, the twisting slot; the
                    * ledger's curvature work, a shape contact record's curvature torque and couple;
                    * 12: the ledger as a tl_energy (every term of the table, laws/energy_table.c);
                    * 13: the cohesion slot (its terms in the ledger, its force and potential in the
                    * contact records); 14: the ledger's tangential stiffness work, a contact record's
                    * tangential stiffness, displacement and dashpot force (step/tangential_books.h) */

/* what must agree between the saved world and the one that loads it */
static uint64_t fingerprint(const tl_world *w) {
    uint64_t h = TL_FNV_START;
    uint64_t v[8] = {w->cat.nmat, w->cat.nlaws, w->walls.count, w->walls.nfaces, (uint64_t)w->def.integrator,
                     (uint64_t)(w->per.on[0] | w->per.on[1] << 1 | w->per.on[2] << 2),
                     (uint64_t)w->def.has_domain, 0};
    h = tl_fnv1a(v, sizeof v, h);
    for (size_t i = 0; i < w->cat.nlaws; i++) {
        const tl_law *law = &w->cat.laws[i];
        for (int s = 0; s < TL_SLOT_COUNT; s++) {
            const char *name = law->sub[s]->info.name;
            h = tl_fnv1a(name, strlen(name), h);
        }
        h = tl_fnv1a(&law->hist_count, sizeof law->hist_count, h);
    }
    for (int k = 0; k < 3; k++)
        if (w->per.on[k]) h = tl_fnv1a(&w->per.len[k], sizeof w->per.len[k], h);
    /* the shapes: kind, size, mass properties and the contact readings of a mesh */
    for (size_t k = 1; k < w->shapes.count; k++) {
        const tl_shape *s = &w->shapes.of[k];
        double sv[8] = {(double)s->kind,        s->radius,      s->volume,
                        s->inertia[0],          s->inertia[1],  s->inertia[2],
                        (double)s->mesh_radius, (double)s->mesh_depth};
        h = tl_fnv1a(sv, sizeof sv, h);
    }
    return h;
}

/* ---- structures field by field: no padding bytes in the file, bools as 0 or 1
 * (a loaded value other than 0 or 1 fails the read), the same bytes on every
 * build that has 8-byte doubles ---- */

static void put_f64s(tl_wbuf *b, const double *v, int n) {
    for (int i = 0; i < n; i++) tl_wbuf_f64(b, v[i]);
}
static void get_f64s(tl_rbuf *b, double *v, int n) {
    for (int i = 0; i < n; i++) v[i] = tl_rbuf_f64(b);
}
static int get_int(tl_rbuf *b) {
    int64_t v = (int64_t)tl_rbuf_u64(b);
    if (v < INT32_MIN || v > INT32_MAX) b->failed = true;
    return (int)v;
}

static void put_timestep(tl_wbuf *b, const tl_timestep_info *t) {
    double v[5] = {t->dt, t->dt_bound, t->contact_time, t->impact_speed, t->steps_per_contact};
    put_f64s(b, v, 5);
    tl_wbuf_bool(b, t->impact_speed_estimated);
    tl_wbuf_u64(b, (uint64_t)(int64_t)t->material_a);
    tl_wbuf_u64(b, (uint64_t)(int64_t)t->material_b);
    tl_wbuf_bool(b, t->wall);
}
static void get_timestep(tl_rbuf *b, tl_timestep_info *t) {
    memset(t, 0, sizeof *t);
    double v[5];
    get_f64s(b, v, 5);
    t->dt = v[0];
    t->dt_bound = v[1];
    t->contact_time = v[2];
    t->impact_speed = v[3];
    t->steps_per_contact = v[4];
    t->impact_speed_estimated = tl_rbuf_bool(b);
    t->material_a = get_int(b);
    t->material_b = get_int(b);
    t->wall = tl_rbuf_bool(b);
}

static void put_servo(tl_wbuf *b, const tl_servo_def *s) {
    tl_wbuf_bool(b, s->enabled);
    double v[6] = {s->direction.x, s->direction.y, s->direction.z, s->target_force, s->gain, s->max_speed};
    put_f64s(b, v, 6);
}
static void get_servo(tl_rbuf *b, tl_servo_def *s) {
    memset(s, 0, sizeof *s);
    s->enabled = tl_rbuf_bool(b);
    double v[6];
    get_f64s(b, v, 6);
    s->direction = (tl_vec3){v[0], v[1], v[2]};
    s->target_force = v[3];
    s->gain = v[4];
    s->max_speed = v[5];
}

void tl_collision_put(tl_wbuf *b, const tl_collision *c) {
    tl_wbuf_u64(b, c->id_a);
    tl_wbuf_u64(b, c->id_b);
    tl_wbuf_bool(b, c->with_wall);
    double v[7] = {c->t_begin, c->t_end, c->normal_speed_in, c->normal_speed_out, c->restitution,
                   c->max_overlap, c->max_normal_force};
    put_f64s(b, v, 7);
}
void tl_collision_get(tl_rbuf *b, tl_collision *c) {
    memset(c, 0, sizeof *c);
    c->id_a = tl_rbuf_u32(b);
    c->id_b = tl_rbuf_u32(b);
    c->with_wall = tl_rbuf_bool(b);
    double v[7];
    get_f64s(b, v, 7);
    c->t_begin = v[0];
    c->t_end = v[1];
    c->normal_speed_in = v[2];
    c->normal_speed_out = v[3];
    c->restitution = v[4];
    c->max_overlap = v[5];
    c->max_normal_force = v[6];
}

void tl_pending_put(tl_wbuf *b, const tl_pending_exit *e) {
    tl_wbuf_u64(b, e->a);
    tl_wbuf_u64(b, e->b);
    tl_wbuf_bool(b, e->wall);
    double v[8] = {e->n[0], e->n[1], e->n[2], e->t_begin, e->t_end, e->v_in, e->max_delta, e->max_fn};
    put_f64s(b, v, 8);
    tl_wbuf_u64(b, (uint64_t)e->step);
}
void tl_pending_get(tl_rbuf *b, tl_pending_exit *e) {
    memset(e, 0, sizeof *e);
    e->a = tl_rbuf_u32(b);
    e->b = tl_rbuf_u32(b);
    e->wall = tl_rbuf_bool(b);
    double v[8];
    get_f64s(b, v, 8);
    memcpy(e->n, v, sizeof e->n);
    e->t_begin = v[3];
    e->t_end = v[4];
    e->v_in = v[5];
    e->max_delta = v[6];
    e->max_fn = v[7];
    e->step = (int64_t)tl_rbuf_u64(b);
}

/* a wall's motion and its state, field by field */
#define WALL_MOTION_VALUES 47
static void wall_motion_values(const tl_wall *wl, double angle_ref, double reach, double v[WALL_MOTION_VALUES]) {
    const tl_motion_def *m = &wl->motion;
    double head[14] = {(double)m->kind, m->axis.x,  m->axis.y,  m->axis.z,    m->pivot.x,
                       m->pivot.y,      m->pivot.z, m->angular_speed, m->amplitude, m->period,
                       m->phase,        wl->t0,     wl->angle,  angle_ref};
    memcpy(v, head, sizeof head);
    const double *tri[10] = {wl->torque, wl->torque_prev, wl->pivot, wl->pivot0, wl->disp0,
                             wl->omega,  wl->vel_mid,     wl->omega_mid, wl->pivot_mid, wl->vel_base};
    for (int q = 0; q < 10; q++) memcpy(v + 14 + 3 * q, tri[q], 3 * sizeof(double));
    v[44] = reach;
    v[45] = wl->turns ? 1.0 : 0.0;
    v[46] = 0.0;
}

static void write_wall_motion(tl_wbuf *b, const tl_wall *wl, double angle_ref, double reach) {
    double v[WALL_MOTION_VALUES];
    wall_motion_values(wl, angle_ref, reach, v);
    for (int q = 0; q < WALL_MOTION_VALUES; q++) tl_wbuf_f64(b, v[q]);
}

static void read_wall_motion(tl_wall *wl, const double v[WALL_MOTION_VALUES], double *angle_ref, double *reach) {
    tl_motion_def *m = &wl->motion;
    m->kind = (tl_motion_kind)(int)v[0];
    m->axis = (tl_vec3){v[1], v[2], v[3]};
    m->pivot = (tl_vec3){v[4], v[5], v[6]};
    m->angular_speed = v[7];
    m->amplitude = v[8];
    m->period = v[9];
    m->phase = v[10];
    wl->t0 = v[11];
    wl->angle = v[12];
    *angle_ref = v[13];
    double *tri[10] = {wl->torque, wl->torque_prev, wl->pivot, wl->pivot0, wl->disp0,
                       wl->omega,  wl->vel_mid,     wl->omega_mid, wl->pivot_mid, wl->vel_base};
    for (int q = 0; q < 10; q++) memcpy(tri[q], v + 14 + 3 * q, 3 * sizeof(double));
    *reach = v[44];
    wl->turns = v[45] != 0.0;
}

static void write_pairs(tl_wbuf *b, const tl_pairs *l) {
    tl_wbuf_u64(b, l->count);
    tl_wbuf_u64(b, (uint64_t)l->stride);
    tl_wbuf_put(b, l->a, l->count * sizeof *l->a);
    tl_wbuf_put(b, l->b, l->count * sizeof *l->b);
    tl_wbuf_put(b, l->img, l->count * sizeof *l->img);
    tl_wbuf_put(b, l->state, l->count * sizeof *l->state);
    /* the records: live ones as they are; the others hold whatever memory was
     * there (never read) and are written as zeros, so that the bytes depend on
     * the state alone (not on how the steps were split into calls) */
    static const double zeros[64];
    size_t stride = (size_t)l->stride;
    for (size_t k = 0; k < l->count; k++) {
        if (l->state[k] & (TL_PAIR_TOUCH | TL_PAIR_EXIT)) {
            tl_wbuf_put(b, l->rec + k * stride, stride * sizeof *l->rec);
            continue;
        }
        for (size_t done = 0; done < stride; done += 64)
            tl_wbuf_put(b, zeros, (stride - done < 64 ? stride - done : 64) * sizeof *zeros);
    }
}

tl_status tl_world_save_state(const tl_world *w, void **data, size_t *size) {
    if (!w || !data || !size) return TL_ERROR_ARGUMENT;
    *data = NULL;
    *size = 0;
    if (!w->prepared) return TL_ERROR_STATE;
    /* a distributed world: the serial state, put together on rank 0 (collective) */
    if (w->ranks.established && w->ranks.size > 1) return w->ranks.ops->save_state(w, data, size);
    return tl_world_save_serial(w, data, size);
}

tl_status tl_world_save_serial(const tl_world *w, void **data, size_t *size) {
    return tl_world_save_marked(w, data, size, NULL);
}

tl_status tl_world_save_marked(const tl_world *w, void **data, size_t *size, size_t marks[4]) {
    size_t mk[4];
    tl_wbuf b = {0};
    tl_wbuf_u64(&b, MAGIC);
    tl_wbuf_u64(&b, FORMAT);
    uint64_t sizes[7] = {0, TL_COLLISION_BYTES, TL_PENDING_BYTES, sizeof(tl_energy_ledger), sizeof(tl_rng),
                         tl_particles_bytes_each(), 0};
    tl_wbuf_put(&b, sizes, sizeof sizes);
    tl_wbuf_u64(&b, fingerprint(w));
    /* scalars */
    tl_wbuf_f64(&b, w->clock.time);
    tl_wbuf_u64(&b, (uint64_t)w->clock.steps);
    tl_wbuf_f64(&b, w->clock.dt);
    put_timestep(&b, &w->clock.ts);
    tl_wbuf_put(&b, &w->books.ledger, sizeof w->books.ledger);
    tl_wbuf_put(&b, &w->books.next, sizeof w->books.next);
    tl_wbuf_put(&b, &w->rng, sizeof w->rng);
    tl_wbuf_u64(&b, w->next_id);
    tl_wbuf_u64(&b, w->removed);
    tl_wbuf_u64(&b, w->contacts.touching);
    uint64_t flags = (uint64_t)w->broad.dirty | (uint64_t)w->broad.moved << 1 |
                     (uint64_t)w->log.on << 2;
    tl_wbuf_u64(&b, flags);
    tl_wbuf_u64(&b, (uint64_t)w->broad.builds_since_reorder);
    tl_wbuf_u64(&b, (uint64_t)w->broad.nb.builds);
    tl_wbuf_f64(&b, w->broad.nb.skin);
    int64_t lay[4] = {w->contacts.lay.hist, w->contacts.lay.energy, w->contacts.lay.impact, w->contacts.lay.stride};
    tl_wbuf_put(&b, lay, sizeof lay);
    /* particles */
    mk[0] = b.size;
    tl_particles_write(&w->p, &b);
    mk[1] = b.size;
    /* walls: motion, forces, faces where they are, the build reference */
    for (size_t k = 0; k < w->walls.count; k++) {
        const tl_wall *wl = &w->walls.w[k];
        tl_wbuf_put(&b, wl->vel, sizeof wl->vel);
        tl_wbuf_put(&b, wl->disp, sizeof wl->disp);
        tl_wbuf_put(&b, wl->force, sizeof wl->force);
        tl_wbuf_put(&b, wl->force_prev, sizeof wl->force_prev);
        double ref[3] = {0.0, 0.0, 0.0};
        if (k < w->broad.nb.cap_walls) memcpy(ref, w->broad.nb.wall_ref[k], sizeof ref);
        tl_wbuf_put(&b, ref, sizeof ref);
        put_servo(&b, &wl->servo);
        write_wall_motion(&b, wl, k < w->broad.nb.cap_walls ? w->broad.nb.wall_angle_ref[k] : 0.0,
                          k < w->broad.nb.cap_walls ? w->broad.nb.wall_reach[k] : 0.0);
    }
    for (size_t f = 0; f < w->walls.nfaces; f++) {
        const tl_face *fc = &w->walls.f[f];
        const double *g[8] = {fc->p, fc->n, fc->u, fc->v, fc->p0, fc->n0, fc->u0, fc->v0};
        for (int q = 0; q < 8; q++) tl_wbuf_put(&b, g[q], 3 * sizeof(double));
        /* a mesh face's pose */
        tl_wbuf_put(&b, fc->R, sizeof fc->R);
        tl_wbuf_put(&b, fc->T, sizeof fc->T);
        tl_wbuf_put(&b, fc->R0, sizeof fc->R0);
        tl_wbuf_put(&b, fc->T0, sizeof fc->T0);
    }
    /* the candidate lists and their records */
    mk[2] = b.size;
    write_pairs(&b, &w->contacts.pp);
    write_pairs(&b, &w->contacts.pw);
    /* the domains of the contact stage (set at the last build, with the lists) */
    const tl_domains *dm = &w->broad.dom;
    tl_wbuf_u64(&b, dm->count);
    tl_wbuf_u64(&b, dm->ncross);
    if (dm->count) {
        tl_wbuf_put(&b, dm->start, (dm->count + 1) * sizeof *dm->start);
        tl_wbuf_put(&b, dm->pp_start, (dm->count + 1) * sizeof *dm->pp_start);
        tl_wbuf_put(&b, dm->pw_start, (dm->count + 1) * sizeof *dm->pw_start);
        tl_wbuf_put(&b, dm->cross_start, (dm->count + 1) * sizeof *dm->cross_start);
    }
    tl_wbuf_put(&b, dm->cross, dm->ncross * sizeof *dm->cross);
    /* the shape stage: candidates, their live patches' records */
    const tl_shape_contacts *sc = &w->contacts.sc;
    const tl_patch_store *ps = &sc->store[sc->cur];
    tl_wbuf_u64(&b, sc->cand.count);
    tl_wbuf_u64(&b, ps->count);
    tl_wbuf_u64(&b, (uint64_t)sc->stride);
    tl_wbuf_put(&b, sc->cand.a, sc->cand.count * sizeof *sc->cand.a);
    tl_wbuf_put(&b, sc->cand.b, sc->cand.count * sizeof *sc->cand.b);
    tl_wbuf_put(&b, sc->cand.img, sc->cand.count);
    tl_wbuf_put(&b, sc->cand.wall, sc->cand.count);
    tl_wbuf_put(&b, sc->cand.dom, sc->cand.count * sizeof *sc->cand.dom);
    if (sc->cand.count) tl_wbuf_put(&b, sc->live[sc->cur], sc->cand.count);
    tl_wbuf_put(&b, ps->rec, ps->count * (size_t)sc->stride * sizeof *ps->rec);
    tl_wbuf_put(&b, ps->state, ps->count);
    tl_wbuf_u64(&b, sc->touching);
    /* the collision log */
    tl_wbuf_u64(&b, w->log.n);
    for (size_t k = 0; k < w->log.n; k++) tl_collision_put(&b, &w->log.coll[k]);
    tl_wbuf_u64(&b, w->log.npend);
    for (size_t k = 0; k < w->log.npend; k++) tl_pending_put(&b, &w->log.pend[k]);
    mk[3] = b.size;
    /* the constant external forces */
    tl_wbuf_u64(&b, w->ext.count);
    tl_wbuf_put(&b, w->ext.list, w->ext.count * sizeof *w->ext.list);
    tl_wbuf_u64(&b, MAGIC); /* end mark */
    if (b.failed) {
        free(b.data);
        return TL_ERROR_MEMORY;
    }
    *data = b.data;
    *size = b.size;
    if (marks) memcpy(marks, mk, sizeof mk);
    return TL_OK;
}

/* ---- loading: read everything into fresh storage, validate, then swap in ---- */

typedef struct loaded {
    tl_particles p;
    tl_pairs pp, pw;
    tl_shape_contacts sc;
    tl_domains dom;
    tl_collision *coll;
    uint64_t *coll_key; /* zeros: the loaded log comes before anything logged later */
    tl_pending_exit *pend;
    tl_external *ext;
    size_t ncoll, npend, next;
} loaded;

static void loaded_free(tl_world *w, loaded *L) {
    tl_particles_free(&w->mem, &L->p);
    tl_pairs_free(&w->mem, &L->pp);
    tl_pairs_free(&w->mem, &L->pw);
    tl_shape_contacts_free(&w->mem, &L->sc);
    tl_domains_free(&w->mem, &L->dom);
    tl_mem_free(&w->mem, L->coll, L->ncoll * sizeof *L->coll);
    tl_mem_free(&w->mem, L->coll_key, L->ncoll * sizeof *L->coll_key);
    tl_mem_free(&w->mem, L->pend, L->npend * sizeof *L->pend);
    tl_mem_free(&w->mem, L->ext, L->next * sizeof *L->ext);
}

static int read_pairs(tl_world *w, tl_rbuf *b, tl_pairs *l, int stride) {
    uint64_t n = tl_rbuf_u64(b), st = tl_rbuf_u64(b);
    if (b->failed || st != (uint64_t)stride) return -1;
    size_t each = 2 * sizeof(uint32_t) + 2 + (size_t)stride * sizeof(double);
    if (n > (b->size - b->at) / each) return -1;
    tl_pairs_init(l, stride);
    if (tl_pairs_reserve(&w->mem, l, (size_t)n) != 0) return -1;
    l->count = (size_t)n;
    tl_rbuf_get(b, l->a, l->count * sizeof *l->a);
    tl_rbuf_get(b, l->b, l->count * sizeof *l->b);
    tl_rbuf_get(b, l->img, l->count * sizeof *l->img);
    tl_rbuf_get(b, l->state, l->count * sizeof *l->state);
    tl_rbuf_get(b, l->rec, l->count * (size_t)stride * sizeof *l->rec);
    return b->failed ? -1 : 0;
}

/* The shape stage's section into L->sc (store 0); NULL or why not. */
static const char *read_shape_contacts(tl_world *w, tl_rbuf *b, tl_shape_contacts *sc, const tl_rec_layout *lay,
                                       size_t np, size_t nf) {
    uint64_t n = tl_rbuf_u64(b), nrec = tl_rbuf_u64(b), st = tl_rbuf_u64(b);
    if (b->failed) return "truncated (shape contacts)";
    if (st != (uint64_t)(lay->stride + TL_BP_COUNT)) return "inconsistent shape contact records";
    if (n > (b->size - b->at) / 15 || nrec > (b->size - b->at) / (st * sizeof(double) + 1))
        return "truncated (shape contacts)";
    tl_shape_contacts_init(sc);
    sc->stride = (int)st;
    sc->cur = 0;
    if (tl_shape_list_reserve(&w->mem, &sc->cand, (size_t)n) != 0) return "out of memory";
    size_t ncap = (size_t)n + 1;
    sc->first[0] = tl_mem_calloc(&w->mem, ncap, sizeof *sc->first[0]);
    sc->first[1] = tl_mem_calloc(&w->mem, ncap, sizeof *sc->first[1]);
    sc->live[0] = tl_mem_calloc(&w->mem, ncap, sizeof *sc->live[0]);
    sc->live[1] = tl_mem_calloc(&w->mem, ncap, sizeof *sc->live[1]);
    sc->cap_cand = ncap;
    tl_patch_store *ps = &sc->store[0];
    size_t rcap = (size_t)nrec + 1;
    ps->rec = tl_mem_alloc(&w->mem, rcap * (size_t)st * sizeof *ps->rec);
    ps->state = tl_mem_alloc(&w->mem, rcap);
    ps->cap = rcap;
    if (!sc->first[0] || !sc->first[1] || !sc->live[0] || !sc->live[1] || !ps->rec || !ps->state)
        return "out of memory";
    sc->cand.count = (size_t)n;
    ps->count = (size_t)nrec;
    tl_rbuf_get(b, sc->cand.a, sc->cand.count * sizeof *sc->cand.a);
    tl_rbuf_get(b, sc->cand.b, sc->cand.count * sizeof *sc->cand.b);
    tl_rbuf_get(b, sc->cand.img, sc->cand.count);
    tl_rbuf_get(b, sc->cand.wall, sc->cand.count);
    tl_rbuf_get(b, sc->cand.dom, sc->cand.count * sizeof *sc->cand.dom);
    if (n) tl_rbuf_get(b, sc->live[0], sc->cand.count);
    tl_rbuf_get(b, ps->rec, ps->count * (size_t)st * sizeof *ps->rec);
    tl_rbuf_get(b, ps->state, ps->count);
    sc->touching = (size_t)tl_rbuf_u64(b);
    if (b->failed) return "truncated (shape contacts)";
    size_t total = 0;
    for (size_t k = 0; k < sc->cand.count; k++) {
        if (sc->cand.a[k] >= np || sc->cand.wall[k] > 1 || sc->cand.img[k] >= 27 ||
            sc->cand.b[k] >= (sc->cand.wall[k] ? nf : np) || sc->live[0][k] > TL_MAX_PATCHES ||
            (k && sc->cand.wall[k] == sc->cand.wall[k - 1] && sc->cand.dom[k] < sc->cand.dom[k - 1]))
            return "a shape contact names no body";
        sc->first[0][k] = (uint32_t)total;
        total += sc->live[0][k];
    }
    if (total != ps->count || sc->touching != total) return "inconsistent shape contacts";
    return NULL;
}

static tl_status refuse(tl_world *w, const char *why) {
    return tl_world_fail(w, TL_ERROR_ARGUMENT, "checkpoint refused: %s", why);
}

tl_status tl_world_load_state(tl_world *w, const void *data, size_t size) {
    if (!w || !data) return TL_ERROR_ARGUMENT;
    if (w->in_run_callback)
        return tl_world_fail(w, TL_ERROR_STATE,
                             "load state: the world is being run by tl_scene_run; its step callback cannot load "
                             "a state into it");
    tl_status s = tl_world_prepare(w); /* laws checked, layout known */
    if (s != TL_OK) return s;
    tl_rbuf b = {data, size, 0, false};
    if (tl_rbuf_u64(&b) != MAGIC) return refuse(w, "not a Talus world state");
    if (tl_rbuf_u64(&b) != FORMAT) return refuse(w, "written by another format version of Talus");
    uint64_t sizes[7], want[7] = {0, TL_COLLISION_BYTES, TL_PENDING_BYTES, sizeof(tl_energy_ledger),
                                  sizeof(tl_rng), tl_particles_bytes_each(), 0};
    tl_rbuf_get(&b, sizes, sizeof sizes);
    if (b.failed || memcmp(sizes, want, sizeof want) != 0)
        return refuse(w, "written by a different build of Talus (structure sizes differ)");
    if (tl_rbuf_u64(&b) != fingerprint(w))
        return refuse(w, "the world's materials, laws, walls or periodic axes differ from the ones "
                         "it was saved with");
    double time = tl_rbuf_f64(&b);
    int64_t steps = (int64_t)tl_rbuf_u64(&b);
    double dt = tl_rbuf_f64(&b);
    tl_timestep_info ts;
    tl_energy_ledger ledger, ledger_next;
    tl_rng rng;
    get_timestep(&b, &ts);
    tl_rbuf_get(&b, &ledger, sizeof ledger);
    tl_rbuf_get(&b, &ledger_next, sizeof ledger_next);
    tl_rbuf_get(&b, &rng, sizeof rng);
    uint64_t next_id = tl_rbuf_u64(&b), removed = tl_rbuf_u64(&b), touching = tl_rbuf_u64(&b);
    uint64_t flags = tl_rbuf_u64(&b);
    int64_t since_reorder = (int64_t)tl_rbuf_u64(&b), builds = (int64_t)tl_rbuf_u64(&b);
    double skin = tl_rbuf_f64(&b);
    int64_t lay[4];
    tl_rbuf_get(&b, lay, sizeof lay);
    if (b.failed) return refuse(w, "truncated");
    if (!(dt > 0.0) || !isfinite(time) || steps < 0 || !(skin >= 0.0))
        return refuse(w, "inconsistent time, step or skin");
    tl_rec_layout need = tl_world_layout(w);
    if (lay[0] < need.hist || lay[3] < 1 || lay[3] > 1024 || lay[0] < 0 || lay[0] > TL_MAX_HIST ||
        lay[1] < -1 || lay[2] < -1 || lay[1] >= lay[3] || lay[2] >= lay[3])
        return refuse(w, "its contact records do not fit the scene's laws");
    tl_rec_layout layout = tl_rec_layout_make((int)lay[0], lay[1] >= 0, lay[2] >= 0);
    if (layout.stride != lay[3] || layout.energy != lay[1] || layout.impact != lay[2])
        return refuse(w, "inconsistent contact record layout");

    loaded L;
    memset(&L, 0, sizeof L);
    tl_particles_init(&L.p);
    tl_pairs_init(&L.pp, layout.stride);
    tl_pairs_init(&L.pw, layout.stride);
    const char *why = NULL;
    if (tl_particles_read(&w->mem, &L.p, &b) != 0) why = b.failed ? "truncated (particles)" : "out of memory";
    size_t nw = w->walls.count, nf = w->walls.nfaces;
    double (*wall_data)[5][3] = NULL, (*face_p)[16][3] = NULL, (*motion)[WALL_MOTION_VALUES] = NULL;
    tl_servo_def *servo = NULL;
    if (!why && !b.failed) {
        wall_data = tl_mem_alloc(&w->mem, (nw ? nw : 1) * sizeof *wall_data);
        servo = tl_mem_alloc(&w->mem, (nw ? nw : 1) * sizeof *servo);
        motion = tl_mem_alloc(&w->mem, (nw ? nw : 1) * sizeof *motion);
        face_p = tl_mem_alloc(&w->mem, (nf ? nf : 1) * sizeof *face_p);
        if (!wall_data || !face_p || !servo || !motion) why = "out of memory";
        else {
            for (size_t k = 0; k < nw; k++) {
                tl_rbuf_get(&b, wall_data[k], sizeof wall_data[k]);
                get_servo(&b, &servo[k]);
                for (int q = 0; q < WALL_MOTION_VALUES; q++) motion[k][q] = tl_rbuf_f64(&b);
                if (!(motion[k][0] >= 0.0 && motion[k][0] <= (double)TL_MOTION_ROCK)) why = "inconsistent wall motion";
            }
            tl_rbuf_get(&b, face_p, nf * sizeof *face_p);
        }
    }
    if (!why && (b.failed || read_pairs(w, &b, &L.pp, layout.stride) != 0 ||
                 read_pairs(w, &b, &L.pw, layout.stride) != 0))
        why = "truncated (contact lists)";
    if (!why) {
        tl_domains *dm = &L.dom;
        uint64_t nd = tl_rbuf_u64(&b), nc = tl_rbuf_u64(&b);
        if (b.failed || nd > L.p.count || nc > L.pp.count) why = "inconsistent domains";
        else {
            dm->count = (size_t)nd;
            dm->ncross = (size_t)nc;
            dm->cap = dm->count + 1;
            dm->cap_cross = dm->ncross ? dm->ncross : 1;
            dm->start = tl_mem_alloc(&w->mem, dm->cap * sizeof *dm->start);
            dm->pp_start = tl_mem_alloc(&w->mem, dm->cap * sizeof *dm->pp_start);
            dm->pw_start = tl_mem_alloc(&w->mem, dm->cap * sizeof *dm->pw_start);
            dm->cross_start = tl_mem_alloc(&w->mem, dm->cap * sizeof *dm->cross_start);
            dm->cross = tl_mem_alloc(&w->mem, dm->cap_cross * sizeof *dm->cross);
            if (!dm->start || !dm->pp_start || !dm->pw_start || !dm->cross_start || !dm->cross)
                why = "out of memory";
            else if (dm->count) {
                tl_rbuf_get(&b, dm->start, (dm->count + 1) * sizeof *dm->start);
                tl_rbuf_get(&b, dm->pp_start, (dm->count + 1) * sizeof *dm->pp_start);
                tl_rbuf_get(&b, dm->pw_start, (dm->count + 1) * sizeof *dm->pw_start);
                tl_rbuf_get(&b, dm->cross_start, (dm->count + 1) * sizeof *dm->cross_start);
            }
            if (!why) tl_rbuf_get(&b, dm->cross, dm->ncross * sizeof *dm->cross);
            if (!why && b.failed) why = "truncated (domains)";
            /* ranges ascending and within the lists */
            for (size_t d = 0; d < dm->count && !why; d++)
                if (dm->start[d] > dm->start[d + 1] || dm->pp_start[d] > dm->pp_start[d + 1] ||
                    dm->pw_start[d] > dm->pw_start[d + 1] || dm->cross_start[d] > dm->cross_start[d + 1])
                    why = "inconsistent domains";
            if (!why && dm->count &&
                (dm->start[dm->count] != L.p.count || dm->pp_start[dm->count] != L.pp.count ||
                 dm->pw_start[dm->count] != L.pw.count || dm->cross_start[dm->count] != dm->ncross ||
                 dm->start[0] != 0 || dm->pp_start[0] != 0 || dm->pw_start[0] != 0 ||
                 dm->cross_start[0] != 0))
                why = "inconsistent domains";
            for (size_t c = 0; c < dm->ncross && !why; c++)
                if (dm->cross[c] >= L.pp.count || (c && dm->cross[c] <= dm->cross[c - 1]))
                    why = "inconsistent cross candidates";
        }
    }
    if (!why) why = read_shape_contacts(w, &b, &L.sc, &layout, L.p.count, nf);
    if (!why) {
        L.ncoll = (size_t)tl_rbuf_u64(&b);
        if (b.failed || L.ncoll > (b.size - b.at) / TL_COLLISION_BYTES) why = "truncated (collision log)";
        else if (L.ncoll && (!(L.coll = tl_mem_alloc(&w->mem, L.ncoll * sizeof *L.coll)) ||
                             !(L.coll_key = tl_mem_alloc(&w->mem, L.ncoll * sizeof *L.coll_key))))
            why = "out of memory";
        else
            for (size_t k = 0; k < L.ncoll; k++) {
                tl_collision_get(&b, &L.coll[k]);
                L.coll_key[k] = 0;
            }
    }
    if (!why) {
        L.npend = (size_t)tl_rbuf_u64(&b);
        if (b.failed || L.npend > (b.size - b.at) / TL_PENDING_BYTES) why = "truncated (collision log)";
        else if (L.npend && !(L.pend = tl_mem_alloc(&w->mem, L.npend * sizeof *L.pend))) why = "out of memory";
        else
            for (size_t k = 0; k < L.npend; k++) tl_pending_get(&b, &L.pend[k]);
    }
    if (!why && !b.failed) {
        L.next = (size_t)tl_rbuf_u64(&b);
        if (b.failed || L.next > (b.size - b.at) / sizeof(tl_external)) why = "truncated (external forces)";
        else if (L.next && !(L.ext = tl_mem_alloc(&w->mem, L.next * sizeof *L.ext))) why = "out of memory";
        else tl_rbuf_get(&b, L.ext, L.next * sizeof *L.ext);
    }
    if (!why && (tl_rbuf_u64(&b) != MAGIC || b.failed)) why = "truncated (no end mark)";
    if (!why && b.at != b.size) why = "trailing bytes after the end mark";
    /* every index must point where it may */
    if (!why) {
        size_t n = L.p.count;
        for (size_t i = 0; i < n && !why; i++) {
            if (L.p.material[i] < 0 || (size_t)L.p.material[i] >= w->cat.nmat) why = "a particle's material is unknown";
            if (L.p.shape[i] < 0 || (L.p.shape[i] > 0 && (size_t)L.p.shape[i] >= w->shapes.count))
                why = "a particle's shape is unknown";
        }
        for (size_t k = 0; k < L.pp.count && !why; k++)
            if (L.pp.a[k] >= n || L.pp.b[k] >= n || L.pp.img[k] >= 27) why = "a contact names no particle";
        for (size_t k = 0; k < L.pw.count && !why; k++)
            if (L.pw.a[k] >= n || L.pw.b[k] >= nf) why = "a wall contact names no face";
    }
    if (why) {
        loaded_free(w, &L);
        tl_mem_free(&w->mem, wall_data, (nw ? nw : 1) * sizeof *wall_data);
        tl_mem_free(&w->mem, servo, (nw ? nw : 1) * sizeof *servo);
        tl_mem_free(&w->mem, face_p, (nf ? nf : 1) * sizeof *face_p);
        tl_mem_free(&w->mem, motion, (nw ? nw : 1) * sizeof *motion);
        return refuse(w, why);
    }
    /* the neighbor build reference of the walls, and room to keep the particle
     * arrays that views may still read (tl_world_particle_arrays) */
    if (nw > w->broad.nb.cap_walls || w->p.exported) {
        if ((nw > w->broad.nb.cap_walls && tl_neighbors_reserve_walls(&w->mem, &w->broad.nb, nw) != 0) ||
            tl_particles_reserve_replace(&w->mem, &w->p) != 0) {
            loaded_free(w, &L);
            tl_mem_free(&w->mem, wall_data, (nw ? nw : 1) * sizeof *wall_data);
            tl_mem_free(&w->mem, servo, (nw ? nw : 1) * sizeof *servo);
            tl_mem_free(&w->mem, face_p, (nf ? nf : 1) * sizeof *face_p);
        tl_mem_free(&w->mem, motion, (nw ? nw : 1) * sizeof *motion);
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        }
    }

    /* ---- everything read and checked: swap in ---- */
    tl_particles_replace(&w->mem, &w->p, &L.p);
    tl_pairs_free(&w->mem, &w->contacts.pp);
    tl_pairs_free(&w->mem, &w->contacts.pw);
    w->contacts.pp = L.pp;
    w->contacts.pw = L.pw;
    tl_shape_contacts_free(&w->mem, &w->contacts.sc);
    w->contacts.sc = L.sc;
    w->shapes.nbodies = 0;
    for (size_t i = 0; i < w->p.count; i++) w->shapes.nbodies += w->p.shape[i] != 0;
    tl_domains_free(&w->mem, &w->broad.dom);
    w->broad.dom = L.dom;
    tl_mem_free(&w->mem, w->log.coll, w->log.cap * sizeof *w->log.coll);
    w->log.coll = L.coll;
    w->log.n = w->log.cap = L.ncoll;
    tl_mem_free(&w->mem, w->log.key, w->log.cap_key * sizeof *w->log.key);
    w->log.key = L.coll_key;
    w->log.cap_key = L.ncoll;
    tl_mem_free(&w->mem, w->log.pend, w->log.cap_pend * sizeof *w->log.pend);
    w->log.pend = L.pend;
    w->log.npend = w->log.cap_pend = L.npend;
    for (size_t k = 0; k < w->log.npend; k++) w->log.pend[k].list = tl_measure_pending_list(w, &w->log.pend[k]);
    tl_mem_free(&w->mem, w->ext.list, w->ext.cap * sizeof *w->ext.list);
    w->ext.list = L.ext;
    w->ext.count = w->ext.cap = L.next;
    for (size_t k = 0; k < nw; k++) {
        tl_wall *wl = &w->walls.w[k];
        memcpy(wl->vel, wall_data[k][0], sizeof wl->vel);
        memcpy(wl->disp, wall_data[k][1], sizeof wl->disp);
        memcpy(wl->force, wall_data[k][2], sizeof wl->force);
        memcpy(wl->force_prev, wall_data[k][3], sizeof wl->force_prev);
        memcpy(w->broad.nb.wall_ref[k], wall_data[k][4], sizeof w->broad.nb.wall_ref[k]);
        wl->servo = servo[k];
        read_wall_motion(wl, motion[k], &w->broad.nb.wall_angle_ref[k], &w->broad.nb.wall_reach[k]);
    }
    for (size_t f = 0; f < nf; f++) {
        tl_face *fc = &w->walls.f[f];
        double *g[8] = {fc->p, fc->n, fc->u, fc->v, fc->p0, fc->n0, fc->u0, fc->v0};
        for (int q = 0; q < 8; q++) memcpy(g[q], face_p[f][q], 3 * sizeof(double));
        memcpy(fc->R, face_p[f][8], sizeof fc->R);
        memcpy(fc->T, face_p[f][11], sizeof fc->T);
        memcpy(fc->R0, face_p[f][12], sizeof fc->R0);
        memcpy(fc->T0, face_p[f][15], sizeof fc->T0);
    }
    tl_mem_free(&w->mem, wall_data, (nw ? nw : 1) * sizeof *wall_data);
    tl_mem_free(&w->mem, servo, (nw ? nw : 1) * sizeof *servo);
    tl_mem_free(&w->mem, face_p, (nf ? nf : 1) * sizeof *face_p);
    tl_mem_free(&w->mem, motion, (nw ? nw : 1) * sizeof *motion);
    w->clock.time = time;
    w->clock.steps = steps;
    w->clock.dt = dt;
    w->clock.ts = ts;
    w->books.ledger = ledger;
    w->books.next = ledger_next;
    w->rng = rng;
    w->next_id = (uint32_t)next_id;
    w->removed = (size_t)removed;
    w->contacts.touching = (size_t)touching;
    w->broad.dirty = (flags & 1u) != 0;
    w->broad.moved = (flags & 2u) != 0;
    w->broad.far.gap_ready = false; /* the far candidates' gaps: noted again from the loaded x_ref */
    w->broad.far.disp_ok = false;
    w->log.on = (flags & 4u) != 0;
    w->broad.builds_since_reorder = since_reorder;
    w->broad.nb.builds = builds;
    w->broad.nb.skin = skin;
    w->contacts.lay = layout;
    for (int c = 0; c < 27; c++) {
        int sh[3] = {c % 3 - 1, (c / 3) % 3 - 1, c / 9 - 1};
        for (int k = 0; k < 3; k++) w->broad.nb.shift[c][k] = w->per.on[k] ? sh[k] * w->per.len[k] : 0.0;
    }
    w->touch.step = -1;
    /* a distributed world: every rank loaded the whole; each keeps its share (collective) */
    tl_status st = w->ranks.ops ? w->ranks.ops->loaded(w) : TL_OK;
    /* the laws of the loaded particles' materials: a world prepared before its particles were
     * added (a scene whose particles come from elsewhere) has derived none for them yet, and the
     * loaded flags say nothing is new, so no step would */
    if (st == TL_OK) st = tl_world_check_laws(w);
    if (st == TL_OK) st = tl_world_list_immovable(w);
    if (st == TL_OK) tl_blowup_reference(w); /* the blow-up check's energy: from the loaded state */
    return st;
}
