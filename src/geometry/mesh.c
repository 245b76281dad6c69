/*
 * Triangle meshes: creation from arrays, the checks on a mesh (mesh.h), its
 * topology (neighbours across edges, facets around vertices), pseudo-normals
 * and moving it. Reading files is in mesh_io.c, generated meshes in
 * mesh_gen.c, mass properties in mass.c.
 */
#include "mesh.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triangle.h"
#include "vec.h"

void tl_mesh_init(tl_mesh *m) { memset(m, 0, sizeof *m); }

void tl_mesh_free(tl_mesh *m) {
    tl_mem *mem = m->mem;
    if (!mem) {
        tl_mesh_init(m);
        return;
    }
    tl_mem_free(mem, m->v, m->nv * sizeof *m->v);
    tl_mem_free(mem, m->tri, m->nt * sizeof *m->tri);
    tl_mem_free(mem, m->n, m->nt * sizeof *m->n);
    tl_mem_free(mem, m->area, m->nt * sizeof *m->area);
    tl_mem_free(mem, m->c, m->nt * sizeof *m->c);
    tl_mem_free(mem, m->adj, m->nt * sizeof *m->adj);
    tl_mem_free(mem, m->vt_start, (m->nv + 1) * sizeof *m->vt_start);
    tl_mem_free(mem, m->vt, 3 * m->nt * sizeof *m->vt);
    tl_mem_free(mem, m->vn, m->nv * sizeof *m->vn);
    if (m->vv_start) tl_mem_free(mem, m->vv, m->vv_start[m->nv] * sizeof *m->vv);
    tl_mem_free(mem, m->vv_start, (m->nv + 1) * sizeof *m->vv_start);
    tl_mem_free(mem, m->offset, m->nt * sizeof *m->offset);
    tl_mem_free(mem, m->reach, m->nt * sizeof *m->reach);
    tl_bvh_free(mem, &m->bvh);
    tl_mesh_init(m);
}

static tl_status fail(char *msg, size_t msg_size, tl_status st, const char *fmt, ...) {
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* ---- edges ---- */

typedef struct half_edge {
    uint32_t lo, hi; /* the vertices, lo < hi */
    uint32_t facet;
    uint8_t k;       /* the edge from tri[facet][k] to tri[facet][(k + 1) % 3] */
    uint8_t forward; /* it runs from lo to hi */
} half_edge;

static int cmp_half_edge(const void *pa, const void *pb) {
    const half_edge *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->facet != b->facet) return a->facet < b->facet ? -1 : 1;
    return a->k < b->k ? -1 : (a->k > b->k);
}

typedef struct sorted_facet {
    uint32_t v[3];
    uint32_t facet;
} sorted_facet;

static int cmp_sorted_facet(const void *pa, const void *pb) {
    const sorted_facet *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return a->facet < b->facet ? -1 : (a->facet > b->facet);
}

static void sort3(uint32_t v[3]) {
    uint32_t s;
    if (v[0] > v[1]) { s = v[0]; v[0] = v[1]; v[1] = s; }
    if (v[1] > v[2]) { s = v[1]; v[1] = v[2]; v[2] = s; }
    if (v[0] > v[1]) { s = v[0]; v[0] = v[1]; v[1] = s; }
}

#define VFMT "(%.6g, %.6g, %.6g)"
#define VARG(p) (p)[0], (p)[1], (p)[2]

/* duplicated facets (the same three vertices, either orientation) */
static tl_status check_duplicates(tl_mesh *m, const char *what, char *msg, size_t msg_size) {
    sorted_facet *s = tl_mem_alloc(m->mem, m->nt * sizeof *s);
    if (!s) return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    for (size_t f = 0; f < m->nt; f++) {
        memcpy(s[f].v, m->tri[f], sizeof s[f].v);
        sort3(s[f].v);
        s[f].facet = (uint32_t)f;
    }
    qsort(s, m->nt, sizeof *s, cmp_sorted_facet);
    tl_status st = TL_OK;
    for (size_t i = 1; i < m->nt; i++) {
        if (memcmp(s[i].v, s[i - 1].v, sizeof s[i].v) != 0) continue;
        const double *p = m->v[s[i].v[0]];
        st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                  "%s: facet %u repeats facet %u (the same three vertices, the first at " VFMT ")", what,
                  s[i].facet, s[i - 1].facet, VARG(p));
        break;
    }
    tl_mem_free(m->mem, s, m->nt * sizeof *s);
    return st;
}

