#include "decomp.h"
#include "decomp_log.h"
#include "decomp_shapes.h"
#include "decomp_state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reorder.h"
#include "rsum.h"
#include "vec.h"
#include "world.h"
#include "stages.h"
#include "external.h"

/* a monotonic clock, for the costs tl_world_parallel_stats reports */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static tl_status no_memory(tl_world *w, const char *what) {
    return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (%s)", what);
}

void tl_decomp_free(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    if (!d) return;
    tl_mem *m = &w->mem;
    size_t P = (size_t)d->face->size;
    tl_mem_free(m, d->gidx, d->cap_gidx * sizeof *d->gidx);
    tl_mem_free(m, d->ldom, d->cap_ldom * sizeof *d->ldom);
    tl_mem_free(m, d->wall_reach, d->cap_reach * sizeof *d->wall_reach);
    tl_mem_free(m, d->send_idx, d->cap_send * sizeof *d->send_idx);
    tl_mem_free(m, d->send_n, 5 * P * sizeof *d->send_n);
    tl_mem_free(m, d->buf, d->cap_buf);
    tl_mem_free(m, d->buf2, d->cap_buf2);
    tl_mem_free(m, d->blocks, d->cap_blocks * sizeof *d->blocks);
    tl_mem_free(m, d->wall_part, d->cap_wall_part * sizeof *d->wall_part);
    tl_mem_free(m, d->wall_tpart, d->cap_wall_tpart * sizeof *d->wall_tpart);
    tl_mem_free(m, d->face->vp, d->face->cap_vp * sizeof *d->face->vp);
    tl_mem_free(m, d->face->vc, d->face->cap_vc * sizeof *d->face->vc);
    tl_mem_free(m, d->face->vhist, d->face->cap_vhist * sizeof *d->face->vhist);
    tl_mem_free(m, d->terms, d->cap_terms * sizeof *d->terms);
    tl_keymap_free(m, &d->face->vindex);
    tl_mem_free(m, d->log_ids, d->cap_log_ids * sizeof *d->log_ids);
    tl_mem_free(m, d->log_got, d->cap_log_got * sizeof *d->log_got);
    tl_mem_free(m, d->log_ans, d->cap_log_ans * sizeof *d->log_ans);
    tl_mem_free(m, d->log_buf, d->cap_log_buf);
    tl_mem_free(m, d->shape_buf, d->cap_shape_buf);
    tl_mem_free(m, d->shape_send, d->cap_shape_send * sizeof *d->shape_send);
    tl_mem_free(m, d->shape_ord, d->cap_shape_ord * sizeof *d->shape_ord);
    tl_comm_free(m, d->comm);
    tl_mem_free(m, d, sizeof *d);
    memset(&w->ranks, 0, sizeof w->ranks); /* serial again: no port, no face */
}

/* The ranks port's implementation (world/ranks.h): what the engine's stages call of a distributed
 * world. */
static const tl_ranks_ops decomp_ops = {
    .free = tl_decomp_free,
    .appended = tl_decomp_appended,
    .save_state = tl_decomp_save_state,
    .loaded = tl_decomp_loaded,
    .max = tl_decomp_max,
    .or_ = tl_decomp_or,
    .merge = tl_decomp_merge,
    .gather_fixed = tl_decomp_gather_fixed,
    .abort = tl_decomp_abort,
    .domain_sums = tl_decomp_domain_sums,
    .shape_sums = tl_decomp_shape_sums,
    .own_shape = tl_decomp_own_shape,
    .external_potential = tl_decomp_external_potential,
    .term = tl_decomp_term,
    .terms_subtract = tl_decomp_terms_subtract,
    .note_immovable = tl_decomp_note_immovable,
    .establish = tl_decomp_establish,
    .particles = tl_decomp_particles,
    .ghosts = tl_decomp_ghosts,
    .moved = tl_decomp_moved,
    .refresh = tl_decomp_refresh,
    .log_rows = tl_decomp_log_rows,
    .log_fetch = tl_decomp_log_fetch,
};

/* comm_f: the Fortran handle of the caller's communicator, or -1 for MPI_COMM_WORLD */
static tl_status distribute_over(tl_world *w, bool given, int comm_f) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (w->ranks.dc) return TL_OK;
    if (!tl_comm_available())
        return tl_world_fail(w, TL_ERROR_ARGUMENT,
                             "a distributed world needs MPI: this build has none, or MPI_Init was not called");
    if (w->clock.steps > 0)
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "a world is distributed before its first step");
    tl_decomp *d = tl_mem_alloc(&w->mem, sizeof *d);
    if (!d) return no_memory(w, "decomposition");
    memset(d, 0, sizeof *d);
    d->face = &w->ranks;
    tl_keymap_init(&d->face->vindex);
    d->comm = given ? tl_comm_of(&w->mem, comm_f) : tl_comm_world(&w->mem);
    if (!d->comm) {
        tl_mem_free(&w->mem, d, sizeof *d);
        if (given)
            return tl_world_fail(w, TL_ERROR_ARGUMENT,
                                 "distribute: the communicator (Fortran handle %d) is MPI_COMM_NULL or an "
                                 "intercommunicator (or memory ran out); give an intracommunicator",
                                 comm_f);
        return no_memory(w, "decomposition");
    }
    w->ranks.rank = tl_comm_rank(d->comm);
    w->ranks.size = tl_comm_size(d->comm);
    size_t P = (size_t)d->face->size;
    d->send_n = tl_mem_alloc(&w->mem, 5 * P * sizeof *d->send_n);
    if (!d->send_n) {
        tl_comm_free(&w->mem, d->comm);
        tl_mem_free(&w->mem, d, sizeof *d);
        memset(&w->ranks, 0, sizeof w->ranks);
        return no_memory(w, "decomposition");
    }
    memset(d->send_n, 0, 5 * P * sizeof *d->send_n);
    d->recv_n = d->send_n + P;
    d->recv_at = d->send_n + 2 * P;
    d->bytes_a = d->send_n + 3 * P;
    d->bytes_b = d->send_n + 4 * P;
    w->ranks.dc = d;
    w->ranks.ops = &decomp_ops;
    /* lists built already (the initial forces): each rank takes its share of them now */
    if (w->broad.nb.builds > 0 && !w->broad.dirty) return tl_world_establish(w);
    return TL_OK;
}

tl_status tl_world_distribute(tl_world *w) { return distribute_over(w, false, -1); }

tl_status tl_world_distribute_comm(tl_world *w, int comm_f) { return distribute_over(w, true, comm_f); }

tl_status tl_decomp_supported(tl_world *w) {
    const char *what = NULL;
    if (w->broad.nb.all_to_shapes) what = "every contact through the shape stage (all_to_shapes)";

    if (!what) return TL_OK;
    return tl_world_fail(w, TL_ERROR_ARGUMENT, "%s are not supported on several MPI ranks yet (docs/parallel.md)",
                         what);
}

/* ---- the partition: whole domains of the global order, ranks in order ---- */

static uint64_t dom_start(const tl_decomp *d, size_t dd) {
    return d->ndom ? (uint64_t)(dd * d->nglobal / d->ndom) : 0;
}

static void partition(tl_world *w, uint64_t n) {
    tl_decomp *d = w->ranks.dc;
    d->nglobal = n;
    d->ndom = n ? tl_neighbors_domain_count(&w->broad.nb, (size_t)n) : 0;
    d->dom_lo = (size_t)d->face->rank * d->ndom / (size_t)d->face->size;
    d->dom_hi = ((size_t)d->face->rank + 1) * d->ndom / (size_t)d->face->size;
    d->g_lo = dom_start(d, d->dom_lo);
    d->g_hi = dom_start(d, d->dom_hi);
}

/* the rank owning global index g */
static int owner_of(const tl_decomp *d, uint64_t g) {
    int lo = 0, hi = d->face->size - 1;
    while (lo < hi) { /* the last rank whose first index is <= g */
        int mid = (lo + hi + 1) / 2;
        size_t dm = (size_t)mid * d->ndom / (size_t)d->face->size;
        if (dom_start(d, dm) <= g) lo = mid;
        else hi = mid - 1;
    }
    /* a rank without domains shares its first index with the next: the search passes it */
    return lo;
}

static int reserve_gidx(tl_world *w, size_t n) {
    return tl_mem_reserve(&w->mem, (void **)&w->ranks.dc->gidx, &w->ranks.dc->cap_gidx, n + 1, sizeof *w->ranks.dc->gidx);
}

/* Keeps the particles with keep[i] (and their global indices), in order. */
static tl_status compact(tl_world *w, const uint8_t *keep) {
    tl_decomp *d = w->ranks.dc;
    size_t n = 0;
    for (size_t i = 0; i < w->p.count; i++)
        if (keep[i]) d->gidx[n++] = d->gidx[i];
    if (tl_particles_compact(&w->mem, &w->p, keep) != 0) return no_memory(w, "migration");
    return TL_OK;
}

