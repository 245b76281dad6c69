/*
 * The `particles:` entries of a scene (docs/scene.md): single particles,
 * lattices, files (CSV, LAMMPS data), random fills and inflows. Random
 * fills place their spheres at load (insert.c); inflows are kept in the
 * scene and inserted while it runs (run.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "insert.h"
#include "loader.h"
#include "names.h"
#include "scene_particles.h"
#include "scene_shapes.h"
#include "world.h"

#define MAX_LATTICE_PARTICLES 100000000.0
#define FOUR_THIRDS_PI 4.1887902047863905
#define ENTRY_KINDS "; or {lattice: {...}}, {random: {...}}, {inflow: {...}}, {file: PATH, ...}"

typedef tl_loader loader;

/* ---- single particles and lattices ---- */

/* body_frame: pd's orientation is the body frame's (a random one, drawn as before the
 * orientation meant the shape as given) */
static int add_particle(loader *L, const tl_yval *at, const tl_particle_def *pd, bool body_frame) {
    if (tl_world_add_particle_as(L->world, pd, body_frame, NULL) == TL_OK) return 0;
    return tl_yfail(&L->doc, at, "%s", tl_world_error(L->world));
}

static int read_flag(loader *L, const tl_yval *e, const char *key, unsigned bit, unsigned *flags) {
    bool on = false;
    if (tl_ykey_bool(&L->doc, e, key, &on)) return -1;
    if (on) *flags |= bit;
    return 0;
}

int tl_load_material_key(loader *L, const tl_yval *e, int *material) {
    tl_yval v;
    tl_ymap_get(e, "material", &v);
    if (!v.node) return tl_ymissing(&L->doc, &v, "a material name");
    return tl_load_material(L, &v, false, material);
}

static const char *const particle_keys[] = {"id",       "material",         "radius", "position",
                                            "velocity", "angular_velocity", "mass",   "fixed",
                                            "prescribed", "lock_rotation", "external_force", "shape",
                                            "orientation"};

size_t tl_load_particle_names(const char *table, const char *const **names) {
    if (strcmp(table, "particle") != 0) return 0;
    *names = particle_keys;
    return COUNT_OF(particle_keys);
}

static int read_particle(loader *L, const tl_yval *e) {
    tl_particle_def pd = tl_particle_default();
    if (tl_ymap_check_keys(&L->doc, e, particle_keys, COUNT_OF(particle_keys), ENTRY_KINDS)) return -1;
    tl_yval v;
    tl_ymap_get(e, "id", &v);
    int64_t id = 0;
    if (v.node && tl_yint(&L->doc, &v, 1, 0x7fffffff, &id)) return -1;
    pd.id = (uint32_t)id;
    if (tl_load_material_key(L, e, &pd.material) || tl_load_body(L, e, &pd, true, NULL) ||
        tl_ykey_vec3(&L->doc, e, "position", true, "m", &pd.position) ||
        tl_ykey_vec3(&L->doc, e, "velocity", false, "m/s", &pd.velocity) ||
        tl_ykey_vec3(&L->doc, e, "angular_velocity", false, "rad/s", &pd.angular_velocity) ||
        tl_ykey_number(&L->doc, e, "mass", false, ABOVE(0.0, "kg"), &pd.mass) ||
        read_flag(L, e, "fixed", TL_PARTICLE_FIXED, &pd.flags) ||
        read_flag(L, e, "prescribed", TL_PARTICLE_PRESCRIBED, &pd.flags) ||
        read_flag(L, e, "lock_rotation", TL_PARTICLE_LOCK_ROTATION, &pd.flags))
        return -1;
    tl_vec3 fe = {0.0, 0.0, 0.0};
    if (tl_ykey_vec3(&L->doc, e, "external_force", false, "N", &fe)) return -1;
    uint32_t got = 0;
    if (tl_world_add_particle(L->world, &pd, &got) != TL_OK ||
        ((fe.x != 0.0 || fe.y != 0.0 || fe.z != 0.0) && tl_world_set_particle_force(L->world, got, fe) != TL_OK))
        return tl_yfail(&L->doc, e, "%s", tl_world_error(L->world));
    return 0;
}

typedef struct lattice {
    tl_particle_def pd;       /* material, radius, velocity, fixed */
    bool hexagonal;           /* type: hexagonal, one close-packed layer */
    int row_axis, along_axis, normal_axis; /* hexagonal: rows stacked along row_axis, running along along_axis */
    tl_vec3 min, max;
    double spacing;           /* 0 = from count */
    int64_t count[3];
    double jitter, velocity_jitter;
    bool random_orientation;  /* shapes: each body turned at random (unless orientation is given) */
    /* per axis: how many, the first centre, the distance, the jitter
     * amplitude, and where centres may go */
    int64_t n[3];
    double start[3], step[3], amp[3], lo[3], hi[3];
} lattice;

static int read_count(loader *L, const tl_yval *m, lattice *lt) {
    tl_yval v;
    tl_ymap_get(m, "count", &v);
    if (lt->hexagonal) {
        if (!v.node) return tl_ymissing(&L->doc, &v, "[rows, spheres per row] for a hexagonal layer");
        if (!tl_yis_seq(&v) || tl_yseq_count(&v) != 2)
            return tl_yexpected(&L->doc, &v, "a sequence of 2 integers [rows, spheres per row]");
        for (size_t k = 0; k < 2; k++) {
            tl_yval e;
            tl_yseq_at(&v, k, &e);
            if (tl_yint(&L->doc, &e, 1, 1000000, &lt->count[k])) return -1;
        }
        return 0;
    }
    if (!v.node) return 0;
    if (tl_ymap_has(m, "spacing"))
        return tl_yfail(&L->doc, &v, "give either spacing (m) or count [nx, ny, nz], not both");
    if (!tl_yis_seq(&v) || tl_yseq_count(&v) != 3)
        return tl_yexpected(&L->doc, &v, "a sequence of 3 integers [nx, ny, nz]");
    for (size_t k = 0; k < 3; k++) {
        tl_yval e;
        tl_yseq_at(&v, k, &e);
        if (tl_yint(&L->doc, &e, 1, 1000000, &lt->count[k])) return -1;
    }
    return 0;
}

/* type: cubic (default) or hexagonal; plane: the hexagonal layer's two axes
 * ("xz": rows stacked along x, each running along z; the layer sits in the
 * middle of the box along the third axis) */
static int read_lattice_type(loader *L, const tl_yval *m, lattice *lt) {
    static const char *const types[] = {"cubic", "hexagonal"};
    static const char *const planes[] = {"xy", "xz", "yx", "yz", "zx", "zy"};
    static const int axes[6][2] = {{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}};
    tl_yval v;
    tl_ymap_get(m, "type", &v);
    int type = 0, plane = 1;
    if (v.node && tl_ychoice(&L->doc, &v, types, COUNT_OF(types), &type)) return -1;
    lt->hexagonal = type == 1;
    tl_ymap_get(m, "plane", &v);
    if (v.node) {
        if (!lt->hexagonal) return tl_yfail(&L->doc, &v, "plane is only for type: hexagonal");
        if (tl_ychoice(&L->doc, &v, planes, COUNT_OF(planes), &plane)) return -1;
    }
    lt->row_axis = axes[plane][0];
    lt->along_axis = axes[plane][1];
    lt->normal_axis = 3 - lt->row_axis - lt->along_axis;
    if (lt->hexagonal) {
        static const char *const cubic_only[] = {"spacing", "jitter"};
        for (size_t k = 0; k < COUNT_OF(cubic_only); k++) {
            tl_ymap_get(m, cubic_only[k], &v);
            if (v.node)
                return tl_yfail(&L->doc, &v, "%s is not for type: hexagonal (its count [rows, spheres per "
                                "row] divides the box)", cubic_only[k]);
        }
    }
    return 0;
}

static int read_lattice_keys(loader *L, const tl_yval *m, lattice *lt) {
    static const char *const keys[] = {"material", "radius", "min",      "max",
                                       "spacing",  "count",  "jitter",   "velocity",
                                       "velocity_jitter", "type", "plane", "fixed", "shape", "orientation"};
    memset(lt, 0, sizeof *lt);
    lt->pd = tl_particle_default();
    if (tl_ymap_expect(&L->doc, m, "a mapping {material, radius, min, max, spacing or count, ...}") ||
        tl_ymap_check_keys(&L->doc, m, keys, COUNT_OF(keys), NULL) ||
        read_lattice_type(L, m, lt) ||
        read_flag(L, m, "fixed", TL_PARTICLE_FIXED, &lt->pd.flags) ||
        tl_load_material_key(L, m, &lt->pd.material) ||
        tl_load_body(L, m, &lt->pd, true, &lt->random_orientation) ||
        tl_ykey_vec3(&L->doc, m, "min", true, "m", &lt->min) ||
        tl_ykey_vec3(&L->doc, m, "max", true, "m", &lt->max) ||
        tl_ykey_number(&L->doc, m, "spacing", false, ABOVE(0.0, "m"), &lt->spacing) ||
        read_count(L, m, lt) ||
        tl_ykey_number(&L->doc, m, "jitter", false, &(tl_yrange){0.0, 0.5, false, false, ""},
                       &lt->jitter) ||
        tl_ykey_vec3(&L->doc, m, "velocity", false, "m/s", &lt->pd.velocity) ||
        tl_ykey_number(&L->doc, m, "velocity_jitter", false, AT_LEAST(0.0, "m/s"),
                       &lt->velocity_jitter))
        return -1;
    return 0;
}

