#include "neighbors.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "parallel.h"
#include "vec.h"

void tl_neighbors_init(tl_neighbors *nb, double skin) {
    memset(nb, 0, sizeof *nb);
    nb->skin = skin;
    nb->domain_size = TL_DOMAIN_SIZE;
}

void tl_neighbors_free(tl_mem *mem, tl_neighbors *nb) {
    for (int l = 0; l < TL_MAX_LEVELS; l++) {
        tl_grid *g = &nb->level[l];
        tl_mem_free(mem, g->start, g->cap_start * sizeof *g->start);
        tl_mem_free(mem, g->items, g->cap_items * sizeof *g->items);
    }
    tl_mem_free(mem, nb->level_of, nb->cap_level);
    tl_mem_free(mem, nb->cell_of, nb->cap_of * sizeof *nb->cell_of);
    tl_mem_free(mem, nb->wall_ref, nb->cap_walls * sizeof *nb->wall_ref);
    tl_mem_free(mem, nb->wall_angle_ref, nb->cap_walls * sizeof *nb->wall_angle_ref);
    tl_mem_free(mem, nb->wall_reach, nb->cap_walls * sizeof *nb->wall_reach);
    tl_mem_free(mem, nb->chunk, nb->cap_chunk * sizeof *nb->chunk);
    tl_mem_free(mem, nb->seg, nb->cap_chunk * sizeof *nb->seg);
    tl_mem_free(mem, nb->spill, nb->cap_chunk);
    tl_pairs_free(mem, &nb->scratch);
    double skin = nb->skin;
    size_t ds = nb->domain_size;
    bool all = nb->all_to_shapes;
    tl_neighbors_init(nb, skin);
    nb->domain_size = ds;
    nb->all_to_shapes = all;
}

bool tl_neighbors_walls_moved(const tl_neighbors *nb, const tl_walls *w) {
    if (nb->builds == 0 || w->count > nb->cap_walls) return true;
    double lim2 = 0.25 * nb->skin * nb->skin;
    for (size_t k = 0; k < w->count; k++) {
        double d[3];
        v3_sub(d, w->w[k].disp, nb->wall_ref[k]);
        double d2 = v3_norm2(d);
        if (w->w[k].turns) {
            double m = sqrt(d2) + nb->wall_reach[k] * fabs(w->w[k].angle - nb->wall_angle_ref[k]);
            d2 = m * m;
        }
        if (d2 > lim2) return true;
    }
    return false;
}

double tl_neighbors_range(const tl_neighbors *nb, const tl_particles *p) {
    double rmax = 0.0;
    for (size_t i = 0; i < p->count; i++) rmax = dmax(rmax, p->radius[i]);
    return 2.0 * rmax + nb->skin;
}

int tl_neighbors_reserve_walls(tl_mem *mem, tl_neighbors *nb, size_t n) {
    if (n <= nb->cap_walls) return 0;
    void *nw = tl_mem_realloc(mem, nb->wall_ref, nb->cap_walls * sizeof *nb->wall_ref, n * sizeof *nb->wall_ref);
    if (!nw) return -1;
    nb->wall_ref = nw;
    double *na = tl_mem_realloc(mem, nb->wall_angle_ref, nb->cap_walls * sizeof *na, n * sizeof *na);
    if (!na) return -1; /* wall_ref is larger than cap says: freed by its smaller size, harmless */
    nb->wall_angle_ref = na;
    double *nr = tl_mem_realloc(mem, nb->wall_reach, nb->cap_walls * sizeof *nr, n * sizeof *nr);
    if (!nr) return -1;
    nb->wall_reach = nr;
    nb->cap_walls = n;
    return 0;
}

static int reserve_u32(tl_mem *mem, uint32_t **a, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    if (need > SIZE_MAX / 2 / sizeof **a) return -1; /* no array of that size can exist */
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) ncap *= 2;
    uint32_t *n = tl_mem_realloc(mem, *a, *cap * sizeof **a, ncap * sizeof **a);
    if (!n) return -1;
    *a = n;
    *cap = ncap;
    return 0;
}

int tl_neighbors_size_class(double rmax, double r) {
    int l = 0;
    double ratio = r > 0.0 ? rmax / r : 1.0;
    while (ratio >= 2.0 && l < TL_MAX_LEVELS - 1) {
        ratio *= 0.5;
        l++;
    }
    return l;
}

static int64_t cell_coord(const tl_grid *g, const double lo[3], int k, double x) {
    double c = floor((x - lo[k]) / g->w[k]);
    if (!(c >= 0.0)) return 0;
    if (c >= (double)g->dims[k]) return g->dims[k] - 1;
    return (int64_t)c;
}

