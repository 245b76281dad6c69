#include "reorder.h"

#include <math.h>
#include <string.h>

#include "vec.h"
#include "world.h"

bool tl_reorder_due(tl_world *w, uint64_t n) {
    int every = w->def.reorder_every;
    if (every < 0 || n < 2) return false;
    if (every == 0) {
        if (n < 1000) return false;
        every = 20;
    }
    if (w->broad.nb.builds > 0 && w->clock.steps > 0 && w->broad.builds_since_reorder + 1 < every) {
        w->broad.builds_since_reorder++;
        return false;
    }
    w->broad.builds_since_reorder = 0;
    return true;
}

void tl_order_extent(const tl_particles *p, double lo[4]) {
    lo[0] = lo[1] = lo[2] = lo[3] = INFINITY;
    for (size_t i = 0; i < p->count; i++) {
        for (int k = 0; k < 3; k++) lo[k] = dmin(lo[k], p->x[i][k]);
        lo[3] = dmin(lo[3], p->radius[i]);
    }
}

tl_order_frame tl_order_frame_of(const tl_world *w, const double lo[4], uint64_t n) {
    return (tl_order_frame){{lo[0], lo[1], lo[2]}, 2.0 * lo[3] + w->broad.nb.skin,
                            tl_neighbors_domain_count(&w->broad.nb, (size_t)n),
                            {w->per.on[0], w->per.on[1], w->per.on[2]}};
}

/* The cell of x in the frame's grid along each axis (clamped to 21 bits). */
static void order_cell(const tl_order_frame *f, const double x[3], uint32_t c[3]) {
    for (int k = 0; k < 3; k++) {
        double q = floor((x[k] - f->lo[k]) / f->cell);
        c[k] = q > 0.0 ? (q < 2097151.0 ? (uint32_t)q : 2097151u) : 0u;
    }
}

/* Stable LSD radix sort of n keys, 8 bits a pass: ord[k] receives the index of the k-th
 * smallest (equal keys in index order). key and ord need 2 n entries (upper halves scratch). */
static void sort_keys(uint64_t *key, uint32_t *ord, size_t n) {
    uint64_t *key2 = key + n;
    uint32_t *ord2 = ord + n;
    for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
    if (n < 2) return;
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

typedef struct bisect {
    const uint32_t (*cell)[3]; /* per particle (original index) */
    size_t n, ndom;
    const bool *periodic;
    uint32_t *tmp;             /* scratch, n entries */
} bisect;

/* the first index of domain d */
static size_t dom_start(const bisect *b, size_t d) { return (size_t)((uint64_t)d * b->n / b->ndom); }

/* The value v of the m-th smallest (from 0) cell along axis a among seq[0..len), and how many
 * lie below it. A select by histogram, in two rounds of 11 bits (cells have 21). */
static uint32_t select_cell(const bisect *b, const uint32_t *seq, size_t len, int a, size_t m, size_t *below) {
    size_t hist[2048];
    uint32_t prefix = 0;
    size_t under = 0;
    for (int round = 0; round < 2; round++) {
        const int shift = round == 0 ? 11 : 0;
        const uint32_t mask = round == 0 ? 0x3ffu : 0x7ffu;
        memset(hist, 0, sizeof hist);
        for (size_t k = 0; k < len; k++) {
            uint32_t v = b->cell[seq[k]][a];
            if (round == 1 && (v >> 11) != prefix) continue;
            hist[(v >> shift) & mask]++;
        }
        size_t acc = under, bin = 0;
        while (acc + hist[bin] <= m) acc += hist[bin++];
        under = acc;
        if (round == 0) prefix = (uint32_t)bin;
        else prefix = prefix << 11 | (uint32_t)bin;
    }
    *below = under;
    return prefix;
}

/* Cuts seq (the particles of domains [d0, d1), in the sorted order) as the header says. */
static void cut(const bisect *b, uint32_t *seq, size_t d0, size_t d1, unsigned wrapped_cut) {
    while (d1 - d0 > 1) {
        const size_t len = dom_start(b, d1) - dom_start(b, d0);
        const size_t dm = (d0 + d1) / 2, m = dom_start(b, dm) - dom_start(b, d0);
        if (len < 2 || m == 0 || m >= len) return; /* no cut to make (never with ndom <= n) */
        uint32_t lo[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX}, hi[3] = {0, 0, 0};
        for (size_t k = 0; k < len; k++)
            for (int q = 0; q < 3; q++) {
                uint32_t v = b->cell[seq[k]][q];
                lo[q] = v < lo[q] ? v : lo[q];
                hi[q] = v > hi[q] ? v : hi[q];
            }
        double ext[3], best = INFINITY;
        int a = 0;
        for (int q = 0; q < 3; q++) ext[q] = (double)(hi[q] - lo[q]) + 1.0;
        for (int q = 0; q < 3; q++) {
            if (ext[q] < 2.0) continue; /* one cell thick: no cut along it */
            double face = ext[(q + 1) % 3] * ext[(q + 2) % 3];
            if (b->periodic[q] && !(wrapped_cut & 1u << q)) face *= 2.0;
            if (face < best) {
                best = face;
                a = q;
            }
        }
        if (best == INFINITY) return; /* all in one cell: the sorted order stands */
        size_t below;
        uint32_t v = select_cell(b, seq, len, a, m, &below);
        size_t ties = m - below, nl = 0, nr = m;
        for (size_t k = 0; k < len; k++) {
            uint32_t c = b->cell[seq[k]][a];
            if (c < v || (c == v && ties > 0)) {
                if (c == v) ties--;
                b->tmp[nl++] = seq[k];
            } else {
                b->tmp[nr++] = seq[k];
            }
        }
        memcpy(seq, b->tmp, len * sizeof *seq);
        wrapped_cut |= 1u << a;
        cut(b, seq, d0, dm, wrapped_cut);
        seq += m;
        d0 = dm;
    }
}

int tl_reorder_order(tl_mem *mem, const double (*x)[3], size_t n, const tl_order_frame *f, uint32_t *ord) {
    if (n < 2) {
        if (n == 1) ord[0] = 0;
        return 0;
    }
    uint64_t *key = tl_mem_alloc(mem, 2 * n * sizeof *key);
    uint32_t(*cell)[3] = tl_mem_alloc(mem, n * sizeof *cell);
    if (!key || !cell) {
        tl_mem_free(mem, key, 2 * n * sizeof *key);
        tl_mem_free(mem, cell, n * sizeof *cell);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        order_cell(f, x[i], cell[i]);
        key[i] = (uint64_t)cell[i][2] << 42 | (uint64_t)cell[i][1] << 21 | cell[i][0];
    }
    sort_keys(key, ord, n);
    tl_mem_free(mem, key, 2 * n * sizeof *key);
    if (f->ndom > 1) {
        bisect b = {(const uint32_t(*)[3])cell, n, f->ndom, f->periodic, ord + n};
        cut(&b, ord, 0, f->ndom, 0u);
    }
    tl_mem_free(mem, cell, n * sizeof *cell);
    return 0;
}

int tl_reorder_particles(tl_mem *mem, tl_particles *p, const tl_order_frame *f) {
    size_t n = p->count;
    if (n < 2) return 0;
    uint32_t *ord = tl_mem_alloc(mem, 2 * n * sizeof *ord);
    if (!ord) return -1;
    int r = tl_reorder_order(mem, (const double(*)[3])p->x, n, f, ord);
    if (r == 0) r = tl_particles_permute(mem, p, ord);
    tl_mem_free(mem, ord, 2 * n * sizeof *ord);
    return r;
}