/* the centres along axis k: as many as fit at the spacing (or count of them,
 * spread over the room), centred in the box. Each centre moves by up to
 * jitter x (spacing - 2 radius), drawn uniformly within that and the room:
 * with jitter <= 1/2 the spheres never overlap, and never leave the box */
/* the memory a loaded particle takes, measured: talus check of lattices of
 * 0.5 and 2 million spheres, 377 and 1395 MB of maximum RSS (a run adds its
 * neighbor and contact lists) */
#define BYTES_PER_PARTICLE 710.0

/* Refuses, before anything is allocated, an entry that would hold more than
 * MAX_LATTICE_PARTICLES particles or need more memory than the machine has,
 * with the memory it would need. */
static int fits(loader *L, const tl_yval *m, const char *what, double count) {
    double need = count * BYTES_PER_PARTICLE;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    if (count > MAX_LATTICE_PARTICLES)
        return tl_yfail(&L->doc, m, "the %s would hold %.4g particles, about %.3g GB of memory "
                                    "(%.0f bytes a particle); at most %.0f particles",
                        what, count, need * 1e-9, BYTES_PER_PARTICLE, MAX_LATTICE_PARTICLES);
    if (need > have)
        return tl_yfail(&L->doc, m, "the %s would hold %.4g particles, about %.3g GB of memory "
                                    "(%.0f bytes a particle), more than this machine's %.3g GB",
                        what, count, need * 1e-9, BYTES_PER_PARTICLE, have * 1e-9);
    return 0;
}

static int layout_axis(loader *L, const tl_yval *m, lattice *lt, int k, double lo, double room) {
    double r = lt->pd.radius;
    double fit = lt->spacing > 0.0 ? floor(room / lt->spacing + 1e-9) + 1.0 : 0.0;
    if (fit > MAX_LATTICE_PARTICLES)
        return tl_yfail(&L->doc, m, "the lattice would hold %.3g particles along %c; at most %.0f",
                        fit, "xyz"[k], MAX_LATTICE_PARTICLES);
    int64_t n = lt->spacing > 0.0 ? (int64_t)fit : lt->count[k];
    if (lt->spacing == 0.0 && room < 2.0 * r * (double)(n - 1) * (1.0 - 1e-12)) {
        tl_yval at;
        tl_ymap_get(m, "count", &at);
        return tl_yfail(&L->doc, &at,
                        "%lld spheres of radius %g m do not fit along %c: the box holds at most "
                        "%lld",
                        (long long)n, r, "xyz"[k], (long long)(room / (2.0 * r) + 1e-9) + 1);
    }
    double s = lt->spacing > 0.0 ? lt->spacing : (n > 1 ? room / (double)(n - 1) : 0.0);
    lt->n[k] = n;
    lt->step[k] = s;
    lt->start[k] = lo + r + 0.5 * (room - (double)(n - 1) * s);
    lt->amp[k] = lt->jitter * (n > 1 ? s - 2.0 * r : room);
    lt->lo[k] = lo + r;
    lt->hi[k] = lo + r + room;
    return 0;
}

static int layout_lattice(loader *L, const tl_yval *m, lattice *lt) {
    double r = lt->pd.radius;
    if (lt->spacing == 0.0 && lt->count[0] == 0) lt->spacing = 2.0 * r;
    if (lt->spacing > 0.0 && lt->spacing < 2.0 * r * (1.0 - 1e-12)) {
        tl_yval at;
        tl_ymap_get(m, "spacing", &at);
        return tl_yfail(&L->doc, &at,
                        "spacing %g m is below the diameter %g m: the spheres would overlap",
                        lt->spacing, 2.0 * r);
    }
    const double lo[3] = {lt->min.x, lt->min.y, lt->min.z}, hi[3] = {lt->max.x, lt->max.y, lt->max.z};
    double total = 1.0;
    for (int k = 0; k < 3; k++) {
        double room = hi[k] - lo[k] - 2.0 * r; /* where centres may go */
        if (!(room >= -1e-12 * r))
            return tl_yfail(&L->doc, m,
                            "the box from min to max is narrower than one sphere (diameter %g m) "
                            "along %c",
                            2.0 * r, "xyz"[k]);
        if (layout_axis(L, m, lt, k, lo[k], fmax(room, 0.0))) return -1;
        total *= (double)lt->n[k];
    }
    return fits(L, m, "lattice", total);
}

static double jitter(tl_rng *rng, double amplitude) {
    return amplitude > 0.0 ? tl_rng_range(rng, -amplitude, amplitude) : 0.0;
}

/* centre i along axis k, displaced uniformly within the amplitude and the room */
static double lattice_coord(tl_rng *rng, const lattice *lt, int k, int64_t i) {
    double c = lt->start[k] + (double)i * lt->step[k];
    double lo = fmax(c - lt->amp[k], lt->lo[k]), hi = fmin(c + lt->amp[k], lt->hi[k]);
    if (lt->amp[k] > 0.0 && hi > lo) c = tl_rng_range(rng, lo, hi);
    return fmin(fmax(c, lt->lo[k]), lt->hi[k]);
}

static int fill_lattice(loader *L, const tl_yval *m, const lattice *lt) {
    tl_particle_def pd = lt->pd;
    double vj = lt->velocity_jitter;
    for (int64_t iz = 0; iz < lt->n[2]; iz++)
        for (int64_t iy = 0; iy < lt->n[1]; iy++)
            for (int64_t ix = 0; ix < lt->n[0]; ix++) {
                pd.position.x = lattice_coord(&L->rng, lt, 0, ix);
                pd.position.y = lattice_coord(&L->rng, lt, 1, iy);
                pd.position.z = lattice_coord(&L->rng, lt, 2, iz);
                pd.velocity.x = lt->pd.velocity.x + jitter(&L->rng, vj);
                pd.velocity.y = lt->pd.velocity.y + jitter(&L->rng, vj);
                pd.velocity.z = lt->pd.velocity.z + jitter(&L->rng, vj);
                if (lt->random_orientation) {
                    double q[4];
                    tl_rng_rotation(&L->rng, q);
                    pd.orientation = (tl_quat){q[0], q[1], q[2], q[3]};
                }
                if (add_particle(L, m, &pd, lt->random_orientation)) return -1;
            }
    return 0;
}

/* One close-packed layer: the box is divided into count[0] rows along the
 * row axis and count[1] cells along the rows; the centres sit at the cells'
 * centres, every other row shifted by half a cell (wrapped into the box), so
 * that with an even number of rows the layer tiles a periodic box of this
 * extent. It is hexagonal when the row distance is sqrt(3)/2 of the cell. */
static int fill_hexagonal(loader *L, const tl_yval *m, const lattice *lt) {
    const double lo[3] = {lt->min.x, lt->min.y, lt->min.z}, hi[3] = {lt->max.x, lt->max.y, lt->max.z};
    const int a = lt->row_axis, b = lt->along_axis, c = lt->normal_axis;
    for (int k = 0; k < 3; k++)
        if (!(hi[k] > lo[k])) return tl_yfail(&L->doc, m, "max must exceed min along %c", "xyz"[k]);
    if (fits(L, m, "layer", (double)lt->count[0] * (double)lt->count[1])) return -1;
    const double da = (hi[a] - lo[a]) / (double)lt->count[0], db = (hi[b] - lo[b]) / (double)lt->count[1];
    tl_particle_def pd = lt->pd;
    double vj = lt->velocity_jitter;
    for (int64_t i = 0; i < lt->count[0]; i++)
        for (int64_t j = 0; j < lt->count[1]; j++) {
            double x[3];
            x[a] = lo[a] + ((double)i + 0.5) * da;
            double s = (double)j + 0.5 + ((i & 1) ? 0.5 : 0.0);
            if (s >= (double)lt->count[1]) s -= (double)lt->count[1];
            x[b] = lo[b] + s * db;
            x[c] = 0.5 * (lo[c] + hi[c]);
            pd.position = (tl_vec3){x[0], x[1], x[2]};
            pd.velocity.x = lt->pd.velocity.x + jitter(&L->rng, vj);
            pd.velocity.y = lt->pd.velocity.y + jitter(&L->rng, vj);
            pd.velocity.z = lt->pd.velocity.z + jitter(&L->rng, vj);
            if (add_particle(L, m, &pd, false)) return -1;
        }
    return 0;
}

static int read_lattice(loader *L, const tl_yval *e) {
    static const char *const keys[] = {"lattice"};
    if (tl_ymap_check_keys(&L->doc, e, keys, COUNT_OF(keys),
                           "; a lattice entry holds only its lattice mapping"))
        return -1;
    tl_yval m;
    tl_ymap_get(e, "lattice", &m);
    lattice lt;
    if (read_lattice_keys(L, &m, &lt)) return -1;
    if (lt.hexagonal) return fill_hexagonal(L, &m, &lt);
    if (layout_lattice(L, &m, &lt)) return -1;
    return fill_lattice(L, &m, &lt);
}

