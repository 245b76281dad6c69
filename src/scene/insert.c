/*
 * Inserting spheres: size distributions, the overlap grid, region fills.
 * See insert.h.
 */
#include "insert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

#define SQRT2 1.4142135623730951
#define SQRT_2PI 2.5066282746310002
#define FOUR_THIRDS_PI 4.1887902047863905
#define DEFAULT_TAIL 5.0          /* default truncation of normal and log-normal, in std */
#define MAX_FILL_SPHERES 100000000.0
#define NONE UINT32_MAX

/* ---- the normal distribution ---- */

static double norm_cdf(double x) { return 0.5 * erfc(-x / SQRT2); }

/* Acklam's rational approximation (relative error 1.2e-9), refined by one
 * Halley step to double precision. */
static double norm_quantile(double p) {
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    if (p <= 0.0) return -INFINITY;
    if (p >= 1.0) return INFINITY;
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2.0 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    } else if (p > 1.0 - 0.02425) {
        double q = sqrt(-2.0 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    }
    double e = norm_cdf(x) - p;
    double u = e * SQRT_2PI * exp(0.5 * x * x);
    return x - u / (1.0 + 0.5 * x * u);
}

/* a standard normal truncated to [a, b], by the inverse transform of u in [0, 1) */
static double truncated_normal(double a, double b, double u) {
    if (a > 0.0) return -truncated_normal(-b, -a, u); /* the accurate side of the cdf */
    double pa = norm_cdf(a), pb = norm_cdf(b);
    double p = pa + u * (pb - pa);
    double z = norm_quantile(p);
    if (!(z >= a)) z = a;
    if (!(z <= b)) z = b;
    return z;
}

/* the standardised truncation interval of a normal or log-normal */
static void standard_bounds(const tl_dist *d, double *a, double *b) {
    if (d->kind == TL_DIST_NORMAL) {
        *a = (d->min - d->mean) / d->std;
        *b = (d->max - d->mean) / d->std;
    } else {
        *a = (log(d->min) - d->mu) / d->sigma;
        *b = (log(d->max) - d->mu) / d->sigma;
    }
}

/* ---- distributions ---- */

tl_dist tl_dist_constant(double value) {
    tl_dist d;
    memset(&d, 0, sizeof d);
    d.kind = TL_DIST_CONSTANT;
    d.value = value;
    d.min = d.max = value;
    return d;
}

static bool positive(double x) { return x > 0.0 && isfinite(x); }

static int finish_truncated(tl_dist *d, char *msg, size_t size) {
    bool normal = d->kind == TL_DIST_NORMAL;
    const char *name = normal ? "normal" : "log-normal";
    if (normal) {
        if (!isfinite(d->mean)) return snprintf(msg, size, "mean must be finite"), -1;
        if (!positive(d->std)) return snprintf(msg, size, "std must be > 0, got %g", d->std), -1;
    } else {
        if (!isfinite(d->mu)) return snprintf(msg, size, "the median must be > 0"), -1;
        if (!positive(d->sigma)) return snprintf(msg, size, "sigma must be > 0, got %g", d->sigma), -1;
    }
    bool given_min = !isnan(d->min);
    if (!given_min)
        d->min = normal ? d->mean - DEFAULT_TAIL * d->std : exp(d->mu - DEFAULT_TAIL * d->sigma);
    if (isnan(d->max))
        d->max = normal ? d->mean + DEFAULT_TAIL * d->std : exp(d->mu + DEFAULT_TAIL * d->sigma);
    if (!positive(d->min)) {
        if (given_min) return snprintf(msg, size, "min must be > 0, got %g", d->min), -1;
        return snprintf(msg, size,
                        "the %s distribution reaches sizes <= 0 within %g std of its mean "
                        "(mean - %g std = %g): give min > 0",
                        name, DEFAULT_TAIL, DEFAULT_TAIL, d->min),
               -1;
    }
    if (!isfinite(d->max) || !(d->max > d->min))
        return snprintf(msg, size, "min must be below max, got min %g and max %g", d->min, d->max), -1;
    double a, b;
    standard_bounds(d, &a, &b);
    if (b < -8.0 || a > 8.0)
        return snprintf(msg, size,
                        "[min, max] = [%g, %g] holds almost none of the %s distribution "
                        "(it lies more than 8 std from its centre)",
                        d->min, d->max, name),
               -1;
    return 0;
}

