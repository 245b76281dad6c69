/*
 * The polygonal contact model for mesh-mesh and mesh-wall pairs (pcm.h,
 * docs/geometry.md). All sums are taken in a's body frame.
 */
#include "pcm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "triangle.h"
#include "vec.h"

#define NONE TL_MESH_NONE

/* a contact element: the part of a facet inside the other body */
typedef struct elem {
    uint32_t facet;
    uint32_t parent;  /* union-find over elements */
    uint32_t hit;     /* the other body's facet closest to the element's deepest vertex (NONE: none) */
    uint32_t side;    /* 0: a facet of a, 1: of b */
    double q;         /* its weight: 1 where the other surface is about flat over it, to 0 */
    double area;      /* the inside area, m^2 */
    double frac;      /* area over the facet's area */
    double n[3];      /* the facet's outward normal, a's frame */
    double ax[3];     /* int x dA over the inside part, a's frame */
    double hx[3];     /* int d x dA over the inside part (the pressure's first moment), a's frame */
    double h;         /* int d dA, d the penetration (the distance to the other surface), m^3 */
    double hh;        /* int d^2 dA (the potential depth, against walls), m^4 */
    double dmax;      /* the largest penetration on the element, m */
    double lo[3], hi[3]; /* the box of its inside part, a's frame */
    double bm[3];     /* int lambda_k dA over the inside part (lambda: the facet's barycentric coordinates) */
    double pen[3];    /* the penetration at the facet's vertices (-phi), m */
    double pn[3][3];  /* the other body's normal there (its closest feature's), a's frame */
    /* the potential reading of a mesh pair (tl_pcm_mesh_mesh, TL_PCM_DEPTH_POTENTIAL) */
    double xv[3][3];  /* the facet's corners, a's frame */
    double gd[3][3];  /* the unit direction in which each corner's penetration grows, a's frame */
    double dV[3], dPhi[3]; /* d(int d dA)/d pen_k and d(int d^2/2 dA)/d pen_k over the inside part */
    double xx[6];     /* int x x^T dA over the inside part (tl_tri_moments), a's frame */
} elem;

/* a vertex's signed distance to the other body (< 0 inside it) */
typedef struct vdist {
    double phi;
    double pn[3];     /* the pseudo-normal of the closest feature, the other body's frame */
    double gd[3];     /* -grad phi: the unit direction in which the penetration grows (from the
                       * closest point, or -pn where the point lies on the surface), that frame */
    uint32_t facet;   /* the other body's closest facet */
} vdist;

/* the sums of one side of a patch (each element weighted by its q) */
typedef struct side_sum {
    double S[3];   /* int n dA */
    double W;      /* the side's weight: sum of q frac (how many facets it covers) */
    double V;      /* the overlap volume seen from this side */
    double Phi;    /* its first moment about the contact plane, int d^2/2 dA (walls) */
    double A;      /* projected area */
    double P[3];   /* pressure-weighted mid-penetration points (int d x dA) */
    double Pw;     /* and their weight, int d dA */
    double Pa[3];  /* area-weighted ones (int x dA), for a contact with no volume yet */
    double Paw;
} side_sum;

typedef struct comp {
    uint32_t root;
    unsigned sides;      /* bit 0: has elements of a, bit 1: of b */
    double area, ax[3];  /* for merging: total area and int x dA */
    double lo[3], hi[3]; /* the box of its elements' facets */
    side_sum s[2];
    double n[3];
    double dmax;
} comp;

struct sm_rec {
    uint32_t facet, parent;
    tl_feature feature;
    int index;
    double q[3], dist;
};

/* the most facets a cap holds (slab_candidates) */
#define TL_PCM_CAP 512

struct tl_pcm_work {
    elem *e, *e2;     /* the elements; e2: sort_elements' copy */
    size_t ne, cape, cape2;
    uint64_t *key;    /* sort_elements' keys */
    size_t capkey;
    uint32_t *stamp[2], *slot[2];
    size_t capstamp[2], capslot[2];
    uint32_t gen;
    uint32_t *queue[2];
    size_t nq[2], capq[2];
    uint32_t *vstamp[2];
    vdist *vd[2];
    size_t capvstamp[2], capvd[2];
    uint32_t *vmark[2], *vq; /* the slab's walk over the vertices: visited (gen), its queue */
    size_t capvmark[2], capvq;
    /* two convex bodies: the cap of mesh k (0: a, 1: b) beyond the level cap_L[k] along su[k]
     * (a: above, b: below), deeper than the slab (tl_pcm_mesh_mesh): its facets and their planes
     * (n, n . v), for the distances of the other side's vertices; cap_ok[k] false when the cap
     * is too large to be worth it */
    uint32_t *cstamp[2];
    size_t capcstamp[2], ncf[2];
    uint32_t cf[2][TL_PCM_CAP];
    /* a cap facet's plane (nx, ny, nz, n . v0), its centroid (cx, cy, cz) and its reach from it,
     * each a row of values, facet by facet */
    double cpl[2][8][TL_PCM_CAP];
    bool cap_ok[2];
    double cap_L[2];
    uint32_t hint[2];
    double behind[2];  /* the side of an open other body that is its inside (signed_distance) */
    /* b's node and facet boxes in a's frame, computed once per query */
    uint32_t *nstamp, *fstamp, *astamp;
    double (*nbox)[9], (*fbox)[6], (*abox)[6];
    size_t capnstamp, capnbox, capfstamp, capfbox, capastamp, capabox;
    comp *c;
    size_t capc;
    uint32_t *ci;     /* each element's component (label_components) */
    size_t capci;
    uint32_t *cand;
    size_t capcand;
    struct sm_rec *rec;
    size_t caprec;
    /* two convex bodies: a vertex of side 0 (a's frame) with su[0] . v < sb[0], or of side 1 (b's
     * frame) with su[1] . v > sb[1], lies outside the other body (the slab, tl_pcm_mesh_mesh) */
    bool slab_on;
    double su[2][3], sb[2];
    bool pot;          /* the potential reading: every element weighs 1, and carries its corners */
};

void tl_pcm_scratch_init(tl_pcm_scratch *s, tl_mem *mem) {
    memset(s, 0, sizeof *s);
    s->mem = mem;
}

void tl_pcm_scratch_free(tl_pcm_scratch *s) {
    struct tl_pcm_work *w = s->w;
    if (w) {
        tl_mem *mem = s->mem;
        tl_mem_free(mem, w->e, w->cape * sizeof *w->e);
        tl_mem_free(mem, w->e2, w->cape2 * sizeof *w->e2);
        tl_mem_free(mem, w->key, w->capkey * sizeof *w->key);
        for (int k = 0; k < 2; k++) {
            tl_mem_free(mem, w->stamp[k], w->capstamp[k] * sizeof *w->stamp[k]);
            tl_mem_free(mem, w->slot[k], w->capslot[k] * sizeof *w->slot[k]);
            tl_mem_free(mem, w->queue[k], w->capq[k] * sizeof *w->queue[k]);
            tl_mem_free(mem, w->vstamp[k], w->capvstamp[k] * sizeof *w->vstamp[k]);
            tl_mem_free(mem, w->vd[k], w->capvd[k] * sizeof *w->vd[k]);
            tl_mem_free(mem, w->vmark[k], w->capvmark[k] * sizeof *w->vmark[k]);
            tl_mem_free(mem, w->cstamp[k], w->capcstamp[k] * sizeof *w->cstamp[k]);
        }
        tl_mem_free(mem, w->vq, w->capvq * sizeof *w->vq);
        tl_mem_free(mem, w->nstamp, w->capnstamp * sizeof *w->nstamp);
        tl_mem_free(mem, w->fstamp, w->capfstamp * sizeof *w->fstamp);
        tl_mem_free(mem, w->nbox, w->capnbox * sizeof *w->nbox);
        tl_mem_free(mem, w->astamp, w->capastamp * sizeof *w->astamp);
        tl_mem_free(mem, w->abox, w->capabox * sizeof *w->abox);
        tl_mem_free(mem, w->fbox, w->capfbox * sizeof *w->fbox);
        tl_mem_free(mem, w->c, w->capc * sizeof *w->c);
        tl_mem_free(mem, w->ci, w->capci * sizeof *w->ci);
        tl_mem_free(mem, w->cand, w->capcand * sizeof *w->cand);
        tl_mem_free(mem, w->rec, w->caprec * sizeof(*w->rec));
        tl_mem_free(mem, w, sizeof *w);
    }
    s->w = NULL;
}

/* ---- scratch ---- */

static struct tl_pcm_work *work(tl_pcm_scratch *s) {
    if (!s->w) {
        s->w = tl_mem_calloc(s->mem, 1, sizeof *s->w);
        if (s->w) s->w->gen = 0;
    }
    return s->w;
}

/* the visit stamps of one side, for a mesh of nt facets and nv vertices */
static int stamps(tl_pcm_scratch *s, int side, size_t nt, size_t nv) {
    struct tl_pcm_work *w = s->w;
    size_t oldv = w->capvstamp[side];
    if (oldv < nv) {
        if (tl_mem_reserve(s->mem, (void **)&w->vstamp[side], &w->capvstamp[side], nv, sizeof(uint32_t)) != 0)
            return -1;
        memset(w->vstamp[side] + oldv, 0, (w->capvstamp[side] - oldv) * sizeof(uint32_t));
    }
    if (w->capvd[side] < nv &&
        tl_mem_reserve(s->mem, (void **)&w->vd[side], &w->capvd[side], nv, sizeof(vdist)) != 0)
        return -1;
    oldv = w->capvmark[side];
    if (oldv < nv) {
        if (tl_mem_reserve(s->mem, (void **)&w->vmark[side], &w->capvmark[side], nv, sizeof(uint32_t)) != 0)
            return -1;
        memset(w->vmark[side] + oldv, 0, (w->capvmark[side] - oldv) * sizeof(uint32_t));
    }
    if (w->capvq < nv && tl_mem_reserve(s->mem, (void **)&w->vq, &w->capvq, nv, sizeof(uint32_t)) != 0) return -1;
    size_t oldc = w->capcstamp[side];
    if (oldc < nt) {
        if (tl_mem_reserve(s->mem, (void **)&w->cstamp[side], &w->capcstamp[side], nt, sizeof(uint32_t)) != 0)
            return -1;
        memset(w->cstamp[side] + oldc, 0, (w->capcstamp[side] - oldc) * sizeof(uint32_t));
    }
    w->ncf[side] = 0;
    w->cap_ok[side] = false;
    w->hint[side] = 0;
    size_t old = w->capstamp[side];
    if (old < nt) {
        if (tl_mem_reserve(s->mem, (void **)&w->stamp[side], &w->capstamp[side], nt, sizeof(uint32_t)) != 0)
            return -1;
        memset(w->stamp[side] + old, 0, (w->capstamp[side] - old) * sizeof(uint32_t));
    }
    if (w->capslot[side] < nt &&
        tl_mem_reserve(s->mem, (void **)&w->slot[side], &w->capslot[side], nt, sizeof(uint32_t)) != 0)
        return -1;
    if (w->capq[side] < nt &&
        tl_mem_reserve(s->mem, (void **)&w->queue[side], &w->capq[side], nt, sizeof(uint32_t)) != 0)
        return -1;
    w->nq[side] = 0;
    return 0;
}

/* the box caches for a mesh b of nn nodes and nt facets, and a of na nodes */
static int box_caches(tl_pcm_scratch *s, size_t nn, size_t nt, size_t na) {
    struct tl_pcm_work *w = s->w;
    size_t old = w->capastamp;
    if (old < na) {
        if (tl_mem_reserve(s->mem, (void **)&w->astamp, &w->capastamp, na, sizeof(uint32_t)) != 0) return -1;
        memset(w->astamp + old, 0, (w->capastamp - old) * sizeof(uint32_t));
    }
    if (w->capabox < na && tl_mem_reserve(s->mem, (void **)&w->abox, &w->capabox, na, sizeof *w->abox) != 0) return -1;
    old = w->capnstamp;
    if (old < nn) {
        if (tl_mem_reserve(s->mem, (void **)&w->nstamp, &w->capnstamp, nn, sizeof(uint32_t)) != 0) return -1;
        memset(w->nstamp + old, 0, (w->capnstamp - old) * sizeof(uint32_t));
    }
    old = w->capfstamp;
    if (old < nt) {
        if (tl_mem_reserve(s->mem, (void **)&w->fstamp, &w->capfstamp, nt, sizeof(uint32_t)) != 0) return -1;
        memset(w->fstamp + old, 0, (w->capfstamp - old) * sizeof(uint32_t));
    }
    if (w->capnbox < nn && tl_mem_reserve(s->mem, (void **)&w->nbox, &w->capnbox, nn, sizeof *w->nbox) != 0) return -1;
    if (w->capfbox < nt && tl_mem_reserve(s->mem, (void **)&w->fbox, &w->capfbox, nt, sizeof *w->fbox) != 0) return -1;
    return 0;
}