/* ---- size distributions ---- */

static const char *const dist_names[] = {"uniform", "normal", "log-normal", "list"};

static int read_dist_list(loader *L, const tl_yval *m, tl_dist *d) {
    tl_yval values, weights;
    tl_ymap_get(m, "values", &values);
    tl_ymap_get(m, "weights", &weights);
    const char *what = "a non-empty sequence of numbers > 0, at most 64";
    if (!values.node) return tl_ymissing(&L->doc, &values, what);
    size_t n = tl_yseq_count(&values);
    if (!tl_yis_seq(&values) || n == 0 || n > TL_DIST_MAX_VALUES)
        return tl_yexpected(&L->doc, &values, what);
    if (weights.node && (!tl_yis_seq(&weights) || tl_yseq_count(&weights) != n)) {
        char w[96];
        snprintf(w, sizeof w, "a sequence of %zu numbers > 0, one per value", n);
        return tl_yexpected(&L->doc, &weights, w);
    }
    d->nvalues = (int)n;
    tl_yiter it = {0};
    tl_yval item;
    while (tl_yseq_next(&values, &it, &item)) {
        if (tl_ynumber(&L->doc, &item, ABOVE(0.0, "m"), &d->values[it.index])) return -1;
        d->weights[it.index] = 1.0;
    }
    tl_yiter wt = {0};
    while (weights.node && tl_yseq_next(&weights, &wt, &item))
        if (tl_ynumber(&L->doc, &item, ABOVE(0.0, ""), &d->weights[wt.index])) return -1;
    return 0;
}

/* a number, or {distribution: uniform | normal | log-normal | list, ...} */
static int read_dist(loader *L, const tl_yval *v, tl_dist *d) {
    static const char *const uniform_keys[] = {"distribution", "min", "max"};
    static const char *const normal_keys[] = {"distribution", "mean", "std", "min", "max"};
    static const char *const lognormal_keys[] = {"distribution", "median", "mean",
                                                 "sigma",        "min",    "max"};
    static const char *const list_keys[] = {"distribution", "values", "weights"};
    static const char *const *const keys[] = {uniform_keys, normal_keys, lognormal_keys, list_keys};
    static const size_t nkeys[] = {COUNT_OF(uniform_keys), COUNT_OF(normal_keys),
                                   COUNT_OF(lognormal_keys), COUNT_OF(list_keys)};
    const char *what = "a number > 0 (m), or a distribution {distribution: uniform | normal | "
                       "log-normal | list, ...}";
    if (tl_yis_scalar(v)) {
        double x;
        if (tl_ynumber(&L->doc, v, ABOVE(0.0, "m"), &x)) return -1;
        *d = tl_dist_constant(x);
        return 0;
    }
    if (tl_ymap_expect(&L->doc, v, what)) return -1;
    tl_yval k;
    tl_ymap_get(v, "distribution", &k);
    if (!k.node) return tl_ymissing(&L->doc, &k, "one of: uniform, normal, log-normal, list");
    int kind;
    if (tl_ychoice(&L->doc, &k, dist_names, COUNT_OF(dist_names), &kind)) return -1;
    if (tl_ymap_check_keys(&L->doc, v, keys[kind], nkeys[kind], NULL)) return -1;
    memset(d, 0, sizeof *d);
    d->min = d->max = NAN;
    switch (kind) {
    case 0:
        d->kind = TL_DIST_UNIFORM;
        if (tl_ykey_number(&L->doc, v, "min", true, ABOVE(0.0, "m"), &d->min) ||
            tl_ykey_number(&L->doc, v, "max", true, ABOVE(0.0, "m"), &d->max))
            return -1;
        break;
    case 1:
        d->kind = TL_DIST_NORMAL;
        if (tl_ykey_number(&L->doc, v, "mean", true, ABOVE(0.0, "m"), &d->mean) ||
            tl_ykey_number(&L->doc, v, "std", true, ABOVE(0.0, "m"), &d->std))
            return -1;
        break;
    case 2: {
        d->kind = TL_DIST_LOGNORMAL;
        double median = NAN, mean = NAN;
        tl_yval med, mn;
        tl_ymap_get(v, "median", &med);
        tl_ymap_get(v, "mean", &mn);
        if (med.node && mn.node)
            return tl_yfail(&L->doc, &mn, "give either median or mean, not both");
        if (!med.node && !mn.node)
            return tl_ymissing(&L->doc, &med, "a number > 0 (m): the median (or give the mean)");
        if (tl_ykey_number(&L->doc, v, "sigma", true, ABOVE(0.0, ""), &d->sigma) ||
            tl_ykey_number(&L->doc, v, "median", false, ABOVE(0.0, "m"), &median) ||
            tl_ykey_number(&L->doc, v, "mean", false, ABOVE(0.0, "m"), &mean))
            return -1;
        /* the mean of the untruncated log-normal is exp(mu + sigma^2 / 2) */
        d->mu = med.node ? log(median) : log(mean) - 0.5 * d->sigma * d->sigma;
        break;
    }
    default:
        d->kind = TL_DIST_LIST;
        if (read_dist_list(L, v, d)) return -1;
        break;
    }
    if (kind == 1 || kind == 2)
        if (tl_ykey_number(&L->doc, v, "min", false, ABOVE(0.0, "m"), &d->min) ||
            tl_ykey_number(&L->doc, v, "max", false, ABOVE(0.0, "m"), &d->max))
            return -1;
    char msg[256];
    if (tl_dist_finish(d, msg, sizeof msg)) return tl_yfail(&L->doc, v, "%s", msg);
    return 0;
}

/* radius: DIST or diameter: DIST */
static int read_size(loader *L, const tl_yval *m, tl_dist *d, double *scale) {
    tl_yval r, dia;
    tl_ymap_get(m, "radius", &r);
    tl_ymap_get(m, "diameter", &dia);
    if (r.node && dia.node) return tl_yfail(&L->doc, &dia, "give either radius or diameter, not both");
    if (!r.node && !dia.node)
        return tl_ymissing(&L->doc, &r, "a number > 0 (m) or a distribution (or give diameter)");
    *scale = r.node ? 1.0 : 0.5;
    return read_dist(L, r.node ? &r : &dia, d);
}

/* ---- regions ---- */

static int read_region(loader *L, const tl_yval *m, tl_vec3 *min, tl_vec3 *max) {
    static const char *const keys[] = {"min", "max"};
    const char *what = "a box {min: [x, y, z], max: [x, y, z]} (m)";
    tl_yval r;
    tl_ymap_get(m, "region", &r);
    if (!r.node) return tl_ymissing(&L->doc, &r, what);
    if (tl_ymap_expect(&L->doc, &r, what) || tl_ymap_check_keys(&L->doc, &r, keys, 2, NULL) ||
        tl_ykey_vec3(&L->doc, &r, "min", true, "m", min) ||
        tl_ykey_vec3(&L->doc, &r, "max", true, "m", max))
        return -1;
    const double lo[3] = {min->x, min->y, min->z}, hi[3] = {max->x, max->y, max->z};
    for (int k = 0; k < 3; k++)
        if (!(hi[k] > lo[k]))
            return tl_yfail(&L->doc, &r, "min must be below max in every axis, but %c: %g >= %g",
                            "xyz"[k], lo[k], hi[k]);
    if (!L->def.has_domain) return 0;
    const double dlo[3] = {L->def.domain_min.x, L->def.domain_min.y, L->def.domain_min.z};
    const double dhi[3] = {L->def.domain_max.x, L->def.domain_max.y, L->def.domain_max.z};
    for (int k = 0; k < 3; k++)
        if (lo[k] < dlo[k] || hi[k] > dhi[k])
            return tl_yfail(&L->doc, &r,
                            "the region must lie inside the domain (along %c: [%g, %g] is not "
                            "inside [%g, %g]); particles outside it are removed",
                            "xyz"[k], lo[k], hi[k], dlo[k], dhi[k]);
    return 0;
}

static void insert_space(const loader *L, tl_insert_space *sp, tl_vec3 min, tl_vec3 max) {
    memset(sp, 0, sizeof *sp);
    sp->min = min;
    sp->max = max;
    for (int k = 0; k < 3; k++) sp->periodic[k] = L->def.has_domain && L->def.periodic[k];
    sp->period_min = L->def.domain_min;
    sp->period_max = L->def.domain_max;
    sp->walls = L->scene->walls;
    sp->nwalls = L->scene->nwalls;
}

/* the default seed of entry `index` of kind `salt`: the scene's seed, mixed */
static uint64_t entry_seed(const loader *L, uint64_t salt, size_t index) {
    tl_rng r;
    tl_rng_seed(&r, L->def.seed ^ salt ^ (0x9e3779b97f4a7c15ull * (uint64_t)(index + 1)));
    return tl_rng_next(&r);
}