/* Lays out the grid of one class over the extent [lo, hi] (periods on periodic axes).
 * The cell counts are found in floating point and converted only once they
 * are known to be at most 4 n + 64 in all: an extent of any size (a particle
 * at 1e300, or 2^64) coarsens the grid instead of overflowing the integer
 * arithmetic; an extent that is not finite (lo -1e308 to hi 1e308) makes its
 * axis one cell. */
static void layout_grid(tl_grid *g, double skin, const double lo[3], const double hi[3],
                        const tl_periodic *per) {
    double h = 2.0 * g->rmax + skin;
    if (!(h > 0.0) || !isfinite(h)) h = 1.0;
    double limit = 4.0 * (double)g->n + 64.0;
    double dims[3];
    for (;;) {
        double cells = 1.0;
        for (int k = 0; k < 3; k++) {
            double ext = per->on[k] ? per->len[k] : hi[k] - lo[k];
            if (!isfinite(ext) || !(ext >= 0.0)) dims[k] = 1.0;
            else if (per->on[k]) dims[k] = fmax(1.0, floor(ext / h));
            else dims[k] = floor(ext / h) + 1.0;
            cells *= dims[k];
        }
        if (cells <= limit) break;
        h *= 1.26; /* ends: once h exceeds every finite extent, each axis has one cell */
    }
    for (int k = 0; k < 3; k++) {
        g->dims[k] = (int64_t)dims[k];
        double ext = per->on[k] ? per->len[k] : hi[k] - lo[k];
        if (per->on[k]) g->w[k] = per->len[k] / dims[k];
        else g->w[k] = isfinite(ext) ? h : INFINITY;
    }
    g->ncells = (size_t)(g->dims[0] * g->dims[1] * g->dims[2]);
}

/* ---- the pair search, in chunks of particles ---- */

typedef struct search {
    const tl_neighbors *nb;
    const tl_particles *p;
    const tl_periodic *per;
    tl_pairs *out;
    size_t lim; /* writes below this index only (the chunk's segment); counts on past it */
    /* the cells around the last particle's cell (the next one is most often in the same cell) */
    size_t last_cell;
    int last_level, nn;
    size_t nbr[27];
} search;

/* Tests a pair; when `at` is given, writes it there (below s->lim) and advances it. Returns 1 if
 * it is a candidate. */
static inline size_t try_pair(const search *s, uint32_t i, uint32_t j, size_t *at) {
    const tl_particles *p = s->p;
    double d[3];
    int sh[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        d[k] = p->x[j][k] - p->x[i][k];
        if (s->per->on[k]) {
            double half = 0.5 * s->per->len[k];
            if (d[k] > half) {
                d[k] -= s->per->len[k];
                sh[k] = -1;
            } else if (d[k] < -half) {
                d[k] += s->per->len[k];
                sh[k] = 1;
            }
        }
    }
    double cut = p->radius[i] + p->radius[j] + s->nb->skin;
    if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= cut * cut) return 0;
    if (at) {
        /* a = the smaller id, whoever found the pair: a pair keeps its orientation
         * from one build to the next, and with it the sign of its history (the
         * tangential displacement of a relative to b) */
        tl_pairs *o = s->out;
        size_t k = (*at)++;
        if (k >= s->lim) return 1;
        if (p->id[j] < p->id[i]) {
            o->a[k] = j;
            o->b[k] = i;
            o->img[k] = tl_image_code(-sh[0], -sh[1], -sh[2]);
        } else {
            o->a[k] = i;
            o->b[k] = j;
            o->img[k] = tl_image_code(sh[0], sh[1], sh[2]);
        }
    }
    return 1;
}

/* The distinct cells around cell c of a grid, ascending; returns their count. */
static int around(const tl_grid *g, const tl_periodic *per, const int64_t c[3], size_t out[27]) {
    int64_t ax[3][3] = {{0}};
    int nax[3];
    for (int k = 0; k < 3; k++) {
        nax[k] = 0;
        for (int o = -1; o <= 1; o++) {
            int64_t q = c[k] + o;
            if (per->on[k]) q = (q % g->dims[k] + g->dims[k]) % g->dims[k];
            else if (q < 0 || q >= g->dims[k]) continue;
            bool dup = false;
            for (int m = 0; m < nax[k]; m++) dup |= ax[k][m] == q;
            if (!dup) ax[k][nax[k]++] = q;
        }
    }
    int n = 0;
    for (int z = 0; z < nax[2]; z++)
        for (int y = 0; y < nax[1]; y++)
            for (int x = 0; x < nax[0]; x++)
                out[n++] = (size_t)((ax[2][z] * g->dims[1] + ax[1][y]) * g->dims[0] + ax[0][x]);
    for (int a = 1; a < n; a++) { /* ascending */
        size_t v = out[a];
        int b = a - 1;
        while (b >= 0 && out[b] > v) {
            out[b + 1] = out[b];
            b--;
        }
        out[b + 1] = v;
    }
    return n;
}