static uint8_t *scratch_keep(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    if (tl_mem_reserve(&w->mem, (void **)&d->buf2, &d->cap_buf2, w->p.count + 1, 1) != 0) return NULL;
    return d->buf2;
}

tl_status tl_decomp_establish(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    tl_status s = tl_decomp_supported(w);
    if (s != TL_OK) return s;
    size_t n = w->p.count;
    partition(w, n);
    if (reserve_gidx(w, n) != 0) return no_memory(w, "decomposition");
    for (size_t i = 0; i < n; i++) d->gidx[i] = i;
    uint8_t *keep = scratch_keep(w);
    if (!keep) return no_memory(w, "decomposition");
    for (size_t i = 0; i < n; i++) keep[i] = i >= d->g_lo && i < d->g_hi;
    s = compact(w, keep);
    if (s != TL_OK) return s;
    d->face->own_lo = 0;
    d->face->own_hi = w->p.count;
    d->face->established = true;
    return TL_OK;
}

void tl_decomp_moved(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    const tl_particles *p = &w->p;
    const double lim2 = 0.25 * w->broad.nb.skin * w->broad.nb.skin;
    int acc = 0;
    for (size_t i = d->face->own_lo; i < d->face->own_hi && !acc; i++) {
        double d2 = 0.0; /* as the predict stage adds it */
        for (int k = 0; k < 3; k++) {
            double e = p->x[i][k] - p->x_ref[i][k];
            d2 += e * e;
        }
        acc = d2 > lim2;
    }
    tl_comm_or(d->comm, &acc, 1);
    w->broad.moved = acc != 0;
}

/* Every rank's terms, added one by one in global order to *acc (sign +1 or -1): the serial
 * loop's sum, term for term. */
static tl_status ordered_sum(tl_world *w, const double *terms, size_t n, double *acc, double sign) {
    tl_decomp *d = w->ranks.dc;
    void *out = d->buf;
    size_t got = tl_comm_allgather(d->comm, &w->mem, terms, n * sizeof *terms, &out, &d->cap_buf, NULL);
    d->buf = out;
    if (got == SIZE_MAX) return no_memory(w, "global sum");
    const double *t = (const double *)d->buf;
    for (size_t k = 0; k < got / sizeof *t; k++) *acc += sign * t[k];
    return TL_OK;
}

/* a growable array of doubles in the world's memory */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;
static int dvec_push(tl_mem *m, dvec *a, double x) {
    if (tl_mem_reserve(m, (void **)&a->v, &a->cap, a->n + 1, sizeof *a->v) != 0) return -1;
    a->v[a->n++] = x;
    return 0;
}

/* The lost particles, as remove_lost (step.c) does it, their energy leaving in global order. */
static tl_status remove_lost(tl_world *w) {
    if (!w->def.has_domain) return TL_OK;
    tl_particles *p = &w->p;
    const double lo[3] = {w->def.domain_min.x, w->def.domain_min.y, w->def.domain_min.z};
    const double hi[3] = {w->def.domain_max.x, w->def.domain_max.y, w->def.domain_max.z};
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    uint8_t *keep = scratch_keep(w);
    if (!keep) return no_memory(w, "removal");
    dvec terms = {0};
    uint64_t lost = 0;
    for (size_t i = 0; i < p->count; i++) {
        keep[i] = 1;
        for (int k = 0; k < 3; k++)
            if (!w->per.on[k] && !(p->x[i][k] >= lo[k] && p->x[i][k] <= hi[k])) keep[i] = 0;
        if (keep[i]) continue;
        lost++;
        if (p->inv_mass[i] > 0.0) {
            double ke = 0.5 * p->mass[i] * v3_norm2(p->v[i]);
            if (p->inv_inertia[i] > 0.0)
                ke += p->shape[i] ? 0.5 * v3_dot(p->w[i], p->am[i]) : 0.5 * p->inertia[i] * v3_norm2(p->w[i]);
            double pe = -p->mass[i] * v3_dot(g, p->x[i]);
            if (dvec_push(&w->mem, &terms, ke + pe) != 0) return no_memory(w, "removal");
        }
    }
    uint64_t all = lost;
    tl_comm_sum_u64(w->ranks.dc->comm, &all, 1);
    tl_status s = TL_OK;
    if (all) s = ordered_sum(w, terms.v, terms.n, &w->books.ledger.boundary_work, -1.0);
    tl_mem_free(&w->mem, terms.v, terms.cap * sizeof *terms.v);
    if (s != TL_OK || !lost) {
        if (s == TL_OK) w->removed += all;
        return s;
    }
    s = compact(w, keep);
    if (s == TL_OK) w->removed += all;
    return s;
}

/* The periodic wrap, as wrap_periodic (step.c) does it: the work terms added axis by axis,
 * each axis in global order. */
static tl_status wrap_periodic(tl_world *w) {
    tl_particles *p = &w->p;
    const double g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    double work = 0.0;
    for (int k = 0; k < 3; k++) {
        if (!w->per.on[k]) continue;
        dvec terms = {0};
        const double lo = w->per.lo[k], len = w->per.len[k];
        for (size_t i = 0; i < p->count; i++) {
            double x = p->x[i][k];
            if (x >= lo && x < lo + len) continue;
            double nx = x - len * floor((x - lo) / len);
            if (!(nx < lo + len)) nx = lo;
            if (p->inv_mass[i] > 0.0) {
                const double *fe = tl_external_force_of(w, p->id[i]);
                if (dvec_push(&w->mem, &terms, -p->mass[i] * g[k] * (nx - x)) != 0 ||
                    (fe && dvec_push(&w->mem, &terms, -fe[k] * (nx - x)) != 0)) {
                    tl_mem_free(&w->mem, terms.v, terms.cap * sizeof *terms.v);
                    return no_memory(w, "periodic wrap");
                }
            }
            p->x[i][k] = nx;
        }
        tl_status s = ordered_sum(w, terms.v, terms.n, &work, 1.0);
        tl_mem_free(&w->mem, terms.v, terms.cap * sizeof *terms.v);
        if (s != TL_OK) return s;
    }
    w->books.ledger.boundary_work += work;
    return TL_OK;
}

/* The reordering (reorder in step.c) over the global order: every rank orders the positions
 * of all particles; newg[i] receives the new global index of owned particle i. Returns 1 when
 * the order changed hands (a reordering build), 0 when it is not due, -1 on failure. */
static int reorder(tl_world *w, uint64_t g0, uint64_t n, uint64_t *newg) {
    tl_decomp *d = w->ranks.dc;
    tl_particles *p = &w->p;
    if (!tl_reorder_due(w, n)) return 0;
    double lo[4];
    tl_order_extent(p, lo);
    tl_comm_min(d->comm, lo, 4);
    tl_order_frame f = tl_order_frame_of(w, lo, n);
    /* every rank orders all positions alike (gathered into its buffer): the serial order
     * (reorder.h) */
    uint32_t *ord = n <= UINT32_MAX ? tl_mem_alloc(&w->mem, 2 * n * sizeof *ord) : NULL;
    bool ok = ord != NULL;
    /* every rank takes part in the gather, a failed one with nothing: then all fail */
    void *out = d->buf;
    size_t got = tl_comm_allgather(d->comm, &w->mem, p->x, ok ? p->count * sizeof *p->x : 0, &out, &d->cap_buf, NULL);
    d->buf = out;
    int r = -1;
    if (ok && got == n * sizeof *p->x) {
        if (tl_reorder_order(&w->mem, (const double(*)[3])d->buf, (size_t)n, &f, ord) == 0) {
            /* ord[k]: the old index now at k; the owned ones learn where they went */
            for (size_t k = 0; k < n; k++)
                if (ord[k] >= g0 && ord[k] < g0 + p->count) newg[ord[k] - g0] = k;
            r = 1;
        }
    }
    if (ord) tl_mem_free(&w->mem, ord, 2 * n * sizeof *ord);
    /* the ordering allocates after the gather: the ranks agree whether all succeeded */
    uint64_t failed = r < 0;
    tl_comm_sum_u64(d->comm, &failed, 1);
    return failed ? -1 : r;
}

/* the bytes of one record on the wire: key, state, the values */
static size_t record_bytes(const tl_stash *s) { return 2 * sizeof(uint64_t) + (size_t)s->stride * sizeof(double); }