static void next_generation(struct tl_pcm_work *w) {
    if (++w->gen == 0) {
        for (int k = 0; k < 2; k++) {
            if (w->stamp[k]) memset(w->stamp[k], 0, w->capstamp[k] * sizeof(uint32_t));
            if (w->vstamp[k]) memset(w->vstamp[k], 0, w->capvstamp[k] * sizeof(uint32_t));
            if (w->vmark[k]) memset(w->vmark[k], 0, w->capvmark[k] * sizeof(uint32_t));
            if (w->cstamp[k]) memset(w->cstamp[k], 0, w->capcstamp[k] * sizeof(uint32_t));
        }
        if (w->nstamp) memset(w->nstamp, 0, w->capnstamp * sizeof(uint32_t));
        if (w->fstamp) memset(w->fstamp, 0, w->capfstamp * sizeof(uint32_t));
        if (w->astamp) memset(w->astamp, 0, w->capastamp * sizeof(uint32_t));
        w->gen = 1;
    }
}

static void visit(struct tl_pcm_work *w, int side, uint32_t f) {
    if (w->stamp[side][f] == w->gen) return;
    w->stamp[side][f] = w->gen;
    w->slot[side][f] = NONE;
    w->queue[side][w->nq[side]++] = f;
}

static elem *new_elem(tl_pcm_scratch *s) {
    struct tl_pcm_work *w = s->w;
    if (tl_mem_reserve(s->mem, (void **)&w->e, &w->cape, w->ne + 1, sizeof *w->e) != 0) return NULL;
    elem *e = &w->e[w->ne];
    memset(e, 0, sizeof *e);
    e->parent = (uint32_t)w->ne;
    e->hit = NONE;
    return e;
}

/* ---- frames ---- */

/* x_a = R x_b + t */
typedef struct frame {
    double R[3][3];
    double t[3];
} frame;

static void rot(const double R[3][3], const double v[3], double o[3]) {
    double x = R[0][0] * v[0] + R[0][1] * v[1] + R[0][2] * v[2];
    double y = R[1][0] * v[0] + R[1][1] * v[1] + R[1][2] * v[2];
    double z = R[2][0] * v[0] + R[2][1] * v[1] + R[2][2] * v[2];
    v3_set(o, x, y, z);
}
static void rot_t(const double R[3][3], const double v[3], double o[3]) {
    double x = R[0][0] * v[0] + R[1][0] * v[1] + R[2][0] * v[2];
    double y = R[0][1] * v[0] + R[1][1] * v[1] + R[2][1] * v[2];
    double z = R[0][2] * v[0] + R[1][2] * v[1] + R[2][2] * v[2];
    v3_set(o, x, y, z);
}
static void apply(const frame *f, const double x[3], double o[3]) {
    rot(f->R, x, o);
    v3_add(o, o, f->t);
}

/* b's frame in a's: R = Ra^T Rb, t = Ra^T (xb - xa) */
static void relative(const tl_pose *pa, const tl_pose *pb, frame *f) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f->R[i][j] = pa->R[0][i] * pb->R[0][j] + pa->R[1][i] * pb->R[1][j] + pa->R[2][i] * pb->R[2][j];
    double d[3];
    v3_sub(d, pb->x, pa->x);
    rot_t(pa->R, d, f->t);
}

static void identity(frame *f) {
    memset(f, 0, sizeof *f);
    f->R[0][0] = f->R[1][1] = f->R[2][2] = 1.0;
}

static void inverse(const frame *f, frame *g) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) g->R[i][j] = f->R[j][i];
    rot((const double(*)[3])g->R, f->t, g->t);
    v3_scale(g->t, g->t, -1.0);
}

/* ---- lines through the overlap (the LINE depth and the contact point) ---- */

/* The signed position, along the unit direction u from p (both in o's frame),
 * of the surface of o that the line through p leaves o by: > 0 when p is
 * inside o (the distance to the exit ahead), < 0 when outside (minus the
 * distance back to where the line enters o); -far when there is none. For an
 * open o, `behind` says which side is its inside (signed_distance); 1 closed. */
/* A convex o: the facet through which the ray from p along d leaves it, found by a walk over
 * the facets from near o's highest vertex along d (tl_mesh_support_start): seen from p, the ray passes through a facet when
 * it lies on the inner side of the three planes through p and the facet's edges; otherwise on
 * across the edge whose plane it lies furthest beyond. The facet is then tested as the tree
 * tests it (tl_tri_ray); false when the walk does not end within its moves or the test fails. */
static bool ray_walk(const tl_mesh *o, const double p[3], const double d[3], double far, uint32_t *facet, double *t) {
    uint32_t f = o->vt[o->vt_start[tl_mesh_support_start(o, d)]];
    for (int move = 0; move < 48; move++) {
        const uint32_t *tr = o->tri[f];
        double r[3][3];
        for (int k = 0; k < 3; k++) v3_sub(r[k], o->v[tr[k]], p);
        int worst = -1;
        double low = 0.0;
        for (int k = 0; k < 3; k++) {
            double c[3];
            v3_cross(c, r[k], r[(k + 1) % 3]);
            double e = v3_dot(c, d);
            if (e < low) {
                low = e;
                worst = k;
            }
        }
        if (worst < 0) {
            *facet = f;
            return tl_tri_ray(p, d, o->v[tr[0]], o->v[tr[1]], o->v[tr[2]], 0.0, far, t);
        }
        uint32_t g = o->adj[f][worst];
        if (g == NONE) return false;
        f = g;
    }
    return false;
}

/* A closed convex o and p inside it: where the ray from p along u leaves o (the tree's first hit,
 * line_depth), without the tree. p is inside when the ray along -u leaves o too (the line meets
 * a convex surface at most twice, entering and leaving); the hit is the only one when the ray
 * misses the facets across the hit facet's edges (a ray through an edge or a corner hits two or
 * more, and the tree's tie rule decides: left to the tree). */
static bool convex_line_exit(const tl_mesh *o, const double p[3], const double u[3], double far, double *t,
                             uint32_t *facet) {
    if (!o->convex) return false;
    double back[3] = {-u[0], -u[1], -u[2]}, tb;
    uint32_t f, g;
    if (!ray_walk(o, p, u, far, &f, t) || !(v3_dot(u, o->n[f]) > 0.0)) return false;
    if (!ray_walk(o, p, back, far, &g, &tb) || !(v3_dot(back, o->n[g]) > 0.0)) return false;
    for (int k = 0; k < 3; k++) {
        uint32_t n = o->adj[f][k];
        const uint32_t *tr = o->tri[n];
        double tn;
        if (tl_tri_ray(p, u, o->v[tr[0]], o->v[tr[1]], o->v[tr[2]], 0.0, far, &tn)) return false;
    }
    *facet = f;
    return true;
}

static double line_depth(const tl_mesh *o, const double p[3], const double u[3], double far, double behind,
                         uint32_t *facet) {
    tl_ray_hit h;
    double tc;
    uint32_t fc;
    if (behind > 0.0 && convex_line_exit(o, p, u, far, &tc, &fc)) {
        if (facet) *facet = fc;
        return tc;
    }
    if (tl_bvh_ray(TL_MESH_TRIS(o), p, u, 0.0, far, &h) && behind * v3_dot(u, o->n[h.facet]) > 0.0) {
        if (facet) *facet = h.facet;
        return h.t;
    }
    double back[3] = {-u[0], -u[1], -u[2]};
    if (tl_bvh_ray(TL_MESH_TRIS(o), p, back, 0.0, far, &h) && behind * v3_dot(back, o->n[h.facet]) < 0.0) {
        if (facet) *facet = h.facet;
        return -h.t;
    }
    if (facet) *facet = NONE;
    return -far;
}

/* ---- union-find ---- */

static uint32_t find(elem *e, uint32_t i) {
    while (e[i].parent != i) {
        e[i].parent = e[e[i].parent].parent;
        i = e[i].parent;
    }
    return i;
}

static void unite(elem *e, uint32_t a, uint32_t b) {
    a = find(e, a);
    b = find(e, b);
    /* the smaller index is the root: independent of the order of the unions */
    if (a < b) e[b].parent = a;
    else if (b < a) e[a].parent = b;
}

/* ci[i] = the component of element i, k such that c[k].root = find(i), for the nc components
 * listed: each root's first, then every element from its root (a root is the smallest index of
 * its set, unite's rule, so it comes before its elements). ci holds ne entries (components). */
static void label_components(struct tl_pcm_work *w, size_t nc) {
    uint32_t *ci = w->ci;
    for (size_t k = 0; k < nc; k++) ci[w->c[k].root] = (uint32_t)k;
    for (size_t i = 0; i < w->ne; i++) ci[i] = ci[find(w->e, (uint32_t)i)];
}

static bool boxes_meet(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]) {
    return alo[0] <= bhi[0] && blo[0] <= ahi[0] && alo[1] <= bhi[1] && blo[1] <= ahi[1] && alo[2] <= bhi[2] &&
           blo[2] <= ahi[2];
}

/* Elements into components: adjacency within each body, the closest facets
 * of the deepest vertices across, then a component with elements of one body
 * only joins one whose box it meets. Writes the components (roots in order of
 * their first element) and returns their count, or -1. */
static int components(tl_pcm_scratch *s, const tl_mesh *mesh[2], bool cross) {
    struct tl_pcm_work *w = s->w;
    elem *e = w->e;
    if (tl_mem_reserve(s->mem, (void **)&w->ci, &w->capci, w->ne, sizeof *w->ci) != 0) return -1;
    for (size_t i = 0; i < w->ne; i++) {
        int sd = (int)e[i].side;
        const tl_mesh *m = mesh[sd];
        for (int k = 0; k < 3; k++) {
            uint32_t g = m->adj[e[i].facet][k];
            if (g != NONE && w->stamp[sd][g] == w->gen && w->slot[sd][g] != NONE) unite(e, (uint32_t)i, w->slot[sd][g]);
        }
        uint32_t h = e[i].hit;
        if (cross && h != NONE && w->stamp[1 - sd][h] == w->gen && w->slot[1 - sd][h] != NONE)
            unite(e, (uint32_t)i, w->slot[1 - sd][h]);
    }
    for (;;) {
        size_t nc = 0;
        for (size_t i = 0; i < w->ne; i++) {
            if (find(e, (uint32_t)i) != i) continue;
            if (tl_mem_reserve(s->mem, (void **)&w->c, &w->capc, nc + 1, sizeof *w->c) != 0) return -1;
            memset(&w->c[nc], 0, sizeof w->c[nc]);
            w->c[nc].root = (uint32_t)i;
            nc++;
        }
        if (!cross) return (int)nc;
        for (size_t k = 0; k < nc; k++) {
            v3_set(w->c[k].lo, INFINITY, INFINITY, INFINITY);
            v3_set(w->c[k].hi, -INFINITY, -INFINITY, -INFINITY);
            w->c[k].sides = 0;
        }
        label_components(w, nc);
        for (size_t i = 0; i < w->ne; i++) {
            size_t k = w->ci[i];
            w->c[k].sides |= 1u << e[i].side;
            for (int d = 0; d < 3; d++) {
                w->c[k].lo[d] = dmin(w->c[k].lo[d], e[i].lo[d]);
                w->c[k].hi[d] = dmax(w->c[k].hi[d], e[i].hi[d]);
            }
        }
        bool merged = false;
        for (size_t k = 0; k < nc && !merged; k++)
            for (size_t j = k + 1; j < nc && !merged; j++)
                if ((w->c[k].sides != 3u || w->c[j].sides != 3u) &&
                    boxes_meet(w->c[k].lo, w->c[k].hi, w->c[j].lo, w->c[j].hi)) {
                    unite(e, w->c[k].root, w->c[j].root);
                    merged = true;
                }
        if (!merged) return (int)nc;
    }
}

/* Merges the smallest components into their nearest until at most max remain; then labels the
 * elements with the components left (ci). */