/* neighbours across edges; closedness, manifoldness and orientation */
static tl_status build_edges(tl_mesh *m, bool allow_open, const char *what, char *msg, size_t msg_size) {
    size_t ne = 3 * m->nt;
    half_edge *e = tl_mem_alloc(m->mem, ne * sizeof *e);
    if (!e) return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    for (size_t f = 0; f < m->nt; f++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = m->tri[f][k], b = m->tri[f][(k + 1) % 3];
            half_edge *h = &e[3 * f + (size_t)k];
            h->lo = a < b ? a : b;
            h->hi = a < b ? b : a;
            h->facet = (uint32_t)f;
            h->k = (uint8_t)k;
            h->forward = a < b;
            m->adj[f][k] = TL_MESH_NONE;
        }
    qsort(e, ne, sizeof *e, cmp_half_edge);
    tl_status st = TL_OK;
    m->closed = true;
    for (size_t i = 0; i < ne && st == TL_OK;) {
        size_t j = i + 1;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi) j++;
        const double *pa = m->v[e[i].lo], *pb = m->v[e[i].hi];
        size_t count = j - i;
        if (count == 1) {
            m->closed = false;
            if (!allow_open)
                st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                          "%s: facet %u: its edge " VFMT " - " VFMT " belongs to no other facet: the surface is "
                          "not closed (a body needs a closed mesh)",
                          what, e[i].facet, VARG(pa), VARG(pb));
        } else if (count == 2) {
            if (e[i].forward == e[i + 1].forward)
                st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                          "%s: facet %u: it runs along its edge " VFMT " - " VFMT " in the same direction as "
                          "facet %u: inconsistent orientation (the facets must all be counter-clockwise seen "
                          "from outside)",
                          what, e[i + 1].facet, VARG(pa), VARG(pb), e[i].facet);
            else {
                m->adj[e[i].facet][e[i].k] = e[i + 1].facet;
                m->adj[e[i + 1].facet][e[i + 1].k] = e[i].facet;
            }
        } else {
            m->closed = false;
            if (!allow_open)
                st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                          "%s: facet %u: its edge " VFMT " - " VFMT " is shared by %zu facets (%u, %u, %u%s): "
                          "not a manifold surface",
                          what, e[i].facet, VARG(pa), VARG(pb), count, e[i].facet, e[i + 1].facet, e[i + 2].facet,
                          count > 3 ? ", ..." : "");
        }
        i = j;
    }
    tl_mem_free(m->mem, e, ne * sizeof *e);
    return st;
}

/* ---- a body's surface does not cross itself ----
 * Two facets that share no vertex must not intersect: an edge of one crossing the other
 * (non-coplanar facets that intersect always have one; coplanar overlaps are not seen). The
 * candidate pairs come from a sweep of the facets' boxes along the mesh's longest axis, and
 * their number is bounded (SELF_TESTS_PER_FACET per facet), so that no mesh makes the check
 * quadratic. Then no connected part may lie inside another (nested parts cross nowhere but
 * count their volume twice): one vertex of each part, a ray's crossings with the other parts'
 * facets. */
#define SELF_TESTS_PER_FACET 256
#define MAX_BODY_PARTS 256

typedef struct facet_box {
    double key; /* lo along the sweep's axis */
    double lo[3], hi[3];
    uint32_t f;
} facet_box;

static int cmp_box_lo(const void *pa, const void *pb) {
    const facet_box *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->f < b->f ? -1 : (a->f > b->f);
}

static bool shares_vertex(const tl_mesh *m, uint32_t f, uint32_t g) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (m->tri[f][i] == m->tri[g][j]) return true;
    return false;
}

/* an edge of facet f crosses facet g */
static bool edge_crosses(const tl_mesh *m, uint32_t f, uint32_t g) {
    const double *a = m->v[m->tri[g][0]], *b = m->v[m->tri[g][1]], *c = m->v[m->tri[g][2]];
    for (int k = 0; k < 3; k++) {
        const double *p = m->v[m->tri[f][k]], *q = m->v[m->tri[f][(k + 1) % 3]];
        double d[3], t;
        v3_sub(d, q, p);
        if (tl_tri_ray(p, d, a, b, c, 0.0, 1.0, &t)) return true;
    }
    return false;
}

