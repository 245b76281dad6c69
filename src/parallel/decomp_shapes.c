/* The shape stage over ranks; see decomp_shapes.h. */
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "decomp_types.h"
#include "decomp_shapes.h"
#include "world.h"
#include "shape_stage.h"

#define GATHERED (TL_SS_COUNT + 1) /* a slot and its face */

bool tl_decomp_own_shape(const tl_world *w, size_t k) {
    const tl_decomp *d = w->ranks.dc;
    if (!tl_ranks_spread(&w->ranks)) return true;
    const size_t dm = w->contacts.sc.cand.dom[k];
    return dm >= d->first_owned && dm < d->first_owned + (d->dom_hi - d->dom_lo);
}

void tl_decomp_count_bodies(tl_world *w) {
    size_t nb = 0;
    for (size_t i = 0; i < w->p.count; i++) nb += w->p.shape[i] != 0;
    w->shapes.nbodies = nb;
}

tl_status tl_decomp_shape_sums(tl_world *w, const double *slots, const int32_t *face, size_t n, tl_shape_sum_fn add) {
    tl_decomp *d = w->ranks.dc;
    tl_mem *m = &w->mem;
    /* the send and order buffers are kept between steps (grown, never shrunk) */
    if (tl_mem_reserve(m, (void **)&d->shape_send, &d->cap_shape_send, n * GATHERED + 1, sizeof *d->shape_send) != 0)
        tl_comm_abort(d->comm, "out of memory (shape sums)"); /* the others wait in the gather */
    double *send = d->shape_send;
    size_t ns = 0;
    for (size_t k = 0; k < n; k++) {
        if (!tl_decomp_own_shape(w, k)) continue; /* the other rank's row: it adds it */
        memcpy(send + ns * GATHERED, slots + k * TL_SS_COUNT, TL_SS_COUNT * sizeof *send);
        send[ns * GATHERED + TL_SS_COUNT] = (double)face[k];
        ns++;
    }
    size_t got = tl_comm_allgather(d->comm, m, send, ns * GATHERED * sizeof *send, &d->shape_buf, &d->cap_shape_buf,
                                   NULL);
    if (got == SIZE_MAX) tl_comm_abort(d->comm, "out of memory (shape sums)");
    /* the serial list holds the pairs of every domain, then the wall pairs of every domain;
     * each rank's part holds its pairs, then its wall pairs: a stable partition restores the
     * serial order */
    const size_t N = got / (GATHERED * sizeof(double));
    const double *g = d->shape_buf;
    if (tl_mem_reserve(m, (void **)&d->shape_ord, &d->cap_shape_ord, N * GATHERED + 1, sizeof *d->shape_ord) != 0)
        tl_comm_abort(d->comm, "out of memory (shape sums)");
    double *ord = d->shape_ord;
    size_t at = 0;
    for (int wall = 0; wall < 2; wall++)
        for (size_t k = 0; k < N; k++)
            if ((g[k * GATHERED + TL_SS_COUNT] >= 0.0) == (wall == 1))
                memcpy(ord + GATHERED * at++, g + k * GATHERED, GATHERED * sizeof *ord);
    add(w, ord, N, GATHERED, NULL);
    return TL_OK;
}

/* ---- migration: a particle's patch records go with it ---- */

/* the bytes of a pair's records on the wire: key, count, values, states (to 8 bytes) */
static size_t entry_bytes(size_t live, size_t stride) {
    return 2 * sizeof(uint64_t) + live * stride * sizeof(double) + (live + 7) / 8 * 8;
}