static size_t merge_to(struct tl_pcm_work *w, size_t nc, size_t max) {
    label_components(w, nc);
    if (nc <= max) return nc;
    for (size_t k = 0; k < nc; k++) {
        w->c[k].area = 0.0;
        v3_zero(w->c[k].ax);
    }
    for (size_t i = 0; i < w->ne; i++) {
        comp *c = &w->c[w->ci[i]];
        c->area += w->e[i].area;
        v3_add(c->ax, c->ax, w->e[i].ax);
    }
    while (nc > max) {
        size_t small = 0;
        for (size_t k = 1; k < nc; k++)
            if (w->c[k].area < w->c[small].area) small = k;
        double cs[3], best = INFINITY;
        v3_scale(cs, w->c[small].ax, 1.0 / w->c[small].area);
        size_t near = small == 0 ? 1 : 0;
        for (size_t k = 0; k < nc; k++) {
            if (k == small) continue;
            double ck[3], d[3];
            v3_scale(ck, w->c[k].ax, 1.0 / w->c[k].area);
            v3_sub(d, ck, cs);
            if (v3_norm2(d) < best) {
                best = v3_norm2(d);
                near = k;
            }
        }
        unite(w->e, w->c[small].root, w->c[near].root);
        comp merged = w->c[near];
        merged.area += w->c[small].area;
        v3_add(merged.ax, merged.ax, w->c[small].ax);
        merged.root = find(w->e, w->c[near].root);
        size_t keep = small < near ? small : near, drop = small < near ? near : small;
        w->c[keep] = merged;
        memmove(&w->c[drop], &w->c[drop + 1], (nc - drop - 1) * sizeof *w->c);
        nc--;
    }
    label_components(w, nc);
    return nc;
}

static double r_star(double ra, double rb) {
    if (ra > 0.0 && rb > 0.0) return ra * rb / (ra + rb);
    return ra > 0.0 ? ra : rb;
}

static const tl_pcm_opts default_opts = {TL_PCM_DEPTH_VOLUME, TL_PCM_RADIUS_VOLUME, false, NULL};

/* ---- mesh-mesh ---- */

/* whether the closest point found lies on the rim of an open mesh */
static bool on_rim(const tl_mesh *o, const tl_mesh_point *mp) {
    if (o->closed || mp->feature == TL_FEATURE_FACE) return false;
    if (mp->feature == TL_FEATURE_EDGE) return o->adj[mp->facet][mp->index] == NONE;
    uint32_t v = o->tri[mp->facet][mp->index];
    for (uint32_t i = o->vt_start[v]; i < o->vt_start[v + 1]; i++) {
        uint32_t g = o->vt[i];
        for (int k = 0; k < 3; k++)
            if ((o->tri[g][k] == v || o->tri[g][(k + 1) % 3] == v) && o->adj[g][k] == NONE) return true;
    }
    return false;
}

/* The signed distance of point p (o's frame) to o's surface: < 0 inside a
 * closed o (by the pseudo-normal of the closest feature, Baerentzen & Aanaes
 * 2005). An open o (a mesh wall) has an inside too: behind it, the side away
 * from the other body (`behind`: +1 when that is the side its normals point
 * away from, -1 when it is the side they point to), and only where the point
 * lies over the surface (a closest point on the rim is outside). */
static double finish_distance(const tl_mesh *o, const double p[3], const tl_mesh_point *mp_, double behind,
                              vdist *out) {
    const tl_mesh_point mp = *mp_;
    double d[3];
    tl_mesh_feature_normal(o, mp.facet, mp.feature, mp.index, out->pn);
    v3_sub(d, p, mp.q);
    out->facet = mp.facet;
    double sgn = v3_dot(d, out->pn) < 0.0 ? -1.0 : 1.0;
    if (!o->closed) sgn = on_rim(o, &mp) ? 1.0 : sgn * behind;
    out->phi = sgn * mp.dist;
    /* the distance's gradient is (p - q)/|p - q| wherever q is unique; on the surface its limit,
     * the feature's normal, turned to the side that counts as outside */
    if (mp.dist > 1e-12 * (o->radius > 0.0 ? o->radius : 1.0)) v3_scale(out->gd, d, -sgn / mp.dist);
    else v3_scale(out->gd, out->pn, o->closed ? -1.0 : -behind);
    return out->phi;
}

static double signed_distance(const tl_mesh *o, const double p[3], uint32_t *hint, double behind, vdist *out) {
    tl_mesh_point mp;
    tl_bvh_closest_hint(TL_MESH_TRIS(o), p, *hint, &mp);
    *hint = mp.facet;
    return finish_distance(o, p, &mp, behind, out);
}

/* For an open o: which side of it is the inside for the facets of m (the side
 * away from the centre of m's box), as `behind` above; 1 for a closed o. */
static double behind_side(const tl_mesh *m, const tl_mesh *o, const frame *to_o) {
    if (o->closed) return 1.0;
    double c[3], p[3], d[3], pn[3];
    for (int k = 0; k < 3; k++) c[k] = 0.5 * (m->lo[k] + m->hi[k]);
    apply(to_o, c, p);
    tl_mesh_point mp;
    tl_bvh_closest_hint(TL_MESH_TRIS(o), p, 0, &mp);
    tl_mesh_feature_normal(o, mp.facet, mp.feature, mp.index, pn);
    v3_sub(d, p, mp.q);
    return v3_dot(d, pn) < 0.0 ? -1.0 : 1.0;
}

/* Two convex bodies: point p's closest point on mesh k (p in k's frame) among the facets of k's
 * cap. Each facet's plane is a lower bound of its distance, so only the facets whose plane is
 * as near as the best so far are measured; ties go to the lower facet, as in the tree's search.
 * Returns false when the cap cannot vouch for the answer: a facet outside the cap lies beyond
 * the cap's level, at least that far from p, which must exceed what was found. *outside: p
 * lies in front of a plane of the cap (by more than rounding): outside k, when only that is
 * asked (`exact` false) nothing else is done. */
static bool cap_closest(const struct tl_pcm_work *w, int k, const tl_mesh *o, const double p[3], bool exact,
                        bool *outside, tl_mesh_point *out) {
    const double(*pl)[TL_PCM_CAP] = w->cpl[k];
    const uint32_t *cf = w->cf[k];
    const size_t n = w->ncf[k];
    double sd[TL_PCM_CAP];
    for (size_t i = 0; i < n; i++) sd[i] = pl[0][i] * p[0] + pl[1][i] * p[1] + pl[2][i] * p[2] - pl[3][i];
    size_t top = 0;
    for (size_t i = 1; i < n; i++)
        if (sd[i] > sd[top]) top = i;
    *outside = n > 0 && sd[top] > 1e-12 * o->radius;
    out->dist = INFINITY;
    if (n == 0 || (*outside && !exact)) return false;
    double best = INFINITY, bestd = INFINITY;
    bool found = false;
    for (size_t j = 0; j <= n; j++) {
        size_t i = j == 0 ? top : j - 1;
        if (j > 0) {
            if (i == top) continue;
            /* two lower bounds of the distance to the facet: to its plane, and to the ball
             * about its centroid that holds it */
            double bound = bestd * (1.0 + 1e-9) + 1e-15 * o->radius;
            if (fabs(sd[i]) > bound) continue;
            double dx = p[0] - pl[4][i], dy = p[1] - pl[5][i], dz = p[2] - pl[6][i], reach = bound + pl[7][i];
            if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
        }
        double was = best;
        found = tl_bvh_try_facet(TL_MESH_TRIS(o), p, cf[i], &best, found, out);
        if (best != was) bestd = sqrt(best);
    }
    out->dist = bestd;
    /* how far p lies from the cap's level (k = 0: a's cap above cap_L, 1: b's below) */
    double lev = v3_dot(w->su[k], p), room = k == 0 ? lev - w->cap_L[0] : w->cap_L[1] - lev;
    return bestd < room * (1.0 - 1e-9) - 1e-12 * o->radius;
}

/* A convex o and a point p (o's frame) in front of it: the closest point by a walk over the facets
 * from `start`, each move across the edge that holds the facet's closest point. It answers only
 * where the answer needs no search: the closest point of a facet f lies inside f and p in front of
 * f's plane, so that p - q is along f's outward normal, and on a convex body q is then the closest
 * point of all (the normal cone of a face is its normal): the tree's answer, which no other facet
 * can tie (q lies inside f alone). From a facet whose closest point is a corner it goes on to the
 * facet around the corner whose plane p lies furthest in front of. Otherwise (an edge or a corner
 * is closest, p behind the plane, or no answer within a few moves) it returns false and the caller
 * searches. */
static bool face_walk(const tl_mesh *o, const double p[3], uint32_t start, tl_mesh_point *out) {
    uint32_t f = start;
    for (int move = 0; move < 6; move++) {
        const uint32_t *t = o->tri[f];
        double q[3], d[3];
        tl_feature feat;
        int index;
        tl_tri_closest(p, o->v[t[0]], o->v[t[1]], o->v[t[2]], q, &feat, &index, NULL);
        if (feat == TL_FEATURE_FACE) {
            double sd = v3_dot(o->n[f], p) - o->offset[f];
            if (!(sd > 1e-12 * o->radius)) return false;
            v3_sub(d, p, q);
            out->facet = f;
            out->feature = feat;
            out->index = index;
            v3_copy(out->q, q);
            out->dist = sqrt(v3_norm2(d));
            return true;
        }
        uint32_t g = NONE;
        if (feat == TL_FEATURE_EDGE) {
            g = o->adj[f][index];
        } else {
            /* a corner: on to the facet around it whose plane p lies furthest in front of */
            uint32_t v = t[index];
            double top = -INFINITY;
            for (uint32_t i = o->vt_start[v]; i < o->vt_start[v + 1]; i++) {
                uint32_t h = o->vt[i];
                double sd = v3_dot(o->n[h], p) - o->offset[h];
                if (h != f && sd > top) {
                    top = sd;
                    g = h;
                }
            }
        }
        if (g == NONE) return false;
        f = g;
    }
    return false;
}

/* Vertex v's signed distance to o (cached for the query). When `exact` is
 * false and o is convex, a vertex found outside o cheaply is only marked
 * outside (phi = NAN): a facet whose vertices are all outside a convex body
 * has no part inside it, and needs no distances. Two convex bodies: beyond
 * the slab, outside; in front of a plane of o's cap, outside; otherwise the
 * closest point among the cap's facets when the cap vouches for it (the same
 * answer as the tree's, cap_closest), else the tree's. A vertex not asked yet in this query
 * (vertex_distance below answers the others without a call). */
static const vdist *vertex_distance_uncached(struct tl_pcm_work *w, int side, const tl_mesh *m, uint32_t v,
                                           const tl_mesh *o, const frame *to_o, bool exact) {
    vdist *vd = &w->vd[side][v];
    double p[3];
    apply(to_o, m->v[v], p);
    w->vstamp[side][v] = w->gen;
    if (!exact && w->slab_on) {
        double h = v3_dot(w->su[side], m->v[v]);
        if (side == 0 ? h < w->sb[0] : h > w->sb[1]) {
            vd->phi = NAN;
            return vd;
        }
    }
    int k = 1 - side;
    if (!exact && o->convex) {
        /* in front of the plane of the last closest facet: outside */
        uint32_t h = w->hint[side];
        double d[3];
        v3_sub(d, p, o->v[o->tri[h][0]]);
        if (v3_dot(d, o->n[h]) > 0.0) {
            vd->phi = NAN;
            return vd;
        }
    }
    /* asked for the distance of a vertex found outside (the elements' outer corners): most lie
     * over a face of o near the last one found */
    if (exact && w->slab_on && o->convex) {
        tl_mesh_point mp;
        if (face_walk(o, p, w->hint[side], &mp)) {
            w->hint[side] = mp.facet;
            finish_distance(o, p, &mp, w->behind[side], vd);
            return vd;
        }
    }
    if (w->slab_on && w->cap_ok[k]) {
        bool outside;
        tl_mesh_point mp;
        bool sure = cap_closest(w, k, o, p, exact, &outside, &mp);
        if (outside && !exact) {
            vd->phi = NAN;
            return vd;
        }
        if (sure) {
            w->hint[side] = mp.facet;
            finish_distance(o, p, &mp, w->behind[side], vd);
            return vd;
        }
        if (mp.dist < INFINITY) w->hint[side] = mp.facet;
    }
    signed_distance(o, p, &w->hint[side], w->behind[side], vd);
    return vd;
}

/* the cached answer without a call: most queries are vertices asked again by the facets around them */
static inline const vdist *vertex_distance(struct tl_pcm_work *w, int side, const tl_mesh *m, uint32_t v,
                                           const tl_mesh *o, const frame *to_o, bool exact) {
    const vdist *vd = &w->vd[side][v];
    if (w->vstamp[side][v] == w->gen && (!exact || !isnan(vd->phi))) return vd;
    return vertex_distance_uncached(w, side, m, v, o, to_o, exact);
}

