/*
 * The world's public face (talus.h): creation and destruction, materials and laws, particles
 * and walls, and the queries of their state. The data is world.h's; the time step is step/.
 */
#include "fused.h"
#include "parallel.h"
#include "world.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rigid.h"
#include "shape.h"
#include "vec.h"

/* ---- defaults ---- */

const char *tl_version(void) { return TL_VERSION_STRING; }

const char *tl_status_name(tl_status s) {
    switch (s) {
    case TL_OK: return "ok";
    case TL_ERROR_ARGUMENT: return "invalid argument";
    case TL_ERROR_NOT_FOUND: return "not found";
    case TL_ERROR_MEMORY: return "out of memory";
    case TL_ERROR_IO: return "input/output error";
    case TL_ERROR_SCENE: return "invalid scene";
    case TL_ERROR_UNRESOLVED: return "time step does not resolve the contacts";
    case TL_ERROR_STATE: return "not allowed now";
    case TL_INTERRUPTED: return "interrupted";
    case TL_ERROR_BLOWUP: return "blow-up";
    }
    return "unknown status";
}

tl_world_def tl_world_default(void) {
    tl_world_def d;
    memset(&d, 0, sizeof d);
    d.steps_per_contact = 20.0;
    d.integrator = TL_INTEGRATOR_VERLET;
    d.contact_boundary_correction = true;
    d.seed = 1;
    d.track_energy = true;
    d.track_orientation = true;
    d.threads = 1;
    d.blowup_every = 10;
    d.blowup_overlap = 1.0;
    d.blowup_energy = 100.0;
    return d;
}

tl_material_def tl_material_default(void) {
    tl_material_def d;
    memset(&d, 0, sizeof d);
    d.poisson_ratio = 0.3;
    return d;
}

tl_law_def tl_law_default(void) {
    tl_law_def d;
    memset(&d, 0, sizeof d);
    d.normal = "hertz";
    d.damping = "tsuji";
    d.tangential = "mindlin";
    d.history = "true";
    d.clamp_tensile = false;
    d.coulomb_test = TL_COULOMB_TOTAL;
    d.contact_point = TL_CONTACT_POINT_COMPLIANCE;
    d.entry_displacement = TL_ENTRY_IN_CONTACT;
    return d;
}

tl_status tl_law_set(tl_law_def *law, const char *name, double value) {
    if (!law || !name) return TL_ERROR_ARGUMENT;
    for (int i = 0; i < law->coeff_count; i++) {
        if (strcmp(law->coeffs[i].name, name) == 0) {
            law->coeffs[i].value = value;
            return TL_OK;
        }
    }
    if (law->coeff_count >= TL_LAW_MAX_COEFFS) return TL_ERROR_ARGUMENT;
    law->coeffs[law->coeff_count].name = name;
    law->coeffs[law->coeff_count].value = value;
    law->coeff_count++;
    return TL_OK;
}

tl_particle_def tl_particle_default(void) {
    tl_particle_def d;
    memset(&d, 0, sizeof d);
    d.material = 0;
    d.shape = TL_SHAPE_SPHERE;
    d.orientation.w = 1.0;
    return d;
}

tl_wall_def tl_wall_default(void) {
    tl_wall_def d;
    memset(&d, 0, sizeof d);
    d.kind = TL_WALL_PLANE;
    d.normal.z = 1.0;
    d.axis.x = 1.0;
    return d;
}

size_t tl_world_bytes(const tl_world *w) { return w->mem.bytes; }

/* ---- creation ---- */

static bool finite3(tl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

tl_status tl_world_create(const tl_world_def *def, tl_world **out) {
    if (!def || !out) return TL_ERROR_ARGUMENT;
    *out = NULL;
    tl_mem mem;
    tl_mem_init(&mem, &def->allocator);
    tl_world *w = tl_mem_calloc(&mem, 1, sizeof *w);
    if (!w) return TL_ERROR_MEMORY;
    w->mem = mem; /* the block of the world itself is already counted */
    w->def = *def;
    tl_particles_init(&w->p);
    tl_walls_init(&w->walls);
    tl_pairs_init(&w->contacts.pp, 0);
    tl_pairs_init(&w->contacts.pw, 0);
    tl_stash_init(&w->contacts.stash);
    tl_shape_contacts_init(&w->contacts.sc);
    w->contacts.lay = tl_rec_layout_make(0, false, false);
    w->contacts.sc.stride = w->contacts.lay.stride + TL_BP_COUNT;
    tl_neighbors_init(&w->broad.nb, def->skin);
    if (def->domain_size) w->broad.nb.domain_size = def->domain_size;
    for (int k = 0; k < 3; k++) {
        w->per.on[k] = def->has_domain && def->periodic[k];
        double lo = k == 0 ? def->domain_min.x : k == 1 ? def->domain_min.y : def->domain_min.z;
        double hi = k == 0 ? def->domain_max.x : k == 1 ? def->domain_max.y : def->domain_max.z;
        w->per.lo[k] = lo;
        w->per.len[k] = hi - lo;
    }
    w->nthreads = tl_world_thread_count(def->threads);
    tl_rng_seed(&w->rng, def->seed);
    w->next_id = 1;
    w->touch.step = -1;
    *out = w;
    /* validate after creation so that the message is retrievable */
    tl_status s = TL_OK;
    if (!finite3(def->gravity))
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "gravity must be finite (m/s2)");
    else if (!(def->dt >= 0.0) || !isfinite(def->dt))
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "dt must be >= 0 s (0 = automatic), got %g", def->dt);
    else if (!(def->steps_per_contact >= 1.0) || !isfinite(def->steps_per_contact))
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "steps_per_contact must be >= 1, got %g",
                          def->steps_per_contact);
    else if (!(def->impact_speed >= 0.0) || !isfinite(def->impact_speed))
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "impact_speed must be >= 0 m/s, got %g",
                          def->impact_speed);
    else if (!(def->skin >= 0.0) || !isfinite(def->skin))
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "skin must be >= 0 m (0 = automatic), got %g",
                          def->skin);
    else if (def->integrator != TL_INTEGRATOR_VERLET && def->integrator != TL_INTEGRATOR_LEAPFROG &&
             def->integrator != TL_INTEGRATOR_PREDICTOR_CORRECTOR)
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "unknown integrator %d", (int)def->integrator);
    else if (def->has_domain &&
             (!finite3(def->domain_min) || !finite3(def->domain_max) ||
              !(def->domain_max.x > def->domain_min.x) || !(def->domain_max.y > def->domain_min.y) ||
              !(def->domain_max.z > def->domain_min.z)))
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "the domain needs min < max in every axis (m)");
    else if ((def->periodic[0] || def->periodic[1] || def->periodic[2]) && !def->has_domain)
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "periodic axes need a domain (its extent is the period)");
    else if (def->threads < 0)
        s = tl_world_fail(w, TL_ERROR_ARGUMENT, "threads must be >= 0 (0 = all available), got %d",
                          def->threads);
    if (def->integrator == TL_INTEGRATOR_LEAPFROG) {
        w->clock.c_pred[0] = 0.5;
        w->clock.c_pred[1] = 0.0;
    } else if (def->integrator == TL_INTEGRATOR_PREDICTOR_CORRECTOR) {
        /* set by each stage of the step (step.c); these are the committing stage's */
        w->clock.c_pred[0] = 0.5;
        w->clock.c_pred[1] = 0.5;
    } else {
        w->clock.c_pred[0] = 1.5;
        w->clock.c_pred[1] = -0.5;
    }
    return s;
}

