#include "bvh.h"

#include <math.h>
#include <string.h>

#include "vec.h"

#define LEAF_SIZE 4

void tl_bvh_init(tl_bvh *b) { memset(b, 0, sizeof *b); }

void tl_bvh_free(tl_mem *mem, tl_bvh *b) {
    tl_mem_free(mem, b->node, b->capnodes * sizeof *b->node);
    tl_mem_free(mem, b->idx, b->nidx * sizeof *b->idx);
    tl_mem_free(mem, b->pos, b->nidx * sizeof *b->pos);
    tl_mem_free(mem, b->fbox, b->nidx * sizeof *b->fbox);
    tl_bvh_init(b);
}

/* order of facets along an axis: centroid coordinate, then index (a total order) */
static bool less(const tl_tris *m, int axis, uint32_t a, uint32_t b) {
    double ca = m->c[a][axis], cb = m->c[b][axis];
    return ca < cb || (ca == cb && a < b);
}

/* rearranges idx[lo, hi) so that idx[k] is the k-th in order, the ones
 * before it not after it and the ones after it not before it (quickselect,
 * Lomuto's partition about the median of three) */
static void select_kth(const tl_tris *m, int axis, uint32_t *idx, size_t lo, size_t hi, size_t k) {
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2, last = hi - 1, p;
        uint32_t a = idx[lo], b = idx[mid], c = idx[last];
        if (less(m, axis, a, b)) p = less(m, axis, b, c) ? mid : (less(m, axis, a, c) ? last : lo);
        else p = less(m, axis, a, c) ? lo : (less(m, axis, b, c) ? last : mid);
        uint32_t piv = idx[p];
        idx[p] = idx[last];
        idx[last] = piv;
        size_t store = lo;
        for (size_t i = lo; i < last; i++)
            if (less(m, axis, idx[i], piv)) {
                uint32_t s = idx[i];
                idx[i] = idx[store];
                idx[store++] = s;
            }
        idx[last] = idx[store];
        idx[store] = piv;
        if (k == store) return;
        if (k < store) hi = store;
        else lo = store + 1;
    }
}

static void facet_box(const tl_tris *m, uint32_t f, double lo[3], double hi[3]) {
    const uint32_t *t = m->tri[f];
    for (int k = 0; k < 3; k++) {
        double a = m->v[t[0]][k], b = m->v[t[1]][k], c = m->v[t[2]][k];
        lo[k] = dmin(a, dmin(b, c));
        hi[k] = dmax(a, dmax(b, c));
    }
}