/* The weight of an element from the closest features of its three vertices:
 * 1 while their normals are within 53 degrees of each other, falling to 0 at
 * 72.5 degrees (a facet spanning an edge or a corner of the other body,
 * whose penetration is not linear over it). */
static double flatness(const vdist *v[3]) {
    double c = 1.0;
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) c = dmin(c, v3_dot(v[i]->pn, v[j]->pn));
    return dclamp((c - 0.3) / 0.3, 0.0, 1.0);
}

/* the barycentric coordinates of point x (in the plane of the triangle x0 x1 x2) */
static void barycentric(double xa[3][3], const double x[3], double l[3]) {
    double e0[3], e1[3], e2[3];
    v3_sub(e0, xa[1], xa[0]);
    v3_sub(e1, xa[2], xa[0]);
    v3_sub(e2, x, xa[0]);
    double d00 = v3_dot(e0, e0), d01 = v3_dot(e0, e1), d11 = v3_dot(e1, e1), d20 = v3_dot(e2, e0),
           d21 = v3_dot(e2, e1), den = d00 * d11 - d01 * d01;
    l[1] = (d11 * d20 - d01 * d21) / den;
    l[2] = (d00 * d21 - d01 * d20) / den;
    l[0] = 1.0 - l[1] - l[2];
}

/* a facet's corners in a's frame and their box (only for a facet with a part inside) */
static void corners_to_a(const tl_mesh *m, const uint32_t *t, const frame *to_a, double xa[3][3], double lo[3],
                         double hi[3]) {
    for (int k = 0; k < 3; k++) apply(to_a, m->v[t[k]], xa[k]);
    for (int k = 0; k < 3; k++) {
        lo[k] = dmin(xa[0][k], dmin(xa[1][k], xa[2][k]));
        hi[k] = dmax(xa[0][k], dmax(xa[1][k], xa[2][k]));
    }
}

/* Evaluates facet f of side `side` (mesh m) against the other mesh o: an
 * element when part of it is inside. to_o: m's frame into o's; to_a: m's
 * frame into a's. Returns 1 (element), 0, or -1 (out of memory). */
static int eval_facet(tl_pcm_scratch *s, int side, const tl_mesh *m, uint32_t f, const tl_mesh *o,
                      const frame *to_o, const frame *to_a, bool whole) {
    struct tl_pcm_work *w = s->w;
    const uint32_t *t = m->tri[f];
    tl_tri_moments mo;
    memset(&mo, 0, sizeof mo);
    double dmx, q, lo[3], hi[3], bm[3], pen[3], pnv[3][3], gdv[3][3];
    uint32_t hit;
    double xa[3][3];
    if (whole) {
        /* Hippmann's element: the whole facet when its centroid is inside */
        double c[3];
        vdist vd;
        apply(to_o, m->c[f], c);
        double phi = signed_distance(o, c, &w->hint[side], w->behind[side], &vd);
        if (!(phi < 0.0)) return 0;
        corners_to_a(m, t, to_a, xa, lo, hi);
        mo.area = m->area[f];
        double ca[3];
        apply(to_a, m->c[f], ca);
        v3_scale(mo.x, ca, mo.area);
        mo.h = -phi * mo.area;
        dmx = -phi;
        hit = vd.facet;
        q = 1.0;
        for (int k = 0; k < 3; k++) {
            bm[k] = mo.area / 3.0;
            pen[k] = -phi;
            v3_copy(pnv[k], vd.pn);
            v3_copy(gdv[k], vd.gd);
        }
    } else {
        const vdist *vd[3];
        double h[3];
        int deep = 0;
        bool inside = false;
        for (int k = 0; k < 3; k++) {
            vd[k] = vertex_distance(w, side, m, t[k], o, to_o, false);
            inside = inside || vd[k]->phi < 0.0;
        }
        if (!inside) return 0;
        corners_to_a(m, t, to_a, xa, lo, hi);
        for (int k = 0; k < 3; k++) {
            vd[k] = vertex_distance(w, side, m, t[k], o, to_o, true);
            h[k] = -vd[k]->phi;
            if (h[k] > h[deep]) deep = k;
        }
        if (!(h[deep] > 0.0)) return 0;
        /* the potential reading weighs every element 1: a weight that moved with the pose would
         * be no part of the energy's gradient */
        q = w->pot ? 1.0 : flatness(vd);
        if (!(q > 0.0)) return 0;
        /* the penetration is taken as linear over the facet; where the other body
         * is not convex under it (a gap narrower than the facet), the value at
         * the centroid shows it: the weight falls to 0 as that excess reaches the
         * facet's deepest penetration (a convex body's signed distance is
         * convex: no excess) */
        if (!o->convex && !w->pot) {
            double c[3];
            vdist vc;
            apply(to_o, m->c[f], c);
            double excess = signed_distance(o, c, &w->hint[side], w->behind[side], &vc) + (h[0] + h[1] + h[2]) / 3.0;
            if (excess > 0.0) q *= dmax(0.0, 1.0 - excess / h[deep]);
            if (!(q > 0.0)) return 0;
        }
        tl_tri_clip_moments(xa[0], xa[1], xa[2], h, &mo);
        if (!(mo.area > 0.0)) return 0;
        dmx = h[deep];
        hit = vd[deep]->facet;
        /* the barycentric moments from the inside part's centroid */
        double e0[3], e1[3], e2[3], cc[3];
        v3_scale(cc, mo.x, 1.0 / mo.area);
        v3_sub(e0, xa[1], xa[0]);
        v3_sub(e1, xa[2], xa[0]);
        v3_sub(e2, cc, xa[0]);
        double d00 = v3_dot(e0, e0), d01 = v3_dot(e0, e1), d11 = v3_dot(e1, e1), d20 = v3_dot(e2, e0),
               d21 = v3_dot(e2, e1), den = d00 * d11 - d01 * d01;
        double l1 = (d11 * d20 - d01 * d21) / den, l2 = (d00 * d21 - d01 * d20) / den;
        bm[0] = (1.0 - l1 - l2) * mo.area;
        bm[1] = l1 * mo.area;
        bm[2] = l2 * mo.area;
        for (int k = 0; k < 3; k++) {
            pen[k] = h[k];
            v3_copy(pnv[k], vd[k]->pn);
            v3_copy(gdv[k], vd[k]->gd);
        }
        /* the box of the inside part */
        v3_set(lo, INFINITY, INFINITY, INFINITY);
        v3_set(hi, -INFINITY, -INFINITY, -INFINITY);
        for (int k = 0; k < 3; k++) {
            int j = (k + 1) % 3;
            double x[3];
            bool add = false;
            if (h[k] >= 0.0) {
                v3_copy(x, xa[k]);
                add = true;
            }
            for (int pass = 0; pass < 2; pass++) {
                if (add)
                    for (int d = 0; d < 3; d++) {
                        lo[d] = dmin(lo[d], x[d]);
                        hi[d] = dmax(hi[d], x[d]);
                    }
                add = (h[k] >= 0.0) != (h[j] >= 0.0);
                if (add)
                    for (int d = 0; d < 3; d++) x[d] = xa[k][d] + h[k] / (h[k] - h[j]) * (xa[j][d] - xa[k][d]);
                if (pass == 1) break;
            }
        }
    }
    elem *e = new_elem(s);
    if (!e) return -1;
    e->facet = f;
    e->side = (uint32_t)side;
    e->hit = hit;
    e->q = q;
    e->area = mo.area;
    e->frac = dmin(1.0, mo.area / m->area[f]);
    rot(to_a->R, m->n[f], e->n);
    v3_copy(e->ax, mo.x);
    v3_copy(e->hx, mo.hx);
    e->h = mo.h;
    e->dmax = dmx;
    v3_copy(e->lo, lo);
    v3_copy(e->hi, hi);
    /* the other body's normals into a's frame: o -> m -> a */
    for (int k = 0; k < 3; k++) {
        double x[3];
        rot_t(to_o->R, pnv[k], x);
        rot(to_a->R, x, e->pn[k]);
        e->bm[k] = bm[k];
        e->pen[k] = pen[k];
    }
    if (w->pot) {
        /* The energy's terms over this facet, V_e = int d dA and Phi_e = int d^2/2 dA of the
         * penetration d linear between its corners' values (clipped where it is negative), and
         * their derivatives by each corner's value: int_{d>0} lambda_k dA and int_{d>0} d lambda_k dA,
         * the barycentric coordinate lambda_k being affine, from the inside part's centroid and its
         * pressure's centroid (the boundary of the inside part, where d = 0, adds nothing) */
        double l[3], c[3];
        for (int k = 0; k < 3; k++) v3_copy(e->xv[k], xa[k]);
        v3_scale(c, mo.x, 1.0 / mo.area);
        barycentric(xa, c, l);
        for (int k = 0; k < 3; k++) e->dV[k] = l[k] * mo.area;
        if (mo.h > 0.0) {
            v3_scale(c, mo.hx, 1.0 / mo.h);
            barycentric(xa, c, l);
            for (int k = 0; k < 3; k++) e->dPhi[k] = l[k] * mo.h;
        } else {
            for (int k = 0; k < 3; k++) e->dPhi[k] = 0.0;
        }
        e->hh = mo.hh;
        memcpy(e->xx, mo.xx, sizeof e->xx);
        for (int k = 0; k < 3; k++) {
            double x[3];
            rot_t(to_o->R, gdv[k], x);
            rot(to_a->R, x, e->gd[k]);
        }
    }
    w->slot[side][f] = (uint32_t)(w->ne++);
    return 1;
}

/* a box of b (its frame) as a box in a's frame */
static void box_to_a(const double lo[3], const double hi[3], const frame *f, double olo[3], double ohi[3]) {
    double c[3], e[3], ca[3];
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (lo[k] + hi[k]);
        e[k] = 0.5 * (hi[k] - lo[k]);
    }
    apply(f, c, ca);
    for (int i = 0; i < 3; i++) {
        double r = fabs(f->R[i][0]) * e[0] + fabs(f->R[i][1]) * e[1] + fabs(f->R[i][2]) * e[2];
        olo[i] = ca[i] - r;
        ohi[i] = ca[i] + r;
    }
}


/* b's node i as a box in a's frame (cached for the query) */
static const double *node_box(struct tl_pcm_work *w, const tl_mesh *b, uint32_t i, const frame *b_to_a) {
    if (w->nstamp[i] != w->gen) {
        w->nstamp[i] = w->gen;
        box_to_a(b->bvh.node[i].lo, b->bvh.node[i].hi, b_to_a, w->nbox[i], w->nbox[i] + 3);
        apply(b_to_a, b->bvh.node[i].c, w->nbox[i] + 6);
    }
    return w->nbox[i];
}

/* a's node i as a box in b's frame (cached for the query) */
static const double *anode_box(struct tl_pcm_work *w, const tl_mesh *a, uint32_t i, const frame *a_to_b) {
    if (w->astamp[i] != w->gen) {
        w->astamp[i] = w->gen;
        box_to_a(a->bvh.node[i].lo, a->bvh.node[i].hi, a_to_b, w->abox[i], w->abox[i] + 3);
    }
    return w->abox[i];
}

/* b's facet f's box in a's frame (cached for the query) */
static const double *facet_box_a(struct tl_pcm_work *w, const tl_mesh *b, uint32_t f, const frame *b_to_a) {
    if (w->fstamp[f] != w->gen) {
        w->fstamp[f] = w->gen;
        double x[3][3], *bx = w->fbox[f];
        for (int k = 0; k < 3; k++) apply(b_to_a, b->v[b->tri[f][k]], x[k]);
        for (int k = 0; k < 3; k++) {
            bx[k] = dmin(x[0][k], dmin(x[1][k], x[2][k]));
            bx[k + 3] = dmax(x[0][k], dmax(x[1][k], x[2][k]));
        }
    }
    return w->fbox[f];
}

/* A slab along the unit axis u (a's frame) that holds the whole overlap of two convex
 * bodies: a point of both lies at u.x >= lo (b's lowest) and u.x <= hi (a's highest).
 * A facet of a below lo or of b above hi has no part inside the other body. */
typedef struct slab {
    bool on;
    double u[3], lo, hi;
    uint32_t top_a, bottom_b; /* a's highest vertex along u, b's lowest (tl_mesh_support) */
} slab;

/* a box (lo, hi) reaches above / below the level `bound` along u */
static bool box_above(const double u[3], double bound, const double lo[3], const double hi[3]) {
    double m = 0.0;
    for (int k = 0; k < 3; k++) m += u[k] >= 0.0 ? u[k] * hi[k] : u[k] * lo[k];
    return m >= bound;
}
static bool box_below(const double u[3], double bound, const double lo[3], const double hi[3]) {
    double m = 0.0;
    for (int k = 0; k < 3; k++) m += u[k] >= 0.0 ? u[k] * lo[k] : u[k] * hi[k];
    return m <= bound;
}