static int read_seed_attempts(loader *L, const tl_yval *m, uint64_t *seed, int *attempts) {
    tl_yval v;
    tl_ymap_get(m, "seed", &v);
    if (v.node && tl_yuint64(&L->doc, &v, seed)) return -1;
    tl_ymap_get(m, "max_attempts", &v);
    int64_t n = *attempts;
    if (v.node && tl_yint(&L->doc, &v, 1, 100000000, &n)) return -1;
    *attempts = (int)n;
    return 0;
}

/* ---- random fills ---- */

static int read_random(loader *L, const tl_yval *e, size_t index) {
    static const char *const keys[] = {"region",   "count",    "volume_fraction", "radius",
                                       "diameter", "material", "velocity",        "velocity_jitter",
                                       "seed",     "max_attempts", "shape",        "orientation"};
    if (tl_ymap_check_keys(&L->doc, e, (const char *const[]){"random"}, 1,
                           "; a random entry holds only its random mapping"))
        return -1;
    tl_yval m;
    tl_ymap_get(e, "random", &m);
    tl_fill_def fd;
    memset(&fd, 0, sizeof fd);
    fd.particle = tl_particle_default();
    fd.seed = entry_seed(L, 0x72616e646f6d2121ull, index);
    fd.max_attempts = 1000;
    tl_vec3 min, max;
    if (tl_ymap_expect(&L->doc, &m, "a mapping {region, count or volume_fraction, radius or "
                                    "diameter, material, ...}") ||
        tl_ymap_check_keys(&L->doc, &m, keys, COUNT_OF(keys), NULL) ||
        read_region(L, &m, &min, &max) || tl_load_body(L, &m, &fd.particle, false, &fd.random_orientation))
        return -1;
    tl_yval shape_at;
    tl_ymap_get(&m, "shape", &shape_at);
    if (shape_at.node) {
        /* every body of a shape has its size: placement keeps their bounding spheres apart */
        tl_yval r, dia;
        tl_ymap_get(&m, "radius", &r);
        tl_ymap_get(&m, "diameter", &dia);
        if (dia.node) return tl_yfail(&L->doc, &dia, "give either diameter (spheres) or shape, not both");
        fd.size = tl_dist_constant(fd.particle.radius);
        fd.size_scale = 1.0;
    } else if (read_size(L, &m, &fd.size, &fd.size_scale)) {
        return -1;
    }
    if (tl_load_material_key(L, &m, &fd.particle.material) ||
        tl_ykey_vec3(&L->doc, &m, "velocity", false, "m/s", &fd.particle.velocity) ||
        tl_ykey_number(&L->doc, &m, "velocity_jitter", false, AT_LEAST(0.0, "m/s"),
                       &fd.velocity_jitter) ||
        read_seed_attempts(L, &m, &fd.seed, &fd.max_attempts))
        return -1;
    insert_space(L, &fd.space, min, max);
    tl_yval count, frac;
    tl_ymap_get(&m, "count", &count);
    tl_ymap_get(&m, "volume_fraction", &frac);
    if (count.node && frac.node)
        return tl_yfail(&L->doc, &frac, "give either count or volume_fraction, not both");
    if (!count.node && !frac.node)
        return tl_ymissing(&L->doc, &count, "an integer >= 1 (or give volume_fraction)");
    int64_t n = 0;
    if (count.node && tl_yint(&L->doc, &count, 1, 100000000, &n)) return -1;
    if (count.node && fits(L, &count, "random fill", (double)n)) return -1;
    fd.count = (size_t)n;
    if (frac.node && tl_ynumber(&L->doc, &frac, &(tl_yrange){0.0, 0.74, true, false, ""},
                                &fd.volume_fraction))
        return -1;
    char msg[768];
    tl_fill_result res;
    tl_status st = tl_insert_fill(L->world, &fd, &res, msg, sizeof msg);
    if (st == TL_ERROR_MEMORY) return tl_load_out_of_memory(L);
    if (st != TL_OK) return tl_yfail(&L->doc, count.node ? &count : &frac, "%s", msg);
    return 0;
}

/* ---- inflows ---- */

static int push_inflow(loader *L, const tl_inflow_spec *spec, const tl_yval *material_at) {
    tl_scene *sc = L->scene;
    size_t n = sc->ninflows + 1;
    tl_inflow_spec *specs = realloc(sc->inflows, n * sizeof *specs);
    if (specs) sc->inflows = specs;
    tl_inflow_state *states = specs ? realloc(sc->inflow_states, n * sizeof *states) : NULL;
    if (states) sc->inflow_states = states;
    tl_yval *at = states ? realloc(L->inflow_at, n * sizeof *at) : NULL;
    if (!at) return tl_load_out_of_memory(L);
    L->inflow_at = at;
    specs[n - 1] = *spec;
    at[n - 1] = *material_at;
    tl_inflow_state *s = &states[n - 1];
    memset(s, 0, sizeof *s);
    tl_rng_seed(&s->size_rng, spec->seed);
    tl_rng_seed(&s->place_rng, spec->seed ^ 0x706c616365212121ull); /* "place!!!" */
    s->last_round = -INFINITY;
    sc->ninflows = n;
    return 0;
}

static int read_inflow_rate(loader *L, const tl_yval *m, tl_inflow_spec *f) {
    tl_yval rate, mass;
    tl_ymap_get(m, "rate", &rate);
    tl_ymap_get(m, "mass_rate", &mass);
    if (rate.node && mass.node)
        return tl_yfail(&L->doc, &mass, "give either rate (particles/s) or mass_rate (kg/s), not "
                                        "both");
    if (!rate.node && !mass.node)
        return tl_ymissing(&L->doc, &rate, "a number > 0 (particles/s), or give mass_rate (kg/s)");
    if (rate.node) return tl_ynumber(&L->doc, &rate, ABOVE(0.0, "particles/s"), &f->rate);
    if (tl_ynumber(&L->doc, &mass, ABOVE(0.0, "kg/s"), &f->mass_rate)) return -1;
    if (!(f->density > 0.0))
        return tl_yfail(&L->doc, &mass, "a mass rate needs the density of material '%s'",
                        tl_world_material_name(L->world, f->material));
    return 0;
}

static int read_inflow(loader *L, const tl_yval *e, size_t index) {
    static const char *const keys[] = {"region",   "rate",     "mass_rate", "radius",
                                       "diameter", "material", "velocity",  "velocity_jitter",
                                       "start",    "stop",     "count",     "seed",
                                       "max_attempts", "every_steps"};
    if (tl_ymap_check_keys(&L->doc, e, (const char *const[]){"inflow"}, 1,
                           "; an inflow entry holds only its inflow mapping"))
        return -1;
    tl_yval m, mat;
    tl_ymap_get(e, "inflow", &m);
    tl_inflow_spec f;
    memset(&f, 0, sizeof f);
    f.stop = INFINITY;
    f.max_attempts = 100;
    f.every_steps = 20;
    f.seed = entry_seed(L, 0x696e666c6f772121ull, index);
    f.line = e->line;
    f.index = (int)index;
    if (tl_ymap_expect(&L->doc, &m, "a mapping {region, rate or mass_rate, radius or diameter, "
                                    "material, ...}") ||
        tl_ymap_check_keys(&L->doc, &m, keys, COUNT_OF(keys), NULL) ||
        read_region(L, &m, &f.min, &f.max) || read_size(L, &m, &f.size, &f.size_scale) ||
        tl_load_material_key(L, &m, &f.material))
        return -1;
    tl_ymap_get(&m, "material", &mat);
    f.density = f.material < TL_LOAD_MAX_MATERIALS ? L->density[f.material] : 0.0;
    if (read_inflow_rate(L, &m, &f) ||
        tl_ykey_vec3(&L->doc, &m, "velocity", false, "m/s", &f.velocity) ||
        tl_ykey_number(&L->doc, &m, "velocity_jitter", false, AT_LEAST(0.0, "m/s"),
                       &f.velocity_jitter) ||
        tl_ykey_number(&L->doc, &m, "start", false, AT_LEAST(0.0, "s"), &f.start) ||
        tl_ykey_number(&L->doc, &m, "stop", false, ABOVE(f.start, "s"), &f.stop) ||
        read_seed_attempts(L, &m, &f.seed, &f.max_attempts))
        return -1;
    tl_yval v;
    tl_ymap_get(&m, "count", &v);
    if (v.node && tl_yint(&L->doc, &v, 1, INT64_MAX / 2, &f.count)) return -1;
    tl_ymap_get(&m, "every_steps", &v);
    if (v.node && tl_yint(&L->doc, &v, 1, 1000000000, &f.every_steps)) return -1;
    double rmax = f.size_scale * tl_dist_upper(&f.size);
    const double ext[3] = {f.max.x - f.min.x, f.max.y - f.min.y, f.max.z - f.min.z};
    for (int k = 0; k < 3; k++)
        if (ext[k] < 2.0 * rmax) {
            tl_ymap_get(&m, "region", &v);
            return tl_yfail(&L->doc, &v, "the region is narrower than the largest particle "
                                         "(diameter %g m) along %c",
                            2.0 * rmax, "xyz"[k]);
        }
    if (!(f.density > 0.0))
        return tl_yfail(&L->doc, &mat, "material '%s' has no density: inflow particles take "
                                       "their mass from it",
                        tl_world_material_name(L->world, f.material));
    return push_inflow(L, &f, &mat);
}