tl_status tl_decomp_shapes_migrate(tl_world *w, const int *dest) {
    tl_decomp *d = w->ranks.dc;
    tl_mem *m = &w->mem;
    tl_shape_contacts *sc = &w->contacts.sc;
    const tl_keymap *map = &sc->stash;
    const size_t P = (size_t)d->face->size, st = (size_t)sc->stride;
    const tl_patch_store *s = &sc->store[sc->cur];
    size_t *cnt = tl_mem_calloc(m, 2 * P, sizeof *cnt), *at = cnt ? cnt + P : NULL;
    unsigned char *send = NULL;
    size_t total = 0;
    int bad = cnt == NULL;
    for (int pass = 0; pass < 2 && !bad; pass++) {
        if (pass == 1) { /* offsets, then the fill */
            for (size_t r = 0; r < P; r++) {
                at[r] = total;
                total += cnt[r];
            }
            if (!(send = tl_mem_alloc(m, total + 1))) bad = 1;
        }
        for (size_t slot = 0; !bad && map->count && slot < map->cap; slot++) {
            uint64_t key = map->keys[slot];
            if (key == TL_KEYMAP_EMPTY) continue;
            size_t o = (size_t)map->values[slot], live = sc->live[sc->cur][o];
            uint32_t ids[2];
            int nid = 1;
            if (key >> 63) {
                ids[0] = (uint32_t)((key & ~(1ULL << 63)) >> 24);
            } else {
                ids[0] = (uint32_t)(key >> 32);
                ids[1] = (uint32_t)key;
                nid = 2;
            }
            int sent_to = -1;
            for (int q = 0; q < nid; q++) {
                int64_t i = tl_particles_index(&w->p, ids[q]);
                if (i < 0 || dest[i] == d->face->rank || dest[i] == sent_to) continue;
                size_t r = (size_t)dest[i], eb = entry_bytes(live, st);
                sent_to = dest[i];
                if (pass == 0) {
                    cnt[r] += eb;
                    continue;
                }
                unsigned char *e = send + at[r];
                uint64_t nl = live;
                memset(e, 0, eb);
                memcpy(e, &key, sizeof key);
                memcpy(e + 8, &nl, sizeof nl);
                size_t f = sc->first[sc->cur][o];
                memcpy(e + 16, s->rec + f * st, live * st * sizeof(double));
                memcpy(e + 16 + live * st * sizeof(double), s->state + f, live);
                at[r] += eb;
            }
        }
    }
    tl_comm_or(d->comm, &bad, 1);
    if (bad) tl_comm_abort(d->comm, "out of memory (migration of patch records)");
    size_t got = tl_comm_exchange(d->comm, m, send, cnt, &d->shape_buf, &d->cap_shape_buf, NULL);
    tl_mem_free(m, send, total + 1);
    tl_mem_free(m, cnt, 2 * P * sizeof *cnt);
    if (got == SIZE_MAX) tl_comm_abort(d->comm, "out of memory (migration of patch records)");
    const unsigned char *in = d->shape_buf;
    double *rec = NULL;
    size_t cap_rec = 0;
    tl_status status = TL_OK;
    for (size_t o = 0; o + 16 <= got && status == TL_OK;) {
        uint64_t key, live;
        memcpy(&key, in + o, sizeof key);
        memcpy(&live, in + o + 8, sizeof live);
        size_t eb = entry_bytes((size_t)live, st);
        if (live > 255 || o + eb > got) {
            status = tl_world_fail(w, TL_ERROR_STATE, "rank %d: a garbled patch record arrived", d->face->rank);
            break;
        }
        /* aligned copies of the values */
        if (tl_mem_reserve(m, (void **)&rec, &cap_rec, live * st + 1, sizeof *rec) != 0 ||
            (memcpy(rec, in + o + 16, live * st * sizeof(double)),
             tl_shape_contacts_adopt(w, key, (size_t)live, rec, in + o + 16 + live * st * sizeof(double)) != 0))
            status = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (migration of patch records)");
        o += eb;
    }
    if (rec) tl_mem_free(m, rec, cap_rec * sizeof *rec);
    return status;
}

/* ---- checkpoints ---- */

void tl_decomp_shapes_pack(const tl_world *w, int which, tl_wbuf *b) {
    const tl_decomp *d = w->ranks.dc;
    const bool dist = tl_ranks_spread(&w->ranks);
    const tl_shape_contacts *sc = &w->contacts.sc;
    const tl_patch_store *s = &sc->store[sc->cur];
    const size_t n = sc->cand.count, st = (size_t)sc->stride;
    /* this rank's rows (a pair between two ranks is on both lists: the row's owner sends it) */
    for (size_t k = 0; k < n; k++) {
        if (!tl_decomp_own_shape(w, k)) continue;
        size_t live = sc->live[sc->cur][k], f = sc->first[sc->cur][k];
        if (which == 0) {
            /* global indices and domain (a serial world's are its own) */
            const uint32_t ia = sc->cand.a[k], ib = sc->cand.b[k];
            uint64_t c[4] = {dist ? d->gidx[ia] : ia, sc->cand.wall[k] ? ib : dist ? d->gidx[ib] : ib,
                             (uint64_t)sc->cand.img[k] | (uint64_t)sc->cand.wall[k] << 8 | (uint64_t)live << 16,
                             dist ? d->dom_lo + (sc->cand.dom[k] - d->first_owned) : sc->cand.dom[k]};
            tl_wbuf_put(b, c, sizeof c);
            continue;
        }
        for (size_t j = 0; j < live; j++) {
            tl_wbuf_put(b, s->rec + (f + j) * st, st * sizeof(double));
            tl_wbuf_f64(b, (double)s->state[f + j]);
        }
    }
}