/* Two convex bodies: the slab along the unit axis u (a's frame). Returns false when it is
 * empty: the axis separates them, and they do not touch. */
static bool slab_along(const tl_mesh *a, const tl_mesh *b, const frame *b_to_a, const double u[3], slab *sl) {
    double hi, sb, ub[3], mub[3];
    sl->top_a = tl_mesh_support(a, u, &hi);
    rot_t(b_to_a->R, u, ub); /* u in b's frame */
    v3_scale(mub, ub, -1.0);
    sl->bottom_b = tl_mesh_support(b, mub, &sb);
    double lo = -sb + v3_dot(u, b_to_a->t);
    v3_copy(sl->u, u);
    sl->lo = lo;
    sl->hi = hi;
    sl->on = true;
    return hi >= lo;
}

/* Two convex bodies: the slab along the hinted normal (a's frame; the last step's: thin),
 * else along the line of their centres (from a to b). Returns false when it separates the
 * bodies. sl->on stays false for a pair that is not convex. */
static bool convex_slab(const tl_mesh *a, const tl_mesh *b, const frame *b_to_a, const double *hint, slab *sl) {
    memset(sl, 0, sizeof *sl);
    if (!a->convex || !b->convex) return true;
    if (hint) return slab_along(a, b, b_to_a, hint, sl);
    double l = v3_norm(b_to_a->t);
    if (!(l > 0.0)) return true;
    double u[3];
    v3_scale(u, b_to_a->t, 1.0 / l);
    return slab_along(a, b, b_to_a, u, sl);
}

/* Two convex bodies: the facets of one side that reach into the slab (side 0: a, a corner
 * with u . v >= bound; side 1: b, in b's frame, a corner with u . v <= bound) and whose boxes
 * meet the other body's box (obox, this side's frame): into the queue. On a convex surface the
 * corners beyond a level are joined by edges (each but the extreme ones has a neighbour further
 * out), so they are found by a walk over the edges from the extreme vertex `start`, and the
 * facets around them are the candidates: the cap beyond the level, not the whole tree. The walk
 * goes on to the deeper level cap_L and keeps that cap's facets and planes for the distances of
 * the other side's vertices (cap_closest); at most TL_PCM_CAP of them. */
static void slab_candidates(struct tl_pcm_work *w, int side, const tl_mesh *m, const double u[3], double bound,
                            double cap_L, uint32_t start, const double olo[3], const double ohi[3]) {
    const double sg = side == 0 ? 1.0 : -1.0;
    w->ncf[side] = 0;
    w->cap_ok[side] = true;
    w->cap_L[side] = cap_L;
    if (!(sg * v3_dot(u, m->v[start]) >= sg * bound)) {
        w->cap_ok[side] = false;
        return;
    }
    uint32_t *mark = w->vmark[side], *vq = w->vq, *cst = w->cstamp[side];
    size_t head = 0, tail = 0;
    mark[start] = w->gen;
    vq[tail++] = start;
    while (head < tail) {
        uint32_t v = vq[head++];
        for (uint32_t i = m->vt_start[v]; i < m->vt_start[v + 1]; i++) {
            uint32_t f = m->vt[i];
            if (cst[f] == w->gen) continue;
            cst[f] = w->gen;
            const uint32_t *t = m->tri[f];
            if (w->cap_ok[side]) {
                if (w->ncf[side] == TL_PCM_CAP) {
                    w->cap_ok[side] = false;
                } else {
                    size_t j = w->ncf[side]++;
                    w->cf[side][j] = f;
                    double(*pl)[TL_PCM_CAP] = w->cpl[side];
                    for (int c = 0; c < 3; c++) {
                        pl[c][j] = m->n[f][c];
                        pl[4 + c][j] = m->c[f][c];
                    }
                    pl[3][j] = m->offset[f];
                    pl[7][j] = m->reach[f];
                }
            }
            double h0 = sg * v3_dot(u, m->v[t[0]]), h1 = sg * v3_dot(u, m->v[t[1]]), h2 = sg * v3_dot(u, m->v[t[2]]);
            if (dmax(h0, dmax(h1, h2)) < sg * bound) continue;
            const double *fb = m->bvh.fbox[f];
            if (boxes_meet(fb, fb + 3, olo, ohi)) visit(w, side, f);
        }
        for (uint32_t i = m->vv_start[v]; i < m->vv_start[v + 1]; i++) {
            uint32_t o = m->vv[i];
            if (mark[o] == w->gen) continue;
            mark[o] = w->gen;
            if (sg * v3_dot(u, m->v[o]) >= sg * cap_L) vq[tail++] = o;
        }
    }
}

static int key_order(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : (a > b ? 1 : 0);
}

/* ascending: by insertion for the few keys of most contacts, else qsort */
static void sort_keys(uint64_t *key, size_t n) {
    if (n > 48) {
        qsort(key, n, sizeof *key, key_order);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint64_t k = key[i];
        size_t j = i;
        for (; j > 0 && key[j - 1] > k; j--) key[j] = key[j - 1];
        key[j] = k;
    }
}

/* The elements in the order of (side, facet), whatever order the search found them in,
 * with their slots and union-find parents to match: the keys (side, facet, position) sorted,
 * then the elements copied once in that order. */
static int sort_elements(tl_pcm_scratch *s) {
    struct tl_pcm_work *w = s->w;
    size_t n = w->ne;
    if (tl_mem_reserve(s->mem, (void **)&w->key, &w->capkey, n, sizeof *w->key) != 0 ||
        tl_mem_reserve(s->mem, (void **)&w->e2, &w->cape2, n, sizeof *w->e2) != 0)
        return -1;
    uint64_t *key = w->key;
    for (size_t i = 0; i < n; i++)
        key[i] = (uint64_t)w->e[i].side << 63 | (uint64_t)w->e[i].facet << 32 | (uint64_t)i;
    sort_keys(key, n);
    for (size_t i = 0; i < n; i++) {
        w->e2[i] = w->e[key[i] & 0xffffffffu];
        w->e2[i].parent = (uint32_t)i;
        w->slot[w->e2[i].side][w->e2[i].facet] = (uint32_t)i;
    }
    elem *t = w->e;
    size_t c = w->cape;
    w->e = w->e2;
    w->cape = w->cape2;
    w->e2 = t;
    w->cape2 = c;
    return 0;
}

/* the facets of a and b whose boxes meet a box of the other's (and, for a convex
 * pair, the slab): into the queues */
static void candidate_pairs(struct tl_pcm_work *w, const tl_mesh *a, const tl_mesh *b, const frame *b_to_a,
                            const frame *a_to_b, const slab *sl) {
    uint32_t stack[4 * TL_BVH_STACK][2];
    int sp = 0;
    stack[sp][0] = 0;
    stack[sp][1] = 0;
    sp++;
    while (sp > 0) {
        sp--;
        uint32_t ia = stack[sp][0], ib = stack[sp][1];
        const tl_bvh_node *na = &a->bvh.node[ia], *nb = &b->bvh.node[ib];
        const double *bb = node_box(w, b, ib, b_to_a);
        double dc[3];
        v3_sub(dc, na->c, bb + 6);
        if (v3_norm2(dc) > (na->r + nb->r) * (na->r + nb->r)) continue;
        if (!boxes_meet(na->lo, na->hi, bb, bb + 3)) continue;
        if (sl->on && (!box_above(sl->u, sl->lo, na->lo, na->hi) || !box_below(sl->u, sl->hi, bb, bb + 3))) continue;
        /* and the other way round: each box tested in the other body's frame */
        const double *ab = anode_box(w, a, ia, a_to_b);
        if (!boxes_meet(nb->lo, nb->hi, ab, ab + 3)) continue;
        if (na->count > 0 && nb->count > 0) {
            for (uint32_t j = nb->first; j < nb->first + nb->count; j++) {
                uint32_t fb = b->bvh.idx[j];
                const double *fx = facet_box_a(w, b, fb, b_to_a);
                if (!boxes_meet(na->lo, na->hi, fx, fx + 3)) continue;
                if (sl->on && !box_below(sl->u, sl->hi, fx, fx + 3)) continue;
                for (uint32_t i = na->first; i < na->first + na->count; i++) {
                    uint32_t fa = a->bvh.idx[i];
                    const double *ax = a->bvh.fbox[fa];
                    if (!boxes_meet(ax, ax + 3, fx, fx + 3)) continue;
                    if (sl->on && !box_above(sl->u, sl->lo, ax, ax + 3)) continue;
                    visit(w, 0, fa);
                    visit(w, 1, fb);
                }
            }
            continue;
        }
        bool split_a = nb->count > 0 || (na->count == 0 && na->r >= nb->r);
        if (split_a) {
            stack[sp][0] = na->first + 1;
            stack[sp++][1] = ib;
            stack[sp][0] = na->first;
            stack[sp++][1] = ib;
        } else {
            stack[sp][0] = ia;
            stack[sp++][1] = nb->first + 1;
            stack[sp][0] = ia;
            stack[sp++][1] = nb->first;
        }
    }
}

/* the box of mesh m (its frame) lies inside the box of o, through the frame m -> o */
static bool box_inside(const tl_mesh *m, const tl_mesh *o, const frame *m_to_o) {
    double lo[3], hi[3];
    box_to_a(m->lo, m->hi, m_to_o, lo, hi);
    for (int k = 0; k < 3; k++)
        if (lo[k] < o->lo[k] || hi[k] > o->hi[k]) return false;
    return true;
}

/* one side's elements: the candidates, then their neighbours while inside */
static int flood(tl_pcm_scratch *s, int side, const tl_mesh *m, const tl_mesh *o, const frame *to_o,
                 const frame *to_a, bool whole) {
    struct tl_pcm_work *w = s->w;
    for (size_t q = 0; q < w->nq[side]; q++) {
        uint32_t f = w->queue[side][q];
        int r = eval_facet(s, side, m, f, o, to_o, to_a, whole);
        if (r < 0) return -1;
        if (r == 0) continue;
        for (int k = 0; k < 3; k++) {
            uint32_t g = m->adj[f][k];
            if (g != NONE) visit(w, side, g);
        }
    }
    return 0;
}

static void patch_out(const tl_pose *pa, const double n[3], const double p[3], double delta, double r_eff,
                      double area, double fn_scale, tl_patch *out) {
    rot(pa->R, n, out->n);
    rot(pa->R, p, out->p);
    v3_add(out->p, out->p, pa->x);
    out->delta = delta;
    out->r_eff = r_eff;
    out->area = area;
    out->fn_scale = fn_scale;
    out->r_kind = TL_PATCH_R_KEPT;
    v3_zero(out->r_grad);
    v3_zero(out->couple);
    for (int k = 0; k < 6; k++) out->rock[k] = 0.0;
}

/* One body wholly inside the other, no surfaces crossing (not a contact
 * elements can describe): one patch that pushes the inner body out towards
 * the nearest point q of the outer surface, with the overlap that takes,
 * delta = |c - q| + the inner body's radius about its origin c. */
static int engulfed(const tl_mesh *a, const tl_pose *pa, const tl_mesh *b, const frame *a_to_b,
                    const frame *b_to_a, tl_patch *out) {
    for (int inner = 0; inner < 2; inner++) {
        const tl_mesh *in = inner == 0 ? a : b, *outer = inner == 0 ? b : a;
        const frame *to_outer = inner == 0 ? a_to_b : b_to_a;
        if (!outer->closed || !box_inside(in, outer, to_outer)) continue;
        double v0[3], c[3], zero[3] = {0.0, 0.0, 0.0};
        apply(to_outer, in->v[0], v0);
        if (!tl_bvh_inside(TL_MESH_TRIS(outer), v0)) continue;
        apply(to_outer, zero, c);
        tl_mesh_point mp;
        tl_bvh_closest_hint(TL_MESH_TRIS(outer), c, 0, &mp);
        double d[3], n[3], q[3];
        v3_sub(d, c, mp.q);
        if (mp.dist > 0.0) {
            v3_scale(d, d, 1.0 / mp.dist);
        } else {
            tl_mesh_feature_normal(outer, mp.facet, mp.feature, mp.index, d);
            v3_scale(d, d, -1.0);
        }
        /* n from a to b: a inner, pushed along -n towards q; b inner, along +n */
        v3_scale(n, d, inner == 0 ? 1.0 : -1.0);
        double na[3], qa[3];
        if (inner == 0) {
            /* outer is b: into a's frame */
            rot(b_to_a->R, n, na);
            apply(b_to_a, mp.q, qa);
        } else {
            v3_copy(na, n);
            v3_copy(qa, mp.q);
        }
        v3_copy(q, qa);
        patch_out(pa, na, q, mp.dist + in->radius, r_star(a->r_volume, b->r_volume), 0.0, 1.0, out);
        return 1;
    }
    return 0;
}

