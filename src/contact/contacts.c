#include "contacts.h"

#include "parallel.h"

#include <stdint.h>
#include <string.h>

tl_rec_layout tl_rec_layout_make(int hist, bool energy, bool impact) {
    tl_rec_layout l;
    l.hist = hist;
    int at = hist + TL_BK_CORE;
    l.energy = energy ? at : -1;
    if (energy) at += TL_BE_COUNT;
    l.impact = impact ? at : -1;
    if (impact) at += TL_BI_COUNT;
    l.stride = at;
    return l;
}

void tl_pairs_init(tl_pairs *l, int stride) {
    memset(l, 0, sizeof *l);
    l->stride = stride;
}

void tl_pairs_free(tl_mem *mem, tl_pairs *l) {
    tl_mem_free(mem, l->a, l->cap * sizeof *l->a);
    tl_mem_free(mem, l->b, l->cap * sizeof *l->b);
    tl_mem_free(mem, l->img, l->cap * sizeof *l->img);
    tl_mem_free(mem, l->state, l->cap * sizeof *l->state);
    tl_mem_free(mem, l->rec_block, l->rec_block_bytes);
    tl_pairs_init(l, l->stride);
}

/* A block for n records of `stride` values, with rec aligned to 64 bytes. */
static double *alloc_records(tl_mem *mem, size_t n, size_t stride, void **block, size_t *bytes) {
    size_t sz = n * stride * sizeof(double) + 64;
    void *b = tl_mem_alloc(mem, sz);
    if (!b) return NULL;
    *block = b;
    *bytes = sz;
    uintptr_t at = ((uintptr_t)b + 63u) & ~(uintptr_t)63u;
    return (double *)at;
}

int tl_pairs_reserve(tl_mem *mem, tl_pairs *l, size_t n) {
    if (n <= l->cap) return 0;
    /* the lists are the largest arrays: 1.5x growth, or what is asked plus an eighth */
    size_t ncap = l->cap + l->cap / 2;
    if (ncap < n) ncap = n + n / 8 + 64;
    size_t st = (size_t)l->stride;
    tl_pairs nl = *l;
    nl.a = tl_mem_realloc(mem, l->a, l->cap * sizeof *l->a, ncap * sizeof *l->a);
    if (!nl.a) return -1;
    l->a = nl.a;
    nl.b = tl_mem_realloc(mem, l->b, l->cap * sizeof *l->b, ncap * sizeof *l->b);
    if (!nl.b) return -1;
    l->b = nl.b;
    nl.img = tl_mem_realloc(mem, l->img, l->cap * sizeof *l->img, ncap * sizeof *l->img);
    if (!nl.img) return -1;
    l->img = nl.img;
    nl.state = tl_mem_realloc(mem, l->state, l->cap * sizeof *l->state, ncap * sizeof *l->state);
    if (!nl.state) return -1;
    l->state = nl.state;
    if (st) {
        void *blk;
        size_t bytes;
        double *r = alloc_records(mem, ncap, st, &blk, &bytes);
        if (!r) return -1;
        if (l->count) memcpy(r, l->rec, l->count * st * sizeof *r);
        tl_mem_free(mem, l->rec_block, l->rec_block_bytes);
        l->rec = r;
        l->rec_block = blk;
        l->rec_block_bytes = bytes;
    }
    /* every array now has ncap entries */
    l->cap = ncap;
    return 0;
}

size_t tl_pairs_touching(const tl_pairs *l) {
    size_t n = 0;
    for (size_t k = 0; k < l->count; k++) n += l->state[k] & TL_PAIR_TOUCH;
    return n;
}