/* The contact stage's working arrays the world holds between steps (step/contact_forces.c
 * fills them; they mean nothing from one step to the next): freed with the world. */
static void scratch_free(tl_world *w) {
    tl_mem_free(&w->mem, w->scratch.out, w->scratch.cap_out * sizeof *w->scratch.out);
    tl_mem_free(&w->mem, w->scratch.out_m, w->scratch.cap_out_m * sizeof *w->scratch.out_m);
    tl_mem_free(&w->mem, w->scratch.out_pair, w->scratch.cap_out_pair * sizeof *w->scratch.out_pair);
    w->scratch.out_pair = NULL;
    tl_mem_free(&w->mem, w->broad.far.gap, w->broad.far.cap_gap * sizeof *w->broad.far.gap);
    w->broad.far.gap = NULL;
    w->broad.far.cap_gap = 0;
    w->broad.far.gap_ready = false;
    tl_mem_free(&w->mem, w->broad.far.disp_blk, w->broad.far.cap_disp_blk * sizeof *w->broad.far.disp_blk);
    w->broad.far.disp_blk = NULL;
    w->broad.far.cap_disp_blk = 0;
    w->broad.far.disp_ok = false;
    tl_mem_free(&w->mem, w->scratch.drift, w->scratch.cap_drift * sizeof *w->scratch.drift);
    w->scratch.drift = NULL;
    w->scratch.cap_drift = 0;
    tl_mem_free(&w->mem, w->scratch.blocks, w->scratch.cap_blocks * sizeof *w->scratch.blocks);
    tl_mem_free(&w->mem, w->scratch.wall_part, w->scratch.cap_wall_part * sizeof *w->scratch.wall_part);
    tl_mem_free(&w->mem, w->scratch.wall_tpart, w->scratch.cap_wall_tpart * sizeof *w->scratch.wall_tpart);
    w->scratch.out = NULL;
    w->scratch.out_m = NULL;
    w->scratch.blocks = NULL;
    w->scratch.wall_part = NULL;
    w->scratch.wall_tpart = NULL;
    w->scratch.cap_out = w->scratch.cap_out_m = w->scratch.cap_out_pair = w->scratch.cap_blocks = w->scratch.cap_wall_part = w->scratch.cap_wall_tpart = 0;
}

void tl_world_destroy(tl_world *w) {
    if (!w) return;
    tl_mem *m = &w->mem;
    for (size_t i = 0; i < w->cat.nmat; i++) tl_mem_strfree(m, w->cat.mat[i].name);
    tl_mem_free(m, w->cat.mat, w->cat.capmat * sizeof *w->cat.mat);
    tl_mem_free(m, w->cat.laws, w->cat.caplaws * sizeof *w->cat.laws);
    tl_mem_free(m, w->cat.law_of, w->cat.law_dim * w->cat.law_dim * sizeof *w->cat.law_of);
    tl_mem_free(m, w->cat.pair, w->cat.law_dim * w->cat.law_dim * sizeof *w->cat.pair);
    tl_particles_free(m, &w->p);
    tl_world_shapes_free(w);
    tl_walls_free(m, &w->walls);
    tl_neighbors_free(m, &w->broad.nb);
    tl_pairs_free(m, &w->contacts.pp);
    tl_pairs_free(m, &w->contacts.pw);
    tl_stash_free(m, &w->contacts.stash);
    tl_shape_contacts_free(m, &w->contacts.sc);
    scratch_free(w);
    if (w->ranks.ops) w->ranks.ops->free(w);
    tl_mem_free(m, w->pc.rec, w->pc.cap_rec * sizeof *w->pc.rec);
    tl_mem_free(m, w->ext.list, w->ext.cap * sizeof *w->ext.list);
    tl_mem_free(m, w->pc.state, w->pc.cap_state * sizeof *w->pc.state);
    tl_domains_free(m, &w->broad.dom);
    tl_mem_free(m, w->immovable.idx, w->immovable.cap * sizeof *w->immovable.idx);
    tl_mem_free(m, w->log.coll, w->log.cap * sizeof *w->log.coll);
    tl_mem_free(m, w->log.key, w->log.cap_key * sizeof *w->log.key);
    tl_mem_free(m, w->log.pend, w->log.cap_pend * sizeof *w->log.pend);
    tl_mem_free(m, w->touch.ref, w->touch.cap * sizeof *w->touch.ref);
    tl_mem_free(m, w->touch.cand, w->touch.cap_cand * sizeof *w->touch.cand);
    tl_mem mem = w->mem;
    tl_mem_free(&mem, w, sizeof *w);
}

/* ---- materials ---- */