/* S += wgt int (x - P)(x - P)^T dA over an element's inside part, from its moments (x x^T, x, area);
 * S row by row */
static void add_second_moment(double S[3][3], const elem *e, const double P[3], double wgt) {
    static const int Q[3][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S[i][j] += wgt * (e->xx[Q[i][j]] - e->ax[i] * P[j] - P[i] * e->ax[j] + e->area * P[i] * P[j]);
}

/* The rocking dashpot's tensor (tl_patch.rock, world frame): J = N S N^T / A, N = [n]x, S the contact
 * region's second moment about the line of action's point P (a's frame), A its area: a bed of equal
 * dashpots over the region resists a relative turn w in the contact plane with -c J w A */
static void rock_tensor(double S[3][3], const double n[3], double A, const tl_pose *pa, double out[6]) {
    const double N[3][3] = {{0.0, -n[2], n[1]}, {n[2], 0.0, -n[0]}, {-n[1], n[0], 0.0}};
    double T[3][3], J[3][3], W[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) T[i][j] = N[i][0] * S[0][j] + N[i][1] * S[1][j] + N[i][2] * S[2][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) J[i][j] = (T[i][0] * N[j][0] + T[i][1] * N[j][1] + T[i][2] * N[j][2]) / A;
    /* into the world: R J R^T */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) T[i][j] = pa->R[i][0] * J[0][j] + pa->R[i][1] * J[1][j] + pa->R[i][2] * J[2][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) W[i][j] = T[i][0] * pa->R[j][0] + T[i][1] * pa->R[j][1] + T[i][2] * pa->R[j][2];
    out[0] = W[0][0];
    out[1] = W[1][1];
    out[2] = W[2][2];
    out[3] = 0.5 * (W[0][1] + W[1][0]);
    out[4] = 0.5 * (W[1][2] + W[2][1]);
    out[5] = 0.5 * (W[2][0] + W[0][2]);
}

/* The potential reading of a mesh pair (docs/geometry.md, "A conservative reading"). For each patch,
 * over the elements of both sides (each a facet's part inside the other body, its penetration d
 * linear between its corners' distances to the other surface):
 *
 *     V = sum int d dA,   Phi = sum int d^2/2 dA,   delta = 3 Phi / V,
 *
 * a function of the corners' penetrations d_j alone, with d delta / d d_j =
 * (3/V) (dPhi_j - (delta/3) dV_j). A corner's penetration grows along g_j (-grad phi, the unit
 * direction from the closest point of the other surface) when its body moves relative to the
 * other, so moving a relative to b rigidly changes delta at the rate
 *
 *     delta' = sum c_j . (u_a(x_j) - u_b(x_j)),  c_j = (d delta / d d_j) g_j (a corner of b: -),
 *
 * = G . (v_a - v_b at P) + C . (w_a - w_b) with G = sum c_j, M = sum x_j x c_j (about a's centroid,
 * the frame's origin), P = G x M / |G|^2 moved along G to the middle of the overlap on that line,
 * C = (M . n) n, n = G/|G|.
 * A law of energy E(delta) then acts with the force E' G (fn_scale = |G|, along n = G / |G| through
 * p) and the couple E' C: exactly the gradient of E over the two bodies' poses, so an undamped
 * contact keeps its energy, and each corner's force lies on the line to its closest point (the
 * momenta are kept). Returns the patches written. */