/* One axis's cell range [from, from + count) of a grid within reach of x (wrapped on periodic axes). */
static void reach_range(const tl_grid *g, const double lo[3], const tl_periodic *per, int k, double x,
                        double reach, int64_t *from, int64_t *count) {
    /* clamped in floating point before any conversion: x may lie far outside
     * the grid (a wall's reach from a distant point), or be NaN */
    double a = floor((x - reach - lo[k]) / g->w[k]);
    double b = floor((x + reach - lo[k]) / g->w[k]);
    double dims = (double)g->dims[k];
    if (per->on[k]) {
        /* the whole axis when the reach spans it, or when x lies far from the grid (a state
         * loaded from anywhere: fuzz/regressions/checkpoint-reach-overflow) */
        if (!(b - a + 1.0 < dims) || !(a > -4.0 * dims && b < 5.0 * dims)) {
            a = 0.0;
            b = dims - 1.0;
        }
    } else {
        if (!(a >= 0.0)) a = 0.0;
        if (!(b < dims)) b = dims - 1.0;
        if (!(a <= b)) { /* beyond the grid's far end: no cell */
            *from = 0;
            *count = 0;
            return;
        }
    }
    *from = (int64_t)a;
    *count = b >= a ? (int64_t)(b - a) + 1 : 0;
}

static inline int64_t wrap(int64_t c, int64_t dims, bool periodic) {
    return periodic ? (c % dims + dims) % dims : c;
}

/* The candidates of particle i (with the particles after it in its own cell,
 * in the cells after its own among the neighbors, and the smaller particles
 * of finer classes): counted (at = NULL) or written from *at on. Tasks run
 * over the particles in storage order, so the list follows the storage
 * order of the particles (reorder.h) and the force loop reads them in order. */
static size_t particle_pairs(search *s, uint32_t i, size_t *at) {
    const tl_neighbors *nb = s->nb;
    const tl_periodic *per = s->per;
    int l = nb->level_of[i];
    const tl_grid *g = &nb->level[l];
    size_t cell = nb->cell_of[i];
    if (cell != s->last_cell || l != s->last_level) {
        size_t d0 = (size_t)g->dims[0], d1 = (size_t)g->dims[1];
        int64_t c[3] = {(int64_t)(cell % d0), (int64_t)((cell / d0) % d1), (int64_t)(cell / (d0 * d1))};
        s->nn = around(g, per, c, s->nbr);
        s->last_cell = cell;
        s->last_level = l;
    }
    const size_t *nbr = s->nbr;
    const int nn = s->nn;
    size_t n = 0;
    /* the same class: this cell after i (cells list their particles in index order),
     * and the cells after this one */
    for (uint32_t jb = g->start[cell]; jb < g->start[cell + 1]; jb++) {
        uint32_t j = g->items[jb];
        if (j > i) n += try_pair(s, i, j, at);
    }
    for (int q = 0; q < nn; q++) {
        if (nbr[q] <= cell) continue;
        for (uint32_t jb = g->start[nbr[q]]; jb < g->start[nbr[q] + 1]; jb++)
            n += try_pair(s, i, g->items[jb], at);
    }
    /* the smaller classes, in their own grids */
    for (int m = l + 1; m < nb->nlevels; m++) {
        const tl_grid *gm = &nb->level[m];
        if (gm->n == 0) continue;
        double reach = s->p->radius[i] + gm->rmax + nb->skin;
        int64_t from[3], cnt[3];
        for (int k = 0; k < 3; k++) reach_range(gm, nb->lo, per, k, s->p->x[i][k], reach, &from[k], &cnt[k]);
        for (int64_t z = 0; z < cnt[2]; z++) {
            int64_t cz = wrap(from[2] + z, gm->dims[2], per->on[2]);
            for (int64_t y = 0; y < cnt[1]; y++) {
                int64_t cy = wrap(from[1] + y, gm->dims[1], per->on[1]);
                for (int64_t x = 0; x < cnt[0]; x++) {
                    int64_t cx = wrap(from[0] + x, gm->dims[0], per->on[0]);
                    size_t q = (size_t)((cz * gm->dims[1] + cy) * gm->dims[0] + cx);
                    for (uint32_t jb = gm->start[q]; jb < gm->start[q + 1]; jb++)
                        n += try_pair(s, i, gm->items[jb], at);
                }
            }
        }
    }
    return n;
}