/* ---- files: CSV and LAMMPS data ---- */

#define MAX_FIELDS 64
#define MAX_TYPES 256
/* the limits on a data file (docs/scene.md): its size and its lines */
#define TL_DATA_MAX_BYTES ((uint64_t)256 << 20)
#define TL_DATA_MAX_LINE 4096

typedef struct text_file {
    FILE *f;
    char *line;
    size_t cap;
    int lineno;
    const char *shown; /* the path as messages give it */
    bool outside;      /* outside the scene's folder: its bytes are not shown */
    int bad;           /* why next_line stopped early: 1 a long line, 2 a NUL byte */
} text_file;

/* the next line without its end, or NULL at the end of the file or at a line
 * longer than TL_DATA_MAX_LINE or holding a NUL byte (t->bad says which) */
static char *next_line(text_file *t) {
    if (!t->line) {
        t->cap = TL_DATA_MAX_LINE + 1;
        t->line = malloc(t->cap);
        if (!t->line) return NULL;
    }
    size_t n = 0;
    int c = EOF;
    while ((c = getc(t->f)) != EOF && c != '\n') {
        if (c == '\0') {
            t->lineno++;
            t->bad = 2;
            return NULL;
        }
        if (n == TL_DATA_MAX_LINE) {
            t->lineno++;
            t->bad = 1;
            return NULL;
        }
        t->line[n++] = (char)c;
    }
    if (c == EOF && n == 0) return NULL;
    t->lineno++;
    while (n > 0 && t->line[n - 1] == '\r') n--;
    t->line[n] = '\0';
    return t->line;
}

/* bytes of the file as a message may quote them: not at all from a file
 * outside the scene's folder (tl_scene_error_format escapes the others) */
static const char *quoted(const text_file *t, const char *s) {
    return t->outside ? "(not shown: the file lies outside the scene's folder)" : s;
}

/* "<file>:<line>: message" at the scene's `file:` key; line 0 = the whole file */
static int file_fail(loader *L, const tl_yval *at, const text_file *t, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int file_fail(loader *L, const tl_yval *at, const text_file *t, int line, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0) return tl_yfail(&L->doc, at, "%s:%d: %s", t->shown, line, msg);
    return tl_yfail(&L->doc, at, "%s: %s", t->shown, msg);
}

/* the end of reading: an error when next_line stopped at a bad line */
static int stopped(loader *L, const tl_yval *at, const text_file *t) {
    if (t->bad == 1)
        return file_fail(L, at, t, t->lineno, "the line is longer than %d bytes (the limit on a "
                                              "data file's lines)", TL_DATA_MAX_LINE);
    if (t->bad == 2)
        return file_fail(L, at, t, t->lineno, "the line holds a NUL byte: not a text file");
    if (t->f && ferror(t->f)) return file_fail(L, at, t, 0, "cannot read: %s", strerror(errno));
    if (!t->line) return tl_load_out_of_memory(L);
    return 0;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static bool blank_or_comment(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    return *s == '\0' || *s == '#';
}

/* splits at sep (',' or any white space when sep is 0); -1 when too many */
static int split(char *s, char sep, char **fields, int max) {
    int n = 0;
    if (sep == 0) {
        char *save = NULL;
        for (char *tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (n == max) return -1;
            fields[n++] = tok;
        }
        return n;
    }
    for (;;) {
        if (n == max) return -1;
        char *end = strchr(s, sep);
        if (end) *end = '\0';
        char *f = trim(s);
        size_t len = strlen(f);
        if (len >= 2 && f[0] == '"' && f[len - 1] == '"') {
            f[len - 1] = '\0';
            f++;
        }
        fields[n++] = f;
        if (!end) return n;
        s = end + 1;
    }
}

static bool parse_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s) return false;
    while (isspace((unsigned char)*end)) end++;
    if (*end || !isfinite(x)) return false;
    *out = x;
    return true;
}

static bool parse_integer(const char *s, long long *out) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE) return false;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return false;
    *out = x;
    return true;
}

/* a material by name, with a suggestion in msg when unknown */
static int material_named(loader *L, const char *name, int *out, char *msg, size_t size) {
    if (tl_world_find_material(L->world, name, out) == TL_OK) return 0;
    const char *names[TL_LOAD_MAX_MATERIALS];
    char known[512];
    size_t n = 0, used = 0;
    known[0] = '\0';
    for (int i = 0; i < tl_world_material_count(L->world) && n < COUNT_OF(names); i++) {
        names[n++] = tl_world_material_name(L->world, i);
        int k = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", names[n - 1]);
        if (k > 0 && (size_t)k < sizeof known - used) used += (size_t)k;
    }
    const char *sug = tl_closest_name(name, names, n);
    snprintf(msg, size, "unknown material '%s'%s%s%s (known: %s)", name, sug ? "; did you mean '" : "",
             sug ? sug : "", sug ? "'?" : "", known);
    return -1;
}

enum csv_column {
    C_ID, C_X, C_Y, C_Z, C_RADIUS, C_DIAMETER, C_VX, C_VY, C_VZ, C_WX, C_WY, C_WZ, C_MATERIAL,
    C_FIXED, C_MASS, C_COUNT
};
static const char *const csv_columns[C_COUNT] = {"id", "x",  "y",  "z",        "radius",
                                                 "diameter", "vx", "vy", "vz", "wx",
                                                 "wy", "wz", "material", "fixed", "mass"};
#define CSV_KNOWN "id, x, y, z, radius, diameter, vx, vy, vz, wx, wy, wz, material, fixed, mass"