/* Sends each migrating particle's records (those of its touching pairs) to its new rank. */
static tl_status send_records(tl_world *w, const int *dest) {
    tl_decomp *d = w->ranks.dc;
    tl_stash *st = &w->contacts.stash;
    const size_t P = (size_t)d->face->size, rb = record_bytes(st);
    const tl_keymap *maps[2] = {&st->pp, &st->pw};
    size_t *cnt = d->bytes_a;
    memset(cnt, 0, P * sizeof *cnt);
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0 counts, pass 1 fills at the offsets */
        size_t *at = d->bytes_b;
        if (pass == 1) {
            size_t total = 0;
            for (size_t r = 0; r < P; r++) {
                at[r] = total;
                total += cnt[r];
            }
            if (tl_mem_reserve(&w->mem, (void **)&d->buf2, &d->cap_buf2, total + 1, 1) != 0)
                return no_memory(w, "migration");
        }
        for (int m = 0; m < 2; m++) {
            const tl_keymap *map = maps[m];
            for (size_t slot = 0; slot < map->cap; slot++) {
                uint64_t key = map->keys[slot];
                if (key == TL_KEYMAP_EMPTY) continue;
                uint32_t ids[2];
                int nid;
                if (m == 0) {
                    ids[0] = (uint32_t)(key >> 32);
                    ids[1] = (uint32_t)key;
                    nid = 2;
                } else {
                    ids[0] = (uint32_t)((key & ~(1ULL << 63)) >> 24);
                    nid = 1;
                }
                int sent_to = -1;
                for (int q = 0; q < nid; q++) {
                    int64_t i = tl_particles_index(&w->p, ids[q]);
                    if (i < 0 || dest[i] == d->face->rank || dest[i] == sent_to) continue;
                    size_t r = (size_t)dest[i];
                    sent_to = dest[i];
                    if (pass == 0) {
                        cnt[r] += rb;
                        continue;
                    }
                    unsigned char *o = d->buf2 + at[r];
                    uint64_t state = st->state[map->values[slot]];
                    memcpy(o, &key, sizeof key);
                    memcpy(o + 8, &state, sizeof state);
                    memcpy(o + 16, st->rec + (size_t)map->values[slot] * (size_t)st->stride,
                           (size_t)st->stride * sizeof(double));
                    at[r] += rb;
                }
            }
        }
    }
    void *out = d->buf;
    size_t got = tl_comm_exchange(d->comm, &w->mem, d->buf2, cnt, &out, &d->cap_buf, NULL);
    d->buf = out;
    if (got == SIZE_MAX) return no_memory(w, "migration");
    for (size_t o = 0; o + rb <= got; o += rb) {
        uint64_t key, state;
        memcpy(&key, d->buf + o, sizeof key);
        memcpy(&state, d->buf + o + 8, sizeof state);
        double rec[TL_MAX_HIST + 64];
        if ((size_t)st->stride > sizeof rec / sizeof *rec) return tl_world_fail(w, TL_ERROR_STATE, "record too long");
        memcpy(rec, d->buf + o + 16, (size_t)st->stride * sizeof(double));
        if (tl_stash_put(&w->mem, st, key, (uint8_t)state, rec) != 0) return no_memory(w, "migration");
    }
    return TL_OK;
}

/* Puts the stored particles in the order of their global indices, which must be
 * base .. base + count - 1. */
static tl_status sort_by_gidx(tl_world *w, uint64_t base) {
    tl_decomp *d = w->ranks.dc;
    size_t n = w->p.count;
    uint32_t *ord = tl_mem_alloc(&w->mem, (n + 1) * sizeof *ord);
    if (!ord) return no_memory(w, "migration");
    bool ok = true;
    for (size_t k = 0; k < n; k++) ord[k] = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        uint64_t g = d->gidx[i] - base;
        if (d->gidx[i] < base || g >= n || ord[g] != UINT32_MAX) ok = false;
        else ord[g] = (uint32_t)i;
    }
    int r = ok ? tl_particles_permute(&w->mem, &w->p, ord) : 0;
    tl_mem_free(&w->mem, ord, (n + 1) * sizeof *ord);
    if (!ok) return tl_world_fail(w, TL_ERROR_STATE, "rank %d: its particles are not the global range it owns",
                                  d->face->rank);
    if (r != 0) return no_memory(w, "migration");
    for (size_t k = 0; k < n; k++) d->gidx[k] = base + k;
    return TL_OK;
}

static tl_status particles(tl_world *w);

tl_status tl_decomp_particles(tl_world *w) {
    double t0 = now();
    tl_status s = particles(w);
    w->ranks.dc->cost.rebuild_s += now() - t0;
    w->ranks.dc->cost.rebuilds++;
    return s;
}

static tl_status particles(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    tl_particles *p = &w->p;
    tl_status s = tl_decomp_supported(w);
    if (s != TL_OK) return s;
    /* the ghosts go */
    uint8_t *keep = scratch_keep(w);
    if (!keep) return no_memory(w, "migration");
    for (size_t i = 0; i < p->count; i++) keep[i] = i >= d->face->own_lo && i < d->face->own_hi;
    s = compact(w, keep);
    if (s == TL_OK) s = remove_lost(w);
    if (s == TL_OK) {
        tl_particles_fit(&w->mem, p);
        s = wrap_periodic(w);
    }
    if (s != TL_OK) return s;
    /* the global order after the removals, then the reordering when due */
    uint64_t n = p->count;
    tl_comm_sum_u64(d->comm, &n, 1);
    uint64_t g0 = tl_comm_exscan_u64(d->comm, p->count);
    if (reserve_gidx(w, p->count) != 0) return no_memory(w, "migration");
    for (size_t i = 0; i < p->count; i++) d->gidx[i] = g0 + i;
    if (reorder(w, g0, n, d->gidx) < 0) return no_memory(w, "reordering");
    partition(w, n);
    /* the migration: particles (with their global index) and their records */
    const size_t P = (size_t)d->face->size, pb = tl_particles_bytes_each() + sizeof(uint64_t);
    int *dest = tl_mem_alloc(&w->mem, (p->count + 1) * sizeof *dest);
    if (!dest) return no_memory(w, "migration");
    for (size_t i = 0; i < p->count; i++) dest[i] = owner_of(d, d->gidx[i]);
    s = send_records(w, dest); /* uses bytes_a and bytes_b: the particles' counts come after */
    tl_status ss = tl_decomp_shapes_migrate(w, dest); /* the patch records of the shape stage */
    if (s == TL_OK) s = ss;
    size_t *cnt = d->bytes_a, *at = d->bytes_b;
    memset(cnt, 0, P * sizeof *cnt);
    for (size_t i = 0; i < p->count; i++)
        if (dest[i] != d->face->rank) cnt[dest[i]] += pb;
    size_t total = 0;
    for (size_t r = 0; r < P; r++) {
        at[r] = total;
        total += cnt[r];
    }
    if (s == TL_OK && tl_mem_reserve(&w->mem, (void **)&d->buf2, &d->cap_buf2, total + 1, 1) != 0)
        s = no_memory(w, "migration");
    if (s != TL_OK) {
        tl_mem_free(&w->mem, dest, (p->count + 1) * sizeof *dest);
        return s;
    }
    for (size_t i = 0; i < p->count; i++) {
        if (dest[i] == d->face->rank) continue;
        unsigned char *o = d->buf2 + at[dest[i]];
        memcpy(o, &d->gidx[i], sizeof(uint64_t));
        tl_particles_pack(p, i, o + sizeof(uint64_t));
        at[dest[i]] += pb;
    }
    void *out = d->buf;
    size_t got = tl_comm_exchange(d->comm, &w->mem, d->buf2, cnt, &out, &d->cap_buf, NULL);
    d->buf = out;
    keep = scratch_keep(w);
    if (got == SIZE_MAX || !keep) {
        tl_mem_free(&w->mem, dest, (p->count + 1) * sizeof *dest);
        return no_memory(w, "migration");
    }
    for (size_t i = 0; i < p->count; i++) keep[i] = dest[i] == d->face->rank;
    tl_mem_free(&w->mem, dest, (p->count + 1) * sizeof *dest);
    s = compact(w, keep);
    if (s != TL_OK) return s;
    /* the arrivals, with their global indices */
    for (size_t o = 0; o + pb <= got; o += pb) {
        uint64_t g;
        memcpy(&g, d->buf + o, sizeof g);
        int64_t i = tl_particles_push_packed(&w->mem, p, d->buf + o + sizeof g);
        if (i < 0 || reserve_gidx(w, p->count) != 0) return no_memory(w, "migration");
        d->gidx[i] = g;
        d->face->arrived++;
    }
    s = sort_by_gidx(w, d->g_lo);
    if (s != TL_OK) return s;
    if (p->count != d->g_hi - d->g_lo)
        return tl_world_fail(w, TL_ERROR_STATE, "rank %d holds %zu particles for its %llu", d->face->rank, p->count,
                             (unsigned long long)(d->g_hi - d->g_lo));
    d->face->own_lo = 0;
    d->face->own_hi = p->count;
    return TL_OK;
}

/* ---- ghosts ---- */

/* the gap between x and [lo, hi] along an axis (the nearest periodic image) */
static double gap(double x, double lo, double hi, bool periodic, double len) {
    double best = INFINITY;
    for (int im = periodic ? -1 : 0; im <= (periodic ? 1 : 0); im++) {
        double y = x + im * len, g = y < lo ? lo - y : (y > hi ? y - hi : 0.0);
        if (g < best) best = g;
    }
    return best;
}

