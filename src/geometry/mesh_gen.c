/*
 * Generated meshes: the icosphere and the triangulated ellipsoid of a given
 * vertex count (mesh.h, docs/geometry.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "vec.h"

/* ---- icosphere ---- */

/* an open-addressing map from an edge (two vertex indices) to its midpoint */
typedef struct edge_map {
    uint64_t *key;
    uint32_t *val;
    size_t cap; /* a power of two */
} edge_map;

static uint32_t midpoint(edge_map *em, double (*v)[3], size_t *nv, uint32_t a, uint32_t b) {
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t key = ((uint64_t)lo << 32) | hi;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (em->cap - 1);
    while (em->key[h] != UINT64_MAX) {
        if (em->key[h] == key) return em->val[h];
        h = (h + 1) & (em->cap - 1);
    }
    uint32_t i = (uint32_t)(*nv)++;
    double p[3];
    v3_add(p, v[a], v[b]);
    v3_scale(v[i], p, 1.0 / v3_norm(p));
    em->key[h] = key;
    em->val[h] = i;
    return i;
}

tl_status tl_mesh_icosphere(tl_mem *mem, tl_mesh *m, double R, int k, char *msg, size_t msg_size) {
    tl_mesh_init(m);
    if (!(R > 0.0) || !isfinite(R) || k < 0 || k > 8) {
        snprintf(msg, msg_size, "icosphere: the radius must be finite and > 0 m (got %g) and the subdivisions 0 to 8 "
                                "(got %d)", R, k);
        return TL_ERROR_ARGUMENT;
    }
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    static const int8_t base_v[12][3] = {{-1, 1, 0}, {1, 1, 0},  {-1, -1, 0}, {1, -1, 0},  {0, -1, 1}, {0, 1, 1},
                                         {0, -1, -1}, {0, 1, -1}, {1, 0, -1},  {1, 0, 1},   {-1, 0, -1}, {-1, 0, 1}};
    static const uint8_t base_f[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                          {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                          {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                          {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    size_t pow4 = (size_t)1 << (2 * k);
    size_t nv_all = 10 * pow4 + 2, nt_all = 20 * pow4;
    double(*v)[3] = tl_mem_alloc(mem, nv_all * sizeof *v);
    uint32_t(*f)[3] = tl_mem_alloc(mem, nt_all * sizeof *f);
    uint32_t(*g)[3] = tl_mem_alloc(mem, nt_all * sizeof *g);
    edge_map em = {NULL, NULL, 1};
    while (em.cap < 4 * 30 * pow4) em.cap *= 2;
    em.key = tl_mem_alloc(mem, em.cap * sizeof *em.key);
    em.val = tl_mem_alloc(mem, em.cap * sizeof *em.val);
    tl_status st = TL_OK;
    if (!v || !f || !g || !em.key || !em.val) {
        snprintf(msg, msg_size, "icosphere: out of memory");
        st = TL_ERROR_MEMORY;
    } else {
        for (int i = 0; i < 12; i++) {
            /* the coordinates (0, +-1, +-t) and their cyclic shifts */
            double p[3];
            for (int c = 0; c < 3; c++) p[c] = base_v[i][c] == 0 ? 0.0 : (double)base_v[i][c];
            if (i < 4) v3_set(p, p[0], p[1] * t, 0.0);
            else if (i < 8) v3_set(p, 0.0, p[1], p[2] * t);
            else v3_set(p, p[0] * t, 0.0, p[2]);
            v3_scale(v[i], p, 1.0 / v3_norm(p));
        }
        for (int i = 0; i < 20; i++)
            for (int c = 0; c < 3; c++) f[i][c] = base_f[i][c];
        size_t nv = 12, nt = 20;
        for (int level = 0; level < k; level++) {
            memset(em.key, 0xff, em.cap * sizeof *em.key);
            for (size_t i = 0; i < nt; i++) {
                uint32_t a = f[i][0], b = f[i][1], c = f[i][2];
                uint32_t ab = midpoint(&em, v, &nv, a, b), bc = midpoint(&em, v, &nv, b, c),
                         ca = midpoint(&em, v, &nv, c, a);
                uint32_t quad[4][3] = {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}};
                memcpy(g[4 * i], quad, sizeof quad);
            }
            nt *= 4;
            uint32_t(*s)[3] = f;
            f = g;
            g = s;
        }
        for (size_t i = 0; i < nv; i++) v3_scale(v[i], v[i], R);
        char what[64];
        snprintf(what, sizeof what, "icosphere (k = %d)", k);
        st = tl_mesh_from_arrays(mem, m, &v[0][0], nv, &f[0][0], nt, NULL, what, msg, msg_size);
    }
    tl_mem_free(mem, v, nv_all * sizeof *v);
    tl_mem_free(mem, f, nt_all * sizeof *f);
    tl_mem_free(mem, g, nt_all * sizeof *g);
    tl_mem_free(mem, em.key, em.cap * sizeof *em.key);
    tl_mem_free(mem, em.val, em.cap * sizeof *em.val);
    return st;
}

/* ---- triangulated ellipsoid ---- */

typedef struct half {
    uint32_t lo, hi, facet;
    uint8_t k;
} half;

static int cmp_half(const void *pa, const void *pb) {
    const half *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->facet != b->facet) return a->facet < b->facet ? -1 : 1;
    return a->k < b->k ? -1 : (a->k > b->k);
}

/* Flips the diagonal of every pair of facets that folds inwards (the far
 * vertex of the neighbour above the facet's plane) until none does: for
 * vertices on a convex surface the result is their convex hull, so the mesh
 * is convex (mesh.h) and its facets lie as flat on the surface as they can.
 * Returns -1 when out of memory. */
static int make_convex(tl_mem *mem, const double (*v)[3], uint32_t (*f)[3], size_t nt, double size) {
    size_t ne = 3 * nt;
    half *e = tl_mem_alloc(mem, ne * sizeof *e);
    uint8_t *touched = tl_mem_alloc(mem, nt);
    int st = e && touched ? 0 : -1;
    for (int pass = 0; pass < 200 && st == 0; pass++) {
        for (size_t i = 0; i < nt; i++)
            for (int k = 0; k < 3; k++) {
                uint32_t a = f[i][k], b = f[i][(k + 1) % 3];
                e[3 * i + (size_t)k] = (half){a < b ? a : b, a < b ? b : a, (uint32_t)i, (uint8_t)k};
            }
        qsort(e, ne, sizeof *e, cmp_half);
        memset(touched, 0, nt);
        size_t flips = 0;
        for (size_t j = 0; j + 1 < ne; j++) {
            if (e[j].lo != e[j + 1].lo || e[j].hi != e[j + 1].hi) continue;
            uint32_t fi = e[j].facet, gi = e[j + 1].facet;
            if (touched[fi] || touched[gi]) continue;
            int k = e[j].k;
            uint32_t a = f[fi][k], b = f[fi][(k + 1) % 3], c = f[fi][(k + 2) % 3], d = 0;
            for (int m = 0; m < 3; m++)
                if (f[gi][m] != a && f[gi][m] != b) d = f[gi][m];
            double e1[3], e2[3], n[3], x[3];
            v3_sub(e1, v[b], v[a]);
            v3_sub(e2, v[c], v[a]);
            v3_cross(n, e1, e2);
            v3_sub(x, v[d], v[a]);
            if (!(v3_dot(x, n) > 1e-12 * size * v3_norm(n))) continue;
            /* (a, b, c) and (b, a, d) become (a, d, c) and (d, b, c) */
            uint32_t f1[3] = {a, d, c}, f2[3] = {d, b, c};
            memcpy(f[fi], f1, sizeof f1);
            memcpy(f[gi], f2, sizeof f2);
            touched[fi] = touched[gi] = 1;
            flips++;
        }
        if (flips == 0) break;
    }
    tl_mem_free(mem, e, ne * sizeof *e);
    tl_mem_free(mem, touched, nt);
    return st;
}

tl_status tl_mesh_ellipsoid(tl_mem *mem, tl_mesh *m, double a, double b, double c, size_t vertices, char *msg,
                            size_t msg_size) {
    tl_mesh_init(m);
    if (!(a > 0.0) || !(b > 0.0) || !(c > 0.0) || !isfinite(a) || !isfinite(b) || !isfinite(c)) {
        snprintf(msg, msg_size, "ellipsoid mesh: the semi-axes must be finite and > 0 m, got (%g, %g, %g)", a, b, c);
        return TL_ERROR_ARGUMENT;
    }
    if (vertices < 5 || vertices > 10000000) {
        snprintf(msg, msg_size, "ellipsoid mesh: the vertex count must be 5 to 10000000, got %zu", vertices);
        return TL_ERROR_ARGUMENT;
    }
    size_t ring_total = vertices - 2;
    /* rings about as far apart as the vertices on the equator: (V - 2) ~ 4 (r + 1)^2 / pi */
    size_t r = (size_t)lround(sqrt(TL_PI * (double)ring_total / 4.0)) - 1;
    if (r < 1) r = 1;
    if (r > ring_total / 3) r = ring_total / 3;
    size_t nt = 2 * vertices - 4;
    size_t *count = tl_mem_alloc(mem, r * sizeof *count);
    double *target = tl_mem_alloc(mem, r * sizeof *target);
    double(*v)[3] = tl_mem_alloc(mem, vertices * sizeof *v);
    uint32_t(*f)[3] = tl_mem_alloc(mem, nt * sizeof *f);
    tl_status st = TL_OK;
    if (!count || !target || !v || !f) {
        snprintf(msg, msg_size, "ellipsoid mesh: out of memory");
        st = TL_ERROR_MEMORY;
        goto out;
    }
    /* vertices per ring in proportion to sin(theta), at least 3, summing to V - 2 */
    double ssum = 0.0;
    for (size_t i = 0; i < r; i++) ssum += sin(TL_PI * (double)(i + 1) / (double)(r + 1));
    size_t total = 0;
    for (size_t i = 0; i < r; i++) {
        target[i] = (double)ring_total * sin(TL_PI * (double)(i + 1) / (double)(r + 1)) / ssum;
        count[i] = (size_t)floor(target[i]);
        if (count[i] < 3) count[i] = 3;
        total += count[i];
    }
    while (total != ring_total) {
        /* one vertex to (from) the ring furthest below (above) its share; ties: the first */
        size_t best = r;
        for (size_t i = 0; i < r; i++) {
            if (total > ring_total && count[i] <= 3) continue;
            double d = target[i] - (double)count[i];
            if (best == r || (total < ring_total ? d > target[best] - (double)count[best]
                                                 : d < target[best] - (double)count[best]))
                best = i;
        }
        if (total < ring_total) {
            count[best]++;
            total++;
        } else {
            count[best]--;
            total--;
        }
    }
    /* vertices: the north pole, the rings from north to south, the south pole */
    v3_set(v[0], 0.0, 0.0, c);
    size_t nv = 1;
    for (size_t i = 0; i < r; i++) {
        double th = TL_PI * (double)(i + 1) / (double)(r + 1);
        for (size_t j = 0; j < count[i]; j++) {
            double ph = 2.0 * TL_PI * ((double)j + 0.5 * (double)(i % 2)) / (double)count[i];
            v3_set(v[nv++], a * sin(th) * cos(ph), b * sin(th) * sin(ph), c * cos(th));
        }
    }
    v3_set(v[nv++], 0.0, 0.0, -c);
    size_t n = 0, start = 1;
    for (size_t j = 0; j < count[0]; j++) {
        uint32_t f3[3] = {0, (uint32_t)(start + j), (uint32_t)(start + (j + 1) % count[0])};
        memcpy(f[n++], f3, sizeof f3);
    }
    for (size_t i = 0; i + 1 < r; i++) {
        size_t nu = count[i], nl = count[i + 1], su = start, sl = start + nu;
        double ou = 0.5 * (double)(i % 2) / (double)nu, ol = 0.5 * (double)((i + 1) % 2) / (double)nl;
        size_t ia = 0, ib = 0;
        while (ia < nu || ib < nl) {
            /* advance along the ring whose next vertex comes first in azimuth (in turns) */
            double next_u = ou + (double)(ia + 1) / (double)nu, next_l = ol + (double)(ib + 1) / (double)nl;
            bool upper = ib == nl || (ia < nu && next_u < next_l);
            uint32_t ua = (uint32_t)(su + ia % nu), lb = (uint32_t)(sl + ib % nl);
            if (upper) {
                uint32_t f3[3] = {ua, lb, (uint32_t)(su + (ia + 1) % nu)};
                memcpy(f[n++], f3, sizeof f3);
                ia++;
            } else {
                uint32_t f3[3] = {ua, lb, (uint32_t)(sl + (ib + 1) % nl)};
                memcpy(f[n++], f3, sizeof f3);
                ib++;
            }
        }
        start = sl;
    }
    uint32_t south = (uint32_t)(vertices - 1);
    for (size_t j = 0; j < count[r - 1]; j++) {
        uint32_t f3[3] = {south, (uint32_t)(start + (j + 1) % count[r - 1]), (uint32_t)(start + j)};
        memcpy(f[n++], f3, sizeof f3);
    }
    if (make_convex(mem, (const double(*)[3])v, f, n, 2.0 * dmax(a, dmax(b, c))) != 0) {
        snprintf(msg, msg_size, "ellipsoid mesh: out of memory");
        st = TL_ERROR_MEMORY;
        goto out;
    }
    char what[96];
    snprintf(what, sizeof what, "ellipsoid mesh (%zu vertices)", vertices);
    st = tl_mesh_from_arrays(mem, m, &v[0][0], nv, &f[0][0], n, NULL, what, msg, msg_size);
out:
    tl_mem_free(mem, count, r * sizeof *count);
    tl_mem_free(mem, target, r * sizeof *target);
    tl_mem_free(mem, v, vertices * sizeof *v);
    tl_mem_free(mem, f, nt * sizeof *f);
    return st;
}