tl_status tl_world_add_material(tl_world *w, const tl_material_def *d, int *out_index) {
    if (!w || !d) return TL_ERROR_ARGUMENT;
    if (!d->name || !d->name[0])
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "a material needs a name");
    for (size_t i = 0; i < w->cat.nmat; i++)
        if (strcmp(w->cat.mat[i].name, d->name) == 0)
            return tl_world_fail(w, TL_ERROR_ARGUMENT, "material '%s' is defined twice", d->name);
    const char *n = d->name;
    if (!(d->density >= 0.0) || !isfinite(d->density))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "material '%s': density must be > 0 kg/m3 (0 only for wall materials), got %g",
                             n, d->density);
    if (!(d->youngs_modulus >= 0.0) || !isfinite(d->youngs_modulus))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "material '%s': youngs_modulus must be > 0 Pa, got %g", n,
                             d->youngs_modulus);
    if (!(d->poisson_ratio > -1.0 && d->poisson_ratio < 0.5))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "material '%s': poisson_ratio must be in -1 < nu < 0.5, got %g", n,
                             d->poisson_ratio);
    if (!(d->k_n >= 0.0) || !isfinite(d->k_n) || !(d->k_t >= 0.0) || !isfinite(d->k_t))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "material '%s': k_n and k_t must be > 0 N/m", n);
    if (!(d->yield_stress >= 0.0) || !isfinite(d->yield_stress))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "material '%s': yield_stress must be > 0 Pa", n);
    if (tl_mem_reserve(&w->mem, (void **)&w->cat.mat, &w->cat.capmat, w->cat.nmat + 1, sizeof *w->cat.mat) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    /* grow the law tables to the new material count */
    size_t dim = w->cat.nmat + 1;
    if (dim > w->cat.law_dim) {
        size_t nd = w->cat.law_dim ? 2 * w->cat.law_dim : 4;
        int32_t *lo = tl_mem_alloc(&w->mem, nd * nd * sizeof *lo);
        tl_pair_law *pl = tl_mem_calloc(&w->mem, nd * nd, sizeof *pl);
        if (!lo || !pl) {
            tl_mem_free(&w->mem, lo, nd * nd * sizeof *lo);
            tl_mem_free(&w->mem, pl, nd * nd * sizeof *pl);
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        }
        for (size_t i = 0; i < nd * nd; i++) {
            lo[i] = -1;
            pl[i].law = -1; /* not prepared */
        }
        for (size_t a = 0; a < w->cat.law_dim; a++)
            for (size_t b = 0; b < w->cat.law_dim; b++) {
                lo[a * nd + b] = w->cat.law_of[a * w->cat.law_dim + b];
                pl[a * nd + b] = w->cat.pair[a * w->cat.law_dim + b];
            }
        tl_mem_free(&w->mem, w->cat.law_of, w->cat.law_dim * w->cat.law_dim * sizeof *w->cat.law_of);
        tl_mem_free(&w->mem, w->cat.pair, w->cat.law_dim * w->cat.law_dim * sizeof *w->cat.pair);
        w->cat.law_of = lo;
        w->cat.pair = pl;
        w->cat.law_dim = nd;
    }
    tl_material *m = &w->cat.mat[w->cat.nmat];
    memset(m, 0, sizeof *m);
    m->name = tl_mem_strdup(&w->mem, d->name);
    if (!m->name) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    m->density = d->density;
    m->youngs_modulus = d->youngs_modulus;
    m->poisson_ratio = d->poisson_ratio;
    m->shear_modulus = d->youngs_modulus > 0.0 ? d->youngs_modulus / (2.0 * (1.0 + d->poisson_ratio)) : 0.0;
    m->k_n = d->k_n;
    m->k_t = d->k_t;
    m->yield_stress = d->yield_stress;
    if (out_index) *out_index = (int)w->cat.nmat;
    w->cat.nmat++;
    return TL_OK;
}

int tl_world_material_count(const tl_world *w) { return (int)w->cat.nmat; }

const char *tl_world_material_name(const tl_world *w, int i) {
    return (i >= 0 && (size_t)i < w->cat.nmat) ? w->cat.mat[i].name : NULL;
}

tl_status tl_world_find_material(const tl_world *w, const char *name, int *out) {
    for (size_t i = 0; i < w->cat.nmat; i++)
        if (strcmp(w->cat.mat[i].name, name) == 0) {
            if (out) *out = (int)i;
            return TL_OK;
        }
    return TL_ERROR_NOT_FOUND;
}

static bool valid_material(const tl_world *w, int m) { return m >= 0 && (size_t)m < w->cat.nmat; }

/* ---- laws ---- */

static double overlap_split(const tl_material *a, const tl_material *b) {
    double ca = 0.0, cb = 0.0;
    if (a->youngs_modulus > 0.0 && b->youngs_modulus > 0.0) {
        ca = (1.0 - a->poisson_ratio * a->poisson_ratio) / a->youngs_modulus;
        cb = (1.0 - b->poisson_ratio * b->poisson_ratio) / b->youngs_modulus;
    } else if (a->k_n > 0.0 && b->k_n > 0.0) {
        ca = 1.0 / a->k_n;
        cb = 1.0 / b->k_n;
    }
    return ca + cb > 0.0 ? ca / (ca + cb) : 0.5;
}

static tl_status prepare_pair(tl_world *w, int a, int b) {
    int32_t li = w->cat.law_of[(size_t)a * w->cat.law_dim + (size_t)b];
    tl_pair_law *pl = &w->cat.pair[(size_t)a * w->cat.law_dim + (size_t)b];
    pl->law = li;
    if (li < 0) return TL_OK;
    char msg[512];
    tl_status s = tl_law_prepare(&w->cat.laws[li], &w->cat.mat[a], &w->cat.mat[b], pl, msg, sizeof msg);
    if (s != TL_OK)
        return tl_world_fail(w, s, "law between '%s' and '%s': %s", w->cat.mat[a].name, w->cat.mat[b].name,
                             msg);
    tl_fused_prepare(&w->cat.laws[li], pl);
    if (w->cat.laws[li].contact_point == TL_CONTACT_POINT_SURFACE) {
        pl->split = 0.0;
        pl->split_b = 0.0;
    } else {
        pl->split = overlap_split(&w->cat.mat[a], &w->cat.mat[b]);
        pl->split_b = 1.0 - pl->split;
    }
    return TL_OK;
}

/* One record's law history, from the old composition's offsets to the new
 * one's: a slot whose sub-model stays keeps its values; the others start from
 * zero, as in a contact that has just opened. */
static void remap_record(double *rec, int hist, const tl_law *old, const tl_law *nw) {
    double tmp[TL_MAX_HIST];
    memset(tmp, 0, sizeof tmp);
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        if (old->sub[s] != nw->sub[s]) continue;
        int n = nw->sub[s]->info.history_count;
        memcpy(tmp + nw->hist_offset[s], rec + old->hist_offset[s], (size_t)n * sizeof *tmp);
    }
    memcpy(rec, tmp, (size_t)hist * sizeof *rec);
}

static int32_t law_index(const tl_world *w, int ma, int mb) {
    return w->cat.law_of[(size_t)ma * w->cat.law_dim + (size_t)mb];
}

static int face_material(const tl_world *w, uint32_t face) {
    return w->walls.w[w->walls.f[face].wall].material;
}

