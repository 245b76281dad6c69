#include "reorder.h"

#include <stdbool.h>
#include <math.h>
#include <string.h>

/* spreads the low 21 bits of v to every third bit */
static uint64_t spread3(uint64_t v) {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

uint64_t tl_morton_key(const double x[3], const double lo[3], double cell) {
    uint64_t c[3];
    for (int k = 0; k < 3; k++) {
        double q = floor((x[k] - lo[k]) / cell);
        c[k] = q > 0.0 ? (q < 2097151.0 ? (uint64_t)q : 2097151u) : 0u;
    }
    return spread3(c[0]) | spread3(c[1]) << 1 | spread3(c[2]) << 2;
}

void tl_sort_keys(uint64_t *key, uint32_t *ord, size_t n) {
    uint64_t *key2 = key + n;
    uint32_t *ord2 = ord + n;
    for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
    if (n < 2) return;
    /* LSD radix sort, 8 bits a pass, stable */
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257];
        memset(count, 0, sizeof count);
        bool all_same = true;
        uint64_t first = (key[0] >> shift) & 0xff;
        for (size_t i = 0; i < n; i++) {
            uint64_t d = (key[i] >> shift) & 0xff;
            count[d + 1]++;
            all_same &= d == first;
        }
        if (all_same) continue;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++) {
            size_t at = count[(key[i] >> shift) & 0xff]++;
            key2[at] = key[i];
            ord2[at] = ord[i];
        }
        memcpy(key, key2, n * sizeof *key);
        memcpy(ord, ord2, n * sizeof *ord);
    }
}

int tl_reorder_morton(tl_mem *mem, tl_particles *p, const double lo[3], double cell) {
    size_t n = p->count;
    if (n < 2) return 0;
    uint64_t *key = tl_mem_alloc(mem, 2 * n * sizeof *key);
    uint32_t *ord = tl_mem_alloc(mem, 2 * n * sizeof *ord);
    if (!key || !ord) {
        tl_mem_free(mem, key, 2 * n * sizeof *key);
        tl_mem_free(mem, ord, 2 * n * sizeof *ord);
        return -1;
    }
    for (size_t i = 0; i < n; i++) key[i] = tl_morton_key(p->x[i], lo, cell);
    tl_sort_keys(key, ord, n);
    int r = tl_particles_permute(mem, p, ord);
    tl_mem_free(mem, key, 2 * n * sizeof *key);
    tl_mem_free(mem, ord, 2 * n * sizeof *ord);
    return r;
}