static size_t face_pairs(const tl_walls *w, const tl_particles *p, double skin, size_t i, tl_pairs *out,
                         size_t *at, size_t lim) {
    size_t n = 0;
    for (size_t f = 0; f < w->nfaces; f++) {
        tl_geometry g;
        tl_face_geometry(&w->f[f], p->x[i], p->radius[i], &g);
        if (!(g.delta > -skin)) continue;
        n++;
        if (at) {
            size_t k = (*at)++;
            if (k >= lim) continue;
            out->a[k] = (uint32_t)i;
            out->b[k] = (uint32_t)f;
            out->img[k] = TL_IMAGE_NONE;
        }
    }
    return n;
}

static int reserve_chunks(tl_mem *mem, tl_neighbors *nb, size_t n) {
    if (n <= nb->cap_chunk) return 0;
    size_t *c = tl_mem_realloc(mem, nb->chunk, nb->cap_chunk * sizeof *c, n * sizeof *c);
    if (!c) return -1;
    nb->chunk = c;
    size_t *sg = tl_mem_realloc(mem, nb->seg, nb->cap_chunk * sizeof *sg, n * sizeof *sg);
    if (!sg) return -1; /* chunk is larger than cap_chunk says: freed by its smaller size, harmless */
    nb->seg = sg;
    uint8_t *sp = tl_mem_realloc(mem, nb->spill, nb->cap_chunk, n);
    if (!sp) return -1;
    nb->spill = sp;
    nb->cap_chunk = n;
    return 0;
}

/* Counting sort of a class's particles into its grid. */
static int sort_class(tl_mem *mem, tl_neighbors *nb, const tl_particles *p, int l) {
    tl_grid *g = &nb->level[l];
    if (reserve_u32(mem, &g->start, &g->cap_start, g->ncells + 1) != 0) return -1;
    if (reserve_u32(mem, &g->items, &g->cap_items, g->n ? g->n : 1) != 0) return -1;
    memset(g->start, 0, (g->ncells + 1) * sizeof *g->start);
    size_t n = p->count;
    for (size_t i = 0; i < n; i++) {
        if (nb->level_of[i] != l) continue;
        int64_t c[3];
        for (int k = 0; k < 3; k++) c[k] = cell_coord(g, nb->lo, k, p->x[i][k]);
        uint32_t cell = (uint32_t)((c[2] * g->dims[1] + c[1]) * g->dims[0] + c[0]);
        nb->cell_of[i] = cell;
        g->start[cell + 1]++;
    }
    for (size_t c = 0; c < g->ncells; c++) g->start[c + 1] += g->start[c];
    for (size_t i = 0; i < n; i++) {
        if (nb->level_of[i] != l) continue;
        uint32_t cell = nb->cell_of[i];
        g->items[g->start[cell]++] = (uint32_t)i; /* advanced while filling, restored below */
    }
    for (size_t c = g->ncells; c > 0; c--) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    return 0;
}

/* Counts per chunk of tasks, then fills each chunk at its offset: the list
 * is in task order whatever the number of threads. */
#define CHUNKS_PER_THREAD 16

/* Each chunk's segment of the scratch: room for the last build's candidates per particle (of
 * kind `which`: 0 particle-particle, 1 wall) and a quarter more, and a few. */
static int segments(tl_mem *mem, tl_neighbors *nb, size_t nchunks, size_t nsub, const tl_domains *dom,
                    int which) {
    /* before the first build (or after a restart): a guess; a chunk it does not fit searches twice */
    double per = nb->per_particle[which] > 0.0 ? nb->per_particle[which] * 1.25 : (which ? 0.5 : 6.0);
    size_t *seg = nb->seg, at = 0;
    for (size_t c = 0; c < nchunks; c++) {
        size_t d = c / nsub, sub = c % nsub, m = dom->start[d + 1] - dom->start[d];
        size_t np = m * (sub + 1) / nsub - m * sub / nsub;
        seg[c] = at;
        at += (size_t)(per * (double)np) + 8;
    }
    seg[nchunks] = at;
    return tl_pairs_reserve(mem, &nb->scratch, at);
}

/* The chunks' counts into their places in the list (chunk[c]: where chunk c's candidates
 * begin) and each domain's start; returns the total. */