tl_status tl_bvh_build(tl_mem *mem, tl_bvh *b, const tl_tris *m) {
    tl_bvh_free(mem, b);
    if (m->nt == 0) return TL_OK;
    size_t cap = 2 * m->nt;
    b->node = tl_mem_alloc(mem, cap * sizeof *b->node);
    b->idx = tl_mem_alloc(mem, m->nt * sizeof *b->idx);
    b->pos = tl_mem_alloc(mem, m->nt * sizeof *b->pos);
    b->fbox = tl_mem_alloc(mem, m->nt * sizeof *b->fbox);
    if (!b->node || !b->idx || !b->pos || !b->fbox) {
        tl_mem_free(mem, b->node, cap * sizeof *b->node);
        tl_mem_free(mem, b->idx, m->nt * sizeof *b->idx);
        tl_mem_free(mem, b->pos, m->nt * sizeof *b->pos);
        tl_mem_free(mem, b->fbox, m->nt * sizeof *b->fbox);
        tl_bvh_init(b);
        return TL_ERROR_MEMORY;
    }
    for (size_t f = 0; f < m->nt; f++) facet_box(m, (uint32_t)f, b->fbox[f], b->fbox[f] + 3);
    b->capnodes = cap;
    b->nidx = m->nt;
    for (size_t i = 0; i < m->nt; i++) b->idx[i] = (uint32_t)i;
    /* top-down: a node is split while it holds more than LEAF_SIZE facets */
    uint32_t stack[TL_BVH_STACK * 2];
    int depth_of[TL_BVH_STACK * 2];
    int sp = 0;
    b->node[0].first = 0;
    b->node[0].count = (uint32_t)m->nt;
    b->nnodes = 1;
    b->depth = 1;
    stack[sp] = 0;
    depth_of[sp++] = 1;
    while (sp > 0) {
        sp--;
        uint32_t ni = stack[sp];
        int depth = depth_of[sp];
        if (depth > b->depth) b->depth = depth;
        tl_bvh_node *nd = &b->node[ni];
        if (nd->count <= LEAF_SIZE) continue;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
            const double *c = m->c[b->idx[i]];
            for (int k = 0; k < 3; k++) {
                lo[k] = dmin(lo[k], c[k]);
                hi[k] = dmax(hi[k], c[k]);
            }
        }
        int axis = 0;
        for (int k = 1; k < 3; k++)
            if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
        uint32_t first = nd->first, count = nd->count, half = count / 2;
        select_kth(m, axis, b->idx, first, first + count, first + half);
        uint32_t left = b->nnodes;
        b->nnodes += 2;
        nd->first = left;
        nd->count = 0;
        b->node[left].first = first;
        b->node[left].count = half;
        b->node[left + 1].first = first + half;
        b->node[left + 1].count = count - half;
        /* halving keeps the stack short: at most one pending node per level */
        stack[sp] = left + 1;
        depth_of[sp++] = depth + 1;
        stack[sp] = left;
        depth_of[sp++] = depth + 1;
    }
    for (size_t i = 0; i < m->nt; i++) b->pos[b->idx[i]] = (uint32_t)i;
    /* boxes bottom-up: children always come after their parent */
    for (uint32_t i = b->nnodes; i-- > 0;) {
        tl_bvh_node *nd = &b->node[i];
        if (nd->count > 0) {
            facet_box(m, b->idx[nd->first], nd->lo, nd->hi);
            for (uint32_t j = nd->first + 1; j < nd->first + nd->count; j++) {
                double lo[3], hi[3];
                facet_box(m, b->idx[j], lo, hi);
                for (int k = 0; k < 3; k++) {
                    nd->lo[k] = dmin(nd->lo[k], lo[k]);
                    nd->hi[k] = dmax(nd->hi[k], hi[k]);
                }
            }
        } else {
            const tl_bvh_node *l = &b->node[nd->first], *r = &b->node[nd->first + 1];
            for (int k = 0; k < 3; k++) {
                nd->lo[k] = dmin(l->lo[k], r->lo[k]);
                nd->hi[k] = dmax(l->hi[k], r->hi[k]);
            }
        }
        for (int k = 0; k < 3; k++) nd->c[k] = 0.5 * (nd->lo[k] + nd->hi[k]);
    }
    /* spheres: the farthest vertex of the node's facets from its centre; the
     * facets of a node are a contiguous run of idx (a leaf's, or its leaves') */
    for (uint32_t i = b->nnodes; i-- > 0;) {
        tl_bvh_node *nd = &b->node[i];
        uint32_t lo = i, hi = i;
        while (b->node[lo].count == 0) lo = b->node[lo].first;
        while (b->node[hi].count == 0) hi = b->node[hi].first + 1;
        uint32_t from = b->node[lo].first, to = b->node[hi].first + b->node[hi].count;
        double r2 = 0.0;
        for (uint32_t j = from; j < to; j++)
            for (int k = 0; k < 3; k++) {
                double d[3];
                v3_sub(d, m->v[m->tri[b->idx[j]][k]], nd->c);
                r2 = dmax(r2, v3_norm2(d));
            }
        nd->r = sqrt(r2);
    }
    return TL_OK;
}

