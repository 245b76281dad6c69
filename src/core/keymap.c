#include "keymap.h"

#include <string.h>

static size_t hash64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k;
}

void tl_keymap_init(tl_keymap *m) { memset(m, 0, sizeof *m); }

void tl_keymap_free(tl_mem *mem, tl_keymap *m) {
    tl_mem_free(mem, m->keys, m->cap * sizeof *m->keys);
    tl_mem_free(mem, m->values, m->cap * sizeof *m->values);
    tl_keymap_init(m);
}

void tl_keymap_clear(tl_keymap *m) {
    for (size_t i = 0; i < m->cap; i++) m->keys[i] = TL_KEYMAP_EMPTY;
    m->count = 0;
}

static void insert_raw(tl_keymap *m, uint64_t key, int32_t value) {
    size_t mask = m->cap - 1;
    size_t i = hash64(key) & mask;
    while (m->keys[i] != TL_KEYMAP_EMPTY && m->keys[i] != key) i = (i + 1) & mask;
    if (m->keys[i] == TL_KEYMAP_EMPTY) m->count++;
    m->keys[i] = key;
    m->values[i] = value;
}

int tl_keymap_reserve(tl_mem *mem, tl_keymap *m, size_t n) {
    size_t need = 16;
    while (need < 2 * n + 2) need *= 2;
    if (need <= m->cap) return 0;
    uint64_t *nk = tl_mem_alloc(mem, need * sizeof *nk);
    int32_t *nv = tl_mem_alloc(mem, need * sizeof *nv);
    if (!nk || !nv) {
        tl_mem_free(mem, nk, need * sizeof *nk);
        tl_mem_free(mem, nv, need * sizeof *nv);
        return -1;
    }
    for (size_t i = 0; i < need; i++) nk[i] = TL_KEYMAP_EMPTY;
    tl_keymap old = *m;
    m->keys = nk;
    m->values = nv;
    m->cap = need;
    m->count = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] != TL_KEYMAP_EMPTY) insert_raw(m, old.keys[i], old.values[i]);
    tl_mem_free(mem, old.keys, old.cap * sizeof *old.keys);
    tl_mem_free(mem, old.values, old.cap * sizeof *old.values);
    return 0;
}

int tl_keymap_put(tl_mem *mem, tl_keymap *m, uint64_t key, int32_t value) {
    if (tl_keymap_reserve(mem, m, m->count + 1) != 0) return -1;
    insert_raw(m, key, value);
    return 0;
}

int32_t tl_keymap_get(const tl_keymap *m, uint64_t key) {
    if (m->cap == 0) return -1;
    size_t mask = m->cap - 1;
    size_t i = hash64(key) & mask;
    while (m->keys[i] != TL_KEYMAP_EMPTY) {
        if (m->keys[i] == key) return m->values[i];
        i = (i + 1) & mask;
    }
    return -1;
}

void tl_keymap_remove(tl_keymap *m, uint64_t key) {
    if (m->cap == 0) return;
    size_t mask = m->cap - 1;
    size_t i = hash64(key) & mask;
    while (m->keys[i] != TL_KEYMAP_EMPTY && m->keys[i] != key) i = (i + 1) & mask;
    if (m->keys[i] == TL_KEYMAP_EMPTY) return;
    /* backward-shift deletion keeps probe chains intact */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (m->keys[j] == TL_KEYMAP_EMPTY) break;
        size_t home = hash64(m->keys[j]) & mask;
        /* move j back to i if home is not cyclically in (i, j] */
        int between = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            m->keys[i] = m->keys[j];
            m->values[i] = m->values[j];
            i = j;
        }
    }
    m->keys[i] = TL_KEYMAP_EMPTY;
    m->count--;
}