static size_t place_chunks(tl_neighbors *nb, size_t nchunks, size_t nsub, size_t *dom_start, size_t ndom) {
    size_t total = 0;
    for (size_t c = 0; c < nchunks; c++) {
        size_t k = nb->chunk[c];
        nb->chunk[c] = total;
        if (c % nsub == 0) dom_start[c / nsub] = total;
        total += k;
    }
    dom_start[ndom] = total;
    return total;
}

static void copy_pairs(tl_pairs *to, size_t at, const tl_pairs *from, size_t from_at, size_t n) {
    if (n == 0) return; /* an empty list may have no arrays yet: no arithmetic on null (UBSan) */
    memcpy(to->a + at, from->a + from_at, n * sizeof *to->a);
    memcpy(to->b + at, from->b + from_at, n * sizeof *to->b);
    memcpy(to->img + at, from->img + from_at, n * sizeof *to->img);
}

size_t tl_neighbors_domain_count(const tl_neighbors *nb, size_t n) {
    size_t ndom = n / nb->domain_size;
    /* at the default size, the count rounded up to a power of two: 2, 4, 8 ... threads or MPI
     * ranks, which take whole domains, then share them evenly (10^5 spheres: 8 domains of 12,500,
     * not 6; 5 x 10^4: 4, not 3, which gave one of 2 ranks twice the other's work) */
    if (nb->domain_size == TL_DOMAIN_SIZE && ndom > 2) {
        size_t p2 = 4;
        while (p2 < ndom) p2 *= 2;
        ndom = p2;
    }
    if (ndom < 2 && n >= 2 * TL_DOMAIN_MIN) ndom = 2; /* two threads have work from 2 x 4096 on */
    if (ndom < 1) ndom = 1;
    if (ndom > 4096) ndom = 4096;
    return ndom;
}

void tl_domains_free(tl_mem *mem, tl_domains *d) {
    tl_mem_free(mem, d->start, d->cap * sizeof *d->start);
    tl_mem_free(mem, d->pp_start, d->cap * sizeof *d->pp_start);
    tl_mem_free(mem, d->pw_start, d->cap * sizeof *d->pw_start);
    tl_mem_free(mem, d->cross_start, d->cap * sizeof *d->cross_start);
    tl_mem_free(mem, d->cross, d->cap_cross * sizeof *d->cross);
    memset(d, 0, sizeof *d);
}

/* Moves the candidates of a list that involve a body other than a sphere to
 * the shape list (in list order), closing the gaps and the domains' ranges. */
/* whether candidate k goes to the shape stage: a body other than a sphere, or a mesh face */
static inline bool to_shapes(const tl_particles *p, const tl_walls *w, const tl_pairs *l, size_t k, bool wall,
                             bool all) {
    if (all || p->shape[l->a[k]] != 0) return true;
    return wall ? w->f[l->b[k]].kind == TL_FACE_MESH : p->shape[l->b[k]] != 0;
}

static int extract_shapes(tl_mem *mem, const tl_particles *p, const tl_walls *w, tl_pairs *l, size_t *start,
                          size_t ndom, bool wall, bool all, tl_shape_list *out) {
    size_t ns = 0;
    for (size_t k = 0; k < l->count; k++) ns += to_shapes(p, w, l, k, wall, all);
    if (ns == 0) return 0;
    if (tl_shape_list_reserve(mem, out, out->count + ns) != 0) return -1;
    size_t at = 0, lo = start[0];
    for (size_t d = 0; d < ndom; d++) {
        size_t hi = start[d + 1];
        start[d] = at;
        for (size_t k = lo; k < hi; k++) {
            uint32_t a = l->a[k], b = l->b[k];
            if (to_shapes(p, w, l, k, wall, all)) {
                size_t s = out->count++;
                out->a[s] = a;
                out->b[s] = b;
                out->img[s] = l->img[k];
                out->wall[s] = wall;
                out->dom[s] = (uint32_t)d;
            } else {
                l->a[at] = a;
                l->b[at] = b;
                l->img[at] = l->img[k];
                at++;
            }
        }
        lo = hi;
    }
    start[ndom] = at;
    l->count = at;
    return 0;
}

/* A distributed run: the candidates between two ghosts leave the list (the ranks that own
 * them evaluate them), closing the gaps and the domains' ranges. */