static int csv_header(loader *L, const tl_yval *at, text_file *t, int col[C_COUNT], int *ncols,
                      int material) {
    char *line;
    while ((line = next_line(t)) != NULL && blank_or_comment(line)) {}
    if (!line && stopped(L, at, t)) return -1;
    if (!line)
        return file_fail(L, at, t, 0, "the file is empty: expected a header row naming the columns "
                                      "(x, y, z, radius or diameter, ...)");
    char *f[MAX_FIELDS];
    int n = split(line, ',', f, MAX_FIELDS);
    if (n < 0) return file_fail(L, at, t, t->lineno, "more than %d columns", MAX_FIELDS);
    for (int c = 0; c < C_COUNT; c++) col[c] = -1;
    for (int i = 0; i < n; i++) {
        int c = 0;
        while (c < C_COUNT && strcasecmp(f[i], csv_columns[c]) != 0) c++;
        if (c == C_COUNT) {
            const char *sug = tl_closest_name(f[i], csv_columns, C_COUNT);
            return file_fail(L, at, t, t->lineno, "unknown column '%s'%s%s%s (known: " CSV_KNOWN ")",
                             quoted(t, f[i]), sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        }
        if (col[c] >= 0)
            return file_fail(L, at, t, t->lineno, "column '%s' appears twice", csv_columns[c]);
        col[c] = i;
    }
    for (int c = C_X; c <= C_Z; c++)
        if (col[c] < 0)
            return file_fail(L, at, t, t->lineno, "the header has no column '%s': x, y, z and radius "
                                                  "or diameter are required",
                             csv_columns[c]);
    if ((col[C_RADIUS] < 0) == (col[C_DIAMETER] < 0))
        return file_fail(L, at, t, t->lineno, "the header needs one column radius or diameter (%s)",
                         col[C_RADIUS] < 0 ? "it has neither" : "it has both");
    if (material < 0 && col[C_MATERIAL] < 0)
        return file_fail(L, at, t, t->lineno, "no material: give material: NAME in the scene, or a "
                                              "column material");
    *ncols = n;
    return 0;
}

static int csv_row(loader *L, const tl_yval *at, text_file *t, const int col[C_COUNT], int ncols,
                   char **f, tl_particle_def *pd) {
    double v[C_COUNT];
    int line = t->lineno;
    for (int c = 0; c < C_COUNT; c++) {
        if (col[c] < 0 || c == C_MATERIAL || c == C_FIXED || c == C_ID) continue;
        const char *s = f[col[c]];
        if (!parse_double(s, &v[c]))
            return file_fail(L, at, t, line, "column '%s': expected a number, got '%s'", csv_columns[c],
                             quoted(t, s));
        bool need_positive = c == C_RADIUS || c == C_DIAMETER || c == C_MASS;
        if (need_positive && !(v[c] > 0.0))
            return file_fail(L, at, t, line, "column '%s': expected a number > 0 (%s), got '%s'",
                             csv_columns[c], c == C_MASS ? "kg" : "m", quoted(t, s));
    }
    (void)ncols;
    pd->position = (tl_vec3){v[C_X], v[C_Y], v[C_Z]};
    pd->radius = col[C_RADIUS] >= 0 ? v[C_RADIUS] : 0.5 * v[C_DIAMETER];
    if (col[C_VX] >= 0) pd->velocity.x = v[C_VX];
    if (col[C_VY] >= 0) pd->velocity.y = v[C_VY];
    if (col[C_VZ] >= 0) pd->velocity.z = v[C_VZ];
    if (col[C_WX] >= 0) pd->angular_velocity.x = v[C_WX];
    if (col[C_WY] >= 0) pd->angular_velocity.y = v[C_WY];
    if (col[C_WZ] >= 0) pd->angular_velocity.z = v[C_WZ];
    if (col[C_MASS] >= 0) pd->mass = v[C_MASS];
    if (col[C_ID] >= 0) {
        long long id;
        const char *s = f[col[C_ID]];
        if (!parse_integer(s, &id) || id < 1 || id > 0x7fffffff)
            return file_fail(L, at, t, line, "column 'id': expected an integer from 1 to 2147483647, "
                                             "got '%s'",
                             quoted(t, s));
        pd->id = (uint32_t)id;
    }
    if (col[C_FIXED] >= 0) {
        const char *s = f[col[C_FIXED]];
        bool on = strcmp(s, "1") == 0 || strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0;
        bool off = strcmp(s, "0") == 0 || strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0;
        if (!on && !off)
            return file_fail(L, at, t, line, "column 'fixed': expected 0 or 1, got '%s'", quoted(t, s));
        pd->flags = on ? pd->flags | TL_PARTICLE_FIXED : pd->flags & ~(unsigned)TL_PARTICLE_FIXED;
    }
    if (col[C_MATERIAL] >= 0 && f[col[C_MATERIAL]][0]) {
        char msg[640];
        if (material_named(L, f[col[C_MATERIAL]], &pd->material, msg, sizeof msg))
            return file_fail(L, at, t, line, "column 'material': %s", quoted(t, msg));
    }
    if (pd->material < 0)
        return file_fail(L, at, t, line, "column 'material' is empty and the scene gives no material");
    if (tl_world_add_particle(L->world, pd, NULL) != TL_OK)
        return file_fail(L, at, t, line, "%s", tl_world_error(L->world));
    return 0;
}

static int read_csv(loader *L, const tl_yval *at, text_file *t, int material, unsigned flags) {
    int col[C_COUNT], ncols = 0;
    if (csv_header(L, at, t, col, &ncols, material)) return -1;
    long long rows = 0;
    char *line;
    while ((line = next_line(t)) != NULL) {
        if (blank_or_comment(line)) continue;
        char *f[MAX_FIELDS];
        int n = split(line, ',', f, MAX_FIELDS);
        if (n != ncols)
            return file_fail(L, at, t, t->lineno, "expected %d values, as the header has columns, got "
                                                  "%d",
                             ncols, n < 0 ? MAX_FIELDS + 1 : n);
        tl_particle_def pd = tl_particle_default();
        pd.material = material;
        pd.flags = flags;
        if (csv_row(L, at, t, col, ncols, f, &pd)) return -1;
        rows++;
    }
    if (stopped(L, at, t)) return -1;
    if (rows == 0) return file_fail(L, at, t, 0, "no particle rows after the header");
    return 0;
}

typedef struct lammps_types {
    long long type[MAX_TYPES];
    int material[MAX_TYPES];
    int n;
} lammps_types;

static int read_types(loader *L, const tl_yval *m, lammps_types *ty) {
    const char *what = "a mapping of atom types to materials, e.g. {1: glass, 2: steel}";
    tl_yval v;
    tl_ymap_get(m, "types", &v);
    if (!v.node) return tl_ymissing(&L->doc, &v, what);
    if (tl_ymap_expect(&L->doc, &v, what)) return -1;
    size_t n = tl_ymap_count(&v);
    if (n == 0 || n > MAX_TYPES) return tl_yexpected(&L->doc, &v, what);
    ty->n = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name;
        tl_yval key, value;
        tl_ymap_entry(&v, i, &name, &key, &value);
        long long type;
        if (!tl_yis_scalar(&key) || !parse_integer(name, &type) || type < 1)
            return tl_yexpected(&L->doc, &key, "an atom type, an integer >= 1");
        if (tl_load_material(L, &value, false, &ty->material[ty->n])) return -1;
        ty->type[ty->n++] = type;
    }
    return 0;
}

enum lammps_section { SEC_HEADER, SEC_ATOMS, SEC_VELOCITIES, SEC_OTHER };

typedef struct lammps_box {
    double lo[3], hi[3];
    bool known[3];
} lammps_box;

static void lammps_header(char **tok, int n, long long *natoms, lammps_box *box) {
    if (n >= 2 && strcmp(tok[1], "atoms") == 0) {
        long long a;
        if (parse_integer(tok[0], &a)) *natoms = a;
    }
    if (n == 4 && strlen(tok[2]) == 3 && strlen(tok[3]) == 3 && strcmp(tok[2] + 1, "lo") == 0 &&
        strcmp(tok[3] + 1, "hi") == 0 && tok[2][0] >= 'x' && tok[2][0] <= 'z') {
        int k = tok[2][0] - 'x';
        box->known[k] = parse_double(tok[0], &box->lo[k]) && parse_double(tok[1], &box->hi[k]);
    }
}

/* one line of Atoms (style sphere): id type diameter density x y z [ix iy iz] */
static int lammps_atom(loader *L, const tl_yval *at, text_file *t, char **tok, int n,
                       const lammps_types *ty, const lammps_box *box, unsigned flags) {
    int line = t->lineno;
    if (n != 7 && n != 10)
        return file_fail(L, at, t, line, "an Atoms line of style sphere has 7 values (id type diameter "
                                         "density x y z) or 10 (with image flags), got %d",
                         n);
    static const char *const names[] = {"id", "type", "diameter", "density", "x", "y", "z"};
    long long id, type, image[3] = {0, 0, 0};
    double v[7];
    for (int i = 0; i < n; i++) {
        bool ok = i < 2 ? parse_integer(tok[i], i == 0 ? &id : &type)
                        : (i < 7 ? parse_double(tok[i], &v[i]) : parse_integer(tok[i], &image[i - 7]));
        if (!ok)
            return file_fail(L, at, t, line, "%s: expected %s, got '%s'",
                             i < 7 ? names[i] : "an image flag",
                             i < 2 || i >= 7 ? "an integer" : "a number", quoted(t, tok[i]));
    }
    if (id < 1 || id > 0x7fffffff)
        return file_fail(L, at, t, line, "atom id %lld is outside 1 to 2147483647", id);
    if (!(v[2] > 0.0))
        return file_fail(L, at, t, line, "atom %lld: the diameter must be > 0 (m), got %s", id, tok[2]);
    if (!(v[3] > 0.0))
        return file_fail(L, at, t, line, "atom %lld: the density must be > 0 (kg/m3), got %s", id,
                         tok[3]);
    int material = -1;
    for (int i = 0; i < ty->n; i++)
        if (ty->type[i] == type) material = ty->material[i];
    if (material < 0)
        return file_fail(L, at, t, line, "atom %lld has type %lld, which types: does not map to a "
                                         "material (add %lld: <material>)",
                         id, type, type);
    tl_particle_def pd = tl_particle_default();
    pd.id = (uint32_t)id;
    pd.material = material;
    pd.flags = flags;
    pd.radius = 0.5 * v[2];
    double rho = material < TL_LOAD_MAX_MATERIALS ? L->density[material] : 0.0;
    if (rho > 0.0 && fabs(v[3] - rho) > 1e-9 * rho)
        return file_fail(L, at, t, line, "atom %lld: density %.10g kg/m3 differs from material '%s' "
                                         "(%.10g kg/m3) by more than 1e-9 relative; make the data "
                                         "file and the scene agree",
                         id, v[3], tl_world_material_name(L->world, material), rho);
    if (!(rho > 0.0)) pd.mass = v[3] * FOUR_THIRDS_PI * pd.radius * pd.radius * pd.radius;
    double x[3] = {v[4], v[5], v[6]};
    for (int k = 0; k < 3; k++) {
        if (image[k] == 0) continue;
        if (!box->known[k])
            return file_fail(L, at, t, line, "atom %lld has an image flag along %c but the header has "
                                             "no %clo %chi line",
                             id, "xyz"[k], "xyz"[k], "xyz"[k]);
        x[k] += (double)image[k] * (box->hi[k] - box->lo[k]);
    }
    pd.position = (tl_vec3){x[0], x[1], x[2]};
    if (tl_world_add_particle(L->world, &pd, NULL) != TL_OK)
        return file_fail(L, at, t, line, "%s", tl_world_error(L->world));
    return 0;
}

