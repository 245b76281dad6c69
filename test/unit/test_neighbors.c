/* The candidate lists of the neighbor search against brute force: random
 * positions in a box with every combination of periodic axes, radii
 * uniform in [r, 10 r] plus a few very large spheres (several size-class
 * grids), built by tl_world_prepare. Every pair closer (nearest image) than
 * R_a + R_b + skin must be listed exactly once, no listed pair may lie
 * beyond that cut-off, and each pair's image code must give the nearest
 * image; side a of each pair is the smaller particle id. The particle-face
 * candidates are checked against tl_face_geometry.
 * Also prints the build time for a radius ratio of 10 against 1 (no
 * assertion on timing).
 * Reaches into src/ (world_probe.h: the world's candidate lists, grids and faces, tl_probe_parts_of). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "neighbors.h"
#include "talus/talus.h"
#include "setup.h"
#include "test.h"
#include "vec.h"
#include "world_probe.h"

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

static const double RMIN = 1e-3; /* r */

typedef struct scene {
    bool periodic[3];
    double L[3];   /* domain [0, L) */
    int n;         /* particles of radius in [r, 10 r] */
    int giants;    /* and this many of 30 r to 40 r */
    double rmax_ratio;
    bool walls;    /* a box, a plane and an inclined rectangle (faces) */
    uint64_t seed;
} scene;