int tl_dist_finish(tl_dist *d, char *msg, size_t size) {
    switch (d->kind) {
    case TL_DIST_CONSTANT:
        if (!positive(d->value)) return snprintf(msg, size, "must be > 0, got %g", d->value), -1;
        d->min = d->max = d->value;
        return 0;
    case TL_DIST_UNIFORM:
        if (!positive(d->min)) return snprintf(msg, size, "min must be > 0, got %g", d->min), -1;
        if (!isfinite(d->max) || !(d->max > d->min))
            return snprintf(msg, size, "max must be above min, got min %g and max %g", d->min,
                            d->max),
                   -1;
        return 0;
    case TL_DIST_NORMAL:
    case TL_DIST_LOGNORMAL: return finish_truncated(d, msg, size);
    case TL_DIST_LIST: {
        if (d->nvalues < 1 || d->nvalues > TL_DIST_MAX_VALUES)
            return snprintf(msg, size, "a list needs 1 to %d values", TL_DIST_MAX_VALUES), -1;
        double total = 0.0;
        d->min = INFINITY;
        d->max = 0.0;
        for (int i = 0; i < d->nvalues; i++) {
            if (!positive(d->values[i]))
                return snprintf(msg, size, "values[%d] must be > 0, got %g", i, d->values[i]), -1;
            if (!positive(d->weights[i]))
                return snprintf(msg, size, "weights[%d] must be > 0, got %g", i, d->weights[i]), -1;
            total += d->weights[i];
            d->min = fmin(d->min, d->values[i]);
            d->max = fmax(d->max, d->values[i]);
        }
        for (int i = 0; i < d->nvalues; i++) d->weights[i] /= total;
        return 0;
    }
    }
    return snprintf(msg, size, "unknown distribution %d", (int)d->kind), -1;
}

double tl_dist_sample(const tl_dist *d, tl_rng *rng) {
    double u = tl_rng_uniform(rng);
    switch (d->kind) {
    case TL_DIST_CONSTANT: return d->value;
    case TL_DIST_UNIFORM: return fmin(d->min + u * (d->max - d->min), d->max);
    case TL_DIST_NORMAL:
    case TL_DIST_LOGNORMAL: {
        double a, b;
        standard_bounds(d, &a, &b);
        double z = truncated_normal(a, b, u);
        double x = d->kind == TL_DIST_NORMAL ? d->mean + d->std * z : exp(d->mu + d->sigma * z);
        return fmin(fmax(x, d->min), d->max);
    }
    case TL_DIST_LIST: {
        double acc = 0.0;
        for (int i = 0; i < d->nvalues; i++) {
            acc += d->weights[i];
            if (u < acc) return d->values[i];
        }
        return d->values[d->nvalues - 1];
    }
    }
    return NAN;
}

/* Phi(b) - Phi(a), from the accurate side */
static double norm_mass(double a, double b) {
    return a > 0.0 ? norm_cdf(-a) - norm_cdf(-b) : norm_cdf(b) - norm_cdf(a);
}

static double normal_pdf(double z) { return exp(-0.5 * z * z) / SQRT_2PI; }

double tl_dist_moment(const tl_dist *d, int k) {
    double kk = (double)k;
    switch (d->kind) {
    case TL_DIST_CONSTANT: return pow(d->value, kk);
    case TL_DIST_UNIFORM:
        return (pow(d->max, kk + 1.0) - pow(d->min, kk + 1.0)) / ((kk + 1.0) * (d->max - d->min));
    case TL_DIST_LOGNORMAL: {
        /* E[e^{k(mu + sigma z)}] over [a, b]: the mass of a shifted normal */
        double a, b;
        standard_bounds(d, &a, &b);
        double s = kk * d->sigma;
        return exp(kk * d->mu + 0.5 * s * s) * norm_mass(a - s, b - s) / norm_mass(a, b);
    }
    case TL_DIST_NORMAL: {
        /* Simpson's rule over the standardised interval */
        double a, b;
        standard_bounds(d, &a, &b);
        const int n = 4000;
        double h = (b - a) / n, sum = 0.0, mass = 0.0;
        for (int i = 0; i <= n; i++) {
            double z = a + h * i, w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
            double p = normal_pdf(z);
            sum += w * p * pow(d->mean + d->std * z, kk);
            mass += w * p;
        }
        return sum / mass;
    }
    case TL_DIST_LIST: {
        double s = 0.0;
        for (int i = 0; i < d->nvalues; i++) s += d->weights[i] * pow(d->values[i], kk);
        return s;
    }
    }
    return NAN;
}

