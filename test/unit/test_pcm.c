/*
 * Mesh contact (src/geometry/pcm.c): faceted spheres against a plane and
 * against each other converge to the analytic sphere as the facets
 * increase; the result is symmetric in the two bodies; flat and non-convex
 * contacts; agreement with GJK/EPA of libccd for convex meshes; the
 * sphere-mesh closest feature is continuous across edges and vertices; the
 * cost of a query. Reaches into src/ (pcm.h).
 */
#include <ccd/ccd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mass.h"
#include "mesh_util.h"
#include "pcm.h"
#include "test.h"
#include "vec.h"

static char msg[512];
static tl_mem mem;

static double angle(const double a[3], const double b[3]) {
    double x[3];
    v3_cross(x, a, b);
    return atan2(v3_norm(x), v3_dot(a, b));
}

/* the area of the circle where two spheres (radii r1, r2, centres d apart) meet */
static double lens_area(double r1, double r2, double d) {
    double x = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
    return TL_PI * (r1 * r1 - x * x);
}

typedef struct errs {
    double delta, n, p, r_area; /* largest relative errors (n: radians) */
    double delta_mean;
    int patches_bad;
} errs;

static const char *const depth_name[] = {"volume", "line", "max"};

/* an icosphere (radius 1) at random orientations above the plane z = 0, overlap d */
static errs sphere_plane(const tl_mesh *m, double d, const tl_pcm_opts *o, int samples, tl_pcm_scratch *s) {
    errs e = {0};
    trng r = {11};
    tl_face f;
    memset(&f, 0, sizeof f);
    f.kind = TL_FACE_PLANE;
    v3_set(f.n, 0.0, 0.0, 1.0);
    for (int t = 0; t < samples; t++) {
        double R[3][3], x[3] = {0.0, 0.0, 1.0 - d};
        trng_rotation(&r, R);
        tl_pose pa;
        pose_set(&pa, x, (const double(*)[3])R);
        tl_patch p[4];
        int n = tl_pcm_mesh_plane(m, &pa, &f, o, p, 4, s);
        if (n != 1) {
            e.patches_bad++;
            continue;
        }
        double nz[3] = {0.0, 0.0, -1.0}, pan[3] = {0.0, 0.0, -0.5 * d}, dp[3];
        v3_sub(dp, p[0].p, pan);
        double A = TL_PI * (2.0 * d - d * d);
        e.delta = dmax(e.delta, fabs(p[0].delta / d - 1.0));
        e.delta_mean += fabs(p[0].delta / d - 1.0) / samples;
        e.n = dmax(e.n, angle(p[0].n, nz));
        e.p = dmax(e.p, v3_norm(dp) / d);
        double ra = p[0].area / (2.0 * TL_PI * p[0].delta);
        e.r_area = dmax(e.r_area, fabs(ra / (A / (2.0 * TL_PI * d)) - 1.0));
    }
    return e;
}

/* icospheres of radii 1 and r2 at random orientations, touching along random directions */
static errs sphere_sphere(const tl_mesh *a, const tl_mesh *b, double r2, double d, const tl_pcm_opts *o, int samples,
                          tl_pcm_scratch *s) {
    errs e = {0};
    trng r = {23};
    for (int t = 0; t < samples; t++) {
        double Ra[3][3], Rb[3][3], u[3], xa[3] = {0.1, -0.2, 0.3}, xb[3];
        trng_rotation(&r, Ra);
        trng_rotation(&r, Rb);
        trng_dir(&r, u);
        v3_copy(xb, xa);
        v3_axpy(xb, 1.0 + r2 - d, u);
        tl_pose pa, pb;
        pose_set(&pa, xa, (const double(*)[3])Ra);
        pose_set(&pb, xb, (const double(*)[3])Rb);
        tl_patch p[4];
        int n = tl_pcm_mesh_mesh(a, &pa, b, &pb, o, p, 4, s);
        if (n != 1) {
            e.patches_bad++;
            continue;
        }
        double pan[3], dp[3];
        v3_copy(pan, xa);
        v3_axpy(pan, 1.0 - 0.5 * d, u);
        v3_sub(dp, p[0].p, pan);
        double A = lens_area(1.0, r2, 1.0 + r2 - d);
        e.delta = dmax(e.delta, fabs(p[0].delta / d - 1.0));
        e.delta_mean += fabs(p[0].delta / d - 1.0) / samples;
        e.n = dmax(e.n, angle(p[0].n, u));
        e.p = dmax(e.p, v3_norm(dp) / d);
        double ra = p[0].area / (2.0 * TL_PI * p[0].delta);
        e.r_area = dmax(e.r_area, fabs(ra / (A / (2.0 * TL_PI * d)) - 1.0));
    }
    return e;
}

/* icospheres of radius r (vertices on the sphere) or of the sphere's volume */
static void icospheres(tl_mesh *m, double r, bool equal_volume) {
    for (int k = 2; k <= 5; k++) {
        ENSURE_OK(tl_mesh_icosphere(&mem, &m[k], r, k, msg, sizeof msg));
        if (!equal_volume) continue;
        double s = cbrt(4.0 / 3.0 * TL_PI * r * r * r / m[k].volume);
        tl_mesh_free(&m[k]);
        ENSURE_OK(tl_mesh_icosphere(&mem, &m[k], s * r, k, msg, sizeof msg));
    }
}

static void test_convergence(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    tl_mesh ico[6], small[6];
    const double d = 0.02;
    const int samples = 24;
    fprintf(stderr, "faceted spheres, overlap %.2g R, largest errors over %d orientations (delta: relative, mean in "
                    "brackets; n: rad; p: / delta; r_eff = A / (2 pi delta): relative):\n",
            d, samples);
    for (int vol = 0; vol < 2; vol++) {
        icospheres(ico, 1.0, vol == 1);
        icospheres(small, 0.7, vol == 1);
        for (int pair = 0; pair < 2; pair++) {
            fprintf(stderr, "  %s, icospheres %s\n", pair == 0 ? "R = 1 on a plane" : "R = 1 and 0.7",
                    vol ? "of the sphere's volume" : "with their vertices on the sphere");
            fprintf(stderr, "  depth  elements  k  vertices  delta                n         p         r_eff\n");
            for (int mode = 0; mode < 3; mode++)
                for (int whole = 0; whole < 2; whole++) {
                    /* the other rules only once, on the spheres of the vertices */
                    if (vol && whole) continue;
                    tl_pcm_opts o = {(tl_pcm_depth)mode, TL_PCM_RADIUS_AREA, whole == 1, NULL};
                    double prev = INFINITY, prev_n = INFINITY, prev_p = INFINITY, prev_r = INFINITY;
                    for (int k = 2; k <= 5; k++) {
                        errs e = pair == 0 ? sphere_plane(&ico[k], d, &o, samples, &s)
                                           : sphere_sphere(&ico[k], &small[k], 0.7, d, &o, samples, &s);
                        fprintf(stderr, "  %-6s %-8s  %d  %8zu  %8.2e (%8.2e)  %8.2e  %8.2e  %8.2e%s\n",
                                depth_name[mode], whole ? "whole" : "clipped", k, ico[k].nv, e.delta, e.delta_mean,
                                e.n, e.p, e.r_area, e.patches_bad ? "  (patch count wrong)" : "");
                        if (mode != TL_PCM_DEPTH_VOLUME || whole) continue;
                        /* the default: every error falls with the facets; one patch from k = 3
                         * (at k = 2 the facets, 0.3 R across, can miss each other at this overlap) */
                        ENSURE(e.patches_bad == 0 || k == 2);
                        ENSURE(e.delta < prev);
                        ENSURE(e.n < prev_n || e.n < 1e-12);
                        ENSURE(e.p < prev_p);
                        ENSURE(e.r_area < prev_r);
                        prev = e.delta;
                        prev_n = e.n;
                        prev_p = e.p;
                        prev_r = e.r_area;
                        if (k == 5) {
                            /* with vertices on the sphere the facets lie inside it: each body's
                             * overlap is short by about its facets' mean sagitta */
                            ENSURE(e.delta < (vol ? 0.015 : 0.03));
                            ENSURE(e.n < 1e-4);
                            ENSURE(e.p < 0.015);
                            ENSURE(e.r_area < 0.01);
                        }
                    }
                }
        }
        for (int k = 2; k <= 5; k++) {
            tl_mesh_free(&ico[k]);
            tl_mesh_free(&small[k]);
        }
    }
    tl_pcm_scratch_free(&s);
}