static bool boxes_meet(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]) {
    return alo[0] <= bhi[0] && blo[0] <= ahi[0] && alo[1] <= bhi[1] && blo[1] <= ahi[1] && alo[2] <= bhi[2] &&
           blo[2] <= ahi[2];
}

size_t tl_bvh_box(const tl_tris *m, const double lo[3], const double hi[3], uint32_t *out, size_t cap) {
    const tl_bvh *b = m->bvh;
    if (b->nnodes == 0) return 0;
    size_t n = 0;
    uint32_t stack[TL_BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const tl_bvh_node *nd = &b->node[stack[--sp]];
        if (!boxes_meet(nd->lo, nd->hi, lo, hi)) continue;
        if (nd->count == 0) {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
            continue;
        }
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
            uint32_t f = b->idx[i];
            double flo[3], fhi[3];
            facet_box(m, f, flo, fhi);
            if (!boxes_meet(flo, fhi, lo, hi)) continue;
            if (n < cap) out[n] = f;
            n++;
        }
    }
    return n;
}

/* squared distance from p to the box */
static double box_dist2(const tl_bvh_node *nd, const double p[3]) {
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = p[k] < nd->lo[k] ? nd->lo[k] - p[k] : (p[k] > nd->hi[k] ? p[k] - nd->hi[k] : 0.0);
        s += d * d;
    }
    return s;
}

bool tl_bvh_try_facet(const tl_tris *m, const double p[3], uint32_t f, double *best, bool found, tl_mesh_point *out) {
    const uint32_t *t = m->tri[f];
    double q[3], d[3];
    tl_feature feat;
    int index;
    tl_tri_closest(p, m->v[t[0]], m->v[t[1]], m->v[t[2]], q, &feat, &index, NULL);
    v3_sub(d, p, q);
    double d2 = v3_norm2(d);
    /* ties go to the lower facet index: the same answer whatever the hint */
    if (d2 < *best || (d2 == *best && (!found || f < out->facet))) {
        *best = d2;
        out->facet = f;
        out->feature = feat;
        out->index = index;
        v3_copy(out->q, q);
        return true;
    }
    return found;
}

/* the closest point among the facets within sqrt(best) of p; found: one was
 * given in out already (the hint) */
static bool closest_search(const tl_tris *m, const double p[3], double best, bool found, tl_mesh_point *out) {
    const tl_bvh *b = m->bvh;
    uint32_t stack[TL_BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const tl_bvh_node *nd = &b->node[stack[--sp]];
        if (box_dist2(nd, p) > best) continue;
        if (nd->count == 0) {
            /* the nearer child first (pushed last) */
            uint32_t l = nd->first, r = nd->first + 1;
            double dl = box_dist2(&b->node[l], p), dr = box_dist2(&b->node[r], p);
            if (dl <= dr) {
                stack[sp++] = r;
                stack[sp++] = l;
            } else {
                stack[sp++] = l;
                stack[sp++] = r;
            }
            continue;
        }
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
            found = tl_bvh_try_facet(m, p, b->idx[i], &best, found, out);
    }
    if (found) out->dist = sqrt(best);
    return found;
}

bool tl_bvh_closest(const tl_tris *m, const double p[3], double max_dist, tl_mesh_point *out) {
    if (m->bvh->nnodes == 0) return false;
    return closest_search(m, p, max_dist * max_dist, false, out);
}

void tl_bvh_closest_hint(const tl_tris *m, const double p[3], uint32_t hint, tl_mesh_point *out) {
    const uint32_t *t = m->tri[hint];
    double d[3];
    tl_tri_closest(p, m->v[t[0]], m->v[t[1]], m->v[t[2]], out->q, &out->feature, &out->index, NULL);
    out->facet = hint;
    v3_sub(d, p, out->q);
    closest_search(m, p, v3_norm2(d), true, out);
}