double tl_dist_lower(const tl_dist *d) { return d->kind == TL_DIST_CONSTANT ? d->value : d->min; }
double tl_dist_upper(const tl_dist *d) { return d->kind == TL_DIST_CONSTANT ? d->value : d->max; }

/* ---- walls ---- */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }
static double clampd(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* one rectangle face, as walls.c sees it: centre c, unit normal n, unit
 * in-plane axes u, v, half extents; one_sided: a box face (ignored from
 * behind when the sphere's projection misses it) */
static double face_overlap(const double c[3], const double n[3], const double u[3],
                           const double v[3], double hu, double hv, bool one_sided,
                           const double x[3], double r) {
    double rel[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double s = dot3(rel, n), a = dot3(rel, u), b = dot3(rel, v);
    double ca = clampd(a, -hu, hu), cb = clampd(b, -hv, hv);
    bool inside = ca == a && cb == b;
    if (one_sided && s <= 0.0 && !inside) return -INFINITY;
    if (inside) return one_sided || s >= 0.0 ? r - s : r + s;
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = c[k] + ca * u[k] + cb * v[k] - x[k];
    return r - norm3(d);
}

static void cross3(double out[3], const double a[3], const double b[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

double tl_wall_overlap(const tl_wall_def *w, const tl_vec3 *centre, double r) {
    const double x[3] = {centre->x, centre->y, centre->z};
    double n[3] = {w->normal.x, w->normal.y, w->normal.z};
    const double p[3] = {w->point.x, w->point.y, w->point.z};
    switch (w->kind) {
    case TL_WALL_PLANE: {
        double nn = norm3(n);
        if (!(nn > 0.0)) return -INFINITY;
        double rel[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
        return r - dot3(rel, n) / nn;
    }
    case TL_WALL_RECTANGLE: {
        double nn = norm3(n);
        if (!(nn > 0.0)) return -INFINITY;
        for (int k = 0; k < 3; k++) n[k] /= nn;
        double u[3] = {w->axis.x, w->axis.y, w->axis.z}, v[3];
        double un = dot3(u, n);
        for (int k = 0; k < 3; k++) u[k] -= un * n[k];
        double ul = norm3(u);
        if (!(ul > 0.0)) return -INFINITY;
        for (int k = 0; k < 3; k++) u[k] /= ul;
        cross3(v, n, u);
        return face_overlap(p, n, u, v, w->half_length, w->half_width, false, x, r);
    }
    case TL_WALL_MESH:
        /* the inserter does not measure meshes: regions are to be chosen clear of mesh walls
         * (docs/scene.md) */
        return -INFINITY;
    case TL_WALL_BOX: {
        const double lo[3] = {w->box_min.x, w->box_min.y, w->box_min.z};
        const double hi[3] = {w->box_max.x, w->box_max.y, w->box_max.z};
        double worst = -INFINITY;
        for (int axis = 0; axis < 3; axis++)
            for (int side = 0; side < 2; side++) {
                if (w->open_faces & (1u << (2 * axis + side))) continue;
                int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
                double c[3], fn[3] = {0, 0, 0}, u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
                for (int k = 0; k < 3; k++) c[k] = 0.5 * (lo[k] + hi[k]);
                c[axis] = side ? hi[axis] : lo[axis];
                fn[axis] = side ? -1.0 : 1.0;
                u[a1] = 1.0;
                v[a2] = 1.0;
                double o = face_overlap(c, fn, u, v, 0.5 * (hi[a1] - lo[a1]),
                                        0.5 * (hi[a2] - lo[a2]), true, x, r);
                worst = fmax(worst, o);
            }
        return worst;
    }
    }
    return -INFINITY;
}

/* ---- the overlap grid ---- */

struct tl_inserter {
    tl_insert_space space;
    double r_max;
    double h;                /* the reach of a cell: any two touching spheres are in neighbour cells */
    double origin[3], cell[3], period[3];
    int64_t ncell[3];        /* periodic axes: cells per period; else 0 */
    double (*s)[4];          /* spheres: x, y, z, r */
    uint32_t *next;          /* the next sphere in the same bucket */
    size_t n, cap;
    uint32_t *head;          /* per bucket: the first sphere, NONE = empty */
    size_t nbuckets;         /* a power of 2 */
    double (*big)[4];        /* spheres too large for the grid: tested one by one */
    size_t nbig, capbig;
};

static int64_t cell_of(const tl_inserter *g, int k, double x) {
    int64_t c = (int64_t)floor((x - g->origin[k]) / g->cell[k]);
    if (g->ncell[k] > 0) {
        c %= g->ncell[k];
        if (c < 0) c += g->ncell[k];
    }
    return c;
}

static size_t bucket_of(const tl_inserter *g, int64_t cx, int64_t cy, int64_t cz) {
    uint64_t h = (uint64_t)cx * 0x9e3779b97f4a7c15ull ^ (uint64_t)cy * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)cz * 0x165667b19e3779f9ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (size_t)(h & (uint64_t)(g->nbuckets - 1));
}

static void link_sphere(tl_inserter *g, size_t i) {
    const double *s = g->s[i];
    size_t b = bucket_of(g, cell_of(g, 0, s[0]), cell_of(g, 1, s[1]), cell_of(g, 2, s[2]));
    g->next[i] = g->head[b];
    g->head[b] = (uint32_t)i;
}

static int rehash(tl_inserter *g, size_t nbuckets) {
    uint32_t *head = malloc(nbuckets * sizeof *head);
    if (!head) return -1;
    free(g->head);
    g->head = head;
    g->nbuckets = nbuckets;
    for (size_t b = 0; b < nbuckets; b++) head[b] = NONE;
    for (size_t i = 0; i < g->n; i++) link_sphere(g, i);
    return 0;
}

static int push_sphere(tl_inserter *g, const double x[3], double r, bool link) {
    if (g->n >= g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 1024;
        if (cap >= NONE) return -1;
        double(*s)[4] = realloc(g->s, cap * sizeof *s);
        if (!s) return -1;
        g->s = s;
        uint32_t *next = realloc(g->next, cap * sizeof *next);
        if (!next) return -1;
        g->next = next;
        g->cap = cap;
    }
    double *s = g->s[g->n];
    s[0] = x[0];
    s[1] = x[1];
    s[2] = x[2];
    s[3] = r;
    g->n++;
    if (!link) return 0;
    if (g->n > g->nbuckets) return rehash(g, 2 * g->nbuckets);
    link_sphere(g, g->n - 1);
    return 0;
}

static int push_big(tl_inserter *g, const double s[4]) {
    if (g->nbig >= g->capbig) {
        size_t cap = g->capbig ? 2 * g->capbig : 16;
        double(*b)[4] = realloc(g->big, cap * sizeof *b);
        if (!b) return -1;
        g->big = b;
        g->capbig = cap;
    }
    memcpy(g->big[g->nbig++], s, sizeof g->big[0]);
    return 0;
}

static bool spheres_touch(const tl_inserter *g, const double a[3], double ra, const double b[4]) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = a[k] - b[k];
        if (g->space.periodic[k]) d -= g->period[k] * nearbyint(d / g->period[k]);
        d2 += d * d;
    }
    double rr = ra + b[3];
    return d2 < rr * rr;
}

/* the world's particles that can touch the region */
static int collect_world(tl_inserter *g, const tl_world *world) {
    if (!world) return 0;
    const double lo[3] = {g->space.min.x, g->space.min.y, g->space.min.z};
    const double hi[3] = {g->space.max.x, g->space.max.y, g->space.max.z};
    size_t n = tl_world_particle_count(world);
    for (size_t i = 0; i < n; i++) {
        tl_particle_state p;
        if (tl_world_particle_at(world, i, &p) != TL_OK) continue;
        const double x[3] = {p.position.x, p.position.y, p.position.z};
        bool near = true;
        for (int k = 0; k < 3 && near; k++)
            if (!g->space.periodic[k]) near = x[k] >= lo[k] - p.radius && x[k] <= hi[k] + p.radius;
        if (near && push_sphere(g, x, p.radius, false) != 0) return -1;
    }
    return 0;
}

tl_inserter *tl_inserter_create(const tl_insert_space *space, double r_max, const tl_world *world) {
    tl_inserter *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->space = *space;
    g->r_max = r_max;
    if (collect_world(g, world) != 0) {
        tl_inserter_destroy(g);
        return NULL;
    }
    /* the cell reach: two new spheres, or a new one and an existing one up
     * to four times larger; larger ones are tested one by one */
    double r_near = 0.0;
    for (size_t i = 0; i < g->n; i++) r_near = fmax(r_near, g->s[i][3]);
    g->h = fmax(2.0 * r_max, fmin(r_max + r_near, 5.0 * r_max));
    if (!(g->h > 0.0)) g->h = 1.0;
    const double lo[3] = {space->min.x, space->min.y, space->min.z};
    const double plo[3] = {space->period_min.x, space->period_min.y, space->period_min.z};
    const double phi[3] = {space->period_max.x, space->period_max.y, space->period_max.z};
    for (int k = 0; k < 3; k++) {
        g->origin[k] = lo[k];
        g->cell[k] = g->h;
        g->ncell[k] = 0;
        if (space->periodic[k]) {
            g->period[k] = phi[k] - plo[k];
            double m = floor(g->period[k] / g->h);
            g->ncell[k] = m < 1.0 ? 1 : (m > 1e6 ? 1000000 : (int64_t)m);
            g->cell[k] = g->period[k] / (double)g->ncell[k];
            g->origin[k] = plo[k];
        }
    }
    /* the large ones leave the grid */
    size_t kept = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->s[i][3] > g->h - r_max) {
            if (push_big(g, g->s[i]) != 0) {
                tl_inserter_destroy(g);
                return NULL;
            }
        } else {
            memmove(g->s[kept++], g->s[i], sizeof g->s[0]);
        }
    }
    g->n = kept;
    size_t nb = 1024;
    while (nb < 2 * g->n) nb *= 2;
    if (rehash(g, nb) != 0) {
        tl_inserter_destroy(g);
        return NULL;
    }
    return g;
}

void tl_inserter_destroy(tl_inserter *g) {
    if (!g) return;
    free(g->s);
    free(g->next);
    free(g->head);
    free(g->big);
    free(g);
}

/* offsets of the neighbour cells along axis k (fewer when a period holds
 * fewer than three cells) */
static int cell_offsets(const tl_inserter *g, int k, int off[3]) {
    if (g->ncell[k] == 1) {
        off[0] = 0;
        return 1;
    }
    if (g->ncell[k] == 2) {
        off[0] = 0;
        off[1] = 1;
        return 2;
    }
    off[0] = -1;
    off[1] = 0;
    off[2] = 1;
    return 3;
}

static int64_t wrap_cell(const tl_inserter *g, int k, int64_t c) {
    if (g->ncell[k] <= 0) return c;
    c %= g->ncell[k];
    return c < 0 ? c + g->ncell[k] : c;
}

bool tl_inserter_free(const tl_inserter *g, const tl_vec3 *centre, double r) {
    for (size_t w = 0; w < g->space.nwalls; w++)
        if (tl_wall_overlap(&g->space.walls[w], centre, r) > 0.0) return false;
    const double x[3] = {centre->x, centre->y, centre->z};
    for (size_t i = 0; i < g->nbig; i++)
        if (spheres_touch(g, x, r, g->big[i])) return false;
    int off[3][3], cnt[3];
    int64_t c[3];
    for (int k = 0; k < 3; k++) {
        cnt[k] = cell_offsets(g, k, off[k]);
        c[k] = cell_of(g, k, x[k]);
    }
    for (int i = 0; i < cnt[0]; i++)
        for (int j = 0; j < cnt[1]; j++)
            for (int l = 0; l < cnt[2]; l++) {
                size_t b = bucket_of(g, wrap_cell(g, 0, c[0] + off[0][i]),
                                     wrap_cell(g, 1, c[1] + off[1][j]),
                                     wrap_cell(g, 2, c[2] + off[2][l]));
                for (uint32_t s = g->head[b]; s != NONE; s = g->next[s])
                    if (spheres_touch(g, x, r, g->s[s])) return false;
            }
    return true;
}

int tl_inserter_place(tl_inserter *g, tl_rng *rng, double r, int attempts, tl_vec3 *centre) {
    const double lo[3] = {g->space.min.x, g->space.min.y, g->space.min.z};
    const double hi[3] = {g->space.max.x, g->space.max.y, g->space.max.z};
    for (int k = 0; k < 3; k++)
        if (hi[k] - lo[k] < 2.0 * r) return 0;
    for (int t = 0; t < attempts; t++) {
        double x[3];
        for (int k = 0; k < 3; k++) x[k] = fmin(tl_rng_range(rng, lo[k] + r, hi[k] - r), hi[k] - r);
        tl_vec3 c = {x[0], x[1], x[2]};
        if (!tl_inserter_free(g, &c, r)) continue;
        if (push_sphere(g, x, r, true) != 0) return -1;
        *centre = c;
        return 1;
    }
    return 0;
}

/* ---- filling a region ---- */

static int descending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static double region_volume(const tl_insert_space *s) {
    return (s->max.x - s->min.x) * (s->max.y - s->min.y) * (s->max.z - s->min.z);
}

/* the radii to place: count of them, or as many as make the volume fraction */
static tl_status draw_radii(const tl_fill_def *def, tl_rng *rng, double **out, size_t *n, char *msg,
                            size_t size) {
    double scale = def->size_scale > 0.0 ? def->size_scale : 1.0;
    double target = def->volume_fraction * region_volume(&def->space);
    size_t cap = def->count ? def->count : 1024, k = 0;
    if (!def->count) {
        double mean_volume = FOUR_THIRDS_PI * scale * scale * scale * tl_dist_moment(&def->size, 3);
        double expected = target / mean_volume;
        if (!(expected <= MAX_FILL_SPHERES)) {
            snprintf(msg, size, "the volume fraction %g of the region needs about %.3g spheres; at "
                                "most %.0f",
                     def->volume_fraction, expected, MAX_FILL_SPHERES);
            return TL_ERROR_ARGUMENT;
        }
    }
    double *r = malloc(cap * sizeof *r);
    if (!r) return snprintf(msg, size, "out of memory"), TL_ERROR_MEMORY;
    double volume = 0.0;
    for (;;) {
        if (def->count && k == def->count) break;
        double x = scale * tl_dist_sample(&def->size, rng);
        double v = FOUR_THIRDS_PI * x * x * x;
        if (!def->count && volume + 0.5 * v > target) break;
        if (k == cap) {
            double *nr = realloc(r, 2 * cap * sizeof *nr);
            if (!nr) {
                free(r);
                return snprintf(msg, size, "out of memory"), TL_ERROR_MEMORY;
            }
            r = nr;
            cap *= 2;
        }
        r[k++] = x;
        volume += v;
    }
    *out = r;
    *n = k;
    return TL_OK;
}

static double jitter(tl_rng *rng, double j) { return j > 0.0 ? tl_rng_range(rng, -j, j) : 0.0; }

tl_status tl_insert_fill(tl_world *world, const tl_fill_def *def, tl_fill_result *result, char *msg,
                         size_t msg_size) {
    tl_fill_result local;
    if (!result) result = &local;
    memset(result, 0, sizeof *result);
    if (!world || !def) return snprintf(msg, msg_size, "no world or no fill"), TL_ERROR_ARGUMENT;
    const tl_insert_space *sp = &def->space;
    const double lo[3] = {sp->min.x, sp->min.y, sp->min.z}, hi[3] = {sp->max.x, sp->max.y, sp->max.z};
    for (int k = 0; k < 3; k++)
        if (!(hi[k] > lo[k]) || !isfinite(lo[k]) || !isfinite(hi[k]))
            return snprintf(msg, msg_size, "the region needs min < max in every axis"),
                   TL_ERROR_ARGUMENT;
    tl_rng rng;
    tl_rng_seed(&rng, def->seed);
    double *radii = NULL;
    size_t n = 0;
    tl_status st = draw_radii(def, &rng, &radii, &n, msg, msg_size);
    if (st != TL_OK) return st;
    result->requested = n;
    if (!def->keep_order) qsort(radii, n, sizeof *radii, descending);
    double r_max = 0.0;
    for (size_t i = 0; i < n; i++) r_max = fmax(r_max, radii[i]);
    for (int k = 0; k < 3; k++)
        if (n && hi[k] - lo[k] < 2.0 * r_max) {
            free(radii);
            snprintf(msg, msg_size, "the region is narrower than the largest sphere (diameter %g m) "
                                    "along %c",
                     2.0 * r_max, "xyz"[k]);
            return TL_ERROR_ARGUMENT;
        }
    tl_vec3 *pos = n ? malloc(n * sizeof *pos) : NULL;
    tl_inserter *g = n && pos ? tl_inserter_create(sp, r_max, world) : NULL;
    if (n && (!pos || !g)) {
        free(radii);
        free(pos);
        tl_inserter_destroy(g);
        return snprintf(msg, msg_size, "out of memory"), TL_ERROR_MEMORY;
    }
    int attempts = def->max_attempts > 0 ? def->max_attempts : 1000;
    double placed_volume = 0.0;
    st = TL_OK;
    for (size_t i = 0; i < n; i++) {
        int ok = tl_inserter_place(g, &rng, radii[i], attempts, &pos[i]);
        if (ok < 0) {
            st = TL_ERROR_MEMORY;
            snprintf(msg, msg_size, "out of memory");
            break;
        }
        if (ok == 0) {
            result->largest_failed = radii[i];
            result->volume_fraction = placed_volume / region_volume(sp);
            /* bodies of other shapes are placed by their bounding spheres */
            const bool shaped = def->particle.shape != TL_SPHERE;
            const char *what = shaped ? "bodies" : "spheres", *one = shaped ? "body" : "sphere";
            snprintf(msg, msg_size,
                     "only %zu of the %zu %s fit: %s %zu (%sradius %g m) found no free place "
                     "in %d tries, with a solid fraction of %.3f of the region filled%s (random "
                     "placement jams near 0.3 to 0.38); enlarge the region, ask for fewer or "
                     "smaller %s, or raise max_attempts",
                     i, n, what, one, i + 1, shaped ? "bounding " : "", radii[i], attempts,
                     result->volume_fraction, shaped ? " by their bounding spheres" : "", what);
            st = TL_ERROR_ARGUMENT;
            break;
        }
        result->placed = i + 1;
        placed_volume += FOUR_THIRDS_PI * radii[i] * radii[i] * radii[i];
    }
    tl_inserter_destroy(g);
    result->volume_fraction = placed_volume / region_volume(sp);
    for (size_t i = 0; st == TL_OK && i < n; i++) {
        tl_particle_def pd = def->particle;
        pd.radius = radii[i];
        pd.position = pos[i];
        pd.velocity.x += jitter(&rng, def->velocity_jitter);
        pd.velocity.y += jitter(&rng, def->velocity_jitter);
        pd.velocity.z += jitter(&rng, def->velocity_jitter);
        if (def->random_orientation) {
            double q[4];
            tl_rng_rotation(&rng, q);
            pd.orientation = (tl_quat){q[0], q[1], q[2], q[3]};
        }
        /* a random orientation is drawn for the body frame (the same bodies as before
         * the orientation meant the shape as given; uniform either way) */
        if (tl_world_add_particle_as(world, &pd, def->random_orientation, NULL) != TL_OK) {
            snprintf(msg, msg_size, "%s", tl_world_error(world));
            st = TL_ERROR_ARGUMENT;
        }
    }
    free(radii);
    free(pos);
    return st;
}