/* The touching contacts under law idx, after its composition changed. */
static void remap_history(tl_world *w, int32_t idx, const tl_law *old, const tl_law *nw) {
    const int hist = w->contacts.lay.hist;
    for (int wall = 0; wall < 2; wall++) {
        tl_pairs *l = wall ? &w->contacts.pw : &w->contacts.pp;
        for (size_t k = 0; k < l->count; k++) {
            if (!(l->state[k] & TL_PAIR_TOUCH)) continue;
            int mb = wall ? face_material(w, l->b[k]) : w->p.material[l->b[k]];
            if (law_index(w, w->p.material[l->a[k]], mb) != idx) continue;
            remap_record(tl_pair_record(l, k), hist, old, nw);
        }
    }
    tl_shape_contacts *sc = &w->contacts.sc;
    const tl_patch_store *st = &sc->store[sc->cur];
    for (size_t k = 0; k < sc->cand.count && sc->live[sc->cur]; k++) {
        uint8_t n = sc->live[sc->cur][k];
        if (!n) continue;
        const tl_shape_list *c = &sc->cand;
        int mb = c->wall[k] ? face_material(w, c->b[k]) : w->p.material[c->b[k]];
        if (law_index(w, w->p.material[c->a[k]], mb) != idx) continue;
        for (uint32_t r = sc->first[sc->cur][k]; r < sc->first[sc->cur][k] + n; r++)
            remap_record(st->rec + (size_t)r * (size_t)sc->stride, hist, old, nw);
    }
}

tl_status tl_world_set_law(tl_world *w, int a, int b, const tl_law_def *def) {
    if (!w || !def) return TL_ERROR_ARGUMENT;
    if (!valid_material(w, a) || !valid_material(w, b))
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "set_law: unknown material index %d or %d", a, b);
    tl_law law;
    char msg[768];
    tl_status s = tl_law_assemble(def, &law, msg, sizeof msg);
    if (s != TL_OK)
        return tl_world_fail(w, s, "law between '%s' and '%s': %s", w->cat.mat[a].name, w->cat.mat[b].name,
                             msg);
    tl_fused_attach(&law);
    if (law.hist_count > TL_MAX_HIST)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "law history of %d values exceeds %d",
                             law.hist_count, TL_MAX_HIST);
    int32_t idx = w->cat.law_of[(size_t)a * w->cat.law_dim + (size_t)b];
    const bool existed = idx >= 0;
    tl_law old;
    if (existed) old = w->cat.laws[idx];
    if (idx < 0) {
        if (tl_mem_reserve(&w->mem, (void **)&w->cat.laws, &w->cat.caplaws, w->cat.nlaws + 1, sizeof *w->cat.laws) != 0)
            return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
        idx = (int32_t)w->cat.nlaws++;
    }
    w->cat.laws[idx] = law;
    w->cat.law_of[(size_t)a * w->cat.law_dim + (size_t)b] = idx;
    w->cat.law_of[(size_t)b * w->cat.law_dim + (size_t)a] = idx;
    if (!w->prepared) return TL_OK;
    /* a prepared world: the records of the touching contacts under this law are laid
     * out for the old composition. Room for the new history first, then each slot's
     * values moved to its new offset (a new sub-model's history starts at zero). */
    bool recomposed = false;
    for (int k = 0; existed && k < TL_SLOT_COUNT; k++)
        if (old.sub[k] != law.sub[k] || old.hist_offset[k] != law.hist_offset[k]) recomposed = true;
    if (recomposed) {
        s = tl_world_update_layout(w);
        if (s != TL_OK) return s;
        remap_history(w, idx, &old, &law);
    }
    return tl_world_check_laws(w); /* re-derive the pair constants in use */
}

bool tl_world_has_law(const tl_world *w, int a, int b) {
    return valid_material(w, a) && valid_material(w, b) && w->cat.law_of[(size_t)a * w->cat.law_dim + (size_t)b] >= 0;
}

tl_status tl_world_get_law(const tl_world *w, int a, int b, tl_law_def *out) {
    if (!tl_world_has_law(w, a, b)) return TL_ERROR_NOT_FOUND;
    const tl_law *law = &w->cat.laws[w->cat.law_of[(size_t)a * w->cat.law_dim + (size_t)b]];
    memset(out, 0, sizeof *out);
    for (int s = 0; s < TL_SLOT_COUNT; s++) *tl_law_def_slot(out, s) = law->sub[s]->info.name;
    out->clamp_tensile = law->clamp_tensile;
    out->coulomb_test = law->coulomb_test;
    out->contact_point = law->contact_point;
    out->entry_displacement = law->entry_displacement;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_submodel *m = law->sub[s];
        for (int i = 0; i < m->info.coeff_count && out->coeff_count < TL_LAW_MAX_COEFFS; i++) {
            bool seen = false;
            for (int k = 0; k < out->coeff_count; k++)
                if (strcmp(out->coeffs[k].name, m->info.coeffs[i].name) == 0) seen = true;
            if (seen) continue;
            out->coeffs[out->coeff_count].name = m->info.coeffs[i].name;
            out->coeffs[out->coeff_count].value = law->coeff[s][i];
            out->coeff_count++;
        }
    }
    return TL_OK;
}

/* ---- particles ---- */

tl_status tl_world_add_particle(tl_world *w, const tl_particle_def *d, uint32_t *out_id) {
    return tl_world_add_particle_as(w, d, false, out_id);
}

/* Every check of tl_world_add_particle, before anything changes; *out_mass
 * the mass it gets. */