/* ---- symmetry ---- */

static void test_symmetry(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    tl_mesh a, b;
    ENSURE_OK(tl_mesh_icosphere(&mem, &a, 1.0, 3, msg, sizeof msg));
    ENSURE_OK(tl_mesh_ellipsoid(&mem, &b, 1.2, 0.8, 0.6, 500, msg, sizeof msg));
    trng r = {5};
    int compared = 0;
    double worst = 0.0;
    for (int t = 0; t < 60; t++) {
        double Ra[3][3], Rb[3][3], u[3], xa[3] = {1.0, 2.0, 3.0}, xb[3];
        trng_rotation(&r, Ra);
        trng_rotation(&r, Rb);
        trng_dir(&r, u);
        v3_copy(xb, xa);
        v3_axpy(xb, 1.0 + 0.6 + 0.6 * trng_uniform(&r) - 0.05, u);
        tl_pose pa, pb;
        pose_set(&pa, xa, (const double(*)[3])Ra);
        pose_set(&pb, xb, (const double(*)[3])Rb);
        for (int mode = 0; mode < 3; mode++) {
            tl_pcm_opts o = {(tl_pcm_depth)mode, TL_PCM_RADIUS_AREA, false, NULL};
            tl_patch p[4], q[4];
            int n1 = tl_pcm_mesh_mesh(&a, &pa, &b, &pb, &o, p, 4, &s);
            int n2 = tl_pcm_mesh_mesh(&b, &pb, &a, &pa, &o, q, 4, &s);
            ENSURE(n1 == n2);
            if (n1 != 1 || n2 != 1) continue;
            compared++;
            double e = fabs(p[0].delta - q[0].delta) / p[0].delta;
            double sum[3], dp[3];
            v3_add(sum, p[0].n, q[0].n);
            v3_sub(dp, p[0].p, q[0].p);
            e = dmax(e, v3_norm(sum));
            e = dmax(e, v3_norm(dp) / p[0].delta);
            e = dmax(e, fabs(p[0].area - q[0].area) / p[0].area);
            e = dmax(e, fabs(p[0].r_eff - q[0].r_eff) / p[0].r_eff);
            worst = dmax(worst, e);
        }
    }
    /* a body wholly inside another (no surfaces crossing) is pushed out towards the nearest
     * surface, by the distance there plus its radius; swapped, the same with n reversed */
    {
        tl_mesh big;
        ENSURE_OK(tl_mesh_icosphere(&mem, &big, 5.0, 4, msg, sizeof msg));
        double xo[3] = {0.0, 0.0, 0.0}, xi[3] = {1.0, 0.5, 0.2};
        tl_pose po, pi;
        pose_identity(&po, xo);
        pose_identity(&pi, xi);
        tl_patch p[2], q[2];
        ENSURE(tl_pcm_mesh_mesh(&big, &po, &a, &pi, NULL, p, 2, &s) == 1);
        ENSURE(tl_pcm_mesh_mesh(&a, &pi, &big, &po, NULL, q, 2, &s) == 1);
        double u[3];
        v3_scale(u, xi, 1.0 / v3_norm(xi));
        ENSURE(angle(p[0].n, u) < 0.05);
        ENSURE_NEAR(p[0].delta, 5.0 - v3_norm(xi) + a.radius, 0.02);
        double sum[3];
        v3_add(sum, p[0].n, q[0].n);
        ENSURE(v3_norm(sum) < 1e-12 && p[0].delta == q[0].delta);
        tl_mesh_free(&big);
    }
    /* a scratch that served other queries gives the same bits as a fresh one */
    {
        double Ra[3][3], xa[3] = {0, 0, 0}, xb[3] = {1.55, 0.2, -0.1};
        trng_rotation(&r, Ra);
        tl_pose pa, pb;
        pose_set(&pa, xa, (const double(*)[3])Ra);
        pose_identity(&pb, xb);
        tl_pcm_scratch fresh;
        tl_pcm_scratch_init(&fresh, &mem);
        tl_patch p[4], q[4];
        memset(p, 0, sizeof p);
        memset(q, 0, sizeof q);
        int n1 = tl_pcm_mesh_mesh(&a, &pa, &b, &pb, NULL, p, 4, &s);
        int n2 = tl_pcm_mesh_mesh(&a, &pa, &b, &pb, NULL, q, 4, &fresh);
        ENSURE(n1 == 1 && n2 == 1);
        ENSURE(memcmp(p, q, sizeof p) == 0);
        tl_pcm_scratch_free(&fresh);
    }
    fprintf(stderr, "symmetry: %d pairs (icosphere k = 3 and an ellipsoid mesh, 3 depth rules), largest relative "
                    "difference on swapping a and b: %.2e\n",
            compared, worst);
    ENSURE(compared > 60);
    ENSURE(worst < 1e-10);
    tl_mesh_free(&a);
    tl_mesh_free(&b);
    tl_pcm_scratch_free(&s);
}

static tl_status grid_mesh(tl_mesh *m);

/* ---- smoothness: a faceted sphere rolling in place ---- */