static tl_world *build(const scene *sc) {
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-6;
    wd.allow_unresolved_contacts = true;
    wd.allow_initial_overlaps = true; /* random clouds, for the search itself */
    wd.blowup_every = -1;
    wd.has_domain = true;
    wd.domain_min = (tl_vec3){0, 0, 0};
    wd.domain_max = (tl_vec3){sc->L[0], sc->L[1], sc->L[2]};
    for (int k = 0; k < 3; k++) wd.periodic[k] = sc->periodic[k];
    tl_world *w;
    if (tl_world_create(&wd, &w) != TL_OK) return NULL;
    int m = tl_test_material_law(w, "m", 2500, 1e6, NAN, 0.5, 0.5);
    uint64_t s = sc->seed;
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    for (int i = 0; i < sc->n + sc->giants; i++) {
        pd.radius = i < sc->n ? RMIN * (1.0 + (sc->rmax_ratio - 1.0) * urand(&s))
                              : RMIN * (30.0 + 10.0 * urand(&s));
        double x[3];
        for (int k = 0; k < 3; k++) x[k] = sc->L[k] * urand(&s);
        /* some on the edges of the domain */
        if (i % 97 == 1) x[0] = 0.0;
        if (i % 89 == 2) x[1] = nextafter(sc->L[1], 0.0);
        if (i % 83 == 3) x[2] = 0.5 * RMIN;
        pd.position = (tl_vec3){x[0], x[1], x[2]};
        tl_world_add_particle(w, &pd, NULL);
    }
    if (sc->walls) {
        tl_wall_def wl = tl_wall_default();
        wl.material = m;
        if (!sc->periodic[0] && !sc->periodic[1] && !sc->periodic[2]) {
            wl.kind = TL_WALL_BOX;
            wl.box_min = (tl_vec3){0, 0, 0};
            wl.box_max = (tl_vec3){sc->L[0], sc->L[1], sc->L[2]};
            wl.open_faces = TL_BOX_ZMAX;
            tl_world_add_wall(w, &wl, NULL);
            /* an inclined two-sided rectangle across the middle */
            wl = tl_wall_default();
            wl.material = m;
            wl.kind = TL_WALL_RECTANGLE;
            wl.point = (tl_vec3){0.5 * sc->L[0], 0.5 * sc->L[1], 0.5 * sc->L[2]};
            double c = cos(0.4), sn = sin(0.4);
            wl.normal = (tl_vec3){sn, 0, c};
            wl.axis = (tl_vec3){c, 0, -sn};
            wl.half_length = 0.3 * sc->L[0];
            wl.half_width = 0.25 * sc->L[1];
            tl_world_add_wall(w, &wl, NULL);
        }
        /* a floor (every case without periodic z) */
        if (!sc->periodic[2]) {
            wl = tl_wall_default();
            wl.material = m;
            wl.kind = TL_WALL_PLANE;
            wl.point = (tl_vec3){0, 0, 0.1 * sc->L[2]};
            wl.normal = (tl_vec3){0, 0, 1};
            tl_world_add_wall(w, &wl, NULL);
        }
    }
    return w;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static uint64_t pair_key(uint32_t i, uint32_t j) {
    return i < j ? ((uint64_t)i << 32) | j : ((uint64_t)j << 32) | i;
}
static bool has_key(const uint64_t *keys, size_t n, uint64_t k) {
    return bsearch(&k, keys, n, sizeof *keys, cmp_u64) != NULL;
}

/* The nearest-image separation from a to b (b - a). */
static void nearest(const tl_periodic *per, const double a[3], const double b[3], double d[3]) {
    for (int k = 0; k < 3; k++) {
        d[k] = b[k] - a[k];
        if (per->on[k]) d[k] -= per->len[k] * nearbyint(d[k] / per->len[k]);
    }
}

/* chunks of the builds checked, and those that outgrew their segment of the one-pass build's
 * scratch and searched again: both paths must be checked */
static int64_t chunks_seen, spills_seen;

static void check_scene(const scene *sc, const char *name) {
    tl_world *w = build(sc);
    ENSURE(w != NULL);
    if (!w) return;
    tl_status st = tl_world_prepare(w);
    ENSURE_OK(st);
    if (st != TL_OK) {
        fprintf(stderr, "%s: %s\n", name, tl_world_error(w));
        tl_world_destroy(w);
        return;
    }
    tl_probe_parts t = tl_probe_parts_of(w);
    const tl_particles *p = t.p;
    const tl_pairs *pp = t.pp;
    const size_t n = p->count;
    const double skin = t.nb->skin;
    ENSURE(n == (size_t)(sc->n + sc->giants));
    ENSURE(tl_world_neighbor_builds(w) == 1);
    chunks_seen += t.nb->chunks;
    spills_seen += t.nb->spills;

    /* the listed pairs: valid, within the cut-off in their image, nearest image, once */
    uint64_t *keys = malloc((pp->count + 1) * sizeof *keys);
    size_t bad_index = 0, beyond = 0, not_nearest = 0, bad_shift = 0, reversed = 0;
    for (size_t k = 0; k < pp->count; k++) {
        uint32_t i = pp->a[k], j = pp->b[k];
        if (i >= n || j >= n || i == j) {
            bad_index++;
            keys[k] = 0;
            continue;
        }
        keys[k] = pair_key(i, j);
        /* a is the smaller id, whichever particle found the pair: the orientation (and
         * with it the sign of the tangential history) survives the next build */
        if (p->id[i] > p->id[j]) reversed++;
        int code = pp->img[k];
        int sh[3] = {code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1};
        double d[3], dn[3];
        for (int q = 0; q < 3; q++) {
            if (!t.per->on[q] && sh[q] != 0) bad_shift++;
            d[q] = p->x[j][q] + t.nb->shift[code][q] - p->x[i][q];
            if (t.nb->shift[code][q] != (t.per->on[q] ? sh[q] * t.per->len[q] : 0.0)) bad_shift++;
        }
        nearest(t.per, p->x[i], p->x[j], dn);
        double dist = v3_norm(d), cut = p->radius[i] + p->radius[j] + skin;
        if (!(dist < cut * (1.0 + 1e-12))) beyond++;
        /* the image listed is the nearest one */
        if (!(fabs(dist - v3_norm(dn)) <= 1e-12 * cut)) not_nearest++;
        for (int q = 0; q < 3; q++)
            if (t.per->on[q] && !(fabs(d[q]) <= 0.5 * t.per->len[q] * (1.0 + 1e-12))) not_nearest++;
    }
    qsort(keys, pp->count, sizeof *keys, cmp_u64);
    size_t twice = 0;
    for (size_t k = 1; k < pp->count; k++) twice += keys[k] == keys[k - 1];

    /* brute force: every pair within the cut-off (nearest image) */
    size_t within = 0, missing = 0, ambiguous = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            double d[3];
            nearest(t.per, p->x[i], p->x[j], d);
            double cut = p->radius[i] + p->radius[j] + skin;
            double d2 = v3_norm2(d), c2 = cut * cut;
            if (fabs(d2 - c2) <= 1e-12 * c2) {
                ambiguous++; /* at the cut-off to rounding: either way is right */
                continue;
            }
            if (d2 >= c2) continue;
            within++;
            if (!has_key(keys, pp->count, pair_key(i, j))) missing++;
        }
    fprintf(stderr,
            "%-22s %5zu particles, %d classes, skin %.3g: %zu candidates, %zu by brute force "
            "(%zu at the cut-off); missing %zu, twice %zu, beyond %zu, not nearest %zu\n",
            name, n, t.nb->nlevels, skin, pp->count, within, ambiguous, missing, twice, beyond,
            not_nearest);
    ENSURE(within > n); /* the test means something */
    ENSURE(bad_index == 0);
    ENSURE(bad_shift == 0);
    ENSURE(reversed == 0);
    ENSURE(missing == 0);
    ENSURE(twice == 0);
    ENSURE(beyond == 0);
    ENSURE(not_nearest == 0);
    ENSURE(pp->count >= within && pp->count <= within + ambiguous);
    if (sc->giants) ENSURE(t.nb->nlevels >= 3);
    /* positions were wrapped into the periodic axes at the build */
    size_t outside = 0;
    for (size_t i = 0; i < n; i++)
        for (int q = 0; q < 3; q++)
            if (t.per->on[q] && !(p->x[i][q] >= t.per->lo[q] && p->x[i][q] < t.per->lo[q] + t.per->len[q]))
                outside++;
    ENSURE(outside == 0);
    free(keys);

    /* the same lists, in the same order, from a build on 4 threads */
    size_t npp = pp->count, npw = t.pw->count;
    uint32_t *a0 = malloc((npp + 1) * sizeof *a0), *b0 = malloc((npp + 1) * sizeof *b0);
    uint8_t *i0 = malloc(npp + 1);
    memcpy(a0, pp->a, npp * sizeof *a0);
    memcpy(b0, pp->b, npp * sizeof *b0);
    memcpy(i0, pp->img, npp);
    ENSURE(tl_neighbors_build(t.mem, t.nb, t.p, t.walls, t.per, t.pp, t.pw, t.dom, NULL, 4, NULL) == 0);
    ENSURE(pp->count == npp && t.pw->count == npw);
    ENSURE(pp->count == npp && memcmp(a0, pp->a, npp * sizeof *a0) == 0 &&
           memcmp(b0, pp->b, npp * sizeof *b0) == 0 && memcmp(i0, pp->img, npp) == 0);
    free(a0);
    free(b0);
    free(i0);

    /* particle-face candidates: tl_face_geometry says near and gap below the skin */
    const tl_pairs *pw = t.pw;
    const tl_walls *wl = t.walls;
    if (wl->nfaces > 0) {
        size_t nf = wl->nfaces;
        uint8_t *seen = calloc(n * nf, 1);
        size_t bad = 0, dup = 0, wrong = 0, miss = 0, want = 0;
        for (size_t k = 0; k < pw->count; k++) {
            uint32_t i = pw->a[k], f = pw->b[k];
            if (i >= n || f >= nf) {
                bad++;
                continue;
            }
            if (seen[(size_t)i * nf + f]++) dup++;
            if (pw->img[k] != TL_IMAGE_NONE) bad++;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t f = 0; f < nf; f++) {
                tl_geometry g;
                tl_face_geometry(&wl->f[f], p->x[i], p->radius[i], &g);
                bool near = g.delta > -skin;
                if (near) want++;
                if (near && !seen[i * nf + f]) miss++;
                if (!near && seen[i * nf + f]) wrong++;
            }
        fprintf(stderr, "%-22s %zu faces: %zu face candidates, %zu by brute force; missing %zu, "
                "wrong %zu, twice %zu\n", name, nf, pw->count, want, miss, wrong, dup);
        ENSURE(want > 0);
        ENSURE(bad == 0);
        ENSURE(dup == 0);
        ENSURE(miss == 0);
        ENSURE(wrong == 0);
        ENSURE(pw->count == want);
        free(seen);
    }
    tl_world_destroy(w);
}