static tl_status check_self_intersection(tl_mesh *m, const char *what, char *msg, size_t msg_size) {
    size_t nt = m->nt;
    facet_box *bx = tl_mem_alloc(m->mem, nt * sizeof *bx);
    uint32_t *comp = tl_mem_alloc(m->mem, nt * sizeof *comp), *queue = tl_mem_alloc(m->mem, nt * sizeof *queue);
    tl_status st = TL_OK;
    if (!bx || !comp || !queue) st = fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (m->hi[k] - m->lo[k] > m->hi[axis] - m->lo[axis]) axis = k;
    for (size_t f = 0; st == TL_OK && f < nt; f++) {
        for (int k = 0; k < 3; k++) {
            bx[f].lo[k] = dmin(m->v[m->tri[f][0]][k], dmin(m->v[m->tri[f][1]][k], m->v[m->tri[f][2]][k]));
            bx[f].hi[k] = dmax(m->v[m->tri[f][0]][k], dmax(m->v[m->tri[f][1]][k], m->v[m->tri[f][2]][k]));
        }
        bx[f].key = bx[f].lo[axis];
        bx[f].f = (uint32_t)f;
    }
    if (st == TL_OK) qsort(bx, nt, sizeof *bx, cmp_box_lo);
    size_t tests = 0, budget = SELF_TESTS_PER_FACET * nt;
    for (size_t i = 0; st == TL_OK && i < nt; i++) {
        for (size_t j = i + 1; j < nt && bx[j].lo[axis] <= bx[i].hi[axis]; j++) {
            bool apart = false;
            for (int k = 0; k < 3; k++)
                if (bx[j].lo[k] > bx[i].hi[k] || bx[i].lo[k] > bx[j].hi[k]) apart = true;
            uint32_t f = bx[i].f, g = bx[j].f;
            if (apart || shares_vertex(m, f, g)) continue;
            if (++tests > budget) {
                st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                          "%s: the facets' boxes overlap so much (more than %d candidate pairs per facet) that the "
                          "surface cannot be checked for crossing itself; a body's mesh is not made like that",
                          what, SELF_TESTS_PER_FACET);
                break;
            }
            if (edge_crosses(m, f, g) || edge_crosses(m, g, f)) {
                const double *p = m->v[m->tri[f][0]];
                st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                          "%s: facets %u and %u cross each other (the first at " VFMT "): a body's surface must not "
                          "cross itself (overlapping parts would count their common volume twice); merge them into "
                          "one closed surface",
                          what, f < g ? f : g, f < g ? g : f, VARG(p));
                break;
            }
        }
    }
    /* the connected parts */
    size_t parts = 0;
    for (size_t f = 0; st == TL_OK && f < nt; f++) comp[f] = TL_MESH_NONE;
    for (size_t s0 = 0; st == TL_OK && s0 < nt; s0++) {
        if (comp[s0] != TL_MESH_NONE) continue;
        if (parts == MAX_BODY_PARTS) {
            st = fail(msg, msg_size, TL_ERROR_ARGUMENT, "%s: a body of more than %d separate closed surfaces", what,
                      MAX_BODY_PARTS);
            break;
        }
        size_t head = 0, tail = 0;
        queue[tail++] = (uint32_t)s0;
        comp[s0] = (uint32_t)parts;
        while (head < tail) {
            uint32_t f = queue[head++];
            for (int k = 0; k < 3; k++) {
                uint32_t g = m->adj[f][k];
                if (g != TL_MESH_NONE && comp[g] == TL_MESH_NONE) {
                    comp[g] = (uint32_t)parts;
                    queue[tail++] = g;
                }
            }
        }
        parts++;
    }
    if (st == TL_OK && parts > 1) {
        /* a direction no mesh of round numbers lines up with */
        double dir[3] = {0.5773502691896258, 0.5773502691896257 * 1.0000001, 0.5773502691896259 * 0.9999998};
        bool *seen = calloc(parts, sizeof *seen);
        if (!seen) st = fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
        for (size_t f0 = 0; st == TL_OK && f0 < nt; f0++) {
            uint32_t c = comp[f0];
            if (seen[c]) continue;
            seen[c] = true;
            const double *p = m->v[m->tri[f0][0]];
            size_t crossings = 0;
            for (size_t g = 0; g < nt; g++) {
                if (comp[g] == c) continue;
                double t;
                if (tl_tri_ray(p, dir, m->v[m->tri[g][0]], m->v[m->tri[g][1]], m->v[m->tri[g][2]], 0.0, INFINITY, &t))
                    crossings++;
            }
            if (crossings % 2 == 1)
                st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                          "%s: the closed surface of facet %zu lies inside another of the mesh's closed surfaces (at " VFMT
                          "): nested parts count their common volume twice",
                          what, f0, VARG(p));
        }
        free(seen);
    }
    tl_mem_free(m->mem, bx, nt * sizeof *bx);
    tl_mem_free(m->mem, comp, nt * sizeof *comp);
    tl_mem_free(m->mem, queue, nt * sizeof *queue);
    return st;
}