static void test_rolling(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    tl_mesh a, b;
    ENSURE_OK(tl_mesh_icosphere(&mem, &a, 1.0, 3, msg, sizeof msg));
    ENSURE_OK(tl_mesh_icosphere(&mem, &b, 1.0, 3, msg, sizeof msg));
    tl_face f;
    memset(&f, 0, sizeof f);
    f.kind = TL_FACE_PLANE;
    v3_set(f.n, 0.0, 0.0, 1.0);
    const double d = 0.02, step = 0.05 * TL_PI / 180.0;
    fprintf(stderr, "a 642-vertex icosphere turned in steps of 0.05 deg over 30 deg, overlap %.2g R: largest change "
                    "of delta between steps, relative to delta (and range over the turn)\n", d);
    double jump_vol[2] = {0, 0};
    for (int pair = 0; pair < 2; pair++)
        for (int mode = 0; mode < 3; mode++) {
            tl_pcm_opts o = {(tl_pcm_depth)mode, TL_PCM_RADIUS_VOLUME, false, NULL};
            double prev = NAN, jump = 0.0, lo = INFINITY, hi = 0.0;
            int bad = 0;
            for (int i = 0; i <= 600; i++) {
                double t = i * step, R[3][3] = {{cos(t), 0, sin(t)}, {0, 1, 0}, {-sin(t), 0, cos(t)}};
                double xa[3] = {0.0, 0.0, 1.0 - d}, xb[3] = {0.0, 0.0, -1.0};
                tl_pose pa, pb;
                pose_set(&pa, xa, (const double(*)[3])R);
                pose_identity(&pb, xb);
                tl_patch p[2];
                int n = pair == 0 ? tl_pcm_mesh_plane(&a, &pa, &f, &o, p, 2, &s)
                                  : tl_pcm_mesh_mesh(&a, &pa, &b, &pb, &o, p, 2, &s);
                if (n != 1) {
                    bad++;
                    continue;
                }
                if (!isnan(prev)) jump = dmax(jump, fabs(p[0].delta - prev) / d);
                prev = p[0].delta;
                lo = dmin(lo, p[0].delta);
                hi = dmax(hi, p[0].delta);
            }
            fprintf(stderr, "  %s, depth %-6s: largest step %.2e, range %.3f to %.3f delta\n",
                    pair == 0 ? "on a plane     " : "on an icosphere", depth_name[mode], jump, lo / d, hi / d);
            ENSURE(bad == 0 || pair == 1);
            if (mode == TL_PCM_DEPTH_VOLUME) jump_vol[pair] = jump;
        }
    /* the volume rule moves by less than 1 % of delta per 0.05 deg */
    ENSURE(jump_vol[0] < 0.01);
    ENSURE(jump_vol[1] < 0.01);
    tl_mesh_free(&a);
    tl_mesh_free(&b);
    tl_pcm_scratch_free(&s);
}

/* ---- flat and non-convex contacts ---- */

/* a Pi-shaped arch: the polygon (x, z) (0,0) (1,0) (1,1) (2,1) (2,0) (3,0) (3,1) (3,2) (0,2) (0,1)
 * extruded along y over [0, L]: two legs, x in [0, 1] and [2, 3], standing on z = 0 */
static tl_status arch_mesh(tl_mesh *m, double L) {
    static const double poly[10][2] = {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 0}, {3, 0}, {3, 1}, {3, 2}, {0, 2}, {0, 1}};
    static const uint32_t cap[8][3] = {{0, 1, 2}, {0, 2, 9}, {4, 5, 6}, {4, 6, 3}, {8, 9, 2}, {8, 2, 3}, {8, 3, 6}, {8, 6, 7}};
    double xyz[60];
    uint32_t tri[3 * 36];
    for (int i = 0; i < 10; i++) {
        xyz[3 * i] = xyz[3 * (i + 10)] = poly[i][0];
        xyz[3 * i + 1] = 0.0;
        xyz[3 * (i + 10) + 1] = L;
        xyz[3 * i + 2] = xyz[3 * (i + 10) + 2] = poly[i][1];
    }
    int t = 0;
    for (int i = 0; i < 8; i++) {
        /* counter-clockwise in (x, z): normal -y, the cap at y = 0; reversed at y = L */
        uint32_t c0[3] = {cap[i][0], cap[i][1], cap[i][2]}, c1[3] = {cap[i][0] + 10, cap[i][2] + 10, cap[i][1] + 10};
        memcpy(&tri[3 * t++], c0, sizeof c0);
        memcpy(&tri[3 * t++], c1, sizeof c1);
    }
    for (uint32_t i = 0; i < 10; i++) {
        uint32_t j = (i + 1) % 10, w0[3] = {i, j + 10, j}, w1[3] = {i, i + 10, j + 10};
        memcpy(&tri[3 * t++], w0, sizeof w0);
        memcpy(&tri[3 * t++], w1, sizeof w1);
    }
    tl_status st = tl_mesh_from_arrays(&mem, m, xyz, 20, tri, 36, NULL, "arch", msg, sizeof msg);
    if (st != TL_OK) fprintf(stderr, "%s\n", msg);
    return st;
}