static void test_against_brute_force(void) {
    for (int mask = 0; mask < 8; mask++) {
        scene sc;
        memset(&sc, 0, sizeof sc);
        for (int k = 0; k < 3; k++) sc.periodic[k] = (mask >> k) & 1;
        /* a flat box: the periods differ per axis */
        sc.L[0] = 0.2;
        sc.L[1] = 0.18;
        sc.L[2] = 0.165;
        sc.n = 2000;
        sc.giants = 4;
        sc.rmax_ratio = 10.0;
        sc.walls = true;
        sc.seed = 1000u + (uint64_t)mask;
        char name[64];
        snprintf(name, sizeof name, "periodic %c%c%c + giants", sc.periodic[0] ? 'x' : '-',
                 sc.periodic[1] ? 'y' : '-', sc.periodic[2] ? 'z' : '-');
        check_scene(&sc, name);
    }
    /* without the giants: the classes of [r, 10 r] alone, and a dense monodisperse bed */
    scene sc;
    memset(&sc, 0, sizeof sc);
    sc.L[0] = sc.L[1] = sc.L[2] = 0.16;
    sc.n = 2000;
    sc.rmax_ratio = 10.0;
    sc.seed = 7;
    check_scene(&sc, "ratio 10");
    sc.periodic[0] = sc.periodic[1] = sc.periodic[2] = true;
    check_scene(&sc, "ratio 10, periodic xyz");
    sc.L[0] = sc.L[1] = sc.L[2] = 0.03;
    sc.rmax_ratio = 1.0;
    sc.seed = 8;
    check_scene(&sc, "monodisperse, xyz");
    sc.periodic[1] = false;
    check_scene(&sc, "monodisperse, x-z");
    /* a cloud dense enough (about 11 candidates per particle) to outgrow the first build's
     * guess of 6: its chunks search twice */
    sc.L[0] = sc.L[1] = sc.L[2] = 0.02;
    sc.seed = 9;
    check_scene(&sc, "dense cloud, x-z");
    fprintf(stderr, "one-pass build: %lld chunks, %lld searched twice\n", (long long)chunks_seen,
            (long long)spills_seen);
    ENSURE(spills_seen > 0 && spills_seen < chunks_seen);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The build for radius ratio 10 against 1, same particle count and solid fraction. */
static double time_build(double ratio, size_t *candidates, int *levels) {
    const int n = 20000;
    /* solid fraction 0.2: the mean volume of r uniform in [r, ratio r] is 4/3 pi E[R^3] */
    double a = RMIN, b = RMIN * ratio;
    double er3 = ratio > 1.0 ? (pow(b, 4) - pow(a, 4)) / (4.0 * (b - a)) : pow(a, 3);
    double side = cbrt((double)n * 4.0 / 3.0 * TL_PI * er3 / 0.2);
    scene sc;
    memset(&sc, 0, sizeof sc);
    sc.L[0] = sc.L[1] = sc.L[2] = side;
    sc.n = n;
    sc.rmax_ratio = ratio;
    sc.seed = 99;
    tl_world *w = build(&sc);
    double best = INFINITY;
    tl_probe_parts t = tl_probe_parts_of(w);
    if (tl_world_prepare(w) == TL_OK) {
        for (int r = 0; r < 3; r++) {
            double t0 = now();
            tl_neighbors_build(t.mem, t.nb, t.p, t.walls, t.per, t.pp, t.pw, t.dom, NULL, 1, NULL);
            best = fmin(best, now() - t0);
        }
    }
    *candidates = t.pp->count;
    *levels = t.nb->nlevels;
    tl_world_destroy(w);
    return best;
}

static void test_build_time(void) {
    size_t c1, c10;
    int l1, l10;
    double t1 = time_build(1.0, &c1, &l1);
    double t10 = time_build(10.0, &c10, &l10);
    fprintf(stderr,
            "build of 20000 particles (solid fraction 0.2, one thread): ratio 1: %zu candidates, "
            "%d class, %.2f ms; ratio 10: %zu candidates, %d classes, %.2f ms; time ratio %.2f, "
            "per candidate %.2f\n",
            c1, l1, 1e3 * t1, c10, l10, 1e3 * t10, t10 / t1,
            (t10 / (double)c10) / (t1 / (double)c1));
    ENSURE(c1 > 0 && c10 > 0);
}

/* The domains' count: at the default size a power of two (whole domains shared evenly by 2, 4, 8
 * threads or ranks), at a size the user chose the count it gives */
static void test_domain_count(void) {
    tl_neighbors nb;
    tl_neighbors_init(&nb, 1e-3);
    const size_t n[] = {1000, 8191, 8192, 20000, 49152, 50000, 100000, 1000000};
    const size_t want[] = {1, 1, 2, 2, 4, 4, 8, 64};
    for (size_t k = 0; k < sizeof n / sizeof *n; k++) {
        size_t got = tl_neighbors_domain_count(&nb, n[k]);
        if (got != want[k]) fprintf(stderr, "%zu particles: %zu domains, not %zu\n", n[k], got, want[k]);
        ENSURE(got == want[k]);
    }
    nb.domain_size = 450; /* the user's: 1800 / 450 = 4, 1350 / 450 = 3 */
    ENSURE(tl_neighbors_domain_count(&nb, 1800) == 4);
    ENSURE(tl_neighbors_domain_count(&nb, 1350) == 3);
}

int main(void) {
    test_domain_count();
    test_against_brute_force();
    test_build_time();
    return tl_test_report("test_neighbors");
}
