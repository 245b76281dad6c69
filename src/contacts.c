#include "contacts.h"

#include <string.h>

void tl_candidates_init(tl_candidates *c) { memset(c, 0, sizeof *c); }

void tl_candidates_free(tl_mem *mem, tl_candidates *c) {
    tl_mem_free(mem, c->a, c->cap * sizeof *c->a);
    tl_mem_free(mem, c->b, c->cap * sizeof *c->b);
    tl_mem_free(mem, c->slot, c->cap * sizeof *c->slot);
    tl_candidates_init(c);
}

int tl_candidates_push(tl_mem *mem, tl_candidates *c, uint32_t a, uint32_t b) {
    if (c->count == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 256;
        uint32_t *na = tl_mem_alloc(mem, ncap * sizeof *na);
        uint32_t *nb = tl_mem_alloc(mem, ncap * sizeof *nb);
        int32_t *ns = tl_mem_alloc(mem, ncap * sizeof *ns);
        if (!na || !nb || !ns) {
            tl_mem_free(mem, na, ncap * sizeof *na);
            tl_mem_free(mem, nb, ncap * sizeof *nb);
            tl_mem_free(mem, ns, ncap * sizeof *ns);
            return -1;
        }
        size_t n = c->count;
        if (n) {
            memcpy(na, c->a, n * sizeof *na);
            memcpy(nb, c->b, n * sizeof *nb);
            memcpy(ns, c->slot, n * sizeof *ns);
        }
        tl_candidates_free(mem, c);
        c->a = na;
        c->b = nb;
        c->slot = ns;
        c->cap = ncap;
        c->count = n;
    }
    c->a[c->count] = a;
    c->b[c->count] = b;
    c->slot[c->count] = -1;
    c->count++;
    return 0;
}

void tl_contacts_init(tl_contact_table *t, int hist) {
    memset(t, 0, sizeof *t);
    t->hist = hist;
    t->stride = hist + TL_BOOK;
    tl_keymap_init(&t->lookup);
}

void tl_contacts_free(tl_mem *mem, tl_contact_table *t) {
    tl_mem_free(mem, t->data, t->cap * (size_t)t->stride * sizeof *t->data);
    tl_mem_free(mem, t->key, t->cap * sizeof *t->key);
    tl_mem_free(mem, t->free, t->capfree * sizeof *t->free);
    tl_keymap_free(mem, &t->lookup);
    int hist = t->hist;
    tl_contacts_init(t, hist);
}

static int grow(tl_mem *mem, tl_contact_table *t) {
    size_t ncap = t->cap ? 2 * t->cap : 1024;
    size_t stride = (size_t)t->stride;
    double *nd = tl_mem_alloc(mem, ncap * stride * sizeof *nd);
    uint64_t *nk = tl_mem_alloc(mem, ncap * sizeof *nk);
    if (!nd || !nk) {
        tl_mem_free(mem, nd, ncap * stride * sizeof *nd);
        tl_mem_free(mem, nk, ncap * sizeof *nk);
        return -1;
    }
    if (t->high) {
        memcpy(nd, t->data, t->high * stride * sizeof *nd);
        memcpy(nk, t->key, t->high * sizeof *nk);
    }
    tl_mem_free(mem, t->data, t->cap * stride * sizeof *t->data);
    tl_mem_free(mem, t->key, t->cap * sizeof *t->key);
    t->data = nd;
    t->key = nk;
    t->cap = ncap;
    return 0;
}

int32_t tl_contacts_open(tl_mem *mem, tl_contact_table *t, uint64_t key) {
    int32_t slot;
    if (t->nfree) {
        slot = t->free[--t->nfree];
    } else {
        if (t->high == t->cap && grow(mem, t) != 0) return -1;
        if (t->high >= (size_t)INT32_MAX) return -1;
        /* keep room to free every record handed out */
        if (tl_mem_reserve(mem, (void **)&t->free, &t->capfree, t->high + 1, sizeof *t->free) != 0)
            return -1;
        slot = (int32_t)t->high++;
    }
    memset(tl_contacts_record(t, slot), 0, (size_t)t->stride * sizeof(double));
    t->key[slot] = key;
    t->live++;
    return slot;
}

void tl_contacts_close(tl_contact_table *t, int32_t slot) {
    if (slot < 0 || t->key[slot] == TL_KEYMAP_EMPTY) return;
    t->key[slot] = TL_KEYMAP_EMPTY;
    t->live--;
    t->free[t->nfree++] = slot; /* room reserved by tl_contacts_open */
}

int tl_contacts_rebind(tl_mem *mem, tl_contact_table *t, tl_candidates *pp, tl_candidates *pw,
                       const uint32_t *ids) {
    tl_keymap_clear(&t->lookup);
    if (tl_keymap_reserve(mem, &t->lookup, t->live) != 0) return -1;
    for (size_t s = 0; s < t->high; s++)
        if (t->key[s] != TL_KEYMAP_EMPTY) tl_keymap_put(mem, &t->lookup, t->key[s], (int32_t)s);
    for (size_t k = 0; k < pp->count; k++) {
        int32_t s = tl_keymap_get(&t->lookup, tl_key_pp(ids[pp->a[k]], ids[pp->b[k]]));
        pp->slot[k] = s;
        if (s >= 0) tl_keymap_remove(&t->lookup, t->key[s]);
    }
    for (size_t k = 0; k < pw->count; k++) {
        int32_t s = tl_keymap_get(&t->lookup, tl_key_pw(ids[pw->a[k]], pw->b[k]));
        pw->slot[k] = s;
        if (s >= 0) tl_keymap_remove(&t->lookup, t->key[s]);
    }
    /* whatever is left has no candidate any more (its particle was removed) */
    for (size_t i = 0; i < t->lookup.cap; i++)
        if (t->lookup.keys[i] != TL_KEYMAP_EMPTY) tl_contacts_close(t, t->lookup.values[i]);
    return 0;
}