static void drop_ghost_pairs(tl_pairs *l, size_t *start, size_t ndom, size_t own_lo, size_t own_hi) {
    size_t at = 0, lo = start[0];
    for (size_t d = 0; d < ndom; d++) {
        size_t hi = start[d + 1];
        start[d] = at;
        for (size_t k = lo; k < hi; k++) {
            uint32_t a = l->a[k], b = l->b[k];
            if ((a < own_lo || a >= own_hi) && (b < own_lo || b >= own_hi)) continue;
            l->a[at] = a;
            l->b[at] = b;
            l->img[at] = l->img[k];
            at++;
        }
        lo = hi;
    }
    start[ndom] = at;
    l->count = at;
}

int tl_neighbors_build(tl_mem *mem, tl_neighbors *nb, tl_particles *p, const tl_walls *w,
                       const tl_periodic *per, tl_pairs *pp, tl_pairs *pw, tl_domains *dom,
                       tl_shape_list *shapes, int threads, const tl_nb_frame *frame) {
    size_t n = p->count;
    const size_t own_lo = frame ? frame->own_lo : 0, own_hi = frame ? frame->own_hi : n;
    pp->count = 0;
    pw->count = 0;
    if (shapes) shapes->count = 0;
    if (tl_neighbors_reserve_walls(mem, nb, w->count) != 0) return -1;
    for (size_t k = 0; k < w->count; k++) {
        const tl_wall *wl = &w->w[k];
        v3_copy(nb->wall_ref[k], wl->disp);
        nb->wall_angle_ref[k] = wl->angle;
        nb->wall_reach[k] = 0.0;
        if (!wl->turns) continue;
        if (frame) {
            nb->wall_reach[k] = frame->wall_reach[k];
            continue;
        }
        /* the farthest a particle's surface lies from the pivot */
        double reach = 0.0;
        for (size_t i = 0; i < n; i++) {
            double d[3];
            v3_sub(d, p->x[i], wl->pivot);
            reach = dmax(reach, v3_norm(d) + p->radius[i]);
        }
        nb->wall_reach[k] = reach;
    }
    for (size_t i = 0; i < n; i++) v3_copy(p->x_ref[i], p->x[i]);
    for (int c = 0; c < 27; c++) {
        int sh[3] = {c % 3 - 1, (c / 3) % 3 - 1, c / 9 - 1};
        for (int k = 0; k < 3; k++) nb->shift[c][k] = per->on[k] ? sh[k] * per->len[k] : 0.0;
    }
    nb->builds++;
    if (n == 0) {
        dom->count = 0;
        dom->ncross = 0;
        return 0;
    }

    /* the extent and the size classes */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            lo[k] = dmin(lo[k], p->x[i][k]);
            hi[k] = dmax(hi[k], p->x[i][k]);
        }
        rmax = dmax(rmax, p->radius[i]);
    }
    if (frame) {
        v3_copy(lo, frame->lo);
        v3_copy(hi, frame->hi);
        rmax = frame->rmax;
    }
    for (int k = 0; k < 3; k++)
        if (per->on[k]) {
            lo[k] = per->lo[k];
            hi[k] = per->lo[k] + per->len[k];
        }
    v3_copy(nb->lo, lo);
    if (reserve_u32(mem, &nb->cell_of, &nb->cap_of, n) != 0) return -1;
    if (n > nb->cap_level) {
        uint8_t *lv = tl_mem_realloc(mem, nb->level_of, nb->cap_level, nb->cap_of);
        if (!lv) return -1;
        nb->level_of = lv;
        nb->cap_level = nb->cap_of;
    }
    for (int l = 0; l < TL_MAX_LEVELS; l++) {
        nb->level[l].n = 0;
        nb->level[l].rmax = 0.0;
        nb->level[l].ncells = 0;
    }
    nb->nlevels = 1;
    for (size_t i = 0; i < n; i++) {
        int l = tl_neighbors_size_class(rmax, p->radius[i]);
        nb->level_of[i] = (uint8_t)l;
        tl_grid *g = &nb->level[l];
        g->n++;
        g->rmax = dmax(g->rmax, p->radius[i]);
        if (l + 1 > nb->nlevels) nb->nlevels = l + 1;
    }
    if (frame) { /* the classes as over all particles: their grids are the serial ones */
        nb->nlevels = frame->nlevels;
        for (int l = 0; l < TL_MAX_LEVELS; l++) {
            nb->level[l].n = frame->level_n[l];
            nb->level[l].rmax = frame->level_rmax[l];
        }
    }
    search s = {.nb = nb, .p = p, .per = per, .out = pp, .lim = SIZE_MAX, .last_cell = SIZE_MAX, .last_level = -1};
    for (int l = 0; l < nb->nlevels; l++) {
        tl_grid *g = &nb->level[l];
        if (g->n) layout_grid(g, nb->skin, lo, hi, per);
        if (sort_class(mem, nb, p, l) != 0) return -1;
    }
    /* the domains; the work is cut into chunks inside them, so that each domain's
     * candidates start at a chunk's offset */
    size_t ndom = frame ? frame->ndom : tl_neighbors_domain_count(nb, n);
    if (ndom + 1 > dom->cap) {
        size_t cap = ndom + 1;
        uint32_t *st = tl_mem_realloc(mem, dom->start, dom->cap * sizeof *st, cap * sizeof *st);
        if (!st) return -1;
        dom->start = st;
        size_t *a = tl_mem_realloc(mem, dom->pp_start, dom->cap * sizeof *a, cap * sizeof *a);
        if (!a) return -1; /* start is larger than cap says: freed by its smaller size, harmless */
        dom->pp_start = a;
        size_t *b = tl_mem_realloc(mem, dom->pw_start, dom->cap * sizeof *b, cap * sizeof *b);
        if (!b) return -1;
        dom->pw_start = b;
        size_t *cs = tl_mem_realloc(mem, dom->cross_start, dom->cap * sizeof *cs, cap * sizeof *cs);
        if (!cs) return -1;
        dom->cross_start = cs;
        dom->cap = cap;
    }
    dom->count = ndom;
    for (size_t d = 0; d <= ndom; d++) dom->start[d] = frame ? frame->dom_start[d] : (uint32_t)(d * n / ndom);
    int nt = threads > 1 ? threads : 1;
    size_t nsub = ((size_t)nt * CHUNKS_PER_THREAD + ndom - 1) / ndom;
    size_t nchunks = ndom * nsub;
    if (reserve_chunks(mem, nb, nchunks + 1) != 0) return -1;
    size_t *chunk = nb->chunk;