/* facet normals, areas, centroids, bounding box; degenerate facets */
static tl_status facet_data(tl_mesh *m, const char *what, char *msg, size_t msg_size) {
    m->total_area = 0.0;
    for (size_t f = 0; f < m->nt; f++) {
        const uint32_t *t = m->tri[f];
        const double *a = m->v[t[0]], *b = m->v[t[1]], *c = m->v[t[2]];
        double e1[3], e2[3], e3[3], n[3];
        v3_sub(e1, b, a);
        v3_sub(e2, c, a);
        v3_sub(e3, c, b);
        v3_cross(n, e1, e2);
        double len = v3_norm(n);
        double lmax = dmax(v3_norm2(e1), dmax(v3_norm2(e2), v3_norm2(e3)));
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || !(len > 1e-14 * lmax))
            return fail(msg, msg_size, TL_ERROR_ARGUMENT,
                        "%s: facet %zu is degenerate (zero area): vertices " VFMT ", " VFMT ", " VFMT, what, f,
                        VARG(a), VARG(b), VARG(c));
        v3_scale(m->n[f], n, 1.0 / len);
        m->area[f] = 0.5 * len;
        m->total_area += m->area[f];
        for (int k = 0; k < 3; k++) m->c[f][k] = (a[k] + b[k] + c[k]) / 3.0;
    }
    return TL_OK;
}

static void bounds(tl_mesh *m) {
    v3_set(m->lo, INFINITY, INFINITY, INFINITY);
    v3_set(m->hi, -INFINITY, -INFINITY, -INFINITY);
    m->radius = 0.0;
    for (size_t i = 0; i < m->nv; i++) {
        for (int k = 0; k < 3; k++) {
            m->lo[k] = dmin(m->lo[k], m->v[i][k]);
            m->hi[k] = dmax(m->hi[k], m->v[i][k]);
        }
        m->radius = dmax(m->radius, v3_norm(m->v[i]));
    }
}

/* angle-weighted vertex normals (Baerentzen & Aanaes, IEEE TVCG 11(3), 2005) */
static void vertex_normals(tl_mesh *m) {
    for (size_t i = 0; i < m->nv; i++) v3_zero(m->vn[i]);
    for (size_t f = 0; f < m->nt; f++)
        for (int k = 0; k < 3; k++) {
            const double *p = m->v[m->tri[f][k]], *q = m->v[m->tri[f][(k + 1) % 3]],
                         *r = m->v[m->tri[f][(k + 2) % 3]];
            double u[3], w[3], x[3];
            v3_sub(u, q, p);
            v3_sub(w, r, p);
            v3_cross(x, u, w);
            double angle = atan2(v3_norm(x), v3_dot(u, w));
            v3_axpy(m->vn[m->tri[f][k]], angle, m->n[f]);
        }
    for (size_t i = 0; i < m->nv; i++) {
        double l = v3_norm(m->vn[i]);
        if (l > 0.0) v3_scale(m->vn[i], m->vn[i], 1.0 / l);
    }
}