static void test_flat(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    tl_mesh cube, floor_mesh;
    double lo[3] = {-0.5, -0.5, -0.5}, hi[3] = {0.5, 0.5, 0.5};
    double flo[3] = {-3.0, -3.0, -1.0}, fhi[3] = {3.0, 3.0, 0.0};
    ENSURE_OK(box_mesh(&mem, &cube, lo, hi, 3));
    ENSURE_OK(box_mesh(&mem, &floor_mesh, flo, fhi, 5));
    tl_face f;
    memset(&f, 0, sizeof f);
    f.kind = TL_FACE_PLANE;
    v3_set(f.n, 0.0, 0.0, 1.0);
    const double h = 0.01;
    for (int mode = 0; mode < 3; mode++) {
        /* turned about z and moved sideways: the bottom face stays flat on the plane */
        double yaw = 0.3, R[3][3] = {{cos(yaw), -sin(yaw), 0}, {sin(yaw), cos(yaw), 0}, {0, 0, 1}};
        double x[3] = {0.37, -0.21, 0.5 - h};
        tl_pose pa, pf;
        pose_set(&pa, x, (const double(*)[3])R);
        double zero[3] = {0.0, 0.0, 0.0};
        pose_identity(&pf, zero);
        tl_pcm_opts o = {(tl_pcm_depth)mode, TL_PCM_RADIUS_AREA, false, NULL};
        double want = mode == TL_PCM_DEPTH_VOLUME ? 2.0 * h : h;
        for (int against = 0; against < 2; against++) {
            tl_patch p[4];
            int n = against == 0 ? tl_pcm_mesh_plane(&cube, &pa, &f, &o, p, 4, &s)
                                 : tl_pcm_mesh_mesh(&cube, &pa, &floor_mesh, &pf, &o, p, 4, &s);
            ENSURE(n == 1);
            if (n != 1) continue;
            ENSURE_NEAR(p[0].n[0], 0.0, 1e-12);
            ENSURE_NEAR(p[0].n[1], 0.0, 1e-12);
            ENSURE_NEAR(p[0].n[2], -1.0, 1e-12);
            ENSURE_NEAR(p[0].delta, want, 1e-12);
            ENSURE_NEAR(p[0].area, 1.0, 1e-12);
            ENSURE_NEAR(p[0].p[0], x[0], 1e-12);
            ENSURE_NEAR(p[0].p[1], x[1], 1e-12);
            ENSURE_NEAR(p[0].p[2], -0.5 * h, 1e-12);
            ENSURE_NEAR(p[0].r_eff, 1.0 / (2.0 * TL_PI * want), 1e-9);
        }
    }
    /* a mesh wall: an open surface, from either side (the inside is the side away from the body) */
    {
        tl_mesh grid;
        ENSURE_OK(grid_mesh(&grid));
        double zero[3] = {0.0, 0.0, 0.0};
        tl_pose pf;
        pose_identity(&pf, zero);
        for (int side = -1; side <= 1; side += 2) {
            double yaw = 0.4, R[3][3] = {{cos(yaw), -sin(yaw), 0}, {sin(yaw), cos(yaw), 0}, {0, 0, 1}};
            double x[3] = {0.3, -0.2, side * (0.5 - h)};
            tl_pose pa;
            pose_set(&pa, x, (const double(*)[3])R);
            tl_pcm_opts o = {TL_PCM_DEPTH_LINE, TL_PCM_RADIUS_VOLUME, false, NULL};
            tl_patch p[2];
            int n = tl_pcm_mesh_mesh(&cube, &pa, &grid, &pf, &o, p, 2, &s);
            ENSURE(n == 1);
            if (n != 1) continue;
            ENSURE_NEAR(p[0].n[2], -side, 1e-12);
            ENSURE_NEAR(p[0].delta, h, 1e-12);
            ENSURE_NEAR(p[0].area, 1.0, 1e-12);
            ENSURE_NEAR(p[0].p[0], x[0], 1e-12);
            ENSURE_NEAR(p[0].p[2], -side * 0.5 * h, 1e-12);
            ENSURE_NEAR(p[0].r_eff, cube.r_volume, 1e-12);
            /* the other way round: the same patch, n reversed */
            tl_patch q[2];
            ENSURE(tl_pcm_mesh_mesh(&grid, &pf, &cube, &pa, &o, q, 2, &s) == 1);
            ENSURE_NEAR(q[0].n[2], side, 1e-12);
            ENSURE_NEAR(q[0].delta, h, 1e-12);
        }
        /* beyond the wall's rim: nothing */
        double x[3] = {3.0, 0.0, -0.5 + h};
        tl_pose pa;
        pose_identity(&pa, x);
        tl_patch p[2];
        ENSURE(tl_pcm_mesh_mesh(&cube, &pa, &grid, &pf, NULL, p, 2, &s) == 0);
        /* half over it: the depth right, the area only roughly (across the rim the distance
         * to the wall is not linear over the cube's facets: docs/geometry.md) */
        x[0] = 2.0;
        pose_identity(&pa, x);
        tl_pcm_opts o = {TL_PCM_DEPTH_LINE, TL_PCM_RADIUS_VOLUME, false, NULL};
        ENSURE(tl_pcm_mesh_mesh(&cube, &pa, &grid, &pf, &o, p, 2, &s) == 1);
        fprintf(stderr, "a cube half over the rim of a mesh wall: area %.3f (0.5), delta / h %.4f, point x %.3f (1.75)\n",
                p[0].area, p[0].delta / h, p[0].p[0]);
        ENSURE(p[0].area > 0.3 && p[0].area < 0.55);
        ENSURE_NEAR(p[0].delta, h, 1e-3 * h);
        ENSURE_NEAR(p[0].p[0], 1.75, 0.1);
        tl_mesh_free(&grid);
    }
    /* the volume reading of r_eff: the cube's own sphere of the same volume */
    {
        double x[3] = {0.0, 0.0, 0.5 - h};
        tl_pose pa;
        pose_identity(&pa, x);
        tl_patch p[1];
        ENSURE(tl_pcm_mesh_plane(&cube, &pa, &f, NULL, p, 1, &s) == 1);
        ENSURE_NEAR(p[0].r_eff, cbrt(3.0 / (4.0 * TL_PI)), 1e-12);
        ENSURE_NEAR(p[0].delta, 2.0 * h, 1e-12);
    }

    /* the arch stands on both legs: two patches, one under each foot */
    tl_mesh arch;
    ENSURE_OK(arch_mesh(&arch, 1.5));
    ENSURE(!arch.convex && cube.convex && floor_mesh.convex);
    for (int against = 0; against < 2; against++) {
        double x[3] = {-1.5, -0.75, -h};
        tl_pose pa, pf;
        pose_identity(&pa, x);
        double zero[3] = {0.0, 0.0, 0.0};
        pose_identity(&pf, zero);
        tl_pcm_opts o = {TL_PCM_DEPTH_LINE, TL_PCM_RADIUS_VOLUME, false, NULL};
        tl_patch p[4];
        int n = against == 0 ? tl_pcm_mesh_plane(&arch, &pa, &f, &o, p, 4, &s)
                             : tl_pcm_mesh_mesh(&arch, &pa, &floor_mesh, &pf, &o, p, 4, &s);
        ENSURE(n == 2);
        if (n != 2) {
            fprintf(stderr, "arch against %d: %d patches\n", against, n);
            for (int k = 0; k < n && k < 4; k++)
                fprintf(stderr, "  delta %g n %g %g %g p %g %g %g area %g\n", p[k].delta, p[k].n[0], p[k].n[1], p[k].n[2], p[k].p[0], p[k].p[1], p[k].p[2], p[k].area);
            continue;
        }
        double xs[2] = {dmin(p[0].p[0], p[1].p[0]), dmax(p[0].p[0], p[1].p[0])};
        ENSURE_NEAR(xs[0], -1.0, 1e-12);
        ENSURE_NEAR(xs[1], 1.0, 1e-12);
        for (int k = 0; k < 2; k++) {
            ENSURE_NEAR(p[k].delta, h, 1e-12);
            ENSURE_NEAR(p[k].area, 1.5, 1e-12);
            ENSURE_NEAR(p[k].p[1], 0.0, 1e-12);
            ENSURE_NEAR(p[k].n[2], -1.0, 1e-12);
        }
        /* room for one patch only: the two merge (and the count says so) */
        n = against == 0 ? tl_pcm_mesh_plane(&arch, &pa, &f, &o, p, 1, &s)
                         : tl_pcm_mesh_mesh(&arch, &pa, &floor_mesh, &pf, &o, p, 1, &s);
        ENSURE(n == 2);
        ENSURE_NEAR(p[0].area, 3.0, 1e-12);
        ENSURE_NEAR(p[0].p[0], 0.0, 1e-9);
    }
    /* tilted onto one leg: one patch */
    {
        double a = -0.02, R[3][3] = {{cos(a), 0, sin(a)}, {0, 1, 0}, {-sin(a), 0, cos(a)}}, x[3] = {-1.5, -0.75, -h};
        tl_pose pa;
        pose_set(&pa, x, (const double(*)[3])R);
        tl_patch p[4];
        ENSURE(tl_pcm_mesh_plane(&arch, &pa, &f, NULL, p, 4, &s) == 1);
    }

    /* a rectangle (two-sided): only the part over it counts, from either side */
    tl_face rect;
    memset(&rect, 0, sizeof rect);
    rect.kind = TL_FACE_RECT;
    v3_set(rect.n, 0.0, 0.0, 1.0);
    v3_set(rect.u, 1.0, 0.0, 0.0);
    v3_set(rect.v, 0.0, 1.0, 0.0);
    rect.hu = rect.hv = 1.0;
    for (int side = -1; side <= 1; side += 2) {
        double x[3] = {1.0, 0.0, side * (0.5 - h)};
        tl_pose pa;
        pose_identity(&pa, x);
        tl_pcm_opts o = {TL_PCM_DEPTH_LINE, TL_PCM_RADIUS_VOLUME, false, NULL};
        tl_patch p[2];
        ENSURE(tl_pcm_mesh_face(&cube, &pa, &rect, &o, p, 2, &s) == 1);
        ENSURE_NEAR(p[0].area, 0.5, 1e-12);
        ENSURE_NEAR(p[0].p[0], 0.75, 1e-12);
        ENSURE_NEAR(p[0].n[2], -side, 1e-12);
        ENSURE_NEAR(p[0].delta, h, 1e-12);
    }
    tl_mesh_free(&arch);
    tl_mesh_free(&cube);
    tl_mesh_free(&floor_mesh);
    tl_pcm_scratch_free(&s);
}