/* one line of Velocities: id vx vy vz [wx wy wz] */
static int lammps_velocity(loader *L, const tl_yval *at, text_file *t, char **tok, int n) {
    int line = t->lineno;
    if (n != 4 && n != 7)
        return file_fail(L, at, t, line, "a Velocities line has 4 values (id vx vy vz) or 7 (and wx wy "
                                         "wz), got %d",
                         n);
    long long id;
    double v[7] = {0, 0, 0, 0, 0, 0, 0};
    if (!parse_integer(tok[0], &id) || id < 1 || id > 0x7fffffff)
        return file_fail(L, at, t, line, "expected an atom id, got '%s'", quoted(t, tok[0]));
    for (int i = 1; i < n; i++)
        if (!parse_double(tok[i], &v[i]))
            return file_fail(L, at, t, line, "expected a number, got '%s'", quoted(t, tok[i]));
    if (tl_world_set_particle_velocity(L->world, (uint32_t)id, (tl_vec3){v[1], v[2], v[3]},
                                       (tl_vec3){v[4], v[5], v[6]}) != TL_OK)
        return file_fail(L, at, t, line, "%s", tl_world_error(L->world));
    return 0;
}

/* the sections of a LAMMPS data file (read_data), by their first word */
static bool lammps_section(const char *word) {
    static const char *const names[] = {
        "Masses",    "Ellipsoids", "Lines",     "Triangles",  "Bodies",    "Bonds",
        "Angles",    "Dihedrals",  "Impropers", "Pair",       "PairIJ",    "Bond",
        "Angle",     "Dihedral",   "Improper",  "BondBond",   "BondAngle", "MiddleBondTorsion",
        "EndBondTorsion", "AngleTorsion", "AngleAngleTorsion", "BondBond13", "AngleAngle"};
    for (size_t i = 0; i < COUNT_OF(names); i++)
        if (strcmp(word, names[i]) == 0) return true;
    return false;
}