/* signed volume of each connected part: a closed mesh must enclose positive volume */
static tl_status check_outward(tl_mesh *m, const char *what, char *msg, size_t msg_size) {
    uint32_t *comp = tl_mem_alloc(m->mem, m->nt * sizeof *comp);
    uint32_t *queue = tl_mem_alloc(m->mem, m->nt * sizeof *queue);
    if (!comp || !queue) {
        tl_mem_free(m->mem, comp, m->nt * sizeof *comp);
        tl_mem_free(m->mem, queue, m->nt * sizeof *queue);
        return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    }
    for (size_t f = 0; f < m->nt; f++) comp[f] = TL_MESH_NONE;
    tl_status st = TL_OK;
    m->volume = 0.0;
    size_t pieces = 0;
    /* the volume is summed about the box centre (smaller rounding) */
    double o[3];
    for (int k = 0; k < 3; k++) o[k] = 0.5 * (m->lo[k] + m->hi[k]);
    for (size_t s = 0; s < m->nt && st == TL_OK; s++) {
        if (comp[s] != TL_MESH_NONE) continue;
        pieces++;
        size_t head = 0, tail = 0;
        queue[tail++] = (uint32_t)s;
        comp[s] = (uint32_t)s;
        double vol = 0.0, scale = 0.0;
        while (head < tail) {
            uint32_t f = queue[head++];
            double a[3], b[3], c[3], x[3];
            v3_sub(a, m->v[m->tri[f][0]], o);
            v3_sub(b, m->v[m->tri[f][1]], o);
            v3_sub(c, m->v[m->tri[f][2]], o);
            v3_cross(x, b, c);
            vol += v3_dot(a, x) / 6.0;
            scale += fabs(v3_dot(a, x)) / 6.0;
            for (int k = 0; k < 3; k++) {
                uint32_t g = m->adj[f][k];
                if (g != TL_MESH_NONE && comp[g] == TL_MESH_NONE) {
                    comp[g] = (uint32_t)s;
                    queue[tail++] = g;
                }
            }
        }
        if (!(fabs(vol) > 1e-12 * scale))
            st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                      "%s: facet %zu: the closed surface it belongs to encloses no volume (%.6g m3 of facets whose "
                      "cones hold %.6g m3): it is flat, folded onto itself",
                      what, s, vol, scale);
        else if (!(vol > 0.0))
            st = fail(msg, msg_size, TL_ERROR_ARGUMENT,
                      "%s: facet %zu: the closed surface it belongs to encloses a signed volume of %.6g: its facets "
                      "are wound clockwise seen from outside (normals pointing inwards); reverse the vertex order "
                      "of every facet",
                      what, s, vol);
        m->volume += vol;
    }
    m->convex = st == TL_OK && pieces == 1;
    tl_mem_free(m->mem, comp, m->nt * sizeof *comp);
    tl_mem_free(m->mem, queue, m->nt * sizeof *queue);
    return st;
}

static tl_status vertex_facets(tl_mesh *m, const char *what, char *msg, size_t msg_size) {
    for (size_t i = 0; i <= m->nv; i++) m->vt_start[i] = 0;
    for (size_t f = 0; f < m->nt; f++)
        for (int k = 0; k < 3; k++) m->vt_start[m->tri[f][k] + 1]++;
    for (size_t i = 0; i < m->nv; i++) m->vt_start[i + 1] += m->vt_start[i];
    uint32_t *fill = tl_mem_alloc(m->mem, m->nv * sizeof *fill);
    if (!fill) return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    memcpy(fill, m->vt_start, m->nv * sizeof *fill);
    for (size_t f = 0; f < m->nt; f++)
        for (int k = 0; k < 3; k++) m->vt[fill[m->tri[f][k]]++] = (uint32_t)f;
    tl_mem_free(m->mem, fill, m->nv * sizeof *fill);
    return TL_OK;
}

/* each vertex's neighbours along the edges (a closed mesh: 2 per edge, 3 nt in all), in the
 * order its facets list them, each once */
static tl_status vertex_neighbours(tl_mesh *m, const char *what, char *msg, size_t msg_size) {
    size_t cap = 6 * m->nt;
    m->vv_start = tl_mem_alloc(m->mem, (m->nv + 1) * sizeof *m->vv_start);
    uint32_t *vv = tl_mem_alloc(m->mem, cap * sizeof *vv);
    if (!m->vv_start || !vv) {
        tl_mem_free(m->mem, vv, cap * sizeof *vv);
        return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    }
    size_t n = 0;
    for (size_t v = 0; v < m->nv; v++) {
        m->vv_start[v] = (uint32_t)n;
        size_t first = n;
        for (uint32_t i = m->vt_start[v]; i < m->vt_start[v + 1]; i++) {
            const uint32_t *t = m->tri[m->vt[i]];
            for (int k = 0; k < 3; k++) {
                uint32_t o = t[k];
                bool seen = o == (uint32_t)v;
                for (size_t j = first; j < n && !seen; j++) seen = vv[j] == o;
                if (!seen) vv[n++] = o;
            }
        }
    }
    m->vv_start[m->nv] = (uint32_t)n;
    m->vv = tl_mem_realloc(m->mem, vv, cap * sizeof *vv, (n > 0 ? n : 1) * sizeof *vv);
    if (!m->vv) {
        tl_mem_free(m->mem, vv, cap * sizeof *vv);
        m->vv_start[m->nv] = 0;
        return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    }
    return TL_OK;
}