void tl_rec_copy_layout(double *n, const tl_rec_layout *to, const double *o, const tl_rec_layout *from) {
    int h = from->hist < to->hist ? from->hist : to->hist;
    memcpy(n, o, (size_t)h * sizeof *n);
    memcpy(n + to->hist, o + from->hist, TL_BK_CORE * sizeof *n);
    if (from->energy >= 0 && to->energy >= 0) memcpy(n + to->energy, o + from->energy, TL_BE_COUNT * sizeof *n);
    if (from->impact >= 0 && to->impact >= 0) memcpy(n + to->impact, o + from->impact, TL_BI_COUNT * sizeof *n);
}

void tl_shape_list_free(tl_mem *mem, tl_shape_list *l) {
    tl_mem_free(mem, l->a, l->cap * sizeof *l->a);
    tl_mem_free(mem, l->b, l->cap * sizeof *l->b);
    tl_mem_free(mem, l->img, l->cap * sizeof *l->img);
    tl_mem_free(mem, l->wall, l->cap * sizeof *l->wall);
    tl_mem_free(mem, l->dom, l->cap * sizeof *l->dom);
    memset(l, 0, sizeof *l);
}

int tl_shape_list_reserve(tl_mem *mem, tl_shape_list *l, size_t n) {
    if (n <= l->cap) return 0;
    size_t ncap = l->cap + l->cap / 2;
    if (ncap < n) ncap = n + n / 8 + 16;
    uint32_t *a = tl_mem_realloc(mem, l->a, l->cap * sizeof *a, ncap * sizeof *a);
    if (!a) return -1;
    l->a = a;
    uint32_t *b = tl_mem_realloc(mem, l->b, l->cap * sizeof *b, ncap * sizeof *b);
    if (!b) return -1; /* a is larger than cap says: freed by its smaller size, harmless */
    l->b = b;
    uint8_t *img = tl_mem_realloc(mem, l->img, l->cap, ncap);
    if (!img) return -1;
    l->img = img;
    uint8_t *wall = tl_mem_realloc(mem, l->wall, l->cap, ncap);
    if (!wall) return -1;
    l->wall = wall;
    uint32_t *dom = tl_mem_realloc(mem, l->dom, l->cap * sizeof *dom, ncap * sizeof *dom);
    if (!dom) return -1;
    l->dom = dom;
    l->cap = ncap;
    return 0;
}

int tl_pairs_relayout(tl_mem *mem, tl_pairs *l, const tl_rec_layout *from, const tl_rec_layout *to) {
    size_t st = (size_t)to->stride, sf = (size_t)from->stride;
    double *nr = NULL;
    void *blk = NULL;
    size_t bytes = 0;
    if (l->cap && st) {
        nr = alloc_records(mem, l->cap, st, &blk, &bytes);
        if (!nr) return -1;
        memset(nr, 0, l->cap * st * sizeof *nr);
    }
    for (size_t k = 0; k < l->count; k++) tl_rec_copy_layout(nr + k * st, to, l->rec + k * sf, from);
    tl_mem_free(mem, l->rec_block, l->rec_block_bytes);
    l->rec = nr;
    l->rec_block = blk;
    l->rec_block_bytes = bytes;
    l->stride = to->stride;
    return 0;
}

static uint64_t pair_key(const tl_pairs *l, size_t k, bool wall, const uint32_t *ids) {
    return wall ? tl_key_pw(ids[l->a[k]], l->b[k]) : tl_key_pp(ids[l->a[k]], ids[l->b[k]]);
}

void tl_stash_init(tl_stash *s) {
    memset(s, 0, sizeof *s);
    tl_keymap_init(&s->pp);
    tl_keymap_init(&s->pw);
}

void tl_stash_free(tl_mem *mem, tl_stash *s) {
    tl_keymap_free(mem, &s->pp);
    tl_keymap_free(mem, &s->pw);
    tl_mem_free(mem, s->rec, s->cap * (size_t)s->stride * sizeof *s->rec);
    tl_mem_free(mem, s->state, s->cap * sizeof *s->state);
    tl_stash_init(s);
}

size_t tl_stash_bytes(const tl_stash *s) {
    return s->cap * ((size_t)s->stride * sizeof(double) + 1) +
           (s->pp.cap + s->pw.cap) * (sizeof(uint64_t) + sizeof(int32_t));
}