static tl_status ghosts(tl_world *w, const tl_nb_frame **frame);

tl_status tl_decomp_ghosts(tl_world *w, const tl_nb_frame **frame) {
    double t0 = now();
    tl_status s = ghosts(w, frame);
    w->ranks.dc->cost.rebuild_s += now() - t0;
    return s;
}

static tl_status ghosts(tl_world *w, const tl_nb_frame **frame) {
    tl_decomp *d = w->ranks.dc;
    tl_particles *p = &w->p;
    tl_nb_frame *f = &d->frame;
    const size_t P = (size_t)d->face->size, nown = p->count;
    memset(f, 0, sizeof *f);
    /* the extent, the classes and the walls' reach over all particles */
    double ext[7] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 0.0}; /* lo, -hi, rmax */
    for (size_t i = 0; i < nown; i++) {
        for (int k = 0; k < 3; k++) {
            ext[k] = dmin(ext[k], p->x[i][k]);
            ext[3 + k] = dmin(ext[3 + k], -p->x[i][k]);
        }
        ext[6] = dmax(ext[6], p->radius[i]);
    }
    tl_comm_min(d->comm, ext, 6);
    tl_comm_max(d->comm, ext + 6, 1);
    for (int k = 0; k < 3; k++) {
        f->lo[k] = ext[k];
        f->hi[k] = -ext[3 + k];
    }
    f->rmax = ext[6];
    uint64_t ln[TL_MAX_LEVELS] = {0};
    for (size_t i = 0; i < nown; i++) {
        int l = tl_neighbors_size_class(f->rmax, p->radius[i]);
        ln[l]++;
        f->level_rmax[l] = dmax(f->level_rmax[l], p->radius[i]);
    }
    tl_comm_sum_u64(d->comm, ln, TL_MAX_LEVELS);
    tl_comm_max(d->comm, f->level_rmax, TL_MAX_LEVELS);
    f->nlevels = 1;
    for (int l = 0; l < TL_MAX_LEVELS; l++) {
        f->level_n[l] = (size_t)ln[l];
        if (ln[l] && l + 1 > f->nlevels) f->nlevels = l + 1;
    }
    size_t nw = w->walls.count;
    if (tl_mem_reserve(&w->mem, (void **)&d->wall_reach, &d->cap_reach, nw + 1, sizeof *d->wall_reach) != 0)
        return no_memory(w, "ghosts");
    for (size_t k = 0; k < nw; k++) {
        const tl_wall *wl = &w->walls.w[k];
        double reach = 0.0;
        for (size_t i = 0; wl->turns && i < nown; i++) {
            double e[3];
            v3_sub(e, p->x[i], wl->pivot);
            reach = dmax(reach, v3_norm(e) + p->radius[i]);
        }
        d->wall_reach[k] = reach;
    }
    if (nw) tl_comm_max(d->comm, d->wall_reach, nw);
    f->wall_reach = d->wall_reach;

    /* every domain's box, in domain order */
    size_t mine = d->dom_hi - d->dom_lo;
    double *box = tl_mem_alloc(&w->mem, (6 * mine + 1) * sizeof *box);
    if (!box) return no_memory(w, "ghosts");
    for (size_t dd = 0; dd < mine; dd++) {
        double *b = box + 6 * dd;
        for (int k = 0; k < 3; k++) {
            b[k] = INFINITY;
            b[3 + k] = -INFINITY;
        }
        size_t i0 = (size_t)(dom_start(d, d->dom_lo + dd) - d->g_lo), i1 = (size_t)(dom_start(d, d->dom_lo + dd + 1) - d->g_lo);
        for (size_t i = i0; i < i1 && i < nown; i++)
            for (int k = 0; k < 3; k++) {
                b[k] = dmin(b[k], p->x[i][k]);
                b[3 + k] = dmax(b[3 + k], p->x[i][k]);
            }
    }
    void *out = d->buf;
    size_t got = tl_comm_allgather(d->comm, &w->mem, box, 6 * mine * sizeof *box, &out, &d->cap_buf, NULL);
    d->buf = out;
    tl_mem_free(&w->mem, box, (6 * mine + 1) * sizeof *box);
    if (got == SIZE_MAX) return no_memory(w, "ghosts");
    const size_t nbox = got / (6 * sizeof(double));
    double *boxes = tl_mem_alloc(&w->mem, (6 * nbox + 1) * sizeof *boxes);
    if (!boxes) return no_memory(w, "ghosts");
    memcpy(boxes, d->buf, got);

    /* the owned particles near another rank's domains go there */
    const double cut = 2.0 * f->rmax + w->broad.nb.skin;
    const size_t pb = tl_particles_bytes_each() + sizeof(uint64_t);
    size_t *cnt = d->bytes_a, *at = d->bytes_b;
    d->nsend = 0;
    for (size_t r = 0; r < P; r++) {
        d->send_n[r] = 0;
        if ((int)r == d->face->rank) continue;
        size_t b0 = r * d->ndom / P, b1 = (r + 1) * d->ndom / P;
        for (size_t i = 0; i < nown; i++) {
            bool near = false;
            for (size_t b = b0; b < b1 && !near; b++) {
                const double *B = boxes + 6 * b;
                near = true;
                for (int k = 0; k < 3 && near; k++)
                    near = gap(p->x[i][k], B[k], B[3 + k], w->per.on[k], w->per.len[k]) < cut;
            }
            if (!near) continue;
            if (tl_mem_reserve(&w->mem, (void **)&d->send_idx, &d->cap_send, d->nsend + 1, sizeof *d->send_idx) != 0) {
                tl_mem_free(&w->mem, boxes, (6 * nbox + 1) * sizeof *boxes);
                return no_memory(w, "ghosts");
            }
            d->send_idx[d->nsend++] = (uint32_t)i;
            d->send_n[r]++;
        }
    }
    tl_mem_free(&w->mem, boxes, (6 * nbox + 1) * sizeof *boxes);
    size_t total = d->nsend * pb;
    if (tl_mem_reserve(&w->mem, (void **)&d->buf2, &d->cap_buf2, total + 1, 1) != 0) return no_memory(w, "ghosts");
    for (size_t r = 0, e = 0; r < P; r++) {
        cnt[r] = d->send_n[r] * pb;
        for (size_t q = 0; q < d->send_n[r]; q++, e++) {
            unsigned char *o = d->buf2 + e * pb;
            size_t i = d->send_idx[e];
            memcpy(o, &d->gidx[i], sizeof(uint64_t));
            tl_particles_pack(p, i, o + sizeof(uint64_t));
        }
    }
    out = d->buf;
    got = tl_comm_exchange(d->comm, &w->mem, d->buf2, cnt, &out, &d->cap_buf, at);
    d->buf = out;
    if (got == SIZE_MAX) return no_memory(w, "ghosts");
    /* arrivals in rank order, each rank's in its global order: those of the lower ranks
     * go before the owned particles, the others after */
    size_t nbelow = 0, nghost = got / pb;
    for (size_t r = 0; r < P; r++) {
        d->recv_n[r] = at[r] / pb;
        if ((int)r < d->face->rank) nbelow += d->recv_n[r];
    }
    if (reserve_gidx(w, nown + nghost) != 0) return no_memory(w, "ghosts");
    for (size_t e = 0; e < nghost; e++) {
        const unsigned char *o = d->buf + e * pb;
        int64_t i = tl_particles_push_packed(&w->mem, p, o + sizeof(uint64_t));
        if (i < 0) return no_memory(w, "ghosts");
        memcpy(&d->gidx[i], o, sizeof(uint64_t));
    }
    uint32_t *ord = tl_mem_alloc(&w->mem, (p->count + 1) * sizeof *ord);
    if (!ord) return no_memory(w, "ghosts");
    size_t k = 0;
    for (size_t e = 0; e < nbelow; e++) ord[k++] = (uint32_t)(nown + e);
    for (size_t i = 0; i < nown; i++) ord[k++] = (uint32_t)i;
    for (size_t e = nbelow; e < nghost; e++) ord[k++] = (uint32_t)(nown + e);
    uint64_t *g2 = tl_mem_alloc(&w->mem, (p->count + 1) * sizeof *g2);
    int rr = g2 ? tl_particles_permute(&w->mem, p, ord) : -1;
    if (rr == 0) {
        for (size_t q = 0; q < p->count; q++) g2[q] = d->gidx[ord[q]];
        memcpy(d->gidx, g2, p->count * sizeof *g2);
    }
    tl_mem_free(&w->mem, g2, (p->count + 1) * sizeof *g2);
    tl_mem_free(&w->mem, ord, (p->count + 1) * sizeof *ord);
    if (rr != 0) return no_memory(w, "ghosts");
    for (size_t e = 0; e < d->nsend; e++) d->send_idx[e] += (uint32_t)nbelow;
    d->face->own_lo = nbelow;
    d->face->own_hi = nbelow + nown;
    size_t pos = 0;
    for (size_t r = 0; r < P; r++) {
        if ((int)r == d->face->rank) pos = d->face->own_hi;
        d->recv_at[r] = pos;
        pos += d->recv_n[r];
    }
    /* the local domains: the ghosts below, the owned ones, the ghosts above */
    if (tl_mem_reserve(&w->mem, (void **)&d->ldom, &d->cap_ldom, mine + 4, sizeof *d->ldom) != 0)
        return no_memory(w, "ghosts");
    size_t nl = 0;
    if (nbelow) d->ldom[nl++] = 0;
    d->first_owned = nl;
    for (size_t dd = 0; dd < mine; dd++) d->ldom[nl++] = (uint32_t)(nbelow + dom_start(d, d->dom_lo + dd) - d->g_lo);
    if (p->count > d->face->own_hi) d->ldom[nl++] = (uint32_t)d->face->own_hi;
    d->ldom[nl] = (uint32_t)p->count;
    f->ndom = nl;
    f->dom_start = d->ldom;
    f->own_lo = d->face->own_lo;
    f->own_hi = d->face->own_hi;
    *frame = f;
    tl_decomp_count_bodies(w); /* owned and ghosts: the stages' paths and the shape list */
    return TL_OK;
}

