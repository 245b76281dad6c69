/*
 * A world's state in pieces (docs/parallel.md, "Checkpoints").
 *
 * A piece is one rank's share of the state: its owned particles (in the
 * global order), the candidate rows of its domains with their contact records
 * (global indices) and their counts per domain, its collision log and pending
 * exits, the shape stage's candidates of its rows with their patch records.
 * No communication makes it: every rank writes its own, O(N / P). The frame
 * is the rest of the state, which every rank holds whole (time, ledger,
 * generator, walls, external forces): rank 0's.
 *
 * The serial state's bytes are the frame with the pieces joined, in rank
 * order, in its two gaps (the particles; the lists), whatever the number of
 * ranks that joins them: the owned domains' rows are the serial rows, so the
 * serial lists are the ranks' rows concatenated in domain order; the logs
 * merge by key; the shape candidates are partitioned pairs before wall pairs.
 * tl_world_save_state on ranks is the same join on rank 0 of the gathered
 * pieces, so every checkpoint test of the ranks checks the join too.
 *
 * Piece layout (u64 in the machine's order): magic "TALUSPC1", format, rank,
 * ranks, particles of the whole, domains of the whole, the shape stage's
 * touching count, bytes per particle, record stride, shape record stride;
 * then eight blocks, each its byte count and bytes: particles (packed), the
 * counts of candidates and wall candidates per own domain, candidates, wall
 * candidates (a, b, img | state << 8, the record), the collision log, the
 * pending exits (key, entry field by field), shape candidates, shape records;
 * the magic again. Frame layout: the byte counts of its three parts, then
 * the parts.
 */
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "decomp_types.h"
#include "decomp_state.h"
#include "decomp_log.h"
#include "decomp_shapes.h"
#include "world.h"
#include "checkpoint.h"

#define PIECE_MAGIC 0x31435053554c4154ULL /* "TALUSPC1" */
#define PIECE_FORMAT 1u
#define HEAD_VALUES 10

enum { B_PARTICLES, B_COUNTS, B_PAIRS, B_WALL_PAIRS, B_LOG, B_PENDING, B_SHAPES, B_SHAPE_RECS, NBLOCKS };

static bool distributed(const tl_world *w) { return tl_ranks_on(&w->ranks) && w->ranks.established; }

static uint64_t global_index(const tl_world *w, uint32_t i) { return distributed(w) ? w->ranks.dc->gidx[i] : i; }

static size_t block_begin(tl_wbuf *b) {
    size_t at = b->size;
    tl_wbuf_u64(b, 0);
    return at;
}
static void block_end(tl_wbuf *b, size_t at) {
    uint64_t n = b->size - at - sizeof n;
    if (!b->failed) memcpy(b->data + at, &n, sizeof n);
}

/* the rows of the owned domains: candidates (q 0) or wall candidates (q 1) */
static void pack_rows(const tl_world *w, int q, size_t lo, size_t hi, tl_wbuf *b) {
    const tl_pairs *l = q ? &w->contacts.pw : &w->contacts.pp;
    const size_t rec = (size_t)l->stride * sizeof(double);
    const size_t *start = q ? w->broad.dom.pw_start : w->broad.dom.pp_start;
    /* serially without domains (before a build), the whole list */
    size_t k0 = hi > lo ? start[lo] : 0, k1 = hi > lo ? start[hi] : distributed(w) ? 0 : l->count;
    for (size_t k = k0; k < k1; k++) {
        uint64_t v[3] = {global_index(w, l->a[k]), q ? l->b[k] : global_index(w, l->b[k]),
                         (uint64_t)l->img[k] | (uint64_t)l->state[k] << 8};
        tl_wbuf_put(b, v, sizeof v);
        if (rec) tl_wbuf_put(b, tl_pair_record(l, k), rec); /* no records: no pointer into none */
    }
}