static tl_status particle_checks(tl_world *w, const tl_particle_def *d, double *out_mass) {
    if (!valid_material(w, d->material))
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "particle: unknown material index %d", d->material);
    const tl_material *m = &w->cat.mat[d->material];
    const tl_shape *shape = NULL;
    if (d->shape != TL_SPHERE) {
        if (d->shape < 0 || (size_t)d->shape >= w->shapes.count)
            return tl_world_fail(w, TL_ERROR_NOT_FOUND, "particle: unknown shape index %d", d->shape);
        shape = &w->shapes.of[d->shape];
    } else if (!(d->radius >= TL_MIN_RADIUS) || !(d->radius <= TL_MAX_COORDINATE)) {
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "particle: radius must be from %g to %g m (the limits on radii), got %g",
                             TL_MIN_RADIUS, TL_MAX_COORDINATE, d->radius);
    }
    if (!finite3(d->position) || !finite3(d->velocity) || !finite3(d->angular_velocity))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "particle: position and velocities must be finite");
    if (!isfinite(d->orientation.w) || !isfinite(d->orientation.x) || !isfinite(d->orientation.y) ||
        !isfinite(d->orientation.z))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "particle: orientation must be a quaternion [w, x, y, z] of finite numbers "
                             "(all zero = no rotation), got [%g, %g, %g, %g]", d->orientation.w,
                             d->orientation.x, d->orientation.y, d->orientation.z);
    if (!(fabs(d->position.x) <= TL_MAX_COORDINATE) || !(fabs(d->position.y) <= TL_MAX_COORDINATE) ||
        !(fabs(d->position.z) <= TL_MAX_COORDINATE))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "particle: position (%g, %g, %g) m lies beyond +-%g m (the limit on "
                             "coordinates)", d->position.x, d->position.y, d->position.z,
                             TL_MAX_COORDINATE);
    if (!(d->mass >= 0.0) || !isfinite(d->mass))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "particle: mass must be > 0 kg (0 = from density)");
    double volume = shape ? shape->volume : tl_sphere_volume(d->radius);
    double mass = d->mass > 0.0 ? d->mass : m->density * volume;
    if (!(mass > 0.0) && d->mass == 0.0 && m->density > 0.0)
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "particle: its mass from material '%s' (density %g kg/m3, volume %g "
                             "m3) is %g kg: not a usable mass", m->name, m->density, volume, mass);
    if (!(mass > 0.0))
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "particle: material '%s' has no density, give the mass (kg)", m->name);
    unsigned flags = d->flags;
    if ((flags & TL_PARTICLE_FIXED) && (flags & TL_PARTICLE_PRESCRIBED))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "particle: fixed and prescribed exclude each other");
    uint32_t id = d->id ? d->id : w->next_id;
    if (id >= 0x80000000u)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "particle: id must be below 2^31, got %u", id);
    if (tl_particles_index(&w->p, id) >= 0)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "particle: id %u is already used", id);
    *out_mass = mass;
    return TL_OK;
}

tl_status tl_world_check_particle(tl_world *w, const tl_particle_def *d) {
    if (!w || !d) return TL_ERROR_ARGUMENT;
    double mass;
    return particle_checks(w, d, &mass);
}

tl_status tl_world_add_particle_as(tl_world *w, const tl_particle_def *d, bool body_frame, uint32_t *out_id) {
    if (!w || !d) return TL_ERROR_ARGUMENT;
    double mass;
    tl_status checked = particle_checks(w, d, &mass);
    if (checked != TL_OK) return checked;
    const tl_shape *shape = d->shape != TL_SPHERE ? &w->shapes.of[d->shape] : NULL;
    unsigned flags = d->flags;
    uint32_t id = d->id ? d->id : w->next_id;
    int64_t i = tl_particles_push(&w->mem, &w->p, id);
    if (i < 0) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory");
    w->books.blowup.passed = -1;
    if (w->prepared && !(flags & TL_PARTICLE_FIXED)) /* the energy it brings, for the blow-up check */
        w->books.blowup.added += 0.5 * mass * (d->velocity.x * d->velocity.x + d->velocity.y * d->velocity.y +
                                         d->velocity.z * d->velocity.z);
    tl_particles *p = &w->p;
    v3_set(p->x[i], d->position.x, d->position.y, d->position.z);
    v3_copy(p->x_ref[i], p->x[i]);
    if (flags & TL_PARTICLE_FIXED) {
        v3_zero(p->v[i]);
        v3_zero(p->w[i]);
    } else {
        v3_set(p->v[i], d->velocity.x, d->velocity.y, d->velocity.z);
        v3_set(p->w[i], d->angular_velocity.x, d->angular_velocity.y, d->angular_velocity.z);
    }
    double q[4] = {d->orientation.w, d->orientation.x, d->orientation.y, d->orientation.z};
    double qmax = dmax(dmax(fabs(q[0]), fabs(q[1])), dmax(fabs(q[2]), fabs(q[3])));
    if (qmax > 0.0 && (qmax < 1e-150 || qmax > 1e150)) /* its squares would under- or overflow */
        for (int k = 0; k < 4; k++) q[k] /= qmax;
    if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 0.0)) q[0] = 1.0;
    q_normalize(q);
    if (!body_frame) tl_shape_body_attitude(shape, q, q);
    memcpy(p->q[i], q, sizeof q);
    p->radius[i] = shape ? shape->radius : d->radius;
    if (w->broad.skin_unsized) { /* the next step sizes the automatic skin from these (step/prepare.c) */
        if (!(w->broad.added_rmin > 0.0) || p->radius[i] < w->broad.added_rmin) w->broad.added_rmin = p->radius[i];
        if (p->radius[i] > w->broad.added_rmax) w->broad.added_rmax = p->radius[i];
    }
    p->mass[i] = mass;
    if (shape) {
        /* the largest principal moment; the body's own rotation uses all three (step.c) */
        double I[3];
        tl_shape_moments(shape, mass, I);
        p->inertia[i] = dmax(I[0], dmax(I[1], I[2]));
        rigid_momentum(p->q[i], I, p->w[i], p->am[i]);
        w->shapes.nbodies++;
    } else {
        p->inertia[i] = tl_sphere_inertia(mass, d->radius);
    }
    bool constrained = (flags & (TL_PARTICLE_FIXED | TL_PARTICLE_PRESCRIBED)) != 0;
    p->inv_mass[i] = constrained ? 0.0 : 1.0 / mass;
    p->inv_inertia[i] = (constrained || (flags & TL_PARTICLE_LOCK_ROTATION)) ? 0.0 : 1.0 / p->inertia[i];
    p->inv_mass_law[i] = (flags & TL_PARTICLE_FIXED) ? 0.0 : 1.0 / mass;
    p->material[i] = d->material;
    p->flags[i] = (uint8_t)flags;
    p->shape[i] = (int32_t)d->shape;
    if (id >= w->next_id) w->next_id = id + 1;
    w->broad.dirty = true;
    if (w->prepared && p->inv_mass[i] > 0.0) {
        /* added during a run: its first drift sees gravity (contacts come with the next step) */
        const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
        v3_scale(p->f[i], g, mass);
        v3_copy(p->f_old[i], p->f[i]);
    }
    if (w->ranks.established) { /* every rank adds it alike; the last one keeps it */
        tl_status s = w->ranks.ops->appended(w, (size_t)i);
        if (s != TL_OK) return s;
    }
    if (out_id) *out_id = id;
    return TL_OK;
}