tl_status tl_decomp_refresh(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    tl_particles *p = &w->p;
    const size_t P = (size_t)d->face->size, pb = tl_particles_bytes_each();
    size_t nrecv = 0;
    for (size_t r = 0; r < P; r++) {
        d->bytes_a[r] = d->send_n[r] * pb;
        d->bytes_b[r] = d->recv_n[r] * pb;
        nrecv += d->recv_n[r];
    }
    if (tl_mem_reserve(&w->mem, (void **)&d->buf2, &d->cap_buf2, d->nsend * pb + 1, 1) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&d->buf, &d->cap_buf, nrecv * pb + 1, 1) != 0)
        tl_comm_abort(d->comm, "out of memory (ghost refresh)"); /* the others wait in the exchange */
    double t0 = now();
    for (size_t e = 0; e < d->nsend; e++) tl_particles_pack(p, d->send_idx[e], d->buf2 + e * pb);
    double t1 = now();
    tl_comm_exchange_known(d->comm, d->buf2, d->bytes_a, d->buf, d->bytes_b);
    double t2 = now();
    size_t e = 0;
    for (size_t r = 0; r < P; r++)
        for (size_t q = 0; q < d->recv_n[r]; q++, e++) tl_particles_unpack_at(p, d->recv_at[r] + q, d->buf + e * pb);
    tl_decomp_cost *c = &d->cost;
    c->pack_s += t1 - t0;
    c->exchange_s += t2 - t1;
    c->unpack_s += now() - t2;
    c->refreshes++;
    c->packed += d->nsend;
    c->unpacked += nrecv;
    return TL_OK;
}

tl_status tl_decomp_domain_sums(tl_world *w, const tl_block_sum **blocks, const double (**wall_part)[3],
                                const double (**wall_tpart)[3], size_t *ndom) {
    tl_decomp *d = w->ranks.dc;
    const size_t P = (size_t)d->face->size, mine = d->dom_hi - d->dom_lo, nw = w->walls.count, fo = d->first_owned;
    /* per domain: its block, then its shares of the walls' forces and torques */
    const size_t unit = sizeof(tl_block_sum) + 2 * nw * 3 * sizeof(double);
    if (mine && w->broad.dom.count < fo + mine)
        return tl_world_fail(w, TL_ERROR_STATE, "rank %d: %zu domains for its %zu", d->face->rank, w->broad.dom.count, mine);
    if (tl_mem_reserve(&w->mem, (void **)&d->buf2, &d->cap_buf2, mine * unit + 1, 1) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&d->buf, &d->cap_buf, d->ndom * unit + 1, 1) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&d->blocks, &d->cap_blocks, d->ndom + 1, sizeof *d->blocks) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&d->wall_part, &d->cap_wall_part, d->ndom * nw + 1, sizeof *d->wall_part) != 0 ||
        tl_mem_reserve(&w->mem, (void **)&d->wall_tpart, &d->cap_wall_tpart, d->ndom * nw + 1, sizeof *d->wall_tpart) != 0)
        tl_comm_abort(d->comm, "out of memory (domain sums)"); /* the others wait in the gather */
    unsigned char *o = d->buf2;
    for (size_t q = 0; q < mine; q++) {
        memcpy(o, &w->scratch.blocks[fo + q], sizeof(tl_block_sum));
        o += sizeof(tl_block_sum);
        memcpy(o, w->scratch.wall_part + (fo + q) * nw, nw * 3 * sizeof(double));
        o += nw * 3 * sizeof(double);
        memcpy(o, w->scratch.wall_tpart + (fo + q) * nw, nw * 3 * sizeof(double));
        o += nw * 3 * sizeof(double);
    }
    for (size_t r = 0; r < P; r++) d->bytes_a[r] = ((r + 1) * d->ndom / P - r * d->ndom / P) * unit;
    double t0 = now();
    tl_comm_allgather_known(d->comm, d->buf2, mine * unit, d->buf, d->bytes_a);
    d->cost.sums_s += now() - t0;
    d->cost.sums++;
    d->cost.sums_bytes += d->ndom * unit;
    const unsigned char *in = d->buf;
    for (size_t q = 0; q < d->ndom; q++) { /* ranks hold consecutive domains in rank order */
        memcpy(&d->blocks[q], in, sizeof(tl_block_sum));
        in += sizeof(tl_block_sum);
        memcpy(d->wall_part + q * nw, in, nw * 3 * sizeof(double));
        in += nw * 3 * sizeof(double);
        memcpy(d->wall_tpart + q * nw, in, nw * 3 * sizeof(double));
        in += nw * 3 * sizeof(double);
    }
    *blocks = d->blocks;
    *wall_part = (const double(*)[3])d->wall_part;
    *wall_tpart = (const double(*)[3])d->wall_tpart;
    *ndom = d->ndom;
    return TL_OK;
}

void tl_decomp_max(const tl_world *w, double *v, size_t n) { tl_comm_max(w->ranks.dc->comm, v, n); }
void tl_decomp_or(const tl_world *w, int *v, size_t n) { tl_comm_or(w->ranks.dc->comm, v, n); }

void tl_decomp_gather_fixed(const tl_world *w, const void *mine, size_t bytes, void *all) {
    tl_decomp *d = w->ranks.dc;
    for (size_t r = 0; r < (size_t)d->face->size; r++) d->bytes_a[r] = bytes;
    tl_comm_allgather_known(d->comm, mine, bytes, all, d->bytes_a);
}

void tl_decomp_abort(const tl_world *w, const char *why) { tl_comm_abort(w->ranks.dc->comm, why); }

void tl_decomp_merge(const tl_world *w, tl_rsum *s, size_t n) {
    /* each 128-bit sum as four 32-bit limbs (the top one signed), added as 64-bit integers:
     * exact for up to 2^31 ranks; then put back together modulo 2^128 (exact, since the
     * total fits) */
    int64_t limb[4 * 16];
    for (size_t b = 0; b < n; b += 16) {
        size_t m = n - b < 16 ? n - b : 16;
        for (size_t k = 0; k < m; k++) {
            tl_u128 u = (tl_u128)s[b + k].acc;
            for (int q = 0; q < 3; q++) limb[4 * k + (size_t)q] = (int64_t)(uint32_t)(u >> (32 * q));
            limb[4 * k + 3] = (int64_t)(s[b + k].acc >> 96);
        }
        tl_comm_sum_i64(w->ranks.dc->comm, limb, 4 * m);
        for (size_t k = 0; k < m; k++) {
            tl_u128 t = 0;
            for (int q = 0; q < 4; q++) t += (tl_u128)(tl_i128)limb[4 * k + (size_t)q] << (32 * q);
            s[b + k].acc = (tl_i128)t;
        }
    }
}

/* the external forces' potential -F.x, added in the order of the forces (particle ids) as
 * tl_external_potential does, each term from the rank that owns the particle */