tl_status tl_world_save_piece(const tl_world *w, void **data, size_t *size) {
    if (!w || !data || !size) return TL_ERROR_ARGUMENT;
    *data = NULL;
    *size = 0;
    if (!w->prepared) return TL_ERROR_STATE;
    const bool dist = distributed(w);
    const tl_decomp *d = w->ranks.dc;
    const size_t pb = tl_particles_bytes_each();
    size_t first, count;
    tl_world_owned(w, &first, &count);
    /* the own domains, as local domain indices [lo, hi) of w->broad.dom */
    size_t lo = 0, hi = w->broad.dom.count, mine = w->broad.dom.count;
    if (dist) {
        mine = d->dom_hi - d->dom_lo;
        lo = d->first_owned;
        hi = w->broad.dom.count >= lo + mine ? lo + mine : lo; /* no lists yet: none of their rows */
    }
    tl_wbuf b = {0};
    uint64_t head[HEAD_VALUES] = {PIECE_MAGIC,
                                  PIECE_FORMAT,
                                  (uint64_t)tl_world_rank(w),
                                  (uint64_t)tl_world_ranks(w),
                                  dist ? d->nglobal : w->p.count,
                                  dist ? d->ndom : w->broad.dom.count,
                                  w->contacts.sc.touching,
                                  pb,
                                  (uint64_t)w->contacts.pp.stride,
                                  (uint64_t)w->contacts.sc.stride};
    tl_wbuf_put(&b, head, sizeof head);
    size_t at = block_begin(&b);
    unsigned char *o = tl_wbuf_room(&b, count * pb);
    for (size_t i = 0; o && i < count; i++) tl_particles_pack(&w->p, first + i, o + i * pb);
    block_end(&b, at);
    at = block_begin(&b);
    for (size_t q = lo; q < lo + mine; q++) {
        tl_wbuf_u64(&b, q < hi ? w->broad.dom.pp_start[q + 1] - w->broad.dom.pp_start[q] : 0);
        tl_wbuf_u64(&b, q < hi ? w->broad.dom.pw_start[q + 1] - w->broad.dom.pw_start[q] : 0);
    }
    block_end(&b, at);
    for (int q = 0; q < 2; q++) {
        at = block_begin(&b);
        pack_rows(w, q, lo, hi, &b);
        block_end(&b, at);
    }
    for (int q = 0; q < 2; q++) {
        at = block_begin(&b);
        tl_decomp_log_pack(w, q, &b);
        block_end(&b, at);
    }
    for (int q = 0; q < 2; q++) {
        at = block_begin(&b);
        tl_decomp_shapes_pack(w, q, &b);
        block_end(&b, at);
    }
    tl_wbuf_u64(&b, PIECE_MAGIC);
    if (b.failed) {
        free(b.data);
        return tl_world_fail((tl_world *)w, TL_ERROR_MEMORY, "out of memory (checkpoint piece)");
    }
    *data = b.data;
    *size = b.size;
    return TL_OK;
}

tl_status tl_world_save_frame(const tl_world *w, void **data, size_t *size) {
    if (!w || !data || !size) return TL_ERROR_ARGUMENT;
    *data = NULL;
    *size = 0;
    if (!w->prepared) return TL_ERROR_STATE;
    tl_world empty = *w; /* the world held whole, its particles and lists left out */
    empty.p.count = 0;
    empty.contacts.pp.count = empty.contacts.pw.count = 0;
    empty.broad.dom.count = empty.broad.dom.ncross = 0;
    empty.contacts.sc.cand.count = 0;
    empty.contacts.sc.store[empty.contacts.sc.cur].count = 0;
    empty.log.n = empty.log.npend = 0;
    memset(&empty.ranks, 0, sizeof empty.ranks);
    void *all = NULL;
    size_t n = 0, mk[4];
    tl_status st = tl_world_save_marked(&empty, &all, &n, mk);
    if (st != TL_OK) return tl_world_fail((tl_world *)w, st, "out of memory (checkpoint frame)");
    tl_wbuf b = {0};
    const uint64_t part[3] = {mk[0], mk[2] - mk[1], n - mk[3]};
    tl_wbuf_put(&b, part, sizeof part);
    tl_wbuf_put(&b, all, mk[0]);
    tl_wbuf_put(&b, (unsigned char *)all + mk[1], part[1]);
    tl_wbuf_put(&b, (unsigned char *)all + mk[3], part[2]);
    free(all);
    if (b.failed) {
        free(b.data);
        return tl_world_fail((tl_world *)w, TL_ERROR_MEMORY, "out of memory (checkpoint frame)");
    }
    *data = b.data;
    *size = b.size;
    return TL_OK;
}

/* ---- joining ---- */

typedef struct piece_view {
    uint64_t head[HEAD_VALUES];
    const unsigned char *block[NBLOCKS];
    size_t bytes[NBLOCKS];
} piece_view;

static tl_status bad_piece(tl_world *w, size_t k, const char *why) {
    return tl_world_fail(w, TL_ERROR_ARGUMENT, "checkpoint piece %zu: %s", k, why);
}