static size_t potential_patches(struct tl_pcm_work *w, const tl_mesh *a, const tl_pose *pa, const tl_mesh *b,
                                const frame *a_to_b, double far, size_t nc, tl_patch *out, size_t max) {
    /* Each side is a quadrature of the same overlap, its error growing with its facets' size: the
     * sides weigh as the inverse square of their mean facet area (constants of the two meshes, so
     * that delta stays a function of the poses), so that a body finer than the contact is measured by
     * its own facets and not a coarse partner's (a sphere of 10242 vertices on a 3698-facet anvil:
     * 50 to 1) */
    const double fa = a->total_area / (double)a->nt, fb = b->total_area / (double)b->nt, fm = dmin(fa, fb);
    const double ws[2] = {(fm / fa) * (fm / fa), (fm / fb) * (fm / fb)};
    for (size_t k = 0; k < nc; k++) {
        comp *c = &w->c[k];
        c->s[0].V = c->s[0].Phi = c->s[0].A = c->s[1].A = 0.0;
    }
    for (size_t i = 0; i < w->ne; i++) {
        const elem *e = &w->e[i];
        comp *c = &w->c[w->ci[i]];
        c->s[0].V += ws[e->side] * e->h;
        c->s[0].Phi += ws[e->side] * 0.5 * e->hh;
    }
    size_t written = 0;
    for (size_t k = 0; k < nc && written < max; k++) {
        comp *c = &w->c[k];
        const double V = c->s[0].V, Phi = c->s[0].Phi;
        if (!(V > 0.0) || !(Phi > 0.0)) continue;
        const double delta = 3.0 * Phi / V;
        double G[3] = {0.0, 0.0, 0.0}, M[3] = {0.0, 0.0, 0.0}, X[3] = {0.0, 0.0, 0.0}, Xw = 0.0, area[2] = {0.0, 0.0};
        for (size_t i = 0; i < w->ne; i++) {
            if (w->ci[i] != k) continue;
            const elem *e = &w->e[i];
            const double sg = e->side == 0 ? 1.0 : -1.0, we = ws[e->side];
            for (int j = 0; j < 3; j++) {
                double wj = we * 3.0 / V * (e->dPhi[j] - delta / 3.0 * e->dV[j]), cj[3], m[3];
                if (wj == 0.0) continue;
                v3_scale(cj, e->gd[j], sg * wj);
                v3_add(G, G, cj);
                v3_cross(m, e->xv[j], cj);
                v3_add(M, M, m);
                v3_axpy(X, fabs(wj), e->xv[j]);
                Xw += fabs(wj);
            }
            area[e->side] += we * e->area;
        }
        const double g2 = v3_norm2(G);
        if (!(g2 > 0.0) || !(Xw > 0.0)) continue;
        const double gl = sqrt(g2);
        double n[3], P[3], C[3];
        v3_scale(n, G, 1.0 / gl);
        v3_cross(P, G, M);
        v3_scale(P, P, 1.0 / g2);
        v3_scale(X, X, 1.0 / Xw);
        double t = v3_dot(X, n) - v3_dot(P, n);
        v3_axpy(P, t, n);
        /* then along the line to the middle between the two surfaces on it, as the PCM's point (the
         * tangential force acts there; the normal force's moment does not change along its line) */
        {
            double pb_[3], ub[3];
            double sa = line_depth(a, P, n, far, w->behind[1], NULL);
            apply(a_to_b, P, pb_);
            rot((const double(*)[3])a_to_b->R, n, ub);
            v3_scale(ub, ub, -1.0);
            double sb = line_depth(b, pb_, ub, far, w->behind[0], NULL), thick = sa + sb;
            if (thick > 0.0 && thick < far) v3_axpy(P, 0.5 * (sa - sb), n);
        }
        v3_scale(C, n, v3_dot(M, n));
        const double A = area[0] > 0.0 && area[1] > 0.0 ? 0.5 * (area[0] + area[1]) : area[0] + area[1];
        /* the contact region's squared radius of gyration about the line of action (both sides'
         * inside parts, by area): the rocking dashpot's lever (narrow.h, tl_patch.rock) */
        double S[3][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
        for (size_t i = 0; i < w->ne; i++)
            if (w->ci[i] == k) add_second_moment(S, &w->e[i], P, ws[w->e[i].side]);
        tl_patch *o = &out[written++];
        patch_out(pa, n, P, delta, r_star(a->r_volume, b->r_volume), A, gl, o);
        rot(pa->R, C, o->couple);
        rock_tensor(S, n, area[0] + area[1], pa, o->rock);
    }
    return written;
}

int tl_pcm_mesh_mesh(const tl_mesh *a, const tl_pose *pa, const tl_mesh *b, const tl_pose *pb,
                     const tl_pcm_opts *opts, tl_patch *out, int max, tl_pcm_scratch *s) {
    if (!opts) opts = &default_opts;
    if (a->nt == 0 || b->nt == 0 || max < 1) return 0;
    struct tl_pcm_work *w = work(s);
    s->visited = s->elements = 0;
    if (!w || stamps(s, 0, a->nt, a->nv) || stamps(s, 1, b->nt, b->nv) || box_caches(s, b->bvh.nnodes, b->nt, a->bvh.nnodes))
        return -2;
    next_generation(w);
    w->ne = 0;
    w->slab_on = false;
    w->pot = opts->depth == TL_PCM_DEPTH_POTENTIAL;
    frame b_to_a, a_to_b, id;
    relative(pa, pb, &b_to_a);
    inverse(&b_to_a, &a_to_b);
    identity(&id);
    double far = 2.0 * (a->radius + b->radius + v3_norm(b_to_a.t));
    /* Two convex bodies apart along the line of their centres or the hinted normal: no
     * contact, and no search. Otherwise the overlap lies in the thinner slab: each side's
     * candidates are its facets reaching into it (one pass down each tree), unless one body's
     * box lies inside the other's (a body engulfed: the search of box pairs below) */
    double hint_a[3], *hint = NULL;
    if (opts->n_hint) {
        rot_t(pa->R, opts->n_hint, hint_a);
        hint = hint_a;
    }
    slab sl;
    if (!convex_slab(a, b, &b_to_a, hint, &sl)) return 0;
    bool coherent = sl.on && !box_inside(a, b, &a_to_b) && !box_inside(b, a, &b_to_a);
    if (coherent) {
        w->slab_on = true;
        double olo[3], ohi[3], ub[3];
        /* the caps reach one slab width beyond the slab (and a little for rounding): a vertex
         * inside the other body lies within the slab's width of its surface, and the cap then
         * holds its closest point; the outer corners of the elements mostly find theirs by
         * face_walk. Deeper caps cost more to build than they save (callgrind, instructions per
         * touching pair of the meshed Brazil nut: caps of 4 widths 68,500; 2: 64,300; 1: 62,000;
         * 0.5: 64,400; 0: 65,900) */
        double width = sl.hi - sl.lo, margin = 1e-9 * (a->radius + b->radius), ut = v3_dot(sl.u, b_to_a.t);
        box_to_a(b->lo, b->hi, &b_to_a, olo, ohi);
        slab_candidates(w, 0, a, sl.u, sl.lo, sl.lo - width - margin, sl.top_a, olo, ohi);
        box_to_a(a->lo, a->hi, &a_to_b, olo, ohi);
        rot_t((const double(*)[3])b_to_a.R, sl.u, ub);
        slab_candidates(w, 1, b, ub, sl.hi - ut, sl.hi - ut + width + margin, sl.bottom_b, olo, ohi);
        v3_copy(w->su[0], sl.u);
        w->sb[0] = sl.lo;
        v3_copy(w->su[1], ub);
        w->sb[1] = sl.hi - v3_dot(sl.u, b_to_a.t);
    } else {
        candidate_pairs(w, a, b, &b_to_a, &a_to_b, &sl);
    }
    if (w->nq[0] == 0 && w->nq[1] == 0) {
        /* no facets near each other: apart, or one body wholly inside the other */
        if (max < 1) return 0;
        return engulfed(a, pa, b, &a_to_b, &b_to_a, out);
    }
    bool whole = opts->whole_facets;
    w->behind[0] = behind_side(a, b, &a_to_b);
    w->behind[1] = behind_side(b, a, &b_to_a);
    if (flood(s, 0, a, b, &a_to_b, &id, whole) || flood(s, 1, b, a, &b_to_a, &b_to_a, whole)) return -2;
    s->visited = w->nq[0] + w->nq[1];
    s->elements = w->ne;
    if (w->ne == 0) return 0;
    /* the sums below in an order that does not depend on the search (its hint) */
    if (coherent && sort_elements(s)) return -2;
    const tl_mesh *mesh[2] = {a, b};
    int ncomp = components(s, mesh, true);
    if (ncomp < 0) return -2;
    size_t found = (size_t)ncomp;
    size_t nc = merge_to(w, found, (size_t)max);
    if (w->pot) {
        size_t written = potential_patches(w, a, pa, b, &a_to_b, far, nc, out, (size_t)max);
        return found > written && written == (size_t)max ? (int)found : (int)written;
    }
    /* pass 1: normals and weights */
    for (size_t i = 0; i < w->ne; i++) {
        elem *e = &w->e[i];
        side_sum *ss = &w->c[w->ci[i]].s[e->side];
        v3_axpy(ss->S, e->q * e->area, e->n);
        ss->W += e->q * e->frac;
    }
    for (size_t k = 0; k < nc; k++) {
        double nsum[3] = {0.0, 0.0, 0.0};
        for (int sd = 0; sd < 2; sd++) {
            side_sum *ss = &w->c[k].s[sd];
            double l = v3_norm(ss->S);
            if (l > 0.0) v3_axpy(nsum, (sd == 0 ? 1.0 : -1.0) * ss->W / l, ss->S);
        }
        double l = v3_norm(nsum);
        if (l > 0.0) v3_scale(w->c[k].n, nsum, 1.0 / l);
        else v3_zero(w->c[k].n);
    }
    /* pass 2: projected areas, points, depths */
    for (size_t i = 0; i < w->ne; i++) {
        elem *e = &w->e[i];
        size_t k = w->ci[i];
        side_sum *ss = &w->c[k].s[e->side];
        double cs = v3_dot(e->n, w->c[k].n) * (e->side == 0 ? 1.0 : -1.0), wq = e->q * fabs(cs);
        ss->A += e->q * cs * e->area;
        /* the overlap's thickness along n: each vertex's distance to the other
         * surface over the cosine of that surface's normal with n */
        double hn = 0.0;
        for (int j = 0; j < 3; j++) hn += e->bm[j] * e->pen[j] / dmax(fabs(v3_dot(e->pn[j], w->c[k].n)), 0.25);
        ss->V += wq * hn;
        /* the point: the centroid of the pressure (linear in the penetration),
         * through which the resultant of the element forces passes; half the
         * penetration in, and the area's centroid while nothing is pressed */
        double mid[3];
        v3_copy(mid, e->hx);
        v3_axpy(mid, -0.5 * e->h * e->h / dmax(e->area, 1e-300), e->n);
        v3_axpy(ss->P, wq, mid);
        ss->Pw += wq * e->h;
        v3_copy(mid, e->ax);
        v3_axpy(mid, -0.5 * e->h, e->n);
        v3_axpy(ss->Pa, wq, mid);
        ss->Paw += wq * e->area;
        w->c[k].dmax = dmax(w->c[k].dmax, e->dmax);
    }
    size_t written = 0;
    for (size_t k = 0; k < nc && written < (size_t)max; k++) {
        comp *c = &w->c[k];
        if (v3_norm2(c->n) == 0.0) continue;
        double W = 0.0, A = 0.0, V = 0.0, P[3] = {0.0, 0.0, 0.0};
        for (int sd = 0; sd < 2; sd++) {
            side_sum *ss = &c->s[sd];
            if (!(ss->W > 0.0) || !(ss->Paw > 0.0)) continue;
            W += ss->W;
            A += ss->W * dmax(ss->A, 0.0);
            V += ss->W * ss->V;
            if (ss->Pw > 0.0) v3_axpy(P, ss->W / ss->Pw, ss->P);
            else v3_axpy(P, ss->W / ss->Paw, ss->Pa);
        }
        if (!(W > 0.0)) continue;
        A /= W;
        V /= W;
        v3_scale(P, P, 1.0 / W);
        /* the two surfaces on the line along n through P */
        double un[3], pb_[3], ub[3];
        v3_copy(un, c->n);
        double sa = line_depth(a, P, un, far, w->behind[1], NULL);
        apply(&a_to_b, P, pb_);
        rot((const double(*)[3])a_to_b.R, un, ub);
        v3_scale(ub, ub, -1.0);
        double sb = line_depth(b, pb_, ub, far, w->behind[0], NULL);
        double thick = sa + sb;
        double p[3];
        v3_copy(p, P);
        if (thick > 0.0 && thick < far) v3_axpy(p, 0.5 * (sa - sb), un);
        double delta;
        switch (opts->depth) {
        case TL_PCM_DEPTH_LINE: delta = thick > 0.0 && thick < far ? thick : c->dmax; break;
        case TL_PCM_DEPTH_MAX: delta = c->dmax; break;
        case TL_PCM_DEPTH_VOLUME:
        default: delta = A > 0.0 ? 2.0 * V / A : 0.0; break;
        }
        if (!(delta > 0.0)) continue;
        double r_eff = opts->radius == TL_PCM_RADIUS_AREA ? A / (2.0 * TL_PI * delta) : r_star(a->r_volume, b->r_volume);
        patch_out(pa, un, p, delta, r_eff, A, 1.0, &out[written++]);
    }
    /* more than max only when max were written: the caller reads min(returned, max) */
    return found > written && written == (size_t)max ? (int)found : (int)written;
}

/* ---- mesh-wall ---- */

/* a's part behind the plane through P with normal N (a's frame); for a
 * rectangle also within |u.(x - P)| <= hu, |v.(x - P)| <= hv */
/* A convex mesh a behind the plane through P with normal N (a's frame): the vertices behind
 * it are joined by edges from the lowest one, `start` (a cap of a convex surface, as in
 * slab_candidates); the facets around them are the facets of the tree's candidates that can
 * hold a part behind the plane (one with a vertex behind it). Into the queue in the order the
 * tree's walk meets them (their places in its idx), so that the elements and their sums come
 * in the same order: the same bits. */
static int halfspace_walk(tl_pcm_scratch *s, const tl_mesh *a, const double P[3], const double N[3],
                          uint32_t start) {
    struct tl_pcm_work *w = s->w;
    uint32_t *mark = w->vmark[0], *vq = w->vq;
    size_t head = 0, tail = 0;
    mark[start] = w->gen;
    vq[tail++] = start;
    while (head < tail) {
        uint32_t v = vq[head++];
        for (uint32_t i = a->vt_start[v]; i < a->vt_start[v + 1]; i++) visit(w, 0, a->vt[i]);
        for (uint32_t i = a->vv_start[v]; i < a->vv_start[v + 1]; i++) {
            uint32_t o = a->vv[i];
            if (mark[o] == w->gen) continue;
            mark[o] = w->gen;
            double d[3];
            v3_sub(d, a->v[o], P);
            if (-v3_dot(N, d) > 0.0) vq[tail++] = o;
        }
    }
    size_t n = w->nq[0];
    if (tl_mem_reserve(s->mem, (void **)&w->key, &w->capkey, n, sizeof *w->key) != 0) return -1;
    uint64_t *key = w->key;
    for (size_t i = 0; i < n; i++) key[i] = (uint64_t)a->bvh.pos[w->queue[0][i]] << 32 | w->queue[0][i];
    sort_keys(key, n);
    for (size_t i = 0; i < n; i++) w->queue[0][i] = (uint32_t)key[i];
    return 0;
}

static int mesh_halfspace(const tl_mesh *a, const tl_pose *pa, const double Pw[3], const double Nw[3], bool rect,
                          const double uw[3], const double vw[3], double hu, double hv, const tl_pcm_opts *opts,
                          tl_patch *out, int max, tl_pcm_scratch *s) {
    if (!opts) opts = &default_opts;
    if (a->nt == 0 || max < 1) return 0;
    struct tl_pcm_work *w = work(s);
    s->visited = s->elements = 0;
    if (!w || stamps(s, 0, a->nt, a->nv)) return -2;
    next_generation(w);
    w->ne = 0;
    w->pot = false; /* its own potential reading, over the section (below) */
    double P[3], N[3], U[3] = {0.0, 0.0, 0.0}, Vv[3] = {0.0, 0.0, 0.0}, d[3];
    v3_sub(d, Pw, pa->x);
    rot_t(pa->R, d, P);
    rot_t(pa->R, Nw, N);
    if (rect) {
        rot_t(pa->R, uw, U);
        rot_t(pa->R, vw, Vv);
    }
    /* a convex body whose lowest vertex along N lies in front of the plane: nothing behind it;
     * otherwise its candidates come from a walk from that vertex (halfspace_walk) */
    if (a->convex) {
        double mN[3] = {-N[0], -N[1], -N[2]}, low;
        uint32_t v = tl_mesh_support(a, mN, &low);
        v3_sub(d, a->v[v], P);
        if (!(-v3_dot(N, d) > 0.0)) return 0;
        if (halfspace_walk(s, a, P, N, v)) return -2;
    }
    /* candidates: the facets whose box reaches behind the plane (and over the rectangle) */
    const tl_bvh *bv = &a->bvh;
    uint32_t stack[TL_BVH_STACK];
    int sp = 0;
    if (!a->convex) stack[sp++] = 0;
    while (sp > 0) {
        const tl_bvh_node *nd = &bv->node[stack[--sp]];
        double c[3], e[3], dc[3];
        for (int k = 0; k < 3; k++) {
            c[k] = 0.5 * (nd->lo[k] + nd->hi[k]);
            e[k] = 0.5 * (nd->hi[k] - nd->lo[k]);
        }
        v3_sub(dc, c, P);
        double rn = fabs(N[0]) * e[0] + fabs(N[1]) * e[1] + fabs(N[2]) * e[2];
        if (v3_dot(N, dc) - rn >= 0.0) continue;
        if (rect) {
            double ru = fabs(U[0]) * e[0] + fabs(U[1]) * e[1] + fabs(U[2]) * e[2];
            double rv = fabs(Vv[0]) * e[0] + fabs(Vv[1]) * e[1] + fabs(Vv[2]) * e[2];
            if (fabs(v3_dot(U, dc)) > hu + ru || fabs(v3_dot(Vv, dc)) > hv + rv) continue;
        }
        if (nd->count == 0) {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
            continue;
        }
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++) visit(w, 0, bv->idx[i]);
    }
    bool whole = opts->whole_facets;
    for (size_t q = 0; q < w->nq[0]; q++) {
        uint32_t f = w->queue[0][q];
        const uint32_t *t = a->tri[f];
        tl_tri_moments mo;
        memset(&mo, 0, sizeof mo);
        double dmx = 0.0;
        if (whole) {
            double dcen[3];
            v3_sub(dcen, a->c[f], P);
            double hc = -v3_dot(N, dcen);
            if (!(hc > 0.0)) continue;
            if (rect && (fabs(v3_dot(U, dcen)) > hu || fabs(v3_dot(Vv, dcen)) > hv)) continue;
            mo.area = a->area[f];
            v3_scale(mo.x, a->c[f], mo.area);
            mo.h = hc * mo.area;
            mo.hh = hc * hc * mo.area;
            dmx = hc;
        } else {
            double x[8][3], h[8], x2[8][3], h2[8], g[8];
            int n = 3;
            for (int k = 0; k < 3; k++) {
                v3_copy(x[k], a->v[t[k]]);
                v3_sub(d, x[k], P);
                h[k] = -v3_dot(N, d);
            }
            n = tl_poly_clip((const double(*)[3])x, h, h, n, x2, h2);
            if (rect) {
                const double *axis[2] = {U, Vv};
                double half[2] = {hu, hv};
                for (int ax = 0; ax < 2 && n > 0; ax++)
                    for (int sg = -1; sg <= 1 && n > 0; sg += 2) {
                        bool all_in = true;
                        for (int k = 0; k < n; k++) {
                            v3_sub(d, x2[k], P);
                            g[k] = half[ax] - (double)sg * v3_dot(axis[ax], d);
                            all_in = all_in && g[k] >= 0.0;
                        }
                        /* wholly on the inner side of this edge: the clip would copy it */
                        if (all_in) continue;
                        n = tl_poly_clip((const double(*)[3])x2, h2, g, n, x, h);
                        memcpy(x2, x, (size_t)n * sizeof x[0]);
                        memcpy(h2, h, (size_t)n * sizeof h[0]);
                    }
            }
            if (n < 3) continue;
            tl_poly_moments((const double(*)[3])x2, h2, n, &mo);
            if (!(mo.area > 0.0)) continue;
            for (int k = 0; k < n; k++) dmx = dmax(dmx, h2[k]);
        }
        elem *e = new_elem(s);
        if (!e) return -2;
        e->facet = f;
        e->side = 0;
        e->area = mo.area;
        e->frac = dmin(1.0, mo.area / a->area[f]);
        v3_copy(e->n, a->n[f]);
        v3_copy(e->ax, mo.x);
        v3_copy(e->hx, mo.hx);
        e->h = mo.h;
        e->hh = mo.hh;
        memcpy(e->xx, mo.xx, sizeof e->xx);
        e->dmax = dmx;
        w->slot[0][f] = (uint32_t)(w->ne++);
    }
    s->visited = w->nq[0];
    s->elements = w->ne;
    if (w->ne == 0) return 0;
    const tl_mesh *mesh[2] = {a, a};
    int ncomp = components(s, mesh, false);
    if (ncomp < 0) return -2;
    size_t found = (size_t)ncomp;
    size_t nc = merge_to(w, found, (size_t)max);
    for (size_t i = 0; i < w->ne; i++) {
        elem *e = &w->e[i];
        comp *c = &w->c[w->ci[i]];
        double cs = -v3_dot(N, e->n); /* the cosine with n = -N */
        c->s[0].A += cs * e->area;
        c->s[0].V += cs * e->h;
        c->s[0].Phi += 0.5 * cs * e->hh;
        v3_axpy(c->s[0].Pa, cs, e->ax);
        v3_axpy(c->s[0].P, cs, e->hx);
        c->dmax = dmax(c->dmax, e->dmax);
    }
    double far = 4.0 * a->radius;
    double n[3];
    v3_scale(n, N, -1.0);
    size_t written = 0;
    for (size_t k = 0; k < nc && written < (size_t)max; k++) {
        comp *c = &w->c[k];
        double A = c->s[0].A;
        if (!(A > 0.0)) continue;
        /* the centroid of the pressure over the section (linear in the depth,
         * exact: the resultant of the element forces passes through it), on
         * the plane; the section's centroid while nothing is pressed */
        double C[3];
        if (c->s[0].V > 0.0) v3_scale(C, c->s[0].P, 1.0 / c->s[0].V);
        else v3_scale(C, c->s[0].Pa, 1.0 / A);
        /* the potential reading (docs/geometry.md, "A conservative reading"): delta = 3 Phi / V,
         * Phi = int d^2/2 dA the overlap's first moment about the face (exact delta for a
         * paraboloid, 3h/2 for a flat face pressed h). Its gradient: d Phi = -V along N at the
         * pressure's centroid C, d V = -A along N at the section's centroid Ca, so the law's
         * force acts with fn_scale = 3 (1 - r), r = Phi A / V^2 (in [1/2, 3/4] when the depth
         * is concave over the section, as for any convex body: Berwald's inequality; s in
         * [3/4, 3/2]), at C + r / (1 - r) (C - Ca) */
        double scale = 1.0, Vs = c->s[0].V, Phi = c->s[0].Phi;
        const bool potential = opts->depth == TL_PCM_DEPTH_POTENTIAL;
        if (potential) {
            if (!(Vs > 0.0) || !(Phi > 0.0)) continue;
            double r = dmin(Phi * A / (Vs * Vs), 0.9); /* 0.9: a non-convex patch only (s >= 0.3) */
            scale = 3.0 * (1.0 - r);
            double Ca[3];
            v3_scale(Ca, c->s[0].Pa, 1.0 / A);
            double shift[3];
            v3_sub(shift, C, Ca);
            v3_axpy(C, r / (1.0 - r), shift);
        }
        v3_sub(d, C, P);
        v3_axpy(C, -v3_dot(N, d), N);
        double sa = line_depth(a, C, n, far, 1.0, NULL);
        double p[3];
        v3_copy(p, C);
        bool line_ok = sa > 0.0 && sa < far;
        double delta;
        switch (opts->depth) {
        case TL_PCM_DEPTH_LINE: delta = line_ok ? sa : c->dmax; break;
        case TL_PCM_DEPTH_MAX: delta = c->dmax; break;
        case TL_PCM_DEPTH_POTENTIAL: delta = 3.0 * Phi / Vs; break;
        case TL_PCM_DEPTH_VOLUME:
        default: delta = 2.0 * c->s[0].V / A; break;
        }
        if (!(delta > 0.0)) continue;
        v3_axpy(p, 0.5 * (line_ok ? sa : delta), n);
        /* the potential reading keeps the law's energy a function of delta alone: the
         * volume-equivalent radius (world_shapes.c refuses the area rule with it) */
        double r_eff = opts->radius == TL_PCM_RADIUS_AREA && !potential ? A / (2.0 * TL_PI * delta) : a->r_volume;
        tl_patch *o = &out[written++];
        patch_out(pa, n, p, delta, r_eff, A, scale, o);
        if (potential) {
            /* the section's second moment about the line of action (the facets' inside parts,
             * projected by their cosines as for A): the rocking dashpot's tensor */
            double S[3][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
            for (size_t i = 0; i < w->ne; i++)
                if (w->ci[i] == k) add_second_moment(S, &w->e[i], p, -v3_dot(N, w->e[i].n));
            rock_tensor(S, n, A, pa, o->rock);
        }
    }
    /* more than max only when max were written: the caller reads min(returned, max) */
    return found > written && written == (size_t)max ? (int)found : (int)written;
}

int tl_pcm_mesh_plane(const tl_mesh *a, const tl_pose *pa, const tl_face *f, const tl_pcm_opts *opts,
                      tl_patch *out, int max, tl_pcm_scratch *s) {
    return mesh_halfspace(a, pa, f->p, f->n, false, NULL, NULL, 0.0, 0.0, opts, out, max, s);
}

int tl_pcm_mesh_rect(const tl_mesh *a, const tl_pose *pa, const tl_face *f, const tl_pcm_opts *opts,
                     tl_patch *out, int max, tl_pcm_scratch *s) {
    /* the side of the plate the body's centroid is on is the outside */
    double d[3], N[3];
    v3_sub(d, pa->x, f->p);
    v3_copy(N, f->n);
    if (v3_dot(d, N) < 0.0) v3_scale(N, N, -1.0);
    return mesh_halfspace(a, pa, f->p, N, true, f->u, f->v, f->hu, f->hv, opts, out, max, s);
}

int tl_pcm_mesh_face(const tl_mesh *a, const tl_pose *pa, const tl_face *f, const tl_pcm_opts *opts,
                     tl_patch *out, int max, tl_pcm_scratch *s) {
    return f->kind == TL_FACE_PLANE ? tl_pcm_mesh_plane(a, pa, f, opts, out, max, s)
                                    : tl_pcm_mesh_rect(a, pa, f, opts, out, max, s);
}

/* ---- sphere-mesh ---- */

static uint32_t rfind(struct sm_rec *r, uint32_t i) {
    while (r[i].parent != i) {
        r[i].parent = r[r[i].parent].parent;
        i = r[i].parent;
    }
    return i;
}

/* squared distance from p to the segment a-b */
static double seg_dist2(const double p[3], const double a[3], const double b[3]) {
    double ab[3], ap[3];
    v3_sub(ab, b, a);
    v3_sub(ap, p, a);
    double t = dclamp(v3_dot(ap, ab) / v3_norm2(ab), 0.0, 1.0);
    double q[3], d[3];
    v3_copy(q, a);
    v3_axpy(q, t, ab);
    v3_sub(d, p, q);
    return v3_norm2(d);
}

int tl_pcm_sphere_mesh(const double c[3], double r, const tl_mesh *b, const tl_pose *pb, const tl_pcm_opts *opts,
                       tl_patch *out, int max, tl_pcm_scratch *s) {
    if (!opts) opts = &default_opts;
    if (b->nt == 0 || !(r > 0.0) || max < 1) return 0;
    struct tl_pcm_work *w = work(s);
    s->visited = s->elements = 0;
    if (!w || stamps(s, 1, b->nt, b->nv)) return -2;
    next_generation(w);
    double cb[3], d[3];
    v3_sub(d, c, pb->x);
    rot_t(pb->R, d, cb);
    double lo[3] = {cb[0] - r, cb[1] - r, cb[2] - r}, hi[3] = {cb[0] + r, cb[1] + r, cb[2] + r};
    size_t nc = tl_bvh_box(TL_MESH_TRIS(b), lo, hi, w->cand, w->capcand);
    if (nc + 1 > w->capcand) {
        if (tl_mem_reserve(s->mem, (void **)&w->cand, &w->capcand, nc + 1, sizeof *w->cand) != 0) return -2;
        nc = tl_bvh_box(TL_MESH_TRIS(b), lo, hi, w->cand, w->capcand);
    }
    if (tl_mem_reserve(s->mem, (void **)&w->rec, &w->caprec, nc + 1, sizeof *w->rec) != 0) return -2;
    uint32_t nr = 0;
    for (size_t i = 0; i < nc; i++) {
        uint32_t f = w->cand[i];
        const uint32_t *t = b->tri[f];
        struct sm_rec *rc = &w->rec[nr];
        tl_tri_closest(cb, b->v[t[0]], b->v[t[1]], b->v[t[2]], rc->q, &rc->feature, &rc->index, NULL);
        v3_sub(d, cb, rc->q);
        rc->dist = v3_norm(d);
        if (!(rc->dist < r)) continue;
        rc->facet = f;
        rc->parent = nr;
        w->stamp[1][f] = w->gen;
        w->slot[1][f] = nr;
        nr++;
    }
    if (nr == 0 && b->closed && tl_bvh_inside(TL_MESH_TRIS(b), cb)) {
        /* the centre is deep inside: the nearest point wherever it is */
        tl_mesh_point mp;
        if (tl_bvh_closest(TL_MESH_TRIS(b), cb, INFINITY, &mp)) {
            struct sm_rec *rc = &w->rec[0];
            rc->facet = mp.facet;
            rc->feature = mp.feature;
            rc->index = mp.index;
            v3_copy(rc->q, mp.q);
            rc->dist = mp.dist;
            rc->parent = 0;
            nr = 1;
        }
    }
    s->visited = nc;
    s->elements = nr;
    if (nr == 0) return 0;
    /* regions: facets inside the sphere joined across edges that pass through it */
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t f = w->rec[i].facet;
        for (int k = 0; k < 3; k++) {
            uint32_t g = b->adj[f][k];
            if (g == NONE || g < f || w->stamp[1][g] != w->gen) continue;
            if (!(seg_dist2(cb, b->v[b->tri[f][k]], b->v[b->tri[f][(k + 1) % 3]]) < r * r)) continue;
            uint32_t x = rfind(w->rec, i), y = rfind(w->rec, w->slot[1][g]);
            if (x < y) w->rec[y].parent = x;
            else if (y < x) w->rec[x].parent = y;
        }
    }
    /* the closest record of each region (ties: the lower facet) */
    uint32_t *best = w->cand; /* reused: nr <= nc entries */
    uint32_t nreg = 0;
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t root = rfind(w->rec, i);
        uint32_t k = 0;
        while (k < nreg && rfind(w->rec, best[k]) != root) k++;
        if (k == nreg) best[nreg++] = i;
        else {
            struct sm_rec *cur = &w->rec[best[k]], *x = &w->rec[i];
            if (x->dist < cur->dist || (x->dist == cur->dist && x->facet < cur->facet)) best[k] = i;
        }
    }
    double rv = b->closed ? r_star(r, b->r_volume) : r;
    double r_eff = opts->radius == TL_PCM_RADIUS_AREA ? r : rv;
    tl_patch tmp[1];
    int written = 0;
    for (uint32_t k = 0; k < nreg; k++) {
        const struct sm_rec *x = &w->rec[best[k]];
        double pn[3], n[3], delta;
        tl_mesh_feature_normal(b, x->facet, x->feature, x->index, pn);
        v3_sub(d, cb, x->q);
        bool inside = b->closed && v3_dot(d, pn) < 0.0;
        if (x->dist > 0.0) {
            v3_scale(n, d, (inside ? 1.0 : -1.0) / x->dist);
        } else {
            v3_scale(n, pn, -1.0);
        }
        delta = inside ? r + x->dist : r - x->dist;
        double nw[3], p[3];
        rot(pb->R, n, nw);
        v3_copy(p, c);
        v3_axpy(p, r - 0.5 * delta, nw);
        tmp[0].delta = delta;
        v3_copy(tmp[0].n, nw);
        v3_copy(tmp[0].p, p);
        tmp[0].r_eff = r_eff;
        tmp[0].area = 0.0;
        tmp[0].fn_scale = 1.0;
        tmp[0].r_kind = TL_PATCH_R_KEPT;
        v3_zero(tmp[0].r_grad);
        v3_zero(tmp[0].couple);
        for (int q = 0; q < 6; q++) tmp[0].rock[q] = 0.0;
        /* keep the deepest max */
        if (written < max) {
            out[written++] = tmp[0];
        } else if (max > 0) {
            int shallow = 0;
            for (int j = 1; j < max; j++)
                if (out[j].delta < out[shallow].delta) shallow = j;
            if (out[shallow].delta < delta) out[shallow] = tmp[0];
        }
    }
    return (int)nreg > written ? (int)nreg : written;
}
