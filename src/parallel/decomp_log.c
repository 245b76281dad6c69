/* The collision log on several ranks; see decomp_log.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "decomp_types.h"
#include "decomp_log.h"
#include "world.h"
#include "checkpoint.h"

bool tl_decomp_log_local(const tl_world *w, int64_t i) { return tl_ranks_local(&w->ranks, i); }

void tl_decomp_log_rows(const tl_world *w, size_t lo[2], size_t hi[2]) {
    lo[0] = lo[1] = 0;
    hi[0] = w->contacts.pp.count;
    hi[1] = w->contacts.pw.count;
    if (!tl_ranks_on(&w->ranks) || !w->ranks.established) return;
    const tl_decomp *d = w->ranks.dc;
    const size_t mine = d->dom_hi - d->dom_lo, fo = d->first_owned;
    if (!mine || w->broad.dom.count < fo + mine) {
        hi[0] = hi[1] = 0;
        return;
    }
    lo[0] = w->broad.dom.pp_start[fo];
    hi[0] = w->broad.dom.pp_start[fo + mine];
    lo[1] = w->broad.dom.pw_start[fo];
    hi[1] = w->broad.dom.pw_start[fo + mine];
}

/* ---- the ends of the exits due now ---- */

static void ask(tl_world *w, uint32_t id, size_t *n) {
    tl_decomp *d = w->ranks.dc;
    if (tl_decomp_log_local(w, tl_particles_index(&w->p, id))) return;
    if (tl_mem_reserve(&w->mem, (void **)&d->log_ids, &d->cap_log_ids, *n + 1, sizeof *d->log_ids) != 0)
        tl_comm_abort(d->comm, "out of memory (collision log)"); /* the others wait in the exchange */
    d->log_ids[(*n)++] = id;
}