/* the walk of tl_mesh_support from vertex v */
static uint32_t support_walk(const tl_mesh *m, const double u[3], uint32_t v, double *h) {
    double hv = v3_dot(u, m->v[v]);
    for (;;) {
        uint32_t next = v;
        double hn = hv;
        for (uint32_t i = m->vv_start[v]; i < m->vv_start[v + 1]; i++) {
            double x = v3_dot(u, m->v[m->vv[i]]);
            if (x > hn) {
                hn = x;
                next = m->vv[i];
            }
        }
        if (next == v) break;
        v = next;
        hv = hn;
    }
    *h = hv;
    return v;
}

/* the cube cell of direction u: the face of its largest component, then the other two
 * components over it, each in TL_MESH_CELLS parts */
static int support_cell(const double u[3]) {
    int a = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(u[k]) > fabs(u[a])) a = k;
    double big = fabs(u[a]);
    if (!(big > 0.0) || !isfinite(big)) return 0;
    int cell[2];
    for (int j = 0; j < 2; j++) {
        double x = (u[(a + 1 + j) % 3] / big + 1.0) * 0.5 * TL_MESH_CELLS;
        cell[j] = x >= TL_MESH_CELLS ? TL_MESH_CELLS - 1 : x > 0.0 ? (int)x : 0;
    }
    return ((2 * a + (u[a] < 0.0)) * TL_MESH_CELLS + cell[0]) * TL_MESH_CELLS + cell[1];
}

/* a convex mesh's per-facet data for the polygonal contact model's caps (pcm.c): the planes'
 * offsets and the facets' reach about their centroids */
static void facet_planes(tl_mesh *m) {
    for (size_t f = 0; f < m->nt; f++) {
        const uint32_t *t = m->tri[f];
        m->offset[f] = v3_dot(m->n[f], m->v[t[0]]);
        double r2 = 0.0, d[3];
        for (int c = 0; c < 3; c++) {
            v3_sub(d, m->v[t[c]], m->c[f]);
            r2 = dmax(r2, v3_norm2(d));
        }
        m->reach[f] = sqrt(r2) * (1.0 + 1e-12);
    }
}

/* the starting vertices: each cell's centre direction walked to its top, from the last one */
static void support_table(tl_mesh *m) {
    uint32_t v = 0;
    for (int face = 0; face < 6; face++)
        for (int i = 0; i < TL_MESH_CELLS; i++)
            for (int j = 0; j < TL_MESH_CELLS; j++) {
                int a = face / 2;
                double u[3];
                u[a] = face % 2 ? -1.0 : 1.0;
                u[(a + 1) % 3] = (2.0 * (i + 0.5) / TL_MESH_CELLS - 1.0);
                u[(a + 2) % 3] = (2.0 * (j + 0.5) / TL_MESH_CELLS - 1.0);
                double h;
                v = support_walk(m, u, v, &h);
                m->sup_start[(face * TL_MESH_CELLS + i) * TL_MESH_CELLS + j] = v;
            }
}

uint32_t tl_mesh_support(const tl_mesh *m, const double u[3], double *h) {
    return support_walk(m, u, m->sup_start[support_cell(u)], h);
}

uint32_t tl_mesh_support_start(const tl_mesh *m, const double u[3]) { return m->sup_start[support_cell(u)]; }

