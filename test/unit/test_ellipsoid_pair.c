/* The ellipsoid contact (ellipsoid_pair.c): the minimum overlap over
 * directions with the curvature radius, checked
 *   - on spheres given as ellipsoids, against the sphere geometry (1e-12);
 *   - on two ellipsoids tip to tip along a common axis, against the closed
 *     form: overlap a1 + a2 - d, R_e = 1/sqrt((a1/b1^2 + a2/b2^2)(a1/c1^2 + a2/c2^2));
 *   - against a plane, closed form for any orientation: overlap sqrt(n^T M n) - dist;
 *   - swapped bodies: the same overlap, the normal reversed;
 *   - against libccd's GJK + EPA penetration depth and direction (Debian's libccd,
 *     support functions of the ellipsoids) for 60 random poses with overlaps of
 *     1e-4 to 1e-2 of the size (both measure the minimum translation distance);
 *   - robustness: 10:1 needles, deep overlaps, nearly touching: finite results;
 * and the cost per query. Reaches into src/. */
#include <ccd/ccd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ellipsoid_pair.h"
#include "rigid.h"
#include "test.h"
#include "walls.h"

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}
static double urand(uint64_t *s) { return (double)lcg(s) * 0x1.0p-53; }

static void random_quat(uint64_t *s, double q[4]) {
    double u1 = urand(s), u2 = urand(s), u3 = urand(s), a = sqrt(1 - u1), b = sqrt(u1);
    q[0] = a * sin(6.283185307179586 * u2);
    q[1] = a * cos(6.283185307179586 * u2);
    q[2] = b * sin(6.283185307179586 * u3);
    q[3] = b * cos(6.283185307179586 * u3);
}

typedef struct body_store {
    tl_shape shape;
    tl_body body;
} body_store;

static void make(body_store *bs, double a, double b, double c, const double x[3], const double q[4]) {
    memset(bs, 0, sizeof *bs);
    bs->shape.kind = TL_SHAPE_ELLIPSOID;
    bs->shape.semi[0] = a;
    bs->shape.semi[1] = b;
    bs->shape.semi[2] = c;
    bs->shape.radius = fmax(a, fmax(b, c));
    bs->body.shape = &bs->shape;
    bs->body.radius = bs->shape.radius;
    tl_pose_from(&bs->body.pose, x, q);
}

/* libccd: the support point of an ellipsoid (centre x, M = R D^2 R^T) along dir */
static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out) {
    const tl_body *b = obj;
    double d[3] = {dir->v[0], dir->v[1], dir->v[2]}, bd[3], M[3];
    double Rm[3][3];
    memcpy(Rm, b->pose.R, sizeof Rm);
    m3_tmul(bd, Rm, d);
    for (int k = 0; k < 3; k++) bd[k] *= b->shape->semi[k] * b->shape->semi[k];
    m3_mul(M, Rm, bd);
    double h = sqrt(M[0] * d[0] + M[1] * d[1] + M[2] * d[2]);
    for (int k = 0; k < 3; k++) out->v[k] = b->pose.x[k] + M[k] / h;
}


static void centre(const void *obj, ccd_vec3_t *c) {
    const tl_body *b = obj;
    for (int k = 0; k < 3; k++) c->v[k] = b->pose.x[k];
}