static tl_status view_piece(tl_world *w, const void *data, size_t size, size_t k, size_t n, piece_view *v) {
    tl_rbuf b = {data, size, 0, false};
    tl_rbuf_get(&b, v->head, sizeof v->head);
    if (b.failed || v->head[0] != PIECE_MAGIC) return bad_piece(w, k, "not a Talus checkpoint piece");
    if (v->head[1] != PIECE_FORMAT) return bad_piece(w, k, "another format of piece");
    if (v->head[2] != k || v->head[3] != n) return bad_piece(w, k, "the piece of another rank or rank count");
    if (v->head[7] != tl_particles_bytes_each())
        return bad_piece(w, k, "written by a different build of Talus (particle sizes differ)");
    /* the records' strides are the writer's layout (the loading checks it against the laws) */
    if (v->head[8] > 4096 || v->head[9] > 4096) return bad_piece(w, k, "record strides out of range");
    for (int q = 0; q < NBLOCKS; q++) {
        uint64_t len = tl_rbuf_u64(&b);
        if (b.failed || len > b.size - b.at) return bad_piece(w, k, "truncated");
        v->block[q] = b.data + b.at;
        v->bytes[q] = (size_t)len;
        b.at += (size_t)len;
    }
    if (tl_rbuf_u64(&b) != PIECE_MAGIC || b.failed || b.at != b.size)
        return bad_piece(w, k, "no end mark where expected");
    return TL_OK;
}

/* block q of every piece, concatenated (malloc'd; *bytes) */
static unsigned char *concat(const piece_view *v, size_t n, int q, size_t *bytes) {
    size_t total = 0;
    for (size_t k = 0; k < n; k++) total += v[k].bytes[q];
    unsigned char *c = malloc(total ? total : 1);
    if (!c) return NULL;
    for (size_t k = 0, at = 0; k < n; at += v[k].bytes[q], k++)
        if (v[k].bytes[q]) memcpy(c + at, v[k].block[q], v[k].bytes[q]);
    *bytes = total;
    return c;
}

/* the candidates of a block into l (a and b checked against the particles or faces) */
static bool read_rows(tl_world *w, tl_pairs *l, const unsigned char *in, size_t bytes, uint64_t na, uint64_t nb) {
    const size_t stride = (size_t)l->stride, eb = 3 * sizeof(uint64_t) + stride * sizeof(double);
    if (bytes % eb) return false;
    const size_t n = bytes / eb;
    if (tl_pairs_reserve(&w->mem, l, n + 1) != 0) return false;
    for (size_t k = 0; k < n; k++) {
        const unsigned char *o = in + k * eb;
        uint64_t v[3];
        memcpy(v, o, sizeof v);
        if (v[0] >= na || v[1] >= nb || v[2] >> 16) return false;
        l->a[k] = (uint32_t)v[0];
        l->b[k] = (uint32_t)v[1];
        l->img[k] = (uint8_t)v[2];
        l->state[k] = (uint8_t)(v[2] >> 8);
        if (stride) memcpy(tl_pair_record(l, k), o + sizeof v, stride * sizeof(double));
    }
    l->count = n;
    return true;
}

/* the domains of the whole from the counts per domain (domain q starts at q N / ndom) */
static bool make_domains(tl_world *w, tl_domains *D, const tl_pairs *pp, const uint64_t *c, size_t nd, uint64_t N,
                         size_t npw) {
    tl_mem *m = &w->mem;
    size_t *pps = tl_mem_alloc(m, (nd + 1) * sizeof *pps);
    uint32_t *starts = tl_mem_alloc(m, (nd + 1) * sizeof *starts);
    bool ok = pps && starts;
    size_t sum_pw = 0;
    for (size_t q = 0; ok && q <= nd; q++) {
        starts[q] = (uint32_t)(q * N / nd);
        pps[q] = q ? pps[q - 1] + (size_t)c[2 * (q - 1)] : 0;
        if (q) sum_pw += (size_t)c[2 * (q - 1) + 1];
        ok = pps[q] <= pp->count && sum_pw <= npw;
    }
    ok = ok && pps[nd] == pp->count && sum_pw == npw;
    size_t nc = ok ? tl_domains_count_cross(pp, pps, starts, nd) : 0;
    ok = ok && tl_domains_alloc(m, D, nd, nc) == 0;
    for (size_t q = 0; ok && q <= nd; q++) {
        D->start[q] = starts[q];
        D->pp_start[q] = pps[q];
        D->pw_start[q] = q ? D->pw_start[q - 1] + (size_t)c[2 * (q - 1) + 1] : 0;
    }
    if (ok) tl_domains_cross(D, pp);
    if (starts) tl_mem_free(m, starts, (nd + 1) * sizeof *starts);
    if (pps) tl_mem_free(m, pps, (nd + 1) * sizeof *pps);
    return ok;
}