tl_status tl_mesh_from_arrays(tl_mem *mem, tl_mesh *m, const double *xyz, size_t nv, const uint32_t *tri,
                              size_t nt, const tl_mesh_opts *opts, const char *what, char *msg,
                              size_t msg_size) {
    tl_mesh_init(m);
    if (!what) what = "mesh";
    bool allow_open = opts && opts->allow_open;
    double scale = opts && opts->scale != 0.0 ? opts->scale : 1.0;
    if (!mem || !xyz || !tri)
        return fail(msg, msg_size, TL_ERROR_ARGUMENT, "%s: no vertices or facets given", what);
    if (!(scale > 0.0) || !(scale <= TL_MESH_MAX_SCALE))
        return fail(msg, msg_size, TL_ERROR_ARGUMENT, "%s: the scale must be > 0 and at most %g (metres per unit), got %g",
                    what, TL_MESH_MAX_SCALE, scale);
    if (nt < (allow_open ? 1u : 4u) || nv < 3)
        return fail(msg, msg_size, TL_ERROR_ARGUMENT,
                    "%s: %zu vertices and %zu facets: a %s needs at least %s", what, nv, nt,
                    allow_open ? "surface" : "closed surface", allow_open ? "3 and 1" : "4 and 4");
    if (nv >= TL_MESH_NONE || nt >= TL_MESH_NONE / 4)
        return fail(msg, msg_size, TL_ERROR_ARGUMENT, "%s: too many vertices or facets (%zu, %zu)", what, nv, nt);
    /* only the vertices that facets use are kept */
    uint32_t *map = tl_mem_alloc(mem, nv * sizeof *map);
    if (!map) return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    for (size_t i = 0; i < nv; i++) map[i] = TL_MESH_NONE;
    for (size_t f = 0; f < nt; f++)
        for (int k = 0; k < 3; k++) {
            uint32_t i = tri[3 * f + (size_t)k];
            if (i >= nv) {
                tl_mem_free(mem, map, nv * sizeof *map);
                return fail(msg, msg_size, TL_ERROR_ARGUMENT, "%s: facet %zu: vertex index %u is out of range (%zu vertices)",
                            what, f, i, nv);
            }
            map[i] = 0;
        }
    size_t used = 0;
    for (size_t i = 0; i < nv; i++)
        if (map[i] == 0) {
            for (int k = 0; k < 3; k++) {
                /* checked as scaled: a finite coordinate times the scale may overflow */
                double x = xyz[3 * i + (size_t)k];
                if (!isfinite(x)) {
                    tl_mem_free(mem, map, nv * sizeof *map);
                    return fail(msg, msg_size, TL_ERROR_ARGUMENT, "%s: vertex %zu has a coordinate that is not finite",
                                what, i);
                }
                if (!(fabs(scale * x) <= TL_MESH_MAX_COORD)) {
                    tl_mem_free(mem, map, nv * sizeof *map);
                    return fail(msg, msg_size, TL_ERROR_ARGUMENT,
                                "%s: vertex %zu lies %.6g m from the origin along an axis (coordinate %.6g times the "
                                "scale %g), beyond %g m",
                                what, i, fabs(scale * x), x, scale, TL_MESH_MAX_COORD);
                }
            }
            map[i] = (uint32_t)used++;
        }
    m->mem = mem;
    m->nv = used;
    m->nt = nt;
    m->v = tl_mem_alloc(mem, used * sizeof *m->v);
    m->tri = tl_mem_alloc(mem, nt * sizeof *m->tri);
    m->n = tl_mem_alloc(mem, nt * sizeof *m->n);
    m->area = tl_mem_alloc(mem, nt * sizeof *m->area);
    m->c = tl_mem_alloc(mem, nt * sizeof *m->c);
    m->adj = tl_mem_alloc(mem, nt * sizeof *m->adj);
    m->vt_start = tl_mem_alloc(mem, (used + 1) * sizeof *m->vt_start);
    m->vt = tl_mem_alloc(mem, 3 * nt * sizeof *m->vt);
    m->vn = tl_mem_alloc(mem, used * sizeof *m->vn);
    if (!m->v || !m->tri || !m->n || !m->area || !m->c || !m->adj || !m->vt_start || !m->vt || !m->vn) {
        tl_mem_free(mem, map, nv * sizeof *map);
        tl_mesh_free(m);
        return fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    }
    for (size_t i = 0; i < nv; i++)
        if (map[i] != TL_MESH_NONE)
            for (int k = 0; k < 3; k++) m->v[map[i]][k] = scale * xyz[3 * i + (size_t)k];
    for (size_t f = 0; f < nt; f++)
        for (int k = 0; k < 3; k++) m->tri[f][k] = map[tri[3 * f + (size_t)k]];
    tl_mem_free(mem, map, nv * sizeof *map);
    bounds(m);
    tl_status st = facet_data(m, what, msg, msg_size);
    /* walls too: a repeated facet would push twice */
    if (st == TL_OK) st = check_duplicates(m, what, msg, msg_size);
    if (st == TL_OK) st = build_edges(m, allow_open, what, msg, msg_size);
    if (st == TL_OK && m->closed) st = check_outward(m, what, msg, msg_size);
    if (st == TL_OK && m->closed) st = check_self_intersection(m, what, msg, msg_size);
    if (st == TL_OK) st = vertex_facets(m, what, msg, msg_size);
    if (st == TL_OK && m->convex) {
        /* convex: at every edge the neighbour's far vertex is not above the facet's plane */
        double size = 0.0;
        for (int k = 0; k < 3; k++) size = dmax(size, m->hi[k] - m->lo[k]);
        for (size_t f = 0; f < m->nt && m->convex; f++)
            for (int k = 0; k < 3; k++) {
                uint32_t g = m->adj[f][k], far = m->tri[g][0];
                for (int j = 0; j < 3; j++)
                    if (m->tri[g][j] != m->tri[f][k] && m->tri[g][j] != m->tri[f][(k + 1) % 3]) far = m->tri[g][j];
                double d[3];
                v3_sub(d, m->v[far], m->v[m->tri[f][0]]);
                if (v3_dot(d, m->n[f]) > 1e-12 * size) m->convex = false;
            }
        if (m->convex) st = vertex_neighbours(m, what, msg, msg_size);
        if (st == TL_OK && m->convex) {
            m->offset = tl_mem_alloc(mem, m->nt * sizeof *m->offset);
            m->reach = tl_mem_alloc(mem, m->nt * sizeof *m->reach);
            if (!m->offset || !m->reach) st = fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
        }
        if (st == TL_OK && m->convex) {
            facet_planes(m);
            support_table(m);
        }
    }
    if (st == TL_OK) {
        vertex_normals(m);
        if (!m->closed) m->volume = 0.0;
        m->r_volume = m->closed ? cbrt(3.0 * m->volume / (4.0 * TL_PI)) : 0.0;
        if (tl_bvh_build(mem, &m->bvh, TL_MESH_TRIS(m)) != TL_OK)
            st = fail(msg, msg_size, TL_ERROR_MEMORY, "%s: out of memory", what);
    }
    if (st != TL_OK) tl_mesh_free(m);
    return st;
}