static void test_spheres(void) {
    double q1[4] = {1, 0, 0, 0}, q2[4] = {0.5, 0.5, 0.5, 0.5};
    double xa[3] = {0.1, 0.2, 0.3}, xb[3] = {0.1 + 0.0031, 0.2 - 0.0012, 0.3 + 0.0007};
    body_store a, b;
    make(&a, 0.002, 0.002, 0.002, xa, q1);
    make(&b, 0.0015, 0.0015, 0.0015, xb, q2);
    tl_patch p;
    ENSURE(tl_ellipsoid_pair(&a.body, &b.body, NULL, &p, NULL) == 1);
    tl_geometry g;
    tl_geometry_sphere_sphere(xa, 0.002, xb, 0.0015, &g);
    ENSURE_REL(p.delta, g.delta, 1e-10);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(p.n[k], g.n[k], 1e-12);
    ENSURE_REL(p.r_eff, 0.002 * 0.0015 / 0.0035, 1e-10);
    double mid[3];
    for (int k = 0; k < 3; k++) mid[k] = xa[k] + (0.002 - 0.5 * g.delta) * g.n[k];
    for (int k = 0; k < 3; k++) ENSURE_NEAR(p.p[k], mid[k], 1e-14);
    /* a sphere body (shape NULL) against an ellipsoid, and against a face */
    tl_body s = {.shape = NULL, .radius = 0.002, .pose = {{0.1, 0.2, 0.3}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}};
    ENSURE(tl_ellipsoid_pair(&s, &b.body, NULL, &p, NULL) == 1);
    ENSURE_REL(p.delta, g.delta, 1e-10);
    fprintf(stderr, "spheres as ellipsoids: overlap %.15g (sphere geometry %.15g), R_e %.15g\n", p.delta, g.delta,
            p.r_eff);
}

static void test_tip_to_tip(void) {
    /* a1 along x of each: (3, 2, 1) mm and (2.5, 1.5, 2) mm, centres 5.4 mm apart on x */
    double q[4] = {1, 0, 0, 0}, xa[3] = {0, 0, 0}, xb[3] = {0.0054, 0, 0};
    body_store a, b;
    make(&a, 0.003, 0.002, 0.001, xa, q);
    make(&b, 0.0025, 0.0015, 0.002, xb, q);
    tl_patch p;
    ENSURE(tl_ellipsoid_pair(&a.body, &b.body, NULL, &p, NULL) == 1);
    double ka = 0.003 / (0.002 * 0.002) + 0.0025 / (0.0015 * 0.0015);
    double kb = 0.003 / (0.001 * 0.001) + 0.0025 / (0.002 * 0.002);
    ENSURE_REL(p.delta, 0.003 + 0.0025 - 0.0054, 1e-12);
    ENSURE_NEAR(p.n[0], 1.0, 1e-14);
    ENSURE_REL(p.r_eff, 1.0 / sqrt(ka * kb), 1e-10);
    /* swapped */
    tl_patch r;
    ENSURE(tl_ellipsoid_pair(&b.body, &a.body, NULL, &r, NULL) == 1);
    ENSURE_REL(r.delta, p.delta, 1e-12);
    ENSURE_NEAR(r.n[0], -1.0, 1e-14);
    ENSURE_REL(r.r_eff, p.r_eff, 1e-10);
    fprintf(stderr, "tip to tip: overlap %.15g (closed form %.15g), R_e %.15g (closed form %.15g)\n", p.delta,
            0.003 + 0.0025 - 0.0054, p.r_eff, 1.0 / sqrt(ka * kb));
}