/* ---- GJK/EPA (libccd) ---- */

typedef struct ccd_body {
    const tl_mesh *m;
    const tl_pose *pose;
} ccd_body;

static void ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out) {
    const ccd_body *b = obj;
    const double(*R)[3] = b->pose->R;
    double d[3], db[3];
    for (int k = 0; k < 3; k++) d[k] = dir->v[k];
    for (int k = 0; k < 3; k++) db[k] = R[0][k] * d[0] + R[1][k] * d[1] + R[2][k] * d[2];
    size_t best = 0;
    double bd = -INFINITY;
    for (size_t i = 0; i < b->m->nv; i++) {
        double x = v3_dot(db, b->m->v[i]);
        if (x > bd) {
            bd = x;
            best = i;
        }
    }
    double w[3];
    mat_vec(R, b->m->v[best], w);
    for (int k = 0; k < 3; k++) out->v[k] = w[k] + b->pose->x[k];
}

static void test_ccd(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.max_iterations = 1000;
    ccd.epa_tolerance = 1e-10;
    fprintf(stderr, "against libccd GJK/EPA: an icosphere (R = 1) and an ellipsoid mesh (1, 0.7, 0.5) of the same "
                    "vertex count, overlaps 1-3 %% of R:\n");
    double prev_d[3] = {INFINITY, INFINITY, INFINITY}, prev_n = INFINITY;
    for (int k = 3; k <= 4; k++) {
        tl_mesh a, b;
        ENSURE_OK(tl_mesh_icosphere(&mem, &a, 1.0, k, msg, sizeof msg));
        ENSURE_OK(tl_mesh_ellipsoid(&mem, &b, 1.0, 0.7, 0.5, a.nv, msg, sizeof msg));
        trng r = {99};
        int compared[3] = {0, 0, 0};
        double worst_d[3] = {0, 0, 0}, worst_n[3] = {0, 0, 0}, mean_d[3] = {0, 0, 0};
        for (int t = 0; t < 40; t++) {
            double Ra[3][3], Rb[3][3], u[3], xa[3] = {0.0, 0.0, 0.0}, xb[3];
            trng_rotation(&r, Ra);
            trng_rotation(&r, Rb);
            trng_dir(&r, u);
            tl_pose pa, pb;
            pose_set(&pa, xa, (const double(*)[3])Ra);
            /* slide b towards a until libccd finds the wanted overlap */
            double want = 0.01 + 0.02 * trng_uniform(&r), dist = 2.0, depth = 0.0;
            ccd_vec3_t dir, pos;
            ccd_real_t dep = 0;
            ccd_body ba = {&a, &pa}, bb = {&b, &pb};
            for (int it = 0; it < 60; it++) {
                v3_copy(xb, xa);
                v3_axpy(xb, dist, u);
                pose_set(&pb, xb, (const double(*)[3])Rb);
                int hit = ccdGJKPenetration(&ba, &bb, &ccd, &dep, &dir, &pos);
                depth = hit == 0 ? (double)dep : 0.0;
                if (fabs(depth - want) < 1e-3 * want) break;
                dist += 0.7 * (depth - want) + (hit == 0 ? 0.0 : -0.05);
            }
            if (!(depth > 0.5 * want)) continue;
            double dn[3] = {dir.v[0], dir.v[1], dir.v[2]};
            for (int mode = 0; mode < 3; mode++) {
                tl_pcm_opts o = {(tl_pcm_depth)mode, TL_PCM_RADIUS_VOLUME, false, NULL};
                tl_patch p[2];
                if (tl_pcm_mesh_mesh(&a, &pa, &b, &pb, &o, p, 2, &s) != 1) {
                    worst_d[mode] = INFINITY;
                    continue;
                }
                compared[mode]++;
                double e = p[0].delta / depth - 1.0;
                worst_d[mode] = dmax(worst_d[mode], fabs(e));
                mean_d[mode] += e;
                worst_n[mode] = dmax(worst_n[mode], angle(p[0].n, dn));
            }
        }
        for (int mode = 0; mode < 3; mode++) {
            fprintf(stderr, "  %4zu vertices, depth %-6s: %d pairs, delta / EPA depth - 1: mean %+.3e, largest %.3e; "
                            "normal: largest angle %.3e rad\n",
                    a.nv, depth_name[mode], compared[mode], mean_d[mode] / compared[mode], worst_d[mode], worst_n[mode]);
            ENSURE(compared[mode] >= 30);
            ENSURE(worst_d[mode] < prev_d[mode]);
            prev_d[mode] = worst_d[mode];
        }
        /* EPA's normal is a facet normal of the Minkowski difference, spaced by the facets'
         * angular size (0.15 rad at 642 vertices, 0.075 at 2562): agreement to about half of it */
        double facet_angle = 4.0 / sqrt((double)a.nv);
        ENSURE(worst_n[0] < 0.6 * facet_angle);
        ENSURE(worst_n[0] < prev_n);
        prev_n = worst_n[0];
        if (k == 4) {
            /* the largest element penetration is the polyhedra's own depth, as EPA's; the
             * line through the patch is within 5 %; the volume rule, a mean over the patch, is
             * short by the facets' sagitta (both polyhedra lie inside their smooth shapes) */
            ENSURE(worst_d[TL_PCM_DEPTH_MAX] < 0.03);
            ENSURE(worst_d[TL_PCM_DEPTH_LINE] < 0.05);
            ENSURE(worst_d[TL_PCM_DEPTH_VOLUME] < 0.15);
        }
        tl_mesh_free(&a);
        tl_mesh_free(&b);
    }
    tl_pcm_scratch_free(&s);
}