double tl_decomp_external_potential(const tl_world *cw) {
    tl_world *w = (tl_world *)cw; /* the exchange buffers are caches */
    tl_decomp *d = w->ranks.dc;
    size_t first, count;
    tl_world_owned(w, &first, &count);
    double *t = tl_mem_alloc(&w->mem, (2 * w->ext.count + 1) * sizeof *t);
    size_t n = 0;
    for (size_t k = 0; t && k < w->ext.count; k++) {
        int64_t i = tl_particles_index(&w->p, (uint32_t)w->ext.list[k].id);
        if (i < 0 || (size_t)i < first || (size_t)i >= first + count || w->p.inv_mass[i] == 0.0) continue;
        t[2 * n] = (double)k;
        t[2 * n + 1] = v3_dot(w->ext.list[k].f, w->p.x[i]);
        n++;
    }
    void *out = d->buf;
    size_t got = tl_comm_allgather(d->comm, &w->mem, t, t ? 2 * n * sizeof *t : 0, &out, &d->cap_buf, NULL);
    d->buf = out;
    if (t) tl_mem_free(&w->mem, t, (2 * w->ext.count + 1) * sizeof *t);
    if (got == SIZE_MAX) tl_comm_abort(d->comm, "out of memory (external potential)");
    /* each force's term in its place (a particle is owned by one rank), then added in order */
    double *by = tl_mem_alloc(&w->mem, (w->ext.count + 1) * sizeof *by);
    uint8_t *has = tl_mem_alloc(&w->mem, w->ext.count + 1);
    if (!by || !has) tl_comm_abort(d->comm, "out of memory (external potential)");
    memset(has, 0, w->ext.count + 1);
    const double *in = (const double *)(const void *)d->buf;
    for (size_t q = 0; q < got / (2 * sizeof *in); q++) {
        size_t k = (size_t)in[2 * q];
        if (k < w->ext.count) {
            by[k] = in[2 * q + 1];
            has[k] = 1;
        }
    }
    double e = 0.0;
    for (size_t k = 0; k < w->ext.count; k++)
        if (has[k]) e -= by[k];
    tl_mem_free(&w->mem, by, (w->ext.count + 1) * sizeof *by);
    tl_mem_free(&w->mem, has, w->ext.count + 1);
    return e;
}

void tl_decomp_note_immovable(tl_world *w) {
    int any = w->immovable.count > 0;
    tl_comm_or(w->ranks.dc->comm, &any, 1);
    w->ranks.any_immovable = any != 0;
}

void tl_decomp_term(tl_world *w, double t) {
    tl_decomp *d = w->ranks.dc;
    if (tl_mem_reserve(&w->mem, (void **)&d->terms, &d->cap_terms, d->nterms + 1, sizeof *d->terms) != 0)
        tl_comm_abort(d->comm, "out of memory (boundary work)"); /* the others wait in the gather */
    d->terms[d->nterms++] = t;
}

void tl_decomp_terms_subtract(tl_world *w, double *acc) {
    tl_decomp *d = w->ranks.dc;
    if (ordered_sum(w, d->terms, d->nterms, acc, -1.0) != TL_OK)
        tl_comm_abort(d->comm, "out of memory (boundary work)");
    d->nterms = 0;
}

tl_status tl_world_gather_particles(tl_world *w, tl_particle_state **out, size_t *n) {
    if (!w || !out || !n) return TL_ERROR_ARGUMENT;
    *out = NULL;
    *n = 0;
    size_t first, count;
    tl_world_owned(w, &first, &count);
    tl_particle_state *mine = tl_mem_alloc(&w->mem, (count + 1) * sizeof *mine);
    if (!mine) return no_memory(w, "gather");
    for (size_t i = 0; i < count; i++) {
        tl_status s = tl_world_particle_at(w, first + i, &mine[i]);
        if (s != TL_OK) {
            tl_mem_free(&w->mem, mine, (count + 1) * sizeof *mine);
            return s;
        }
    }
    if (!tl_ranks_on(&w->ranks)) {
        *out = malloc((count + 1) * sizeof **out);
        if (!*out) {
            tl_mem_free(&w->mem, mine, (count + 1) * sizeof *mine);
            return no_memory(w, "gather");
        }
        memcpy(*out, mine, count * sizeof *mine);
        *n = count;
        tl_mem_free(&w->mem, mine, (count + 1) * sizeof *mine);
        return TL_OK;
    }
    tl_decomp *d = w->ranks.dc;
    void *buf = d->buf;
    size_t got = tl_comm_allgather(d->comm, &w->mem, mine, count * sizeof *mine, &buf, &d->cap_buf, NULL);
    d->buf = buf;
    tl_mem_free(&w->mem, mine, (count + 1) * sizeof *mine);
    if (got == SIZE_MAX) return no_memory(w, "gather");
    if (d->face->rank != 0) return TL_OK;
    *out = malloc(got + 1);
    if (!*out) return no_memory(w, "gather");
    memcpy(*out, d->buf, got);
    *n = got / sizeof **out;
    return TL_OK;
}

/* ---- the record view ---- */

static tl_status gather_all(tl_world *w);

tl_status tl_world_view(tl_world *w, tl_view view) {
    if (!w) return TL_ERROR_ARGUMENT;
    tl_decomp *d = w->ranks.dc;
    if (!tl_ranks_spread(&w->ranks)) return TL_OK;
    d->face->view = d->face->view_all = false;
    if (view == TL_VIEW_OFF) return TL_OK;
    if (view == TL_VIEW_ALL) return gather_all(w);
    tl_world_energy(w, &d->face->venergy); /* collective */
    /* the owned particles, in global order */
    size_t first, count;
    tl_world_owned(w, &first, &count);
    tl_particle_state *mine = tl_mem_alloc(&w->mem, (count + 1) * sizeof *mine);
    int ok = mine != NULL;
    for (size_t i = 0; ok && i < count; i++) ok = tl_world_particle_at(w, first + i, &mine[i]) == TL_OK;
    void *out = d->buf;
    size_t got = tl_comm_gather0(d->comm, &w->mem, mine, ok ? count * sizeof *mine : 0, &out, &d->cap_buf);
    d->buf = out;
    if (mine) tl_mem_free(&w->mem, mine, (count + 1) * sizeof *mine);
    if (got == SIZE_MAX) return no_memory(w, "record view");
    if (d->face->rank == 0) {
        d->face->nvp = got / sizeof *d->face->vp;
        if (tl_mem_reserve(&w->mem, (void **)&d->face->vp, &d->face->cap_vp, d->face->nvp + 1, sizeof *d->face->vp) != 0 ||
            tl_keymap_reserve(&w->mem, &d->face->vindex, d->face->nvp) != 0)
            ok = 0;
        else {
            memcpy(d->face->vp, d->buf, got);
            tl_keymap_clear(&d->face->vindex);
            for (size_t i = 0; i < d->face->nvp && ok; i++)
                ok = tl_keymap_put(&w->mem, &d->face->vindex, d->face->vp[i].id, (int32_t)i) == 0;
        }
    }
    /* the touching contacts, each once: on the rank owning its first particle */
    const int nh = w->contacts.lay.hist;
    const size_t cb = sizeof(tl_contact_info) + (size_t)nh * sizeof(double);
    size_t n = 0;
    unsigned char *pack = NULL;
    size_t cap_pack = 0;
    tl_contact_info first_ci; /* the first query builds this rank's list of touching contacts */
    size_t local = tl_world_get_contact(w, 0, &first_ci) == TL_OK ? w->touch.n : 0;
    if (tl_mem_reserve(&w->mem, (void **)&pack, &cap_pack, local * cb + 1, 1) != 0) ok = 0;
    for (size_t k = 0; ok && k < local; k++) {
        tl_contact_info ci;
        if (tl_world_get_contact(w, k, &ci) != TL_OK) break;
        int64_t ia = tl_particles_index(&w->p, ci.id_a);
        if (ia < 0 || (size_t)ia < first || (size_t)ia >= first + count) continue;
        unsigned char *o = pack + n * cb;
        memcpy(o + sizeof ci, ci.history, (size_t)nh * sizeof(double));
        ci.history = NULL;
        memcpy(o, &ci, sizeof ci);
        n++;
    }
    out = d->buf;
    got = tl_comm_gather0(d->comm, &w->mem, pack, n * cb, &out, &d->cap_buf);
    d->buf = out;
    tl_mem_free(&w->mem, pack, cap_pack);
    int fine = ok && got != SIZE_MAX;
    if (fine && d->face->rank == 0) {
        d->face->nvc = got / cb;
        if (tl_mem_reserve(&w->mem, (void **)&d->face->vc, &d->face->cap_vc, d->face->nvc + 1, sizeof *d->face->vc) != 0 ||
            tl_mem_reserve(&w->mem, (void **)&d->face->vhist, &d->face->cap_vhist, d->face->nvc * (size_t)nh + 1, sizeof *d->face->vhist) != 0)
            fine = 0;
        for (size_t k = 0; fine && k < d->face->nvc; k++) {
            memcpy(&d->face->vc[k], d->buf + k * cb, sizeof *d->face->vc);
            memcpy(d->face->vhist + k * (size_t)nh, d->buf + k * cb + sizeof *d->face->vc, (size_t)nh * sizeof(double));
            d->face->vc[k].history = d->face->vhist + k * (size_t)nh;
        }
    }
    int bad = !fine;
    tl_comm_or(d->comm, &bad, 1);
    if (bad) return no_memory(w, "record view");
    d->face->view = true;
    return TL_OK;
}