static void test_plane(void) {
    uint64_t seed = 5;
    double worst = 0.0, worst_r = 0.0;
    for (int t = 0; t < 200; t++) {
        double q[4];
        random_quat(&seed, q);
        double x[3] = {0, 0, 0.0009 + 0.002 * urand(&seed)};
        body_store a;
        make(&a, 0.003, 0.002, 0.001, x, q);
        tl_face f;
        memset(&f, 0, sizeof f);
        f.kind = TL_FACE_PLANE;
        v3_set(f.n, 0, 0, 1);
        tl_patch p;
        int got = tl_ellipsoid_face(&a.body, &f, &p);
        /* closed form: the extent along z, sqrt(n^T M n) */
        double nb[3] = {0, 0, 1}, bn[3];
        double R[3][3];
        memcpy(R, a.body.pose.R, sizeof R);
        m3_tmul(bn, R, nb);
        double h = sqrt(bn[0] * bn[0] * 9e-6 + bn[1] * bn[1] * 4e-6 + bn[2] * bn[2] * 1e-6);
        double want = h - x[2];
        if (want > 0) {
            ENSURE(got == 1);
            if (got) worst = fmax(worst, fabs(p.delta - want));
            ENSURE_NEAR(p.n[2], -1.0, 1e-15);
            /* the Gaussian curvature where the normal is n: h^4 / (abc)^2, so R_e = abc / h^2 */
            if (got) worst_r = fmax(worst_r, fabs(p.r_eff / (0.003 * 0.002 * 0.001 / (h * h)) - 1.0));
        } else {
            ENSURE(got == 0);
        }
    }
    fprintf(stderr,
            "ellipsoid on a plane, 200 orientations: overlap within %.2g m of sqrt(n^T M n) - z, R_e within %.2g "
            "relative of abc / h^2\n",
            worst, worst_r);
    ENSURE(worst < 1e-18);
    ENSURE(worst_r < 1e-13);
}

static void ccd_compare(double tol, double *wd, double *wn, int *count) {
    uint64_t seed = 11;
    double worst_d = 0.0, worst_n = 0.0;
    int compared = 0;
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = support;
    ccd.support2 = support;
    ccd.center1 = centre;
    ccd.center2 = centre;
    ccd.max_iterations = 20000;
    ccd.epa_tolerance = tol;
    ccd.mpr_tolerance = 1e-10;
    ccd.dist_tolerance = 1e-12;
    for (int t = 0; t < 60; t++) {
        double qa[4], qb[4], dir[3];
        random_quat(&seed, qa);
        random_quat(&seed, qb);
        double z = 2 * urand(&seed) - 1, ph = 6.283185307179586 * urand(&seed);
        v3_set(dir, sqrt(1 - z * z) * cos(ph), sqrt(1 - z * z) * sin(ph), z);
        double xa[3] = {0, 0, 0};
        body_store a, b;
        make(&a, 3.0, 2.0, 1.2, xa, qa); /* unit sizes: libccd's tolerances are absolute */
        make(&b, 2.5, 2.5, 1.0, xa, qb);
        /* place b along dir at first touch, then push it in by a relative overlap 1e-4 .. 1e-2 */
        double lo = 0.0, hi = 6.0;
        for (int k = 0; k < 80; k++) {
            double mid = 0.5 * (lo + hi);
            for (int j = 0; j < 3; j++) b.body.pose.x[j] = mid * dir[j];
            tl_patch p;
            if (tl_ellipsoid_pair(&a.body, &b.body, NULL, &p, NULL)) lo = mid;
            else hi = mid;
        }
        double push = 0.001 * pow(10.0, 2.0 * urand(&seed) - 1.0) * 2.0;
        for (int j = 0; j < 3; j++) b.body.pose.x[j] = (lo - push) * dir[j];
        tl_patch p;
        if (!tl_ellipsoid_pair(&a.body, &b.body, NULL, &p, NULL)) {
            ENSURE(false);
            continue;
        }
        /* the same pair with the bodies' matrices worked out beforehand (as the shape stage's
         * table gives them): the same numbers, bit for bit */
        double Ma[9], Mia[9], Mb[9], Mib[9];
        tl_ellipsoid_matrices(&a.body, Ma, Mia);
        tl_ellipsoid_matrices(&b.body, Mb, Mib);
        tl_body ta = a.body, tb = b.body;
        ta.M = Ma;
        ta.Mi = Mia;
        tb.M = Mb;
        tb.Mi = Mib;
        tl_patch pt;
        ENSURE(tl_ellipsoid_pair(&ta, &tb, NULL, &pt, NULL) == 1);
        ENSURE(pt.delta == p.delta && pt.r_eff == p.r_eff);
        for (int j = 0; j < 3; j++) ENSURE(pt.n[j] == p.n[j] && pt.p[j] == p.p[j]);
        ccd_real_t depth;
        ccd_vec3_t cdir, pos;
        if (ccdGJKPenetration(&a.body, &b.body, &ccd, &depth, &cdir, &pos) != 0) continue;
        double dn = sqrt(cdir.v[0] * cdir.v[0] + cdir.v[1] * cdir.v[1] + cdir.v[2] * cdir.v[2]);
        double cn[3] = {cdir.v[0] / dn, cdir.v[1] / dn, cdir.v[2] / dn};
        double dd = fabs(depth - p.delta) / p.delta, nd = sqrt((cn[0] - p.n[0]) * (cn[0] - p.n[0]) +
                                                               (cn[1] - p.n[1]) * (cn[1] - p.n[1]) +
                                                               (cn[2] - p.n[2]) * (cn[2] - p.n[2]));
        worst_d = fmax(worst_d, dd);
        worst_n = fmax(worst_n, nd);
        compared++;
    }
    *wd = worst_d;
    *wn = worst_n;
    *count = compared;
}