/* ---- walls ---- */

tl_status tl_world_add_wall(tl_world *w, const tl_wall_def *d, int *out_index) {
    if (!w || !d) return TL_ERROR_ARGUMENT;
    if (!valid_material(w, d->material))
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "wall: unknown material index %d", d->material);
    char msg[256];
    msg[0] = '\0';
    tl_status s = tl_walls_add(&w->mem, &w->walls, d, msg, sizeof msg, out_index);
    if (s != TL_OK && !msg[0]) /* a failed allocation sets no message */
        snprintf(msg, sizeof msg, "%s", s == TL_ERROR_MEMORY ? "out of memory" : "refused");
    if (s != TL_OK) return tl_world_fail(w, s, "wall%s%s: %s", d->name ? " " : "", d->name ? d->name : "", msg);
    if (w->clock.time != 0.0) {
        /* added during a run: its motion starts now */
        size_t k = w->walls.count - 1;
        double vel[3] = {d->velocity.x, d->velocity.y, d->velocity.z};
        (void)tl_walls_set_motion(&w->walls, k, vel, &w->walls.w[k].motion, w->clock.time, msg, sizeof msg);
    }
    w->broad.dirty = true;
    return TL_OK;
}

/* ---- preparation ---- */

/* which materials particles and walls use */
static void materials_in_use(const tl_world *w, uint8_t *particle, uint8_t *wall) {
    memset(particle, 0, w->cat.nmat);
    memset(wall, 0, w->cat.nmat);
    for (size_t i = 0; i < w->p.count; i++) particle[w->p.material[i]] = 1;
    for (size_t k = 0; k < w->walls.count; k++) wall[w->walls.w[k].material] = 1;
}

/* What the shape stage (a body with a shape, a mesh wall) gives a force slot (cohesion): the
 * contact's one equivalent radius, so a slot that reads two bodies' radii (sjkr's two spheres) is
 * refused there; and a contact measured apart only where the kind's geometry measures bodies apart
 * (an ellipsoid's, against spheres, ellipsoids and plane, rectangle and box walls), so a slot that
 * holds contacts beyond touch (a reach: jkr, capillary) is refused where a mesh meets (a meshed
 * body or a mesh wall). Returns the refused slot and why, or NULL. */
static const tl_submodel *shape_stage_refuses(const tl_law *law, bool meshes, const char **why) {
    for (int k = 0; k < law->force_count; k++) {
        const tl_submodel *m = law->sub[law->force_slot[k]];
        if (m->uses_radii) {
            *why = "reads the two spheres' radii";
            return m;
        }
        if (m->reach && meshes) {
            *why = "holds contacts apart beyond touch, which a mesh's contact does not measure";
            return m;
        }
    }
    return NULL;
}

static tl_status check_force_slots(tl_world *w, const uint8_t *used, const uint8_t *wall_used) {
    size_t nm = w->cat.nmat;
    uint8_t shaped[256], meshed_body[256], meshed[256];
    memset(shaped, 0, nm);
    memset(meshed_body, 0, nm);
    memset(meshed, 0, nm);
    for (size_t i = 0; i < w->p.count; i++) {
        const tl_shape *sh = tl_world_shape_of(w, i);
        if (!sh) continue;
        shaped[w->p.material[i]] = 1;
        if (sh->kind == TL_SHAPE_MESH) meshed_body[w->p.material[i]] = 1;
    }
    for (size_t k = 0; k < w->walls.count; k++)
        if (w->walls.w[k].kind == TL_WALL_MESH) meshed[w->walls.w[k].material] = 1;
    for (size_t a = 0; a < nm; a++) {
        if (!used[a]) continue;
        for (size_t b = 0; b < nm; b++) {
            int li = w->cat.law_of[a * w->cat.law_dim + b];
            if (li < 0 || !w->cat.laws[li].force_count) continue;
            bool shapes = (shaped[a] && (used[b] || wall_used[b])) || (shaped[b] && used[b]);
            if (!shapes && !meshed[b]) continue;
            /* a mesh in the pair: a meshed body of either material, or a mesh wall of b's */
            bool meshes = meshed[b] || (meshed_body[a] && (used[b] || wall_used[b])) || (meshed_body[b] && used[b]);
            const char *why = "";
            const tl_submodel *m = shape_stage_refuses(&w->cat.laws[li], meshes, &why);
            if (!m) continue;
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "the law between materials '%s' and '%s' has the cohesion '%s', which %s; here "
                                 "%s (dmt and sjkr2 act between any bodies; jkr and capillary between spheres, "
                                 "ellipsoids and plane, rectangle and box walls)",
                                 w->cat.mat[a].name, w->cat.mat[b].name, m->info.name, why,
                                 meshes ? (meshed[b] && !shapes ? "spheres meet a mesh wall under it"
                                                                : "meshes meet under it")
                                        : "bodies with a shape (ellipsoids, meshes) meet under it");
        }
    }
    return TL_OK;
}

tl_status tl_world_check_laws(tl_world *w) {
    size_t nm = w->cat.nmat;
    uint8_t used[256], wall_used[256];
    if (nm > 256) return tl_world_fail(w, TL_ERROR_ARGUMENT, "at most 256 materials");
    materials_in_use(w, used, wall_used);
    /* every pair that can meet needs a law, prepared for its materials; the
     * other pairs are left alone (a law for a pair that never meets may lack
     * properties it would need) */
    for (size_t a = 0; a < nm; a++) {
        if (!used[a]) continue;
        for (size_t b = 0; b < nm; b++) {
            if (!used[b] && !wall_used[b]) continue;
            if (w->cat.law_of[a * w->cat.law_dim + b] < 0) {
                if (used[b])
                    return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                         "no contact law between materials '%s' and '%s' (both are "
                                         "used by particles)",
                                         w->cat.mat[a].name, w->cat.mat[b].name);
                return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                     "no contact law between materials '%s' and '%s' (particles of "
                                     "'%s' meet walls of '%s')",
                                     w->cat.mat[a].name, w->cat.mat[b].name, w->cat.mat[a].name, w->cat.mat[b].name);
            }
            tl_status s = prepare_pair(w, (int)a, (int)b);
            if (s == TL_OK && a != b) s = prepare_pair(w, (int)b, (int)a);
            if (s != TL_OK) return s;
        }
    }
    return check_force_slots(w, used, wall_used);
}

/* ---- queries ---- */