/* every rank's owned particles, in global order, on every rank */
static tl_status gather_all(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    size_t first, count;
    tl_world_owned(w, &first, &count);
    tl_particle_state *mine = tl_mem_alloc(&w->mem, (count + 1) * sizeof *mine);
    int ok = mine != NULL;
    for (size_t i = 0; ok && i < count; i++) ok = tl_world_particle_at(w, first + i, &mine[i]) == TL_OK;
    void *out = d->buf;
    size_t got = tl_comm_allgather(d->comm, &w->mem, mine, ok ? count * sizeof *mine : 0, &out, &d->cap_buf, NULL);
    d->buf = out;
    if (mine) tl_mem_free(&w->mem, mine, (count + 1) * sizeof *mine);
    int bad = !ok || got == SIZE_MAX;
    if (!bad) {
        d->face->nvp = got / sizeof *d->face->vp;
        bad = tl_mem_reserve(&w->mem, (void **)&d->face->vp, &d->face->cap_vp, d->face->nvp + 1, sizeof *d->face->vp) != 0 ||
              tl_keymap_reserve(&w->mem, &d->face->vindex, d->face->nvp) != 0;
    }
    if (!bad) {
        memcpy(d->face->vp, d->buf, got);
        tl_keymap_clear(&d->face->vindex);
        for (size_t i = 0; i < d->face->nvp && !bad; i++) bad = tl_keymap_put(&w->mem, &d->face->vindex, d->face->vp[i].id, (int32_t)i) != 0;
    }
    tl_comm_or(d->comm, &bad, 1);
    if (bad) return no_memory(w, "view of all particles");
    d->face->view_all = true;
    return TL_OK;
}

tl_status tl_decomp_appended(tl_world *w, size_t i) {
    tl_decomp *d = w->ranks.dc;
    if (reserve_gidx(w, w->p.count) != 0) return no_memory(w, "insertion");
    d->gidx[i] = d->nglobal++;
    /* the last rank's store ends with its own particles (no ghost comes after them) */
    if (d->face->rank == d->face->size - 1) {
        if (i != d->face->own_hi) return tl_world_fail(w, TL_ERROR_STATE, "rank %d: an insertion at %zu after %zu", d->face->rank, i, d->face->own_hi);
        d->face->own_hi = i + 1;
    }
    return TL_OK;
}

size_t tl_world_particle_total(const tl_world *w) {
    if (!w) return 0;
    if (tl_ranks_on(&w->ranks) && w->ranks.established) return (size_t)w->ranks.dc->nglobal;
    return w->p.count;
}

tl_status tl_world_agree(tl_world *w, tl_status s) {
    if (!w || !tl_ranks_on(&w->ranks)) return s;
    int st[2] = {(int)s, s != TL_OK};
    int any = st[1];
    tl_comm_or(w->ranks.dc->comm, &any, 1);
    if (!any) return TL_OK;
    tl_comm_bcast0(w->ranks.dc->comm, st, sizeof st); /* rank 0's status when it failed */
    if (s != TL_OK) return s;
    return tl_world_fail(w, st[1] ? (tl_status)st[0] : TL_ERROR_STATE, "another rank failed");
}

tl_status tl_world_agree_message(tl_world *w, tl_status s, char *msg, size_t size) {
    if (!w || !tl_ranks_on(&w->ranks)) return s;
    const tl_comm *c = w->ranks.dc->comm;
    double first = s != TL_OK ? (double)w->ranks.rank : (double)w->ranks.size;
    tl_comm_min(c, &first, 1);
    if (first >= (double)w->ranks.size) return TL_OK;
    int root = (int)first;
    struct {
        int status;
        char text[512];
    } m;
    memset(&m, 0, sizeof m);
    m.status = (int)s;
    if (w->ranks.rank == root) {
        const char *text = msg ? msg : w->error;
        size_t len = strnlen(text, sizeof m.text - 1);
        memcpy(m.text, text, len);
    }
    tl_comm_bcast(c, &m, sizeof m, root);
    if (s != TL_OK) return s; /* its own message */
    if (!msg) return tl_world_fail(w, (tl_status)m.status, "rank %d: %s", root, m.text);
    snprintf(msg, size, "rank %d: %s", root, m.text);
    return (tl_status)m.status;
}

tl_status tl_world_parallel_stats(tl_world *w, tl_parallel_stats *s) {
    if (!w || !s) return TL_ERROR_ARGUMENT;
    memset(s, 0, sizeof *s);
    s->ranks = tl_world_ranks(w);
    s->particle_bytes = tl_particles_bytes_each();
    if (!tl_ranks_on(&w->ranks) || !w->ranks.established) {
        s->owned_total = s->owned_max = w->p.count;
        return TL_OK;
    }
    const tl_decomp *d = w->ranks.dc;
    const tl_decomp_cost *c = &d->cost;
    uint64_t owned = d->face->own_hi - d->face->own_lo, ghosts = w->p.count - owned, partners = 0, needed = 0;
    for (int r = 0; r < d->face->size; r++) partners += d->send_n[r] > 0;
    /* the ghosts some owned particle has as a candidate partner (the rest came with coarse boxes) */
    uint8_t *mark = calloc(w->p.count + 1, 1);
    if (!mark) tl_comm_abort(d->comm, "out of memory (statistics)"); /* the others wait in the sum */
#define OWN(i) ((i) >= d->face->own_lo && (i) < d->face->own_hi)
    for (size_t k = 0; k < w->contacts.pp.count; k++) {
        uint32_t a = w->contacts.pp.a[k], b = w->contacts.pp.b[k];
        if (OWN(a) && !OWN(b)) mark[b] = 1;
        if (OWN(b) && !OWN(a)) mark[a] = 1;
    }
#undef OWN
    for (size_t i = 0; i < w->p.count; i++) needed += mark[i];
    free(mark);
    uint64_t sum[4] = {owned, ghosts, c->packed, needed};
    tl_comm_sum_u64(d->comm, sum, 4);
    s->ghosts_needed_total = sum[3];
    double mx[8] = {(double)owned, (double)ghosts, (double)partners, c->pack_s, c->exchange_s, c->unpack_s,
                    c->sums_s, c->rebuild_s};
    tl_comm_max(d->comm, mx, 8);
    s->owned_total = sum[0];
    s->ghosts_total = sum[1];
    s->packed_total = sum[2];
    s->owned_max = (uint64_t)mx[0];
    s->ghosts_max = (uint64_t)mx[1];
    s->partners_max = (uint64_t)mx[2];
    s->pack_s = mx[3];
    s->exchange_s = mx[4];
    s->unpack_s = mx[5];
    s->sums_s = mx[6];
    s->rebuild_s = mx[7];
    s->refreshes = c->refreshes;
    s->rebuilds = c->rebuilds;
    s->sums = c->sums;
    s->sums_bytes = c->sums ? c->sums_bytes / c->sums : 0;
    s->collectives = tl_comm_calls(d->comm);
    return TL_OK;
}

void tl_world_allgather_u64(tl_world *w, const uint64_t *v, size_t n, uint64_t *out) {
    if (!w || !tl_ranks_on(&w->ranks)) {
        if (n) memcpy(out, v, n * sizeof *v);
        return;
    }
    const tl_comm *c = w->ranks.dc->comm;
    size_t *cnt = malloc((size_t)w->ranks.size * sizeof *cnt);
    if (!cnt) tl_comm_abort(c, "out of memory (gathering values)"); /* the others wait in it */
    for (int r = 0; r < w->ranks.size; r++) cnt[r] = n * sizeof *v;
    tl_comm_allgather_known(c, v, n * sizeof *v, out, cnt);
    free(cnt);
}

int64_t tl_world_agree_i64(tl_world *w, int64_t v) {
    if (w && tl_ranks_on(&w->ranks)) tl_comm_bcast0(w->ranks.dc->comm, &v, sizeof v);
    return v;
}

/* ---- checkpoints: a distributed world's state is the serial run's ----
 * Saving, each rank's piece joins the others' into the serial state (decomp_state.c). Loading
 * it, every rank reads the whole and keeps its share of the lists: the rows of its domains,
 * and the candidates of the others' rows that involve one of its particles. */