/* EPA refines a polytope inside the bodies' Minkowski difference: on smooth bodies its depth
 * approaches the exact one as its tolerance tightens */
static void test_ccd(void) {
    double d1, n1, d2, n2;
    int c1, c2;
    ccd_compare(1e-11, &d1, &n1, &c1);
    ccd_compare(1e-13, &d2, &n2, &c2);
    fprintf(stderr,
            "against libccd GJK+EPA (unit-size ellipsoids, overlaps 1e-4 to 1e-2 of the size), %d poses: EPA "
            "tolerance 1e-11: depth within %.2g relative, normal within %.2g; 1e-13: %.2g, %.2g\n",
            c2, d1, n1, d2, n2);
    ENSURE(c1 >= 55 && c2 >= 55);
    ENSURE(d2 < d1 && d2 < 2e-3);
    ENSURE(n2 < 1e-3);
}

/* a touching pair of random attitudes: b along a random direction from a, at first touch less a
 * relative overlap of 1e-4 to 1e-2 */
static void touching_pair(uint64_t *seed, body_store *a, body_store *b) {
    double qa[4], qb[4], dir[3], xa[3] = {0, 0, 0};
    random_quat(seed, qa);
    random_quat(seed, qb);
    double z = 2 * urand(seed) - 1, ph = 6.283185307179586 * urand(seed);
    v3_set(dir, sqrt(1 - z * z) * cos(ph), sqrt(1 - z * z) * sin(ph), z);
    make(a, 0.003, 0.002, 0.0012, xa, qa);
    make(b, 0.0025, 0.0025, 0.001, xa, qb);
    double lo = 0.0, hi = 0.006;
    for (int k = 0; k < 80; k++) {
        double mid = 0.5 * (lo + hi);
        for (int j = 0; j < 3; j++) b->body.pose.x[j] = mid * dir[j];
        tl_patch p;
        if (tl_ellipsoid_pair(&a->body, &b->body, NULL, &p, NULL)) lo = mid;
        else hi = mid;
    }
    double push = 0.001 * pow(10.0, 2.0 * urand(seed) - 1.0) * 0.002;
    for (int j = 0; j < 3; j++) b->body.pose.x[j] = (lo - push) * dir[j];
}

/* The search started from a given normal (the shape stage gives the last step's): the same
 * minimum as from the line of centres, from a start near it (a step's turn) or far from it (a
 * radian away), and a separated pair still found apart from any start. */