tl_status tl_world_join_state(tl_world *w, const void *frame, size_t frame_size, const void *const *pieces,
                              const size_t *sizes, size_t n, void **data, size_t *size) {
    if (!w || !frame || !pieces || !sizes || !n || !data || !size) return TL_ERROR_ARGUMENT;
    *data = NULL;
    *size = 0;
    if (!w->prepared) return TL_ERROR_STATE;
    tl_mem *m = &w->mem;
    /* the frame's three parts */
    uint64_t part[3] = {0, 0, 0};
    tl_rbuf fb = {frame, frame_size, 0, false};
    tl_rbuf_get(&fb, part, sizeof part);
    if (fb.failed || part[0] > fb.size - fb.at || part[1] > fb.size - fb.at - part[0] ||
        part[2] != fb.size - fb.at - part[0] - part[1])
        return tl_world_fail(w, TL_ERROR_ARGUMENT, "a checkpoint frame whose parts do not add up");
    piece_view *v = calloc(n, sizeof *v);
    if (!v) return tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (joining a checkpoint)");
    tl_status st = TL_OK;
    for (size_t k = 0; k < n && st == TL_OK; k++) {
        st = view_piece(w, pieces[k], sizes[k], k, n, &v[k]);
        if (st == TL_OK && (v[k].head[4] != v[0].head[4] || v[k].head[5] != v[0].head[5] ||
                            v[k].head[6] != v[0].head[6] || v[k].head[8] != v[0].head[8] ||
                            v[k].head[9] != v[0].head[9]))
            st = bad_piece(w, k, "of another state than piece 0 (the counts of the whole differ)");
    }
    const uint64_t N = v[0].head[4], nd = v[0].head[5], pb = v[0].head[7];
    unsigned char *cat[NBLOCKS] = {0};
    size_t cb[NBLOCKS] = {0};
    for (int q = 0; q < NBLOCKS && st == TL_OK; q++)
        if (!(cat[q] = concat(v, n, q, &cb[q]))) st = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (joining a checkpoint)");
    tl_particles GP;
    tl_particles_init(&GP);
    tl_pairs L[2];
    tl_pairs_init(&L[0], (int)v[0].head[8]);
    tl_pairs_init(&L[1], (int)v[0].head[8]);
    tl_domains D;
    memset(&D, 0, sizeof D);
    tl_shape_contacts GS;
    tl_shape_contacts_init(&GS);
    void *GC = NULL, *GE = NULL;
    uint64_t *GK = NULL;
    size_t ngc = 0, nge = 0;
    if (st == TL_OK && (cb[B_PARTICLES] != N * pb || N > UINT32_MAX || nd > N || cb[B_COUNTS] != 2 * nd * sizeof(uint64_t)))
        st = tl_world_fail(w, TL_ERROR_ARGUMENT,
                           "checkpoint pieces with %zu particle bytes and %zu count bytes, for %llu particles in "
                           "%llu domains",
                           cb[B_PARTICLES], cb[B_COUNTS], (unsigned long long)N, (unsigned long long)nd);
    for (uint64_t i = 0; st == TL_OK && i < N; i++)
        if (tl_particles_push_packed(m, &GP, cat[B_PARTICLES] + i * pb) < 0)
            st = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (joining a checkpoint)");
    if (st == TL_OK && (!read_rows(w, &L[0], cat[B_PAIRS], cb[B_PAIRS], N, N) ||
                        !read_rows(w, &L[1], cat[B_WALL_PAIRS], cb[B_WALL_PAIRS], N, w->walls.nfaces)))
        st = tl_world_fail(w, TL_ERROR_ARGUMENT, "checkpoint pieces whose candidates are not whole or out of range");
    if (st == TL_OK && nd && !make_domains(w, &D, &L[0], (const uint64_t *)(const void *)cat[B_COUNTS], (size_t)nd, N, L[1].count))
        st = tl_world_fail(w, TL_ERROR_ARGUMENT, "checkpoint pieces whose counts per domain do not fit their candidates");
    if (st == TL_OK) st = tl_decomp_log_join(w, 0, cat[B_LOG], cb[B_LOG], &GC, &GK, &ngc);
    if (st == TL_OK) st = tl_decomp_log_join(w, 1, cat[B_PENDING], cb[B_PENDING], &GE, NULL, &nge);
    if (st == TL_OK)
        st = tl_decomp_shapes_join(w, cat[B_SHAPES], cb[B_SHAPES], cat[B_SHAPE_RECS], cb[B_SHAPE_RECS], (int)v[0].head[9],
                                   v[0].head[6], &GS);
    void *joined = NULL;
    size_t nj = 0, mk[4];
    if (st == TL_OK) {
        tl_world shadow = *w; /* the serial world these pieces make: its lists are what is taken */
        shadow.p = GP;
        shadow.contacts.pp = L[0];
        shadow.contacts.pw = L[1];
        shadow.broad.dom = D;
        shadow.contacts.sc = GS;
        shadow.log.coll = GC;
        shadow.log.n = ngc;
        shadow.log.pend = GE;
        shadow.log.npend = nge;
        memset(&shadow.ranks, 0, sizeof shadow.ranks);
        if (tl_world_save_marked(&shadow, &joined, &nj, mk) != TL_OK)
            st = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (joining a checkpoint)");
    }
    if (st == TL_OK) {
        /* the frame's parts around the particles and the lists */
        const unsigned char *g = fb.data + fb.at;
        tl_wbuf b = {0};
        tl_wbuf_put(&b, g, part[0]);
        tl_wbuf_put(&b, (unsigned char *)joined + mk[0], mk[1] - mk[0]);
        tl_wbuf_put(&b, g + part[0], part[1]);
        tl_wbuf_put(&b, (unsigned char *)joined + mk[2], mk[3] - mk[2]);
        tl_wbuf_put(&b, g + part[0] + part[1], part[2]);
        if (b.failed) {
            free(b.data);
            st = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (joining a checkpoint)");
        } else {
            *data = b.data;
            *size = b.size;
        }
    }
    free(joined);
    tl_particles_free(m, &GP);
    tl_pairs_free(m, &L[0]);
    tl_pairs_free(m, &L[1]);
    tl_domains_free(m, &D);
    tl_shape_contacts_free(m, &GS);
    if (GC) tl_mem_free(m, GC, tl_decomp_log_cap(ngc) * sizeof(tl_collision));
    if (GK) tl_mem_free(m, GK, tl_decomp_log_cap(ngc) * sizeof *GK);
    if (GE) tl_mem_free(m, GE, tl_decomp_log_cap(nge) * sizeof(tl_pending_exit));
    for (int q = 0; q < NBLOCKS; q++) free(cat[q]);
    free(v);
    return st;
}