tl_status tl_decomp_shapes_join(tl_world *w, const unsigned char *cand, size_t ncb, const unsigned char *recs,
                                size_t nrb, int stride, uint64_t touching, tl_shape_contacts *out) {
    tl_mem *m = &w->mem;
    const size_t st = (size_t)stride, rb = (st + 1) * sizeof(double), cb = 4 * sizeof(uint64_t);
    tl_shape_contacts_init(out);
    if (ncb % cb || nrb % rb) return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape candidates: not whole entries");
    const size_t N = ncb / cb, R = nrb / rb;
    out->stride = stride;
    out->cur = 0;
    out->touching = touching;
    size_t cap = N ? N : 1;
    bool ok = tl_shape_list_reserve(m, &out->cand, cap) == 0;
    for (int b = 0; ok && b < 2; b++)
        ok = (out->first[b] = tl_mem_calloc(m, cap, sizeof *out->first[b])) != NULL &&
             (out->live[b] = tl_mem_calloc(m, cap, sizeof *out->live[b])) != NULL;
    out->cap_cand = cap; /* what was allocated is freed whole */
    if (ok && R) {
        ok = (out->store[0].rec = tl_mem_alloc(m, R * st * sizeof(double))) != NULL &&
             (out->store[0].state = tl_mem_alloc(m, R)) != NULL;
        out->store[0].cap = R;
    }
    /* the serial list holds the pairs of every domain, then the wall pairs of every domain;
     * each rank sent its pairs, then its wall pairs: a stable partition restores the serial
     * order (the records follow their candidates) */
    size_t *from = tl_mem_alloc(m, (N + 1) * sizeof *from);
    ok = ok && from;
    uint64_t c[4];
    for (size_t k = 0, f = 0; ok && k < N; k++) {
        from[k] = f;
        memcpy(c, cand + k * cb, cb);
        f += (size_t)(c[2] >> 16);
    }
    bool fits = true;
    size_t q = 0, e = 0;
    for (int wall = 0; ok && wall < 2; wall++)
        for (size_t k = 0; k < N; k++) {
            memcpy(c, cand + k * cb, cb);
            if ((((c[2] >> 8) & 0xff) != 0) != (wall == 1)) continue;
            size_t live = (size_t)(c[2] >> 16);
            fits &= c[0] <= UINT32_MAX && c[1] <= UINT32_MAX && c[3] <= UINT32_MAX && live <= UINT8_MAX;
            out->cand.a[e] = (uint32_t)c[0];
            out->cand.b[e] = (uint32_t)c[1];
            out->cand.img[e] = (uint8_t)c[2];
            out->cand.wall[e] = (uint8_t)(c[2] >> 8);
            out->cand.dom[e] = (uint32_t)c[3];
            out->first[0][e] = (uint32_t)q;
            out->live[0][e] = (uint8_t)live;
            e++;
            for (size_t j = 0; j < live && q < R && from[k] + j < R; j++, q++) {
                const unsigned char *src = recs + (from[k] + j) * rb;
                double state;
                memcpy(out->store[0].rec + q * st, src, st * sizeof(double));
                memcpy(&state, src + st * sizeof(double), sizeof state);
                fits &= state >= 0.0 && state <= 255.0;
                out->store[0].state[q] = fits ? (uint8_t)state : 0;
            }
        }
    if (from) tl_mem_free(m, from, (N + 1) * sizeof *from);
    out->cand.count = ok ? N : 0;
    out->store[0].count = ok ? q : 0;
    if (!ok) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (checkpoint)");
    if (q != R || !fits) return tl_world_fail(w, TL_ERROR_ARGUMENT, "shape candidates and records do not agree");
    return TL_OK;
}

tl_status tl_decomp_shapes_loaded(tl_world *w, const uint32_t *loc, bool has_below) {
    const tl_decomp *d = w->ranks.dc;
    tl_shape_contacts *sc = &w->contacts.sc;
    tl_patch_store *s = &sc->store[sc->cur];
    const size_t n = sc->cand.count, st = (size_t)sc->stride;
    size_t kept = 0, at = 0;
#define OWN(i) ((i) >= d->g_lo && (i) < d->g_hi)
    for (size_t k = 0; k < n; k++) {
        uint32_t a = sc->cand.a[k], b = sc->cand.b[k];
        bool wall = sc->cand.wall[k] != 0;
        if (!(OWN(a) || (!wall && OWN(b)))) continue;
        size_t live = sc->live[sc->cur][k], f = sc->first[sc->cur][k];
        sc->cand.a[kept] = loc[a];
        sc->cand.b[kept] = wall ? b : loc[b];
        sc->cand.img[kept] = sc->cand.img[k];
        sc->cand.wall[kept] = sc->cand.wall[k];
        const uint32_t gd = sc->cand.dom[k], mine = (uint32_t)(d->dom_hi - d->dom_lo), hb = has_below ? 1u : 0u;
        sc->cand.dom[kept] = gd < d->dom_lo ? 0u : gd < d->dom_hi ? hb + (uint32_t)(gd - d->dom_lo) : hb + mine;
        memmove(s->rec + at * st, s->rec + f * st, live * st * sizeof *s->rec); /* at <= f: in place */
        memmove(s->state + at, s->state + f, live);
        sc->first[sc->cur][kept] = (uint32_t)at;
        sc->live[sc->cur][kept] = (uint8_t)live;
        at += live;
        kept++;
    }
#undef OWN
    sc->cand.count = kept;
    s->count = at;
    return TL_OK;
}