tl_status tl_mesh_transform(tl_mesh *m, const double R[3][3], const double t[3]) {
    for (size_t i = 0; i < m->nv; i++) {
        double d[3], x[3];
        v3_sub(d, m->v[i], t);
        for (int r = 0; r < 3; r++) x[r] = R[r][0] * d[0] + R[r][1] * d[1] + R[r][2] * d[2];
        v3_copy(m->v[i], x);
        for (int r = 0; r < 3; r++) x[r] = R[r][0] * m->vn[i][0] + R[r][1] * m->vn[i][1] + R[r][2] * m->vn[i][2];
        v3_copy(m->vn[i], x);
    }
    for (size_t f = 0; f < m->nt; f++) {
        const uint32_t *tr = m->tri[f];
        const double *a = m->v[tr[0]], *b = m->v[tr[1]], *c = m->v[tr[2]];
        double e1[3], e2[3], n[3];
        v3_sub(e1, b, a);
        v3_sub(e2, c, a);
        v3_cross(n, e1, e2);
        /* a rotation keeps the facet's area (> 0, checked at the load): the guard is for rounding */
        double len = v3_norm(n);
        if (len > 0.0) v3_scale(m->n[f], n, 1.0 / len);
        for (int k = 0; k < 3; k++) m->c[f][k] = (a[k] + b[k] + c[k]) / 3.0;
    }
    bounds(m);
    if (m->convex) {
        facet_planes(m);
        support_table(m);
    }
    return tl_bvh_build(m->mem, &m->bvh, TL_MESH_TRIS(m));
}

void tl_mesh_feature_normal(const tl_mesh *m, uint32_t f, tl_feature feature, int index, double out[3]) {
    switch (feature) {
    case TL_FEATURE_VERTEX:
        v3_copy(out, m->vn[m->tri[f][index]]);
        return;
    case TL_FEATURE_EDGE: {
        uint32_t g = m->adj[f][index];
        if (g == TL_MESH_NONE) {
            v3_copy(out, m->n[f]);
            return;
        }
        v3_add(out, m->n[f], m->n[g]);
        double l = v3_norm(out);
        if (l > 0.0) v3_scale(out, out, 1.0 / l);
        else v3_copy(out, m->n[f]);
        return;
    }
    case TL_FEATURE_FACE:
    default:
        v3_copy(out, m->n[f]);
        return;
    }
}