double tl_world_time(const tl_world *w) { return w->clock.time; }
int64_t tl_world_step_count(const tl_world *w) { return w->clock.steps; }
double tl_world_dt(const tl_world *w) { return w->clock.dt; }
int64_t tl_world_neighbor_builds(const tl_world *w) { return w->broad.nb.builds; }
size_t tl_world_particles_removed(const tl_world *w) { return w->removed; }

tl_status tl_world_timestep(const tl_world *w, tl_timestep_info *out) {
    if (!w->prepared) return TL_ERROR_STATE;
    *out = w->clock.ts;
    return TL_OK;
}

int tl_world_rank(const tl_world *w) { return w && w->ranks.ops ? w->ranks.rank : 0; }
int tl_world_ranks(const tl_world *w) { return w && w->ranks.ops ? w->ranks.size : 1; }

void tl_world_owned(const tl_world *w, size_t *first, size_t *count) {
    if (!w) {
        *first = *count = 0;
        return;
    }
    if (tl_ranks_spread(&w->ranks)) {
        *first = w->ranks.own_lo;
        *count = w->ranks.own_hi - w->ranks.own_lo;
        return;
    }
    *first = 0;
    *count = w->p.count;
}

size_t tl_world_particle_count(const tl_world *w) {
    return tl_ranks_viewing_particles(&w->ranks) ? w->ranks.nvp : w->p.count;
}

tl_status tl_world_particle_at(const tl_world *w, size_t i, tl_particle_state *o) {
    if (tl_ranks_viewing_particles(&w->ranks)) {
        if (i >= w->ranks.nvp) return TL_ERROR_NOT_FOUND;
        *o = w->ranks.vp[i];
        return TL_OK;
    }
    const tl_particles *p = &w->p;
    if (i >= p->count) return TL_ERROR_NOT_FOUND;
    o->id = p->id[i];
    o->material = p->material[i];
    o->flags = p->flags[i];
    o->radius = p->radius[i];
    o->mass = p->mass[i];
    o->inertia = p->inertia[i];
    o->shape = p->shape[i];
    const tl_shape *sh = tl_world_shape_of(w, i);
    if (sh) {
        double I[3];
        tl_shape_moments(sh, p->mass[i], I);
        o->principal_inertia = (tl_vec3){I[0], I[1], I[2]};
        o->angular_momentum = (tl_vec3){p->am[i][0], p->am[i][1], p->am[i][2]};
    } else {
        double I = p->inertia[i];
        o->principal_inertia = (tl_vec3){I, I, I};
        o->angular_momentum = (tl_vec3){I * p->w[i][0], I * p->w[i][1], I * p->w[i][2]};
    }
    o->position = (tl_vec3){p->x[i][0], p->x[i][1], p->x[i][2]};
    o->velocity = (tl_vec3){p->v[i][0], p->v[i][1], p->v[i][2]};
    o->angular_velocity = (tl_vec3){p->w[i][0], p->w[i][1], p->w[i][2]};
    o->body_orientation = (tl_quat){p->q[i][0], p->q[i][1], p->q[i][2], p->q[i][3]};
    double q[4];
    tl_shape_given_attitude(sh, p->q[i], q);
    o->orientation = (tl_quat){q[0], q[1], q[2], q[3]};
    o->force = (tl_vec3){p->f[i][0], p->f[i][1], p->f[i][2]};
    o->torque = (tl_vec3){p->t[i][0], p->t[i][1], p->t[i][2]};
    return TL_OK;
}

double tl_particle_rotational_energy(const tl_particle_state *p) {
    const tl_vec3 o = p->angular_velocity, L = p->angular_momentum;
    if (p->shape == TL_SPHERE) return 0.5 * p->inertia * (o.x * o.x + o.y * o.y + o.z * o.z);
    return 0.5 * (o.x * L.x + o.y * L.y + o.z * L.z);
}

tl_status tl_world_get_particle(const tl_world *w, uint32_t id, tl_particle_state *o) {
    if (tl_ranks_viewing_particles(&w->ranks)) {
        int32_t k = tl_keymap_get(&w->ranks.vindex, id);
        if (k < 0) return TL_ERROR_NOT_FOUND;
        *o = w->ranks.vp[k];
        return TL_OK;
    }
    int64_t i = tl_particles_index(&w->p, id);
    if (i < 0) return TL_ERROR_NOT_FOUND;
    return tl_world_particle_at(w, (size_t)i, o);
}

tl_status tl_world_set_particle_velocity(tl_world *w, uint32_t id, tl_vec3 v, tl_vec3 om) {
    int64_t i = tl_particles_index(&w->p, id);
    if (i < 0) return tl_world_fail(w, TL_ERROR_NOT_FOUND, "no particle with id %u", id);
    if (!finite3(v) || !finite3(om)) return tl_world_fail(w, TL_ERROR_ARGUMENT, "velocities must be finite");
    if (w->p.flags[i] & TL_PARTICLE_FIXED)
        return tl_world_fail(w, TL_ERROR_STATE, "particle %u is fixed", id);
    /* energy given by hand: the blow-up check counts it as put in */
    double ke_old = 0.5 * w->p.mass[i] * v3_norm2(w->p.v[i]);
    double ke_new = 0.5 * w->p.mass[i] * (v.x * v.x + v.y * v.y + v.z * v.z);
    if (ke_new > ke_old) w->books.blowup.added += ke_new - ke_old;
    w->books.blowup.passed = -1; /* a changed state is checked afresh */
    v3_set(w->p.v[i], v.x, v.y, v.z);
    v3_set(w->p.w[i], om.x, om.y, om.z);
    const tl_shape *sh = tl_world_shape_of(w, (size_t)i);
    if (sh) {
        double I[3];
        tl_shape_moments(sh, w->p.mass[i], I);
        rigid_momentum(w->p.q[i], I, w->p.w[i], w->p.am[i]);
    }
    return TL_OK;
}

int tl_world_wall_count(const tl_world *w) { return (int)w->walls.count; }

tl_status tl_world_get_wall(const tl_world *w, int i, tl_wall_state *o) {
    if (i < 0 || (size_t)i >= w->walls.count) return TL_ERROR_NOT_FOUND;
    const tl_wall *wl = &w->walls.w[i];
    o->index = i;
    o->name = wl->name;
    o->kind = wl->kind;
    o->material = wl->material;
    o->displacement = (tl_vec3){wl->disp[0], wl->disp[1], wl->disp[2]};
    o->velocity = (tl_vec3){wl->vel[0], wl->vel[1], wl->vel[2]};
    o->angular_velocity = (tl_vec3){wl->omega[0], wl->omega[1], wl->omega[2]};
    o->angle = wl->angle;
    o->force = (tl_vec3){wl->force[0], wl->force[1], wl->force[2]};
    o->torque = (tl_vec3){wl->torque[0], wl->torque[1], wl->torque[2]};
    o->area = wl->area;
    o->servo = wl->servo.enabled;
    o->servo_chatter = wl->servo_chatter;
    return TL_OK;
}