#define CHUNK_RANGE(c, lo, hi)                                                         \
    size_t d_ = (c) / nsub, s_ = (c) % nsub, n_ = dom->start[d_ + 1] - dom->start[d_];  \
    size_t lo = dom->start[d_] + n_ * s_ / nsub, hi = dom->start[d_] + n_ * (s_ + 1) / nsub;
    /* One search per particle: each chunk writes its candidates into its segment of the
     * scratch (sized from the last build), then they are copied to the chunk's place in the
     * list. A chunk that outgrew its segment (counted on) searches again into the list. The
     * list is the one a count-then-fill build gives, in the same order. */
    if (segments(mem, nb, nchunks, nsub, dom, 0) != 0) return -1;
    const size_t *seg = nb->seg;
    TL_FOR_DYNAMIC(c, nchunks, {
        CHUNK_RANGE(c, t0, t1)
        search sc = s;
        sc.out = &nb->scratch;
        sc.lim = seg[c + 1];
        size_t at = seg[c];
        for (size_t t = t0; t < t1; t++) particle_pairs(&sc, (uint32_t)t, &at);
        chunk[c] = at - seg[c];
        nb->spill[c] = at > seg[c + 1];
    })
    size_t total = place_chunks(nb, nchunks, nsub, dom->pp_start, ndom);
    if (tl_pairs_reserve(mem, pp, total) != 0) return -1;
    TL_FOR_DYNAMIC(c, nchunks, {
        size_t at = chunk[c];
        if (nb->spill[c]) {
            CHUNK_RANGE(c, t0, t1)
            search sc = s;
            for (size_t t = t0; t < t1; t++) particle_pairs(&sc, (uint32_t)t, &at);
        } else {
            copy_pairs(pp, at, &nb->scratch, seg[c], (c + 1 < nchunks ? chunk[c + 1] : total) - at);
        }
    })
    pp->count = total;
    nb->per_particle[0] = (double)total / (double)n;
    nb->chunks += (int64_t)nchunks;
    for (size_t c = 0; c < nchunks; c++) nb->spills += nb->spill[c];
    if (frame) drop_ghost_pairs(pp, dom->pp_start, ndom, own_lo, own_hi);
    if (shapes && extract_shapes(mem, p, w, pp, dom->pp_start, ndom, false, nb->all_to_shapes, shapes) != 0) return -1;

    /* the cross candidates: a particle outside the finder's domain */
    size_t ncross = 0;
    for (size_t d = 0; d < ndom; d++)
        for (size_t k = dom->pp_start[d]; k < dom->pp_start[d + 1]; k++)
            ncross += (pp->a[k] < dom->start[d] || pp->a[k] >= dom->start[d + 1] ||
                       pp->b[k] < dom->start[d] || pp->b[k] >= dom->start[d + 1]);
    if (ncross > dom->cap_cross) {
        size_t cap = ncross + ncross / 8 + 16;
        uint32_t *c = tl_mem_realloc(mem, dom->cross, dom->cap_cross * sizeof *c, cap * sizeof *c);
        if (!c) return -1;
        dom->cross = c;
        dom->cap_cross = cap;
    }
    dom->ncross = 0;
    for (size_t d = 0; d < ndom; d++) {
        dom->cross_start[d] = dom->ncross;
        for (size_t k = dom->pp_start[d]; k < dom->pp_start[d + 1]; k++)
            if (pp->a[k] < dom->start[d] || pp->a[k] >= dom->start[d + 1] || pp->b[k] < dom->start[d] ||
                pp->b[k] >= dom->start[d + 1])
                dom->cross[dom->ncross++] = (uint32_t)k;
    }
    dom->cross_start[ndom] = dom->ncross;

    /* particle-face, in the same chunks */
    if (w->nfaces == 0) {
        for (size_t d = 0; d <= ndom; d++) dom->pw_start[d] = 0;
        return 0;
    }
    if (segments(mem, nb, nchunks, nsub, dom, 1) != 0) return -1;
    TL_FOR_DYNAMIC(c, nchunks, {
        CHUNK_RANGE(c, i0, i1)
        size_t at = seg[c];
        for (size_t i = i0; i < i1; i++)
            if (i >= own_lo && i < own_hi) face_pairs(w, p, nb->skin, i, &nb->scratch, &at, seg[c + 1]);
        chunk[c] = at - seg[c];
        nb->spill[c] = at > seg[c + 1];
    })
    total = place_chunks(nb, nchunks, nsub, dom->pw_start, ndom);
    if (tl_pairs_reserve(mem, pw, total) != 0) return -1;
    TL_FOR_DYNAMIC(c, nchunks, {
        size_t at = chunk[c];
        if (nb->spill[c]) {
            CHUNK_RANGE(c, i0, i1)
            for (size_t i = i0; i < i1; i++)
                if (i >= own_lo && i < own_hi) face_pairs(w, p, nb->skin, i, pw, &at, SIZE_MAX);
        } else {
            copy_pairs(pw, at, &nb->scratch, seg[c], (c + 1 < nchunks ? chunk[c + 1] : total) - at);
        }
    })