static int stash_list(tl_mem *mem, tl_stash *s, tl_keymap *map, const tl_pairs *l, bool wall,
                      const uint32_t *ids) {
    size_t st = (size_t)s->stride;
    for (size_t k = 0; k < l->count; k++) {
        if (!(l->state[k] & TL_PAIR_TOUCH)) continue;
        memcpy(s->rec + s->count * st, l->rec + k * st, st * sizeof *s->rec);
        s->state[s->count] = l->state[k] & (TL_PAIR_TOUCH | TL_PAIR_SLIDING);
        if (tl_keymap_put(mem, map, pair_key(l, k, wall, ids), (int32_t)s->count) != 0) return -1;
        s->count++;
    }
    return 0;
}

/* room for ncap records */
static int stash_grow(tl_mem *mem, tl_stash *s, size_t ncap) {
    size_t st = (size_t)s->stride;
    double *r = tl_mem_realloc(mem, s->rec, s->cap * st * sizeof *r, ncap * st * sizeof *r);
    if (!r) return -1;
    s->rec = r;
    uint8_t *q = tl_mem_realloc(mem, s->state, s->cap, ncap);
    if (!q) return -1; /* rec is larger than cap says: freed by its smaller size, harmless */
    s->state = q;
    s->cap = ncap;
    return 0;
}

int tl_stash_take(tl_mem *mem, tl_stash *s, const tl_pairs *pp, const tl_pairs *pw,
                  const uint32_t *ids) {
    tl_keymap_clear(&s->pp);
    tl_keymap_clear(&s->pw);
    s->count = 0;
    size_t npp = tl_pairs_touching(pp), npw = tl_pairs_touching(pw), n = npp + npw;
    if (s->stride != pp->stride) {
        tl_mem_free(mem, s->rec, s->cap * (size_t)s->stride * sizeof *s->rec);
        tl_mem_free(mem, s->state, s->cap * sizeof *s->state);
        s->rec = NULL;
        s->state = NULL;
        s->cap = 0;
        s->stride = pp->stride;
    }
    if (n > s->cap && stash_grow(mem, s, n + n / 4 + 64) != 0) return -1;
    if (tl_keymap_reserve(mem, &s->pp, npp) != 0 || tl_keymap_reserve(mem, &s->pw, npw) != 0) return -1;
    if (stash_list(mem, s, &s->pp, pp, false, ids) != 0) return -1;
    return stash_list(mem, s, &s->pw, pw, true, ids);
}

int tl_stash_put(tl_mem *mem, tl_stash *s, uint64_t key, uint8_t state, const double *rec) {
    tl_keymap *map = key >> 63 ? &s->pw : &s->pp;
    if (tl_keymap_get(map, key) >= 0) return 0;
    size_t st = (size_t)s->stride;
    if (s->count + 1 > s->cap && stash_grow(mem, s, s->cap * 2 + 64) != 0) return -1;
    if (s->count >= (size_t)INT32_MAX) return -1;
    if (tl_keymap_put(mem, map, key, (int32_t)s->count) != 0) return -1;
    memcpy(s->rec + s->count * st, rec, st * sizeof *rec);
    s->state[s->count++] = state;
    return 0;
}

void tl_stash_give(const tl_stash *s, tl_pairs *l, bool wall, const uint32_t *ids, int threads) {
    size_t st = (size_t)l->stride;
    const tl_keymap *map = wall ? &s->pw : &s->pp;
    int nt = threads;
    TL_FOR_STATIC(k, l->count, 
        l->state[k] = 0;
        if (map->count == 0) continue;
        int32_t i = tl_keymap_get(map, pair_key(l, k, wall, ids));
        if (i < 0) continue;
        l->state[k] = s->state[i];
        memcpy(l->rec + k * st, s->rec + (size_t)i * st, st * sizeof *l->rec);
    )
}
