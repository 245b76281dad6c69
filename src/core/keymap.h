/* An open-addressing hash map from 64-bit keys to 32-bit values: particle
 * id -> storage index, and contact key -> contact record. */
#ifndef TL_KEYMAP_H
#define TL_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

typedef struct tl_keymap {
    uint64_t *keys;   /* TL_KEYMAP_EMPTY marks a free slot */
    int32_t *values;
    size_t cap;       /* power of two */
    size_t count;
} tl_keymap;

#define TL_KEYMAP_EMPTY UINT64_MAX

void tl_keymap_init(tl_keymap *m);
void tl_keymap_free(tl_mem *mem, tl_keymap *m);
void tl_keymap_clear(tl_keymap *m);
/* Makes room for `n` entries without rehashing; 0 on success. */
int tl_keymap_reserve(tl_mem *mem, tl_keymap *m, size_t n);
/* Inserts or replaces; 0 on success. */
int tl_keymap_put(tl_mem *mem, tl_keymap *m, uint64_t key, int32_t value);
/* The value, or -1 when absent. */
int32_t tl_keymap_get(const tl_keymap *m, uint64_t key);
/* Removes the key if present. */
void tl_keymap_remove(tl_keymap *m, uint64_t key);

#endif