static int read_lammps(loader *L, const tl_yval *at, text_file *t, const lammps_types *ty,
                       unsigned flags) {
    if (!next_line(t)) return stopped(L, at, t) ? -1 : file_fail(L, at, t, 0, "the file is empty");
    long long natoms = -1, atoms = 0;
    lammps_box box;
    memset(&box, 0, sizeof box);
    enum lammps_section sec = SEC_HEADER;
    bool seen_atoms = false;
    char *line;
    while ((line = next_line(t)) != NULL) {
        char *hash = strchr(line, '#');
        char *comment = hash ? trim(hash + 1) : NULL;
        if (hash) *hash = '\0';
        line = trim(line);
        if (!line[0]) continue;
        if (isalpha((unsigned char)line[0])) {
            char *save = NULL;
            char *word = strtok_r(line, " \t", &save);
            if (strcmp(word, "Atoms") == 0) {
                if (seen_atoms) return file_fail(L, at, t, t->lineno, "a second Atoms section");
                if (comment && comment[0] && strcmp(comment, "sphere") != 0)
                    return file_fail(L, at, t, t->lineno, "Atoms of style '%s': expected style sphere "
                                                          "(id type diameter density x y z)",
                                     quoted(t, comment));
                sec = SEC_ATOMS;
                seen_atoms = true;
            } else if (strcmp(word, "Velocities") == 0) {
                sec = SEC_VELOCITIES;
            } else if (lammps_section(word)) {
                sec = SEC_OTHER;
            } else {
                return file_fail(L, at, t, t->lineno, "expected a section name (Atoms, "
                                                      "Velocities, Masses, ...) or a line of "
                                                      "numbers, got '%s'", quoted(t, word));
            }
            continue;
        }
        char *tok[16];
        int n = split(line, 0, tok, 16);
        if (n < 0) return file_fail(L, at, t, t->lineno, "too many values on the line");
        int rc = 0;
        switch (sec) {
        case SEC_HEADER: {
            double x;
            if (!parse_double(tok[0], &x))
                return file_fail(L, at, t, t->lineno, "expected a header line (a count and a "
                                                      "keyword, such as '3 atoms' or '0 1 xlo "
                                                      "xhi'), got '%s'", quoted(t, tok[0]));
            lammps_header(tok, n, &natoms, &box);
            break;
        }
        case SEC_ATOMS:
            rc = lammps_atom(L, at, t, tok, n, ty, &box, flags);
            atoms++;
            break;
        case SEC_VELOCITIES:
            if (!(flags & TL_PARTICLE_FIXED)) rc = lammps_velocity(L, at, t, tok, n);
            break;
        case SEC_OTHER: break;
        }
        if (rc) return -1;
    }
    if (stopped(L, at, t)) return -1;
    if (!seen_atoms) return file_fail(L, at, t, 0, "no Atoms section");
    if (natoms >= 0 && atoms != natoms)
        return file_fail(L, at, t, 0, "the header says %lld atoms but the Atoms section has %lld",
                         natoms, atoms);
    return 0;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* opens t->shown: a regular file (a directory, a device such as /dev/zero
 * or a pipe is refused before reading) of at most TL_DATA_MAX_BYTES */
static int open_data(loader *L, const tl_yval *at, text_file *t) {
    int fd = open(t->shown, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return tl_yfail(&L->doc, at, "cannot open '%s': %s", t->shown, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        (void)close(fd);
        return tl_yfail(&L->doc, at, "cannot read '%s': %s", t->shown, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        (void)close(fd);
        return tl_yfail(&L->doc, at, "'%s' is not a regular file (it is %s)", t->shown,
                        S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
    }
    if ((uint64_t)st.st_size > TL_DATA_MAX_BYTES) {
        (void)close(fd);
        return tl_yfail(&L->doc, at, "'%s' is %lld bytes, more than %llu (the limit on a data "
                                     "file's size)", t->shown, (long long)st.st_size,
                        (unsigned long long)TL_DATA_MAX_BYTES);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    t->f = fdopen(fd, "r");
    if (!t->f) {
        int e = errno;
        (void)close(fd);
        return tl_yfail(&L->doc, at, "cannot open '%s': %s", t->shown, strerror(e));
    }
    return 0;
}

static int read_file_entry(loader *L, const tl_yval *e) {
    static const char *const keys[] = {"file", "format", "material", "types", "fixed"};
    static const char *const formats[] = {"csv", "lammps-data"};
    if (tl_ymap_check_keys(&L->doc, e, keys, COUNT_OF(keys), NULL)) return -1;
    const char *file;
    tl_yval at, v;
    tl_ymap_get(e, "file", &at);
    if (tl_ystring(&L->doc, &at, "a file path, relative to the scene file's directory", &file))
        return -1;
    if (ends_with(file, ".gz"))
        return tl_yfail(&L->doc, &at, "'%s' is compressed; gunzip it first and name the "
                                      "uncompressed file",
                        file);
    int format = ends_with(file, ".data") ? 1 : 0;
    tl_ymap_get(e, "format", &v);
    if (v.node && tl_ychoice(&L->doc, &v, formats, COUNT_OF(formats), &format)) return -1;
    unsigned flags = 0;
    bool fixed = false;
    if (tl_ykey_bool(&L->doc, e, "fixed", &fixed)) return -1;
    if (fixed) flags |= TL_PARTICLE_FIXED;
    int material = -1;
    lammps_types ty;
    memset(&ty, 0, sizeof ty);
    if (format == 0) {
        tl_ymap_get(e, "types", &v);
        if (v.node) return tl_yfail(&L->doc, &v, "types maps LAMMPS atom types; a CSV file takes "
                                                 "material: NAME or a material column");
        tl_ymap_get(e, "material", &v);
        if (v.node && tl_load_material(L, &v, false, &material)) return -1;
    } else {
        tl_ymap_get(e, "material", &v);
        if (v.node) return tl_yfail(&L->doc, &v, "a lammps-data file takes its materials from "
                                                 "types: {1: glass, ...}");
        if (read_types(L, e, &ty)) return -1;
    }
    char *path;
    bool outside;
    if (tl_load_path(L, &at, file, &path, &outside)) return -1;
    text_file t;
    memset(&t, 0, sizeof t);
    t.shown = path;
    t.outside = outside;
    int rc = open_data(L, &at, &t);
    if (rc == 0) {
        rc = format == 0 ? read_csv(L, &at, &t, material, flags) : read_lammps(L, &at, &t, &ty, flags);
        fclose(t.f);
    }
    free(t.line);
    free(path);
    return rc;
}

/* ---- the sequence ---- */

int tl_load_particles(loader *L) {
    static const char *const kinds[] = {"lattice", "random", "inflow", "file"};
    tl_yval s;
    tl_ymap_get(&L->root, "particles", &s);
    if (!s.node) return 0;
    if (tl_yseq_expect(&L->doc, &s, "a sequence of particles, lattices, files, random fills and "
                                    "inflows"))
        return -1;
    tl_yiter it = {0};
    tl_yval e;
    while (tl_yseq_next(&s, &it, &e)) {
        if (tl_ymap_expect(&L->doc, &e, "a particle {material, radius, position, ...}, or {lattice: "
                                        "{...}}, {random: {...}}, {inflow: {...}}, {file: PATH}"))
            return -1;
        int kind = -1;
        for (int k = 0; k < 4; k++) {
            if (!tl_ymap_has(&e, kinds[k])) continue;
            if (kind >= 0) {
                tl_yval at;
                tl_ymap_get(&e, kinds[k], &at);
                return tl_yfail(&L->doc, &at, "an entry is one of particle, lattice, random, inflow "
                                              "or file; this one has both %s and %s",
                                kinds[kind], kinds[k]);
            }
            kind = k;
        }
        int rc;
        switch (kind) {
        case 0: rc = read_lattice(L, &e); break;
        case 1: rc = read_random(L, &e, it.index); break;
        case 2: rc = read_inflow(L, &e, it.index); break;
        case 3: rc = read_file_entry(L, &e); break;
        default: rc = read_particle(L, &e); break;
        }
        if (rc) return -1;
    }
    return 0;
}

/* ---- what inflows need of the world: laws, and a step short enough ---- */

typedef struct partner {
    int material;
    double radius, mass; /* INFINITY for walls and fixed particles */
    char what[96];       /* "walls of 'steel'" */
} partner;

/* the height of x: its coordinate against gravity */
static double height(const double up[3], tl_vec3 x) { return up[0] * x.x + up[1] * x.y + up[2] * x.z; }

/* the lowest height a wall reaches (planes: their point) */
static double wall_low(const tl_wall_def *w, const double up[3]) {
    if (w->kind == TL_WALL_BOX) {
        double lo = INFINITY;
        for (int c = 0; c < 8; c++) {
            tl_vec3 x = {(c & 1) ? w->box_max.x : w->box_min.x, (c & 2) ? w->box_max.y : w->box_min.y,
                         (c & 4) ? w->box_max.z : w->box_min.z};
            lo = fmin(lo, height(up, x));
        }
        return lo;
    }
    double h = height(up, w->point);
    if (w->kind != TL_WALL_RECTANGLE) return h;
    /* the rectangle's extent along up: |u.up| hl + |v.up| hw, u and v its unit axes */
    double n[3] = {w->normal.x, w->normal.y, w->normal.z}, u[3] = {w->axis.x, w->axis.y, w->axis.z};
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(nn > 0.0)) return h;
    for (int k = 0; k < 3; k++) n[k] /= nn;
    double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    for (int k = 0; k < 3; k++) u[k] -= un * n[k];
    double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(ul > 0.0)) return h;
    for (int k = 0; k < 3; k++) u[k] /= ul;
    double v[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
    double du = fabs(u[0] * up[0] + u[1] * up[1] + u[2] * up[2]);
    double dv = fabs(v[0] * up[0] + v[1] * up[1] + v[2] * up[2]);
    return h - du * w->half_length - dv * w->half_width;
}

/* the partners an inflow's particles can meet: every inflow's particles,
 * the world's particles (the smallest of each material, moving or fixed),
 * the walls; and the lowest height anything reaches */
static int collect_partners(loader *L, const double up[3], partner **out, size_t *n, double *low) {
    const tl_scene *sc = L->scene;
    int nm = tl_world_material_count(L->world);
    size_t cap = sc->ninflows + 2 * (size_t)nm + sc->nwalls;
    partner *p = calloc(cap ? cap : 1, sizeof *p);
    double *rdyn = malloc(((size_t)nm + 1) * 3 * sizeof *rdyn);
    if (!p || !rdyn) {
        free(p);
        free(rdyn);
        return tl_load_out_of_memory(L);
    }
    double *mdyn = rdyn + nm, *rfix = mdyn + nm;
    for (int m = 0; m < nm; m++) rdyn[m] = mdyn[m] = rfix[m] = INFINITY;
    *low = INFINITY;
    size_t np = tl_world_particle_count(L->world);
    for (size_t i = 0; i < np; i++) {
        tl_particle_state st;
        if (tl_world_particle_at(L->world, i, &st) != TL_OK || st.material < 0 || st.material >= nm)
            continue;
        *low = fmin(*low, height(up, st.position) - st.radius);
        if (st.flags & TL_PARTICLE_FIXED) {
            rfix[st.material] = fmin(rfix[st.material], st.radius);
        } else {
            rdyn[st.material] = fmin(rdyn[st.material], st.radius);
            mdyn[st.material] = fmin(mdyn[st.material], st.mass);
        }
    }
    size_t k = 0;
    for (size_t j = 0; j < sc->ninflows; j++) {
        const tl_inflow_spec *f = &sc->inflows[j];
        double r = f->size_scale * tl_dist_lower(&f->size);
        p[k] = (partner){f->material, r, f->density * FOUR_THIRDS_PI * r * r * r, ""};
        snprintf(p[k++].what, sizeof p->what, "the particles of the inflow particles[%d]", f->index);
    }
    for (int m = 0; m < nm; m++) {
        const char *name = tl_world_material_name(L->world, m);
        if (isfinite(rdyn[m])) {
            p[k] = (partner){m, rdyn[m], mdyn[m], ""};
            snprintf(p[k++].what, sizeof p->what, "particles of '%.64s'", name);
        }
        if (isfinite(rfix[m])) {
            p[k] = (partner){m, rfix[m], INFINITY, ""};
            snprintf(p[k++].what, sizeof p->what, "fixed particles of '%.64s'", name);
        }
    }
    for (size_t w = 0; w < sc->nwalls; w++) {
        *low = fmin(*low, wall_low(&sc->walls[w], up));
        p[k] = (partner){sc->walls[w].material, INFINITY, INFINITY, ""};
        snprintf(p[k++].what, sizeof p->what, "walls of '%.64s'",
                 tl_world_material_name(L->world, sc->walls[w].material));
    }
    free(rdyn);
    *out = p;
    *n = k;
    return 0;
}

/* the impact speed of an inflow's particles: their speed, plus the free
 * fall from the top of the region to the lowest thing in the scene */
static double inflow_speed(const loader *L, const tl_inflow_spec *f, const double up[3], double gn,
                           double low) {
    if (L->def.impact_speed > 0.0) return L->def.impact_speed;
    double top = -INFINITY;
    for (int c = 0; c < 8; c++) {
        tl_vec3 x = {(c & 1) ? f->max.x : f->min.x, (c & 2) ? f->max.y : f->min.y,
                     (c & 4) ? f->max.z : f->min.z};
        top = fmax(top, height(up, x));
        low = fmin(low, height(up, x));
        if (L->def.has_domain) {
            tl_vec3 d = {(c & 1) ? L->def.domain_max.x : L->def.domain_min.x,
                         (c & 2) ? L->def.domain_max.y : L->def.domain_min.y,
                         (c & 4) ? L->def.domain_max.z : L->def.domain_min.z};
            low = fmin(low, height(up, d));
        }
    }
    const tl_vec3 u = f->velocity;
    double v = sqrt(u.x * u.x + u.y * u.y + u.z * u.z) + sqrt(3.0) * f->velocity_jitter;
    return v + (gn > 0.0 && top > low ? sqrt(2.0 * gn * (top - low)) : 0.0);
}

int tl_load_inflow_bounds(loader *L, double *dt_bound, double *r_min) {
    *dt_bound = INFINITY;
    *r_min = INFINITY;
    const tl_scene *sc = L->scene;
    if (!sc->ninflows) return 0;
    const tl_vec3 g = L->def.gravity;
    double gn = sqrt(g.x * g.x + g.y * g.y + g.z * g.z);
    double up[3] = {0, 0, 0};
    if (gn > 0.0) {
        up[0] = -g.x / gn;
        up[1] = -g.y / gn;
        up[2] = -g.z / gn;
    }
    partner *p = NULL;
    size_t np = 0;
    double low = INFINITY;
    if (collect_partners(L, up, &p, &np, &low)) return -1;
    double best = INFINITY;
    int rc = 0;
    for (size_t i = 0; i < sc->ninflows && rc == 0; i++) {
        const tl_inflow_spec *f = &sc->inflows[i];
        const tl_yval *at = &L->inflow_at[i];
        double ra = f->size_scale * tl_dist_lower(&f->size);
        double ma = f->density * FOUR_THIRDS_PI * ra * ra * ra;
        *r_min = fmin(*r_min, ra);
        double v = inflow_speed(L, f, up, gn, low);
        for (size_t k = 0; k < np && rc == 0; k++) {
            const char *na = tl_world_material_name(L->world, f->material);
            const char *nb = tl_world_material_name(L->world, p[k].material);
            if (!tl_world_has_law(L->world, f->material, p[k].material)) {
                rc = tl_yfail(&L->doc, at,
                              "no contact law between materials '%s' and '%s' (the particles of "
                              "this inflow meet %s)",
                              na, nb, p[k].what);
                break;
            }
            tl_pair_estimate e;
            /* the world's own speed estimate when it is larger (moving walls, particles) */
            if (tl_world_estimate_pair(L->world, f->material, p[k].material, ra, ma, p[k].radius,
                                       p[k].mass, 0.0, &e) == TL_OK &&
                L->def.impact_speed <= 0.0)
                v = fmax(v, e.impact_speed);
            if (tl_world_estimate_pair(L->world, f->material, p[k].material, ra, ma, p[k].radius,
                                       p[k].mass, v > 0.0 ? v : 0.0, &e) != TL_OK) {
                rc = tl_yfail(&L->doc, at, "%s", tl_world_error(L->world));
                break;
            }
            if (e.contact_time < best) best = e.contact_time;
        }
    }
    free(p);
    if (rc) return -1;
    *dt_bound = best / L->def.steps_per_contact;
    return 0;
}