static void test_warm_start(void) {
    uint64_t seed = 23;
    double worst_d = 0.0, worst_n = 0.0, worst_r = 0.0;
    int apart = 0;
    for (int t = 0; t < 100; t++) {
        body_store a, b;
        touching_pair(&seed, &a, &b);
        tl_patch cold;
        if (!tl_ellipsoid_pair(&a.body, &b.body, NULL, &cold, NULL)) {
            ENSURE(false);
            continue;
        }
        for (int s = 0; s < 3; s++) {
            /* the normal turned about a direction across it by 1e-5, 1e-2 or 1 rad */
            double ang = s == 0 ? 1e-5 : s == 1 ? 1e-2 : 1.0, t1[3], t2[3], hint[3], any[3] = {0.3, -0.5, 0.8};
            v3_reject(t1, any, cold.n);
            v3_scale(t1, t1, 1.0 / v3_norm(t1));
            for (int j = 0; j < 3; j++) hint[j] = cos(ang) * cold.n[j] + sin(ang) * t1[j];
            (void)t2;
            tl_patch warm;
            ENSURE(tl_ellipsoid_pair(&a.body, &b.body, hint, &warm, NULL) == 1);
            worst_d = fmax(worst_d, fabs(warm.delta - cold.delta) / cold.delta);
            double dn[3];
            v3_sub(dn, warm.n, cold.n);
            worst_n = fmax(worst_n, v3_norm(dn));
            worst_r = fmax(worst_r, fabs(warm.r_eff / cold.r_eff - 1.0));
        }
        /* moved apart along the normal by twice the overlap: no start finds them touching */
        for (int j = 0; j < 3; j++) b.body.pose.x[j] += 2.0 * cold.delta * cold.n[j];
        tl_patch p;
        apart += tl_ellipsoid_pair(&a.body, &b.body, cold.n, &p, NULL) == 0 &&
                 tl_ellipsoid_pair(&a.body, &b.body, NULL, &p, NULL) == 0;
    }
    fprintf(stderr,
            "warm starts (1e-5, 1e-2, 1 rad from the minimum), 100 touching pairs: overlap within %.2g relative, "
            "normal within %.2g, R_e within %.2g of the cold start's; %d of 100 apart when moved apart\n",
            worst_d, worst_n, worst_r, apart);
    ENSURE(worst_d < 1e-9 && worst_n < 1e-9 && worst_r < 1e-8);
    ENSURE(apart == 100);
}

static void test_robust(void) {
    uint64_t seed = 17;
    int finite = 0, n = 0;
    clock_t t0 = clock();
    long queries = 0;
    for (int t = 0; t < 2000; t++) {
        double qa[4], qb[4];
        random_quat(&seed, qa);
        random_quat(&seed, qb);
        double xa[3] = {0, 0, 0}, xb[3] = {0.004 * (urand(&seed) - 0.5), 0.004 * (urand(&seed) - 0.5),
                                           0.004 * (urand(&seed) - 0.5)};
        body_store a, b;
        if (t % 2) make(&a, 0.005, 0.0005, 0.0005, xa, qa); /* 10:1 needles */
        else make(&a, 0.002, 0.00199, 0.00201, xa, qa);    /* nearly a sphere */
        make(&b, 0.003, 0.0003, 0.0008, xb, qb);
        tl_patch p;
        int got = tl_ellipsoid_pair(&a.body, &b.body, NULL, &p, NULL);
        queries++;
        if (got) {
            n++;
            finite += isfinite(p.delta) && isfinite(p.r_eff) && isfinite(p.n[0]) && p.delta > 0.0 &&
                      fabs(v3_norm(p.n) - 1.0) < 1e-12;
        }
    }
    double ns = 1e9 * (double)(clock() - t0) / CLOCKS_PER_SEC / (double)queries;
    fprintf(stderr, "robustness: %d of 2000 random pairs (needles, near-spheres, deep overlaps) touch, %d finite; "
                    "%.0f ns per query\n",
            n, finite, ns);
    ENSURE(n > 100 && finite == n);
}

int main(void) {
    test_spheres();
    test_tip_to_tip();
    test_plane();
    test_ccd();
    test_warm_start();
    test_robust();
    return tl_test_report("test_ellipsoid_pair");
}