tl_status tl_decomp_loaded(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    tl_particles *p = &w->p;
    tl_mem *m = &w->mem;
    const size_t n = p->count, P = (size_t)d->face->size;
    partition(w, n);
    tl_decomp_log_loaded(w); /* the pending exits of this rank's rows; the log to rank 0 */
    if (w->broad.dom.count != d->ndom && n)
        return tl_world_fail(w, TL_ERROR_STATE,
                             "the state has %zu domains where %zu particles make %zu: another domain_size",
                             w->broad.dom.count, n, d->ndom);
    if (reserve_gidx(w, n) != 0) return no_memory(w, "loading");
    uint8_t *keep = scratch_keep(w);
    uint32_t *loc = tl_mem_alloc(m, (n + 1) * sizeof *loc);
    if (!keep || !loc) {
        if (loc) tl_mem_free(m, loc, (n + 1) * sizeof *loc);
        return no_memory(w, "loading");
    }
    const tl_pairs *pp = &w->contacts.pp, *pw = &w->contacts.pw;
#define OWN(i) ((i) >= d->g_lo && (i) < d->g_hi)
    for (size_t i = 0; i < n; i++) keep[i] = OWN(i);
    for (size_t k = 0; k < pp->count; k++)
        if (OWN(pp->a[k]) || OWN(pp->b[k])) keep[pp->a[k]] = keep[pp->b[k]] = 1;
    const tl_shape_list *sl = &w->contacts.sc.cand; /* the shape stage's pairs too */
    for (size_t k = 0; k < sl->count; k++)
        if (!sl->wall[k] && (OWN(sl->a[k]) || OWN(sl->b[k]))) keep[sl->a[k]] = keep[sl->b[k]] = 1;
    size_t nloc = 0, below = 0;
    for (size_t i = 0; i < n; i++) {
        loc[i] = (uint32_t)nloc;
        if (keep[i]) {
            below += i < d->g_lo;
            nloc++;
        }
    }
    const size_t mine = d->dom_hi - d->dom_lo, own_lo = below, own_hi = below + (size_t)(d->g_hi - d->g_lo);
    /* the local domains: the ghosts below, the owned ones, the ghosts above (as tl_decomp_ghosts) */
    size_t nl = (below > 0) + mine + (nloc > own_hi);
    tl_decomp_shapes_loaded(w, loc, below > 0); /* the shape stage's candidates that involve ours */
    uint32_t *lstart = tl_mem_alloc(m, (nl + 2) * sizeof *lstart);
    size_t *lpp = tl_mem_alloc(m, (nl + 2) * sizeof *lpp), *lpw = tl_mem_alloc(m, (nl + 2) * sizeof *lpw);
    tl_pairs L[2];
    tl_pairs_init(&L[0], pp->stride);
    tl_pairs_init(&L[1], pw->stride);
    tl_domains D;
    memset(&D, 0, sizeof D);
    bool bad = !lstart || !lpp || !lpw || tl_pairs_reserve(m, &L[0], pp->count + 1) != 0 ||
               tl_pairs_reserve(m, &L[1], pw->count + 1) != 0;
    size_t ld = 0;
    if (!bad && nl == 0) { /* nothing here */
        lstart[0] = 0;
        lpp[0] = lpw[0] = 0;
        L[0].count = L[1].count = 0;
        bad = tl_domains_alloc(m, &D, 0, 0) != 0;
        if (!bad) {
            D.start[0] = 0;
            D.pp_start[0] = D.pw_start[0] = D.cross_start[0] = 0;
            D.ncross = 0;
        }
    } else if (!bad) {
        if (below) lstart[ld++] = 0;
        for (size_t q = 0; q < mine; q++) lstart[ld++] = (uint32_t)(own_lo + dom_start(d, d->dom_lo + q) - d->g_lo);
        if (nloc > own_hi) lstart[ld++] = (uint32_t)own_hi;
        lstart[nl] = (uint32_t)nloc;
        /* the candidates in global order, each to the local domain of its row's domain (the
         * local domain index does not decrease with the global one: a count, then a fill) */
        for (size_t q = 0; q <= nl; q++) lpp[q] = lpw[q] = 0;
        for (int pass = 0; pass < 2; pass++) {
            size_t at = 0, atw = 0;
            for (size_t gd = 0; gd < d->ndom; gd++) {
                const bool owned_dom = gd >= d->dom_lo && gd < d->dom_hi;
                const size_t q = gd < d->dom_lo ? 0 : owned_dom ? (below > 0) + (gd - d->dom_lo) : nl - 1;
                for (size_t k = w->broad.dom.pp_start[gd]; k < w->broad.dom.pp_start[gd + 1]; k++) {
                    uint32_t a = pp->a[k], b = pp->b[k];
                    if (!OWN(a) && !OWN(b)) continue;
                    if (pass == 0) {
                        lpp[q + 1]++;
                        continue;
                    }
                    L[0].a[at] = loc[a];
                    L[0].b[at] = loc[b];
                    L[0].img[at] = pp->img[k];
                    L[0].state[at] = pp->state[k];
                    memcpy(tl_pair_record(&L[0], at), tl_pair_record(pp, k), (size_t)pp->stride * sizeof(double));
                    at++;
                }
                for (size_t k = w->broad.dom.pw_start[gd]; owned_dom && k < w->broad.dom.pw_start[gd + 1]; k++) {
                    if (pass == 0) {
                        lpw[q + 1]++;
                        continue;
                    }
                    L[1].a[atw] = loc[pw->a[k]];
                    L[1].b[atw] = pw->b[k];
                    L[1].img[atw] = pw->img[k];
                    L[1].state[atw] = pw->state[k];
                    memcpy(tl_pair_record(&L[1], atw), tl_pair_record(pw, k), (size_t)pw->stride * sizeof(double));
                    atw++;
                }
            }
            if (pass == 0)
                for (size_t q = 0; q < nl; q++) {
                    lpp[q + 1] += lpp[q];
                    lpw[q + 1] += lpw[q];
                }
        }
        const size_t at = nl ? lpp[nl] : 0, atw = nl ? lpw[nl] : 0;
        L[0].count = at;
        L[1].count = atw;
        size_t nc = tl_domains_count_cross(&L[0], lpp, lstart, nl);
        bad = tl_domains_alloc(m, &D, nl, nc) != 0;
        if (!bad) {
            memcpy(D.start, lstart, (nl + 1) * sizeof *lstart);
            memcpy(D.pp_start, lpp, (nl + 1) * sizeof *lpp);
            memcpy(D.pw_start, lpw, (nl + 1) * sizeof *lpw);
            tl_domains_cross(&D, &L[0]);
        }
    }
#undef OWN
    if (lstart) tl_mem_free(m, lstart, (nl + 2) * sizeof *lstart);
    if (lpp) tl_mem_free(m, lpp, (nl + 2) * sizeof *lpp);
    if (lpw) tl_mem_free(m, lpw, (nl + 2) * sizeof *lpw);
    tl_mem_free(m, loc, (n + 1) * sizeof *loc);
    for (size_t i = 0; i < n; i++) d->gidx[i] = i;
    tl_status st = bad ? no_memory(w, "loading") : compact(w, keep);
    if (st != TL_OK) {
        tl_pairs_free(m, &L[0]);
        tl_pairs_free(m, &L[1]);
        tl_domains_free(m, &D);
        return st;
    }
    tl_pairs_free(m, &w->contacts.pp);
    tl_pairs_free(m, &w->contacts.pw);
    tl_domains_free(m, &w->broad.dom);
    w->contacts.pp = L[0];
    w->contacts.pw = L[1];
    w->broad.dom = D;
    d->face->own_lo = own_lo;
    d->face->own_hi = own_hi;
    d->first_owned = below > 0;
    /* the refresh plan: the ghosts come in blocks per owner, each asked of it in global order */
    memset(d->recv_n, 0, P * sizeof *d->recv_n);
    uint64_t *ask = tl_mem_alloc(m, (p->count + 1) * sizeof *ask);
    if (!ask) return no_memory(w, "loading");
    size_t nask = 0;
    for (size_t i = 0; i < p->count; i++) {
        if (i >= own_lo && i < own_hi) continue;
        int r = owner_of(d, d->gidx[i]);
        if (d->recv_n[r]++ == 0) d->recv_at[r] = i;
        ask[nask++] = d->gidx[i];
    }
    for (size_t r = 0; r < P; r++) d->bytes_a[r] = d->recv_n[r] * sizeof *ask;
    void *out = d->buf;
    size_t got = tl_comm_exchange(d->comm, m, ask, d->bytes_a, &out, &d->cap_buf, d->bytes_b);
    d->buf = out;
    tl_mem_free(m, ask, (p->count + 1) * sizeof *ask);
    if (got == SIZE_MAX || tl_mem_reserve(m, (void **)&d->send_idx, &d->cap_send, got / sizeof *ask + 1,
                                          sizeof *d->send_idx) != 0)
        return no_memory(w, "loading");
    d->nsend = got / sizeof *ask;
    for (size_t r = 0, e = 0; r < P; r++) {
        d->send_n[r] = d->bytes_b[r] / sizeof *ask;
        for (size_t q = 0; q < d->send_n[r]; q++, e++) {
            uint64_t g;
            memcpy(&g, d->buf + e * sizeof g, sizeof g);
            d->send_idx[e] = (uint32_t)(own_lo + (g - d->g_lo));
        }
    }
    d->face->established = true;
    d->face->view = d->face->view_all = false;
    tl_decomp_count_bodies(w);
    return TL_OK;
}