/* ---- sphere-mesh ---- */

/* an open square [-2, 2]^2 on z = 0 cut into 8 x 8 cells of two triangles,
 * its inner vertices moved off the grid except along y = 0 */
static tl_status grid_mesh(tl_mesh *m) {
    const int N = 8;
    double xyz[3 * 81];
    uint32_t tri[3 * 128];
    trng r = {17};
    for (int i = 0; i <= N; i++)
        for (int j = 0; j <= N; j++) {
            double *p = &xyz[3 * (i * (N + 1) + j)];
            p[0] = -2.0 + 4.0 * i / N;
            p[1] = -2.0 + 4.0 * j / N;
            p[2] = 0.0;
            if (i > 0 && i < N && j > 0 && j < N && j != N / 2) {
                p[0] += 0.15 * (trng_uniform(&r) - 0.5);
                p[1] += 0.15 * (trng_uniform(&r) - 0.5);
            }
        }
    int t = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            uint32_t a = (uint32_t)(i * (N + 1) + j), b = a + (uint32_t)(N + 1), c = b + 1, d = a + 1;
            uint32_t q[2][3];
            if ((i + j) % 2) {
                uint32_t q0[2][3] = {{a, b, c}, {a, c, d}};
                memcpy(q, q0, sizeof q);
            } else {
                uint32_t q0[2][3] = {{a, b, d}, {b, c, d}};
                memcpy(q, q0, sizeof q);
            }
            memcpy(&tri[3 * t++], q[0], sizeof q[0]);
            memcpy(&tri[3 * t++], q[1], sizeof q[1]);
        }
    tl_mesh_opts o = {true, 0.0};
    return tl_mesh_from_arrays(&mem, m, xyz, 81, tri, 128, &o, "grid", msg, sizeof msg);
}

static void test_sphere_mesh(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    double zero[3] = {0.0, 0.0, 0.0};
    tl_pose id;
    pose_identity(&id, zero);

    /* rolling over a flat surface cut into triangles: one patch, constant overlap and normal,
     * through edges and (along y = 0) through vertices */
    tl_mesh grid;
    ENSURE_OK(grid_mesh(&grid));
    int bad = 0, steps = 0;
    for (int path = 0; path < 2; path++)
        for (double x = -1.5; x <= 1.5; x += 0.0025) {
            double c[3] = {x, path == 0 ? 0.123 : 0.0, 0.2};
            tl_patch p[4];
            int n = tl_pcm_sphere_mesh(c, 0.25, &grid, &id, NULL, p, 4, &s);
            steps++;
            if (n != 1) {
                bad++;
                continue;
            }
            bad += fabs(p[0].delta - 0.05) > 1e-12 || fabs(p[0].n[2] + 1.0) > 1e-12 || fabs(p[0].p[0] - x) > 1e-12 ||
                   fabs(p[0].p[2] + 0.025) > 1e-12;
        }
    fprintf(stderr, "sphere rolling on a triangulated plane: %d positions, %d with a wrong patch\n", steps, bad);
    ENSURE(bad == 0);

    /* over a convex edge of a box: the overlap follows the distance to the box, continuously */
    tl_mesh box;
    double lo[3] = {-1.0, -1.0, -1.0}, hi[3] = {1.0, 1.0, 0.0};
    ENSURE_OK(box_mesh(&mem, &box, lo, hi, 4));
    bad = 0;
    double jump = 0.0, nprev[3] = {0, 0, -1};
    for (double x = 0.5; x <= 1.3; x += 0.001) {
        double c[3] = {x, 0.1, 0.2};
        double dist = x <= 1.0 ? 0.2 : sqrt((x - 1.0) * (x - 1.0) + 0.04);
        tl_patch p[4];
        int n = tl_pcm_sphere_mesh(c, 0.25, &box, &id, NULL, p, 4, &s);
        if (dist >= 0.25) {
            bad += n != 0;
            continue;
        }
        if (n != 1) {
            bad++;
            continue;
        }
        bad += fabs(p[0].delta - (0.25 - dist)) > 1e-12;
        double dn[3];
        v3_sub(dn, p[0].n, nprev);
        jump = dmax(jump, v3_norm(dn));
        v3_copy(nprev, p[0].n);
    }
    ENSURE(bad == 0);
    ENSURE(jump < 0.006); /* the normal turns smoothly about the edge (0.001 / 0.2 per step at most) */

    /* a sphere against an icosphere (k = 4): the analytic pair to within the facets' sagitta */
    tl_mesh ico;
    ENSURE_OK(tl_mesh_icosphere(&mem, &ico, 1.0, 4, msg, sizeof msg));
    double sag = 0.0; /* the largest gap between the sphere and a facet's plane */
    for (size_t f = 0; f < ico.nt; f++) sag = dmax(sag, 1.0 - v3_dot(ico.v[ico.tri[f][0]], ico.n[f]));
    trng r = {8};
    double worst = 0.0, worst_n = 0.0;
    for (int t = 0; t < 50; t++) {
        double u[3], R[3][3], c[3];
        trng_dir(&r, u);
        trng_rotation(&r, R);
        tl_pose pb;
        pose_set(&pb, zero, (const double(*)[3])R);
        v3_scale(c, u, 1.3 - 0.02);
        tl_patch p[2];
        if (tl_pcm_sphere_mesh(c, 0.3, &ico, &pb, NULL, p, 2, &s) != 1) {
            worst = INFINITY;
            continue;
        }
        double minus_u[3];
        v3_scale(minus_u, u, -1.0);
        worst = dmax(worst, fabs(p[0].delta - 0.02));
        worst_n = dmax(worst_n, angle(p[0].n, minus_u));
        ENSURE_NEAR(p[0].r_eff, 0.3 * ico.r_volume / (0.3 + ico.r_volume), 1e-12);
    }
    ENSURE(worst <= sag + 1e-12);
    ENSURE(worst_n < 0.05);
    /* a centre inside the closed mesh is pushed out */
    double c0[3] = {0.05, 0.0, 0.0};
    tl_patch p[2];
    ENSURE(tl_pcm_sphere_mesh(c0, 0.1, &ico, &id, NULL, p, 2, &s) == 1);
    ENSURE(p[0].delta > 1.0 && p[0].n[0] < -0.99); /* the force on the sphere, -f n, points to the near surface */

    /* a V-shaped groove (two faces at 90 degrees): touching both is two contacts */
    double vxyz[18] = {-1, 0, 0, 1, 0, 0, 1, 1, 1, -1, 1, 1, 1, -1, 1, -1, -1, 1};
    uint32_t vtri[12] = {0, 1, 2, 0, 2, 3, 0, 5, 4, 0, 4, 1};
    tl_mesh groove;
    tl_mesh_opts open = {true, 0.0};
    ENSURE_OK(tl_mesh_from_arrays(&mem, &groove, vxyz, 6, vtri, 4, &open, "groove", msg, sizeof msg));
    double cg[3] = {0.0, 0.0, 0.4};
    int n = tl_pcm_sphere_mesh(cg, 0.3, &groove, &id, NULL, p, 2, &s);
    ENSURE(n == 2);
    if (n == 2)
        for (int k = 0; k < 2; k++) {
            ENSURE_NEAR(p[k].delta, 0.3 - 0.4 / sqrt(2.0), 1e-12);
            ENSURE_NEAR(p[k].n[2], -sqrt(0.5), 1e-12);
        }
    /* room for one: the deepest is kept, the count says 2 */
    ENSURE(tl_pcm_sphere_mesh(cg, 0.3, &groove, &id, NULL, p, 1, &s) == 2);
    tl_mesh_free(&groove);
    tl_mesh_free(&ico);
    tl_mesh_free(&box);
    tl_mesh_free(&grid);
    tl_pcm_scratch_free(&s);
}