#undef CHUNK_RANGE
    pw->count = total;
    nb->per_particle[1] = (double)total / (double)n;
    if (shapes && extract_shapes(mem, p, w, pw, dom->pw_start, ndom, true, nb->all_to_shapes, shapes) != 0) return -1;
    return 0;
}

/* ---- the domains of a state read back (parallel/decomp.c, decomp_state.c) ---- */

int tl_domains_alloc(tl_mem *m, tl_domains *D, size_t nd, size_t ncross) {
    memset(D, 0, sizeof *D);
    D->cap = nd + 1;
    D->start = tl_mem_alloc(m, D->cap * sizeof *D->start);
    D->pp_start = tl_mem_alloc(m, D->cap * sizeof *D->pp_start);
    D->pw_start = tl_mem_alloc(m, D->cap * sizeof *D->pw_start);
    D->cross_start = tl_mem_alloc(m, D->cap * sizeof *D->cross_start);
    D->cap_cross = ncross + 1;
    D->cross = tl_mem_alloc(m, D->cap_cross * sizeof *D->cross);
    D->count = nd;
    return D->start && D->pp_start && D->pw_start && D->cross_start && D->cross ? 0 : -1;
}

/* the cross candidates of each domain (a particle outside it), as tl_neighbors_build finds them */
void tl_domains_cross(tl_domains *D, const tl_pairs *pp) {
    D->ncross = 0;
    for (size_t q = 0; q < D->count; q++) {
        D->cross_start[q] = D->ncross;
        for (size_t k = D->pp_start[q]; k < D->pp_start[q + 1]; k++)
            if (pp->a[k] < D->start[q] || pp->a[k] >= D->start[q + 1] || pp->b[k] < D->start[q] ||
                pp->b[k] >= D->start[q + 1])
                D->cross[D->ncross++] = (uint32_t)k;
    }
    D->cross_start[D->count] = D->ncross;
}

size_t tl_domains_count_cross(const tl_pairs *pp, const size_t *pp_start, const uint32_t *start, size_t nd) {
    size_t n = 0;
    for (size_t q = 0; q < nd; q++)
        for (size_t k = pp_start[q]; k < pp_start[q + 1]; k++)
            n += pp->a[k] < start[q] || pp->a[k] >= start[q + 1] || pp->b[k] < start[q] || pp->b[k] >= start[q + 1];
    return n;
}