/* ---- the serial state of a distributed world, on rank 0 (collective) ---- */

tl_status tl_decomp_save_state(const tl_world *cw, void **data, size_t *size) {
    tl_world *w = (tl_world *)cw; /* the exchange buffers are caches */
    tl_decomp *d = w->ranks.dc;
    void *piece = NULL;
    size_t ps = 0;
    tl_status st = tl_world_save_piece(w, &piece, &ps);
    uint64_t len = st == TL_OK ? ps : 0;
    /* every piece's length, then the pieces: rank 0 sees each whole */
    const size_t P = (size_t)d->face->size;
    uint64_t *lens = tl_mem_alloc(&w->mem, P * sizeof *lens);
    int bad = st != TL_OK || !lens;
    tl_comm_or(d->comm, &bad, 1);
    if (bad) {
        free(piece);
        if (lens) tl_mem_free(&w->mem, lens, P * sizeof *lens);
        return st != TL_OK ? st : tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (checkpoint)");
    }
    for (size_t r = 0; r < P; r++) d->bytes_a[r] = sizeof len; /* every rank's length, to all */
    tl_comm_allgather_known(d->comm, &len, sizeof len, lens, d->bytes_a);
    void *gathered = d->buf;
    size_t got = tl_comm_gather0(d->comm, &w->mem, piece, ps, &gathered, &d->cap_buf);
    d->buf = gathered;
    free(piece);
    if (d->face->rank == 0 && got != SIZE_MAX) {
        const void **pv = malloc(P * sizeof *pv);
        size_t *sz = malloc(P * sizeof *sz);
        void *frame = NULL;
        size_t fs = 0;
        if (!pv || !sz) st = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (checkpoint)");
        for (size_t k = 0, at = 0; st == TL_OK && k < P; at += sz[k], k++) {
            pv[k] = (const unsigned char *)d->buf + at;
            sz[k] = (size_t)lens[k];
        }
        if (st == TL_OK) st = tl_world_save_frame(w, &frame, &fs);
        if (st == TL_OK) st = tl_world_join_state(w, frame, fs, pv, sz, P, data, size);
        free(frame);
        free(pv);
        free(sz);
    } else if (got == SIZE_MAX) {
        st = tl_world_fail(w, TL_ERROR_MEMORY, "out of memory (checkpoint)");
    }
    tl_mem_free(&w->mem, lens, P * sizeof *lens);
    return st;
}