static int by_id(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

const double (*tl_decomp_log_fetch(tl_world *w))[7] {
    tl_decomp *d = w->ranks.dc;
    tl_mem *m = &w->mem;
    size_t n = 0;
    for (size_t k = 0; k < w->log.npend; k++) { /* as tl_measure_finish_exits reads them */
        const tl_pending_exit *e = &w->log.pend[k];
        if (e->step + 1 >= w->clock.steps) continue;
        ask(w, e->a, &n);
        if (!e->wall) ask(w, e->b, &n);
    }
    /* every rank's questions, then every owner's answers (id, v, f, 1/m) to all */
    size_t total = tl_comm_allgather(d->comm, m, d->log_ids, n * sizeof *d->log_ids, &d->log_buf,
                                     &d->cap_log_buf, NULL);
    if (total == SIZE_MAX) tl_comm_abort(d->comm, "out of memory (collision log)");
    const uint32_t *asked = d->log_buf;
    size_t na = 0;
    for (size_t q = 0; q < total / sizeof *asked; q++) {
        int64_t i = tl_particles_index(&w->p, asked[q]);
        if (i < 0 || (size_t)i < d->face->own_lo || (size_t)i >= d->face->own_hi) continue;
        if (tl_mem_reserve(m, (void **)&d->log_ans, &d->cap_log_ans, 8 * (na + 1), sizeof *d->log_ans) != 0)
            tl_comm_abort(d->comm, "out of memory (collision log)");
        double *o = d->log_ans + 8 * na++;
        o[0] = (double)asked[q]; /* exact: ids are 32-bit */
        memcpy(o + 1, w->p.v[i], 3 * sizeof(double));
        memcpy(o + 4, w->p.f[i], 3 * sizeof(double));
        o[7] = w->p.inv_mass[i];
    }
    total = tl_comm_allgather(d->comm, m, d->log_ans, na * 8 * sizeof(double), &d->log_buf, &d->cap_log_buf, NULL);
    if (total == SIZE_MAX ||
        tl_mem_reserve(m, (void **)&d->log_got, &d->cap_log_got, 7 * (n + 1), sizeof *d->log_got) != 0)
        tl_comm_abort(d->comm, "out of memory (collision log)");
    double *ans = d->log_buf;
    const size_t nans = total / (8 * sizeof(double));
    qsort(ans, nans, 8 * sizeof(double), by_id); /* an id answered twice: the same values */
    for (size_t q = 0; q < n; q++) {
        double key = (double)d->log_ids[q], *g = d->log_got + 7 * q;
        const double *hit = bsearch(&key, ans, nans, 8 * sizeof(double), by_id);
        if (hit) memcpy(g, hit + 1, 7 * sizeof(double));
        else g[6] = NAN; /* gone from every rank */
    }
    return (const double(*)[7])d->log_got;
}

/* ---- merging the ranks' logs ---- */

typedef struct keyed {
    uint64_t key;
    size_t at; /* position in the gathered entries: rank order, then each rank's order */
} keyed;

static int by_key(const void *x, const void *y) {
    const keyed *a = x, *b = y;
    if (a->key != b->key) return (a->key > b->key) - (a->key < b->key);
    return (a->at > b->at) - (a->at < b->at);
}

static uint64_t pending_key(const tl_pending_exit *e) { return 4 * (uint64_t)e->step + e->list; }

size_t tl_decomp_log_cap(size_t n) { return n ? n : 1; }

size_t tl_decomp_log_entry_bytes(int which) {
    return sizeof(uint64_t) + (which ? TL_PENDING_BYTES : TL_COLLISION_BYTES);
}

void tl_decomp_log_pack(const tl_world *w, int which, tl_wbuf *b) {
    const size_t n = which ? w->log.npend : w->log.n;
    for (size_t k = 0; k < n; k++) {
        if (which) {
            tl_wbuf_u64(b, pending_key(&w->log.pend[k]));
            tl_pending_put(b, &w->log.pend[k]);
        } else {
            tl_wbuf_u64(b, w->log.key[k]);
            tl_collision_put(b, &w->log.coll[k]);
        }
    }
}

tl_status tl_decomp_log_join(tl_world *w, int which, const unsigned char *in, size_t bytes, void **out,
                             uint64_t **keys_out, size_t *n_out) {
    tl_mem *m = &w->mem;
    const size_t eb = tl_decomp_log_entry_bytes(which), rb = which ? sizeof(tl_pending_exit) : sizeof(tl_collision);
    *out = NULL;
    if (keys_out) *keys_out = NULL;
    *n_out = 0;
    if (bytes % eb) return tl_world_fail(w, TL_ERROR_ARGUMENT, "a collision log of %zu bytes: not whole entries", bytes);
    const size_t N = bytes / eb, cap = tl_decomp_log_cap(N);
    keyed *order = tl_mem_alloc(m, (N + 1) * sizeof *order);
    unsigned char *o = tl_mem_alloc(m, cap * rb);
    uint64_t *ko = keys_out ? tl_mem_alloc(m, cap * sizeof *ko) : NULL;
    bool ok = order && o && (!keys_out || ko);
    for (size_t k = 0; ok && k < N; k++) {
        memcpy(&order[k].key, in + k * eb, sizeof(uint64_t));
        order[k].at = k;
    }
    if (ok) qsort(order, N, sizeof *order, by_key);
    bool bad_entry = false;
    for (size_t k = 0; ok && k < N; k++) {
        tl_rbuf b = {in + order[k].at * eb + sizeof(uint64_t), eb - sizeof(uint64_t), 0, false};
        if (which) tl_pending_get(&b, (tl_pending_exit *)(void *)(o + k * rb));
        else tl_collision_get(&b, (tl_collision *)(void *)(o + k * rb));
        bad_entry |= b.failed;
        if (ko) ko[k] = order[k].key;
    }
    if (order) tl_mem_free(m, order, (N + 1) * sizeof *order);
    if (!ok || bad_entry) {
        if (o) tl_mem_free(m, o, cap * rb);
        if (ko) tl_mem_free(m, ko, cap * sizeof *ko);
        return ok ? tl_world_fail(w, TL_ERROR_ARGUMENT, "a collision log entry out of range")
                  : tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (collision log)");
    }
    *out = o;
    if (keys_out) *keys_out = ko;
    *n_out = N;
    return TL_OK;
}

/* every rank's log (which 0) or pending exits (1) to rank 0, in the order of their keys, ties
 * in rank order: *out (tl_mem, tl_decomp_log_cap(n_out) entries) and *keys_out (may be NULL)
 * there */
static tl_status merge0(tl_world *w, int which, void **out, uint64_t **keys_out, size_t *n_out) {
    tl_decomp *d = w->ranks.dc;
    tl_wbuf b = {0};
    tl_decomp_log_pack(w, which, &b);
    int bad = b.failed;
    size_t got = tl_comm_gather0(d->comm, &w->mem, b.data, bad ? 0 : b.size, &d->log_buf, &d->cap_log_buf);
    free(b.data);
    bad |= got == SIZE_MAX;
    tl_comm_or(d->comm, &bad, 1);
    *out = NULL;
    if (keys_out) *keys_out = NULL;
    *n_out = 0;
    if (bad) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (collision log)");
    if (d->face->rank != 0) return TL_OK;
    return tl_decomp_log_join(w, which, d->log_buf, got, out, keys_out, n_out);
}

tl_status tl_world_collect_collisions(tl_world *w) {
    if (!w || !tl_ranks_on(&w->ranks) || !w->ranks.established) return TL_OK;
    uint64_t *k;
    size_t n;
    tl_decomp *d = w->ranks.dc;
    void *out = NULL;
    tl_status st = merge0(w, 0, &out, &k, &n);
    if (st != TL_OK) return st;
    w->log.n = 0;
    if (d->face->rank != 0) return TL_OK;
    tl_mem_free(&w->mem, w->log.coll, w->log.cap * sizeof *w->log.coll);
    tl_mem_free(&w->mem, w->log.key, w->log.cap_key * sizeof *w->log.key);
    w->log.coll = out;
    w->log.key = k;
    w->log.cap = w->log.cap_key = tl_decomp_log_cap(n);
    w->log.n = n;
    return TL_OK;
}

void tl_decomp_log_loaded(tl_world *w) {
    tl_decomp *d = w->ranks.dc;
    size_t keep = 0;
    for (size_t k = 0; k < w->log.npend; k++) {
        int64_t i = tl_particles_index(&w->p, w->log.pend[k].a); /* the whole store: i is global */
        bool mine = i < 0 ? d->face->rank == 0 : ((uint64_t)i >= d->g_lo && (uint64_t)i < d->g_hi);
        if (mine) w->log.pend[keep++] = w->log.pend[k];
    }
    w->log.npend = keep;
    if (d->face->rank != 0) w->log.n = 0;
}