/* ---- cost ---- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the search's hint steers it, and changes nothing ----
 * Two convex peanuts (810 vertices) in random attitudes a given overlap of their analytic
 * ellipsoids apart: the patches found with a hinted normal (the unhinted patch's, a tilted
 * one, the reverse) equal the unhinted ones bit for bit, and with the separating slab a
 * pair apart returns none. */
static double support_of(const double R[3][3], const double ax[3], const double u[3]) {
    double s2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double c = R[0][k] * u[0] + R[1][k] * u[1] + R[2][k] * u[2];
        s2 += ax[k] * ax[k] * c * c;
    }
    return sqrt(s2);
}

/* two ellipsoids of semi-axes ax in random attitudes, placed `overlap` into each other (their
 * analytic surfaces) along the random direction u from a to b */
static void peanut_pair(trng *r, const double ax[3], double overlap, double u[3], tl_pose *pa, tl_pose *pb) {
    double Ra[3][3], Rb[3][3], mu[3], xa[3] = {0.01, 0.02, 0.03}, xb[3];
    trng_rotation(r, Ra);
    trng_rotation(r, Rb);
    trng_dir(r, u);
    v3_scale(mu, u, -1.0);
    v3_copy(xb, xa);
    v3_axpy(xb, support_of((const double(*)[3])Ra, ax, u) + support_of((const double(*)[3])Rb, ax, mu) - overlap, u);
    pose_set(pa, xa, (const double(*)[3])Ra);
    pose_set(pb, xb, (const double(*)[3])Rb);
}

static bool same_patch(const tl_patch *p, const tl_patch *q) {
    return memcmp(p, q, sizeof *p) == 0;
}

static void test_hint(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    tl_mesh a;
    const double ax[3] = {0.006, 0.005, 0.005};
    ENSURE_OK(tl_mesh_ellipsoid(&mem, &a, ax[0], ax[1], ax[2], 810, msg, sizeof msg));
    ENSURE(a.convex);
    const double overlaps[4] = {-1e-4, 5e-5, 2e-4, 1e-3};
    int compared = 0, differ = 0, apart_found = 0;
    trng r = {77};
    for (int o = 0; o < 4; o++)
        for (int q = 0; q < 60; q++) {
            double u[3];
            tl_pose pa, pb;
            peanut_pair(&r, ax, overlaps[o], u, &pa, &pb);
            tl_patch p[4], h[4];
            memset(p, 0, sizeof p);
            int n = tl_pcm_mesh_mesh(&a, &pa, &a, &pb, NULL, p, 4, &s);
            if (overlaps[o] < 0.0) apart_found += n;
            double hints[3][3], d[3];
            v3_copy(hints[0], n > 0 ? p[0].n : u);
            trng_dir(&r, d);
            v3_copy(hints[1], hints[0]);
            v3_axpy(hints[1], 0.3, d);
            v3_scale(hints[1], hints[1], 1.0 / v3_norm(hints[1]));
            v3_scale(hints[2], hints[0], -1.0);
            for (int k = 0; k < 3; k++) {
                tl_pcm_opts opt = {TL_PCM_DEPTH_VOLUME, TL_PCM_RADIUS_VOLUME, false, hints[k]};
                memset(h, 0, sizeof h);
                int m = tl_pcm_mesh_mesh(&a, &pa, &a, &pb, &opt, h, 4, &s);
                compared++;
                if (m != n || (n > 0 && !same_patch(&p[0], &h[0]))) differ++;
            }
        }
    fprintf(stderr, "hinted mesh-mesh search: %d comparisons, %d differ; pairs 0.1 mm apart: %d patches\n", compared,
            differ, apart_found);
    /* the caps' distances (cap_closest) against the tree's: the same pairs searched as if the
     * bodies were not convex (every box pair, every distance from the tree) agree to rounding */
    tl_mesh nc = a;
    nc.convex = false;
    int pairs = 0, far_off = 0;
    double worst = 0.0;
    trng r2 = {78};
    for (int o = 1; o < 4; o++)
        for (int q = 0; q < 60; q++) {
            double u[3];
            tl_pose pa, pb;
            peanut_pair(&r2, ax, overlaps[o], u, &pa, &pb);
            tl_patch p[4], t[4];
            memset(p, 0, sizeof p);
            memset(t, 0, sizeof t);
            int n = tl_pcm_mesh_mesh(&a, &pa, &a, &pb, NULL, p, 4, &s);
            int m = tl_pcm_mesh_mesh(&nc, &pa, &nc, &pb, NULL, t, 4, &s);
            if (n != m) {
                far_off++;
                continue;
            }
            for (int k = 0; k < n; k++) {
                double dn[3], dp[3];
                v3_sub(dn, p[k].n, t[k].n);
                v3_sub(dp, p[k].p, t[k].p);
                double e = dmax(fabs(p[k].delta - t[k].delta) / t[k].delta,
                                dmax(v3_norm(dn), dmax(v3_norm(dp) / 0.006, fabs(p[k].area - t[k].area) / t[k].area)));
                worst = dmax(worst, e);
                pairs++;
            }
        }
    fprintf(stderr, "caps against the tree: %d patches, largest relative difference %.2g, %d counts differ\n", pairs,
            worst, far_off);
    ENSURE(pairs >= 120);
    ENSURE(far_off == 0);
    ENSURE(worst < 1e-10);
    ENSURE(compared == 720);
    ENSURE(differ == 0);
    ENSURE(apart_found == 0);
    tl_mesh_free(&a);
    tl_pcm_scratch_free(&s);
}