/* the parameter range [t0, t1] of the ray inside the box (slab test) */
static bool ray_box(const tl_bvh_node *nd, const double o[3], const double inv[3], double tmin, double tmax,
                    double *tenter) {
    double t0 = tmin, t1 = tmax;
    for (int k = 0; k < 3; k++) {
        double a = (nd->lo[k] - o[k]) * inv[k], b = (nd->hi[k] - o[k]) * inv[k];
        if (a > b) {
            double s = a;
            a = b;
            b = s;
        }
        /* a direction component of zero gives +-inf (or nan for a point on the slab: accept) */
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
        if (t0 > t1) return false;
    }
    *tenter = t0;
    return true;
}

bool tl_bvh_ray(const tl_tris *m, const double o[3], const double d[3], double tmin, double tmax, tl_ray_hit *hit) {
    const tl_bvh *b = m->bvh;
    if (b->nnodes == 0) return false;
    double inv[3];
    for (int k = 0; k < 3; k++) inv[k] = 1.0 / d[k];
    bool found = false;
    double best = tmax, te;
    uint32_t stack[TL_BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const tl_bvh_node *nd = &b->node[stack[--sp]];
        /* a node pushed before a closer hit was found may now lie beyond it */
        if (!ray_box(nd, o, inv, tmin, best, &te)) continue;
        if (nd->count == 0) {
            uint32_t l = nd->first, r = nd->first + 1;
            double tl, tr;
            bool hl = ray_box(&b->node[l], o, inv, tmin, best, &tl);
            bool hr = ray_box(&b->node[r], o, inv, tmin, best, &tr);
            if (hl && hr) {
                if (tl <= tr) {
                    stack[sp++] = r;
                    stack[sp++] = l;
                } else {
                    stack[sp++] = l;
                    stack[sp++] = r;
                }
            } else if (hl) {
                stack[sp++] = l;
            } else if (hr) {
                stack[sp++] = r;
            }
            continue;
        }
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
            uint32_t f = b->idx[i];
            const uint32_t *t = m->tri[f];
            double tt;
            if (tl_tri_ray(o, d, m->v[t[0]], m->v[t[1]], m->v[t[2]], tmin, best, &tt) &&
                (!found || tt < best || (tt == best && f < hit->facet))) {
                best = tt;
                found = true;
                hit->facet = f;
                hit->t = tt;
            }
        }
    }
    return found;
}

/* the number of facets the ray o + t d, t > 0, crosses */
static unsigned crossings(const tl_tris *m, const double o[3], const double d[3]) {
    const tl_bvh *b = m->bvh;
    double inv[3], te;
    for (int k = 0; k < 3; k++) inv[k] = 1.0 / d[k];
    unsigned n = 0;
    uint32_t stack[TL_BVH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const tl_bvh_node *nd = &b->node[stack[--sp]];
        if (!ray_box(nd, o, inv, 0.0, INFINITY, &te)) continue;
        if (nd->count == 0) {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
            continue;
        }
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
            const uint32_t *t = m->tri[b->idx[i]];
            double tt;
            if (tl_tri_ray(o, d, m->v[t[0]], m->v[t[1]], m->v[t[2]], 0.0, INFINITY, &tt) && tt > 0.0) n++;
        }
    }
    return n;
}

bool tl_bvh_inside(const tl_tris *m, const double p[3]) {
    if (m->bvh->nnodes == 0) return false;
    for (int k = 0; k < 3; k++)
        if (p[k] < m->lo[k] || p[k] > m->hi[k]) return false;
    /* three directions far from the axes and from each other */
    static const double dir[3][3] = {{0.5773502691896258, 0.5773502691896258, 0.5773502691896258},
                                     {-0.6411774402700406, 0.2840524014706466, 0.7128538271009155},
                                     {0.2314658427016231, -0.8906474829201047, 0.3913440946254539}};
    int votes = 0;
    for (int r = 0; r < 3; r++) votes += (int)(crossings(m, p, dir[r]) & 1u);
    return votes >= 2;
}