tl_status tl_world_set_wall_servo(tl_world *w, int i, const tl_servo_def *sv) {
    if (!w || !sv) return TL_ERROR_ARGUMENT;
    if (i < 0 || (size_t)i >= w->walls.count)
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "no wall with index %d", i);
    tl_wall *wl = &w->walls.w[i];
    if (!sv->enabled) {
        wl->servo.enabled = false;
        return TL_OK;
    }
    if (wl->motion.kind != TL_MOTION_TRANSLATE)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "servo of wall '%s': the wall rotates or oscillates; a servo "
                                                   "drives a translation only",
                             wl->name);
    double d[3] = {sv->direction.x, sv->direction.y, sv->direction.z}, dn = v3_norm(d);
    if (!finite3(sv->direction) || !(dn > 0.0))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "servo of wall '%s': direction must be a finite, non-zero vector",
                             wl->name);
    if (!(sv->target_force >= 0.0) || !isfinite(sv->target_force))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "servo of wall '%s': target force must be >= 0 N, got %g",
                             wl->name, sv->target_force);
    if (!(sv->gain > 0.0) || !isfinite(sv->gain))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "servo of wall '%s': gain must be > 0 m/(s N), got %g",
                             wl->name, sv->gain);
    if (!(sv->max_speed > 0.0) || !isfinite(sv->max_speed))
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "servo of wall '%s': max_speed must be > 0 m/s, got %g",
                             wl->name, sv->max_speed);
    wl->servo = *sv;
    wl->servo.direction = (tl_vec3){d[0] / dn, d[1] / dn, d[2] / dn};
    wl->servo_last = 0.0;
    return TL_OK;
}

tl_status tl_world_set_wall_velocity(tl_world *w, int i, tl_vec3 v) {
    if (i < 0 || (size_t)i >= w->walls.count)
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "no wall with index %d", i);
    if (!finite3(v)) return tl_world_fail(w, TL_ERROR_ARGUMENT, "wall velocity must be finite");
    tl_wall *wl = &w->walls.w[i];
    if (wl->motion.kind != TL_MOTION_TRANSLATE) {
        /* a new translation velocity restarts the motion from where the wall is */
        double vel[3] = {v.x, v.y, v.z};
        char msg[256];
        tl_status s = tl_walls_set_motion(&w->walls, (size_t)i, vel, &wl->motion, w->clock.time, msg, sizeof msg);
        if (s != TL_OK) return tl_world_fail(w, s, "wall '%s': %s", wl->name, msg);
        return TL_OK;
    }
    v3_set(wl->vel, v.x, v.y, v.z);
    return TL_OK;
}

tl_status tl_world_set_wall_motion(tl_world *w, int i, tl_vec3 v, const tl_motion_def *m) {
    if (!w || !m) return TL_ERROR_ARGUMENT;
    if (i < 0 || (size_t)i >= w->walls.count)
        return tl_world_fail(w, TL_ERROR_NOT_FOUND, "no wall with index %d", i);
    tl_wall *wl = &w->walls.w[i];
    if (m->kind != TL_MOTION_TRANSLATE && wl->servo.enabled)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "wall '%s': a force-controlled wall can only translate", wl->name);
    double vel[3] = {v.x, v.y, v.z};
    char msg[256];
    tl_status s = tl_walls_set_motion(&w->walls, (size_t)i, vel, m, w->clock.time, msg, sizeof msg);
    if (s != TL_OK) return tl_world_fail(w, s, "wall '%s': %s", wl->name, msg);
    return TL_OK;
}

/* ---- collision log ---- */

void tl_world_log_collisions(tl_world *w, bool enable) { w->log.on = enable; }
size_t tl_world_collision_count(const tl_world *w) { return w->log.n; }
const tl_collision *tl_world_collisions(const tl_world *w) { return w->log.coll; }
void tl_world_clear_collisions(tl_world *w) { w->log.n = 0; }

tl_status tl_world_set_threads(tl_world *w, int threads) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (threads < 0)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "threads must be >= 0 (0 = all available), got %d",
                             threads);
    w->def.threads = threads;
    w->nthreads = tl_world_thread_count(threads);
    return TL_OK;
}

int tl_world_threads(const tl_world *w) { return w->nthreads; }

int tl_world_thread_count(int requested) {
    if (requested > 0) return requested;
    int n = tl_threads_available();
    return n > 0 ? n : 1;
}

/* ---- the contact records' layout ---- */

tl_rec_layout tl_world_layout(const tl_world *w) {
    int hist = 0;
    bool impact = w->log.on;
    for (size_t i = 0; i < w->cat.nlaws; i++) {
        const tl_law *law = &w->cat.laws[i];
        if (law->hist_count > hist) hist = law->hist_count;
        for (int s = 0; s < TL_SLOT_COUNT; s++) impact |= law->sub[s]->uses_impact_speed;
    }
    return tl_rec_layout_make(hist, w->def.track_energy, impact);
}

tl_status tl_world_update_layout(tl_world *w) {
    if (!w->prepared) return TL_OK;
    tl_rec_layout want = tl_world_layout(w);
    /* grow only: a record keeps room for what it had */
    if (want.hist < w->contacts.lay.hist) want.hist = w->contacts.lay.hist;
    want = tl_rec_layout_make(want.hist, want.energy >= 0 || w->contacts.lay.energy >= 0,
                              want.impact >= 0 || w->contacts.lay.impact >= 0);
    if (want.stride == w->contacts.lay.stride && want.energy == w->contacts.lay.energy && want.impact == w->contacts.lay.impact)
        return TL_OK;
    if (tl_pairs_relayout(&w->mem, &w->contacts.pp, &w->contacts.lay, &want) != 0 ||
        tl_pairs_relayout(&w->mem, &w->contacts.pw, &w->contacts.lay, &want) != 0 ||
        tl_shape_contacts_relayout(&w->mem, &w->contacts.sc, &w->contacts.lay, &want) != 0)
        return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (contact table)");
    w->contacts.lay = want;
    return TL_OK;
}