static void test_cost(void) {
    tl_pcm_scratch s;
    tl_pcm_scratch_init(&s, &mem);
    tl_mesh a;
    const double R = 2.5e-3;
    ENSURE_OK(tl_mesh_icosphere(&mem, &a, R, 4, msg, sizeof msg));
    enum { Q = 400 };
    tl_pose *pa = malloc(Q * sizeof *pa), *pb = malloc(Q * sizeof *pb);
    tl_face f;
    memset(&f, 0, sizeof f);
    f.kind = TL_FACE_PLANE;
    v3_set(f.n, 0.0, 0.0, 1.0);
    /* the Kharaz impact's largest overlap (16 um on a 2.5 mm sphere) and a larger one */
    const double overlaps[2] = {0.0066, 0.02};
    for (int o = 0; o < 2; o++) {
        trng r = {1234};
        for (int q = 0; q < Q; q++) {
            double Ra[3][3], Rb[3][3], u[3], xa[3] = {0, 0, 0}, xb[3];
            trng_rotation(&r, Ra);
            trng_rotation(&r, Rb);
            trng_dir(&r, u);
            v3_scale(xb, u, R * (2.0 - overlaps[o]));
            pose_set(&pa[q], xa, (const double(*)[3])Ra);
            pose_set(&pb[q], xb, (const double(*)[3])Rb);
        }
        tl_patch p[4];
        size_t visited = 0, elements = 0;
        int touching = 0;
        double t0 = now();
        int reps = 5;
        for (int rep = 0; rep < reps; rep++)
            for (int q = 0; q < Q; q++) {
                touching += tl_pcm_mesh_mesh(&a, &pa[q], &a, &pb[q], NULL, p, 4, &s) > 0;
                visited += s.visited;
                elements += s.elements;
            }
        double mm = (now() - t0) / (reps * Q);
        /* the same bodies against a plane */
        t0 = now();
        for (int rep = 0; rep < reps; rep++)
            for (int q = 0; q < Q; q++) {
                double x[3] = {0.0, 0.0, R * (1.0 - overlaps[o])};
                v3_copy(pa[q].x, x);
                (void)tl_pcm_mesh_plane(&a, &pa[q], &f, NULL, p, 4, &s);
            }
        double mp = (now() - t0) / (reps * Q);
        fprintf(stderr,
                "cost, two 2562-vertex icospheres, overlap %.4g R: %.1f us per mesh-mesh query (%.0f of 2 x 5120 "
                "facets looked at, %.0f elements); mesh-plane %.1f us\n",
                overlaps[o], 1e6 * mm, (double)visited / (reps * Q), (double)elements / (reps * Q), 1e6 * mp);
        ENSURE(touching == reps * Q);
        /* the BVHs keep the work to the facets near the contact (the time is printed, not
         * asserted: speed belongs to bench/, and a loaded or sanitized build is slower) */
        ENSURE((double)visited / (reps * Q) < 0.05 * 2 * 5120);
    }
    /* the Brazil-nut case's peanuts (810 vertices, semi-axes 6, 5, 5 mm), 25 and 100 um into
     * each other along random directions (the polyhedra's extents along it) */
    tl_mesh pea;
    ENSURE_OK(tl_mesh_ellipsoid(&mem, &pea, 6e-3, 5e-3, 5e-3, 810, msg, sizeof msg));
    for (int o = 0; o < 2; o++) {
        trng r = {77};
        double ov = o == 0 ? 25e-6 : 100e-6;
        for (int q = 0; q < Q; q++) {
            double Ra[3][3], Rb[3][3], u[3], ua[3], ub[3], xa[3] = {0, 0, 0}, xb[3], ext = 0.0;
            trng_rotation(&r, Ra);
            trng_rotation(&r, Rb);
            trng_dir(&r, u);
            /* u in each body's frame: the largest vertex projection (a's along u, b's along -u) */
            for (int k = 0; k < 3; k++) {
                ua[k] = Ra[0][k] * u[0] + Ra[1][k] * u[1] + Ra[2][k] * u[2];
                ub[k] = -(Rb[0][k] * u[0] + Rb[1][k] * u[1] + Rb[2][k] * u[2]);
            }
            double ea = -INFINITY, eb = -INFINITY;
            for (size_t i = 0; i < pea.nv; i++) {
                ea = dmax(ea, v3_dot(ua, pea.v[i]));
                eb = dmax(eb, v3_dot(ub, pea.v[i]));
            }
            ext = ea + eb;
            v3_scale(xb, u, ext - ov);
            pose_set(&pa[q], xa, (const double(*)[3])Ra);
            pose_set(&pb[q], xb, (const double(*)[3])Rb);
        }
        tl_patch p[4];
        int touching = 0;
        size_t visited = 0;
        double t0 = now();
        for (int rep = 0; rep < 5; rep++)
            for (int q = 0; q < Q; q++) {
                touching += tl_pcm_mesh_mesh(&pea, &pa[q], &pea, &pb[q], NULL, p, 4, &s) > 0;
                visited += s.visited;
            }
        double mm = (now() - t0) / (5 * Q);
        fprintf(stderr, "cost, two 810-vertex peanuts, %g um along a random direction: %.1f us per query (%d %% "
                        "touching, %.0f of 2 x 1616 facets looked at)\n",
                1e6 * ov, 1e6 * mm, 100 * touching / (5 * Q), (double)visited / (5 * Q));
        ENSURE((double)visited / (5 * Q) < 0.1 * 2 * 1616); /* the work, not the time */
    }
    tl_mesh_free(&pea);
    free(pa);
    free(pb);
    tl_mesh_free(&a);
    tl_pcm_scratch_free(&s);
}

/* ---- memory ---- */

static void test_memory(void) {
    tl_mesh a;
    ENSURE_OK(tl_mesh_icosphere(&mem, &a, 1.0, 3, msg, sizeof msg));
    double xa[3] = {0, 0, 0}, xb[3] = {1.97, 0, 0};
    tl_pose pa, pb;
    pose_identity(&pa, xa);
    pose_identity(&pb, xb);
    int failed = 0;
    for (int64_t n = 1; n < 100; n++) {
        tl_mem m2;
        tl_mem_init(&m2, NULL);
        tl_pcm_scratch s;
        tl_pcm_scratch_init(&s, &m2);
        m2.fail_in = n;
        tl_patch p[2];
        int r = tl_pcm_mesh_mesh(&a, &pa, &a, &pb, NULL, p, 2, &s);
        if (r == -2) failed++;
        else ENSURE(r == 1);
        /* the scratch works once memory is back */
        ENSURE(tl_pcm_mesh_mesh(&a, &pa, &a, &pb, NULL, p, 2, &s) == 1);
        tl_pcm_scratch_free(&s);
        ENSURE(m2.bytes == 0);
        if (r != -2) break;
    }
    ENSURE(failed >= 3);
    tl_mesh_free(&a);
}

int main(void) {
    tl_mem_init(&mem, NULL);
    test_convergence();
    test_symmetry();
    test_rolling();
    test_flat();
    test_ccd();
    test_sphere_mesh();
    test_hint();
    test_cost();
    test_memory();
    ENSURE(mem.bytes == 0);
    return tl_test_report("test_pcm");
}
