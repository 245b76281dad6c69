/*
 * Triangle meshes (src/geometry: mesh, mesh_gen, mesh_io, mass, bvh): the
 * generated icosphere and ellipsoid, reading STL (ASCII, binary) and OBJ
 * through assimp, the checks that refuse bad meshes, exact mass properties
 * against closed forms, the body frame, and the BVH queries against brute
 * force. Reaches into src/ (mesh.h, mass.h, bvh.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bvh.h"
#include "mass.h"
#include "mesh.h"
#include "mesh_util.h"
#include "test.h"
#include "triangle.h"
#include "vec.h"

#define DIR "test_mesh_files"

static char msg[512];

/* ---- files ---- */

static void write_stl_ascii(const char *path, const double *xyz, const uint32_t *tri, size_t nt) {
    FILE *f = fopen(path, "w");
    fprintf(f, "solid test\n");
    for (size_t i = 0; i < nt; i++) {
        fprintf(f, " facet normal 0 0 0\n  outer loop\n");
        for (int k = 0; k < 3; k++) {
            const double *p = &xyz[3 * tri[3 * i + (size_t)k]];
            fprintf(f, "   vertex %.9g %.9g %.9g\n", p[0], p[1], p[2]);
        }
        fprintf(f, "  endloop\n endfacet\n");
    }
    fprintf(f, "endsolid test\n");
    fclose(f);
}

static void put_f32(FILE *f, double x) {
    float v = (float)x;
    unsigned char b[4];
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int k = 0; k < 4; k++) b[k] = (unsigned char)(u >> (8 * k));
    fwrite(b, 1, 4, f);
}

static void write_stl_binary(const char *path, const double *xyz, const uint32_t *tri, size_t nt) {
    FILE *f = fopen(path, "wb");
    char header[80];
    memset(header, ' ', sizeof header);
    memcpy(header, "binary test mesh", 16);
    fwrite(header, 1, 80, f);
    unsigned char n[4];
    for (int k = 0; k < 4; k++) n[k] = (unsigned char)((uint32_t)nt >> (8 * k));
    fwrite(n, 1, 4, f);
    for (size_t i = 0; i < nt; i++) {
        for (int k = 0; k < 3; k++) put_f32(f, 0.0);
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++) put_f32(f, xyz[3 * tri[3 * i + (size_t)k] + (size_t)c]);
        unsigned char attr[2] = {0, 0};
        fwrite(attr, 1, 2, f);
    }
    fclose(f);
}

/* the unit cube [0,1]^3 as an OBJ of six quads, in two groups */
static void write_cube_obj(const char *path) {
    FILE *f = fopen(path, "w");
    fprintf(f, "# unit cube\n");
    for (int i = 0; i < 8; i++) fprintf(f, "v %d %d %d\n", i & 1, (i >> 1) & 1, (i >> 2) & 1);
    fprintf(f, "g bottom_and_sides\n");
    fprintf(f, "f 1 3 4 2\nf 1 2 6 5\nf 2 4 8 6\n");
    fprintf(f, "g rest\n");
    fprintf(f, "f 4 3 7 8\nf 3 1 5 7\nf 5 6 8 7\n");
    fclose(f);
}

/* the 12 triangles of the unit cube from a box mesh */
static void cube_arrays(double xyz[24], uint32_t tri[36]) {
    for (int i = 0; i < 8; i++) {
        xyz[3 * i] = i & 1;
        xyz[3 * i + 1] = (i >> 1) & 1;
        xyz[3 * i + 2] = (i >> 2) & 1;
    }
    static const uint32_t t[12][3] = {{0, 2, 3}, {0, 3, 1}, {0, 1, 5}, {0, 5, 4}, {1, 3, 7}, {1, 7, 5},
                                      {3, 2, 6}, {3, 6, 7}, {2, 0, 4}, {2, 4, 6}, {4, 5, 7}, {4, 7, 6}};
    memcpy(tri, t, sizeof t);
}

static bool contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* ---- generation ---- */

static void test_icosphere(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    for (int k = 0; k <= 5; k++) {
        tl_mesh m;
        ENSURE_OK(tl_mesh_icosphere(&mem, &m, 2.0, k, msg, sizeof msg));
        size_t p = (size_t)1 << (2 * k);
        ENSURE(m.nv == 10 * p + 2);
        ENSURE(m.nt == 20 * p);
        ENSURE(m.closed && m.convex);
        double rmin = INFINITY, rmax = 0.0;
        for (size_t i = 0; i < m.nv; i++) {
            rmin = dmin(rmin, v3_norm(m.v[i]));
            rmax = dmax(rmax, v3_norm(m.v[i]));
        }
        ENSURE_NEAR(rmin, 2.0, 1e-14);
        ENSURE_NEAR(rmax, 2.0, 1e-14);
        tl_mesh_free(&m);
    }
    ENSURE(mem.bytes == 0);
    tl_mesh m;
    ENSURE(tl_mesh_icosphere(&mem, &m, 1.0, 9, msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "subdivisions"));
    ENSURE(tl_mesh_icosphere(&mem, &m, -1.0, 2, msg, sizeof msg) == TL_ERROR_ARGUMENT);
}

static void test_ellipsoid_mesh(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    /* the paper's peanut and Brazil nut (seed 000, Table 2: semi-axes, docs/readings.md#li-brazil-nut) and a few odd counts */
    const size_t counts[] = {5, 6, 7, 100, 810, 2864, 5000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        tl_mesh m;
        double a = 6e-3, b = 5e-3, c = 5e-3;
        if (counts[i] == 2864) a = 12e-3, b = 9e-3, c = 9e-3;
        tl_status st = tl_mesh_ellipsoid(&mem, &m, a, b, c, counts[i], msg, sizeof msg);
        ENSURE_OK(st);
        if (st != TL_OK) {
            fprintf(stderr, "%s\n", msg);
            continue;
        }
        ENSURE(m.nv == counts[i]);
        ENSURE(m.nt == 2 * counts[i] - 4);
        ENSURE(m.closed && m.convex);
        double worst = 0.0;
        for (size_t j = 0; j < m.nv; j++) {
            double x = m.v[j][0] / a, y = m.v[j][1] / b, z = m.v[j][2] / c;
            worst = dmax(worst, fabs(x * x + y * y + z * z - 1.0));
        }
        ENSURE(worst < 1e-14);
        /* facet quality: the largest ratio of longest edge squared to area (equilateral: 2.31) */
        double q = 0.0;
        for (size_t f = 0; f < m.nt; f++) {
            double lmax = 0.0;
            for (int k = 0; k < 3; k++) {
                double e[3];
                v3_sub(e, m.v[m.tri[f][(k + 1) % 3]], m.v[m.tri[f][k]]);
                lmax = dmax(lmax, v3_norm2(e));
            }
            q = dmax(q, lmax / m.area[f]);
        }
        if (counts[i] >= 810) {
            fprintf(stderr, "ellipsoid mesh %zu vertices: %zu facets, worst edge^2/area %.2f\n", m.nv, m.nt, q);
            ENSURE(q < 12.0);
        }
        tl_mesh_free(&m);
    }
    tl_mesh m;
    ENSURE(tl_mesh_ellipsoid(&mem, &m, 1, 1, 1, 4, msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "vertex count"));
    ENSURE(mem.bytes == 0);
}

/* ---- files and checks ---- */

static void test_files(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    mkdir(DIR, 0755);
    double xyz[24];
    uint32_t tri[36];
    cube_arrays(xyz, tri);
    tl_mesh m;

    /* ASCII STL, in mm */
    write_stl_ascii(DIR "/cube.stl", xyz, tri, 12);
    double mm = 0.0;
    ENSURE(tl_mesh_unit_scale("mm", &mm) && mm == 1e-3);
    ENSURE(!tl_mesh_unit_scale("inch", &mm));
    tl_mesh_opts o = {false, 1e-3};
    ENSURE_OK(tl_mesh_load(&mem, &m, DIR "/cube.stl", &o, msg, sizeof msg));
    ENSURE(m.nv == 8 && m.nt == 12 && m.closed);
    ENSURE_REL(m.volume, 1e-9, 1e-12);
    tl_mesh_free(&m);

    /* binary STL of an icosphere: the same volume as the generated one (single precision) */
    tl_mesh ico;
    ENSURE_OK(tl_mesh_icosphere(&mem, &ico, 1.0, 3, msg, sizeof msg));
    double *ixyz = malloc(3 * ico.nv * sizeof *ixyz);
    uint32_t *itri = malloc(3 * ico.nt * sizeof *itri);
    memcpy(ixyz, ico.v, 3 * ico.nv * sizeof *ixyz);
    memcpy(itri, ico.tri, 3 * ico.nt * sizeof *itri);
    write_stl_binary(DIR "/ico.stl", ixyz, itri, ico.nt);
    ENSURE_OK(tl_mesh_load(&mem, &m, DIR "/ico.stl", NULL, msg, sizeof msg));
    ENSURE(m.nv == ico.nv && m.nt == ico.nt);
    ENSURE_REL(m.volume, ico.volume, 1e-6);
    tl_mesh_free(&m);

    /* OBJ: quads in two groups, triangulated and merged */
    write_cube_obj(DIR "/cube.obj");
    ENSURE_OK(tl_mesh_load(&mem, &m, DIR "/cube.obj", NULL, msg, sizeof msg));
    ENSURE(m.nv == 8 && m.nt == 12 && m.closed);
    ENSURE_REL(m.volume, 1.0, 1e-14);
    tl_mesh_free(&m);

    /* unreadable files */
    ENSURE(tl_mesh_load(&mem, &m, DIR "/missing.stl", NULL, msg, sizeof msg) == TL_ERROR_IO);
    ENSURE(contains(msg, "missing.stl"));
    FILE *f = fopen(DIR "/garbage.stl", "w");
    fprintf(f, "this is not a mesh\n");
    fclose(f);
    ENSURE(tl_mesh_load(&mem, &m, DIR "/garbage.stl", NULL, msg, sizeof msg) != TL_OK);
    ENSURE(contains(msg, "garbage.stl"));

    /* an open cube (one facet missing): refused, naming the file and a facet */
    write_stl_ascii(DIR "/open.stl", xyz, tri, 11);
    ENSURE(tl_mesh_load(&mem, &m, DIR "/open.stl", NULL, msg, sizeof msg) == TL_ERROR_ARGUMENT);
    fprintf(stderr, "open cube: %s\n", msg);
    ENSURE(contains(msg, "open.stl") && contains(msg, "facet") && contains(msg, "not closed"));
    /* accepted as an open surface (a mesh wall) */
    tl_mesh_opts open = {true, 0.0};
    ENSURE_OK(tl_mesh_load(&mem, &m, DIR "/open.stl", &open, msg, sizeof msg));
    ENSURE(!m.closed && !m.convex && m.nt == 11 && m.volume == 0.0);
    tl_mesh_free(&m);

    /* one facet flipped: inconsistent orientation, refused even as an open surface */
    uint32_t bad[36];
    memcpy(bad, tri, sizeof bad);
    bad[3 * 5 + 1] = tri[3 * 5 + 2];
    bad[3 * 5 + 2] = tri[3 * 5 + 1];
    write_stl_ascii(DIR "/flipped.stl", xyz, bad, 12);
    ENSURE(tl_mesh_load(&mem, &m, DIR "/flipped.stl", NULL, msg, sizeof msg) == TL_ERROR_ARGUMENT);
    fprintf(stderr, "flipped facet: %s\n", msg);
    ENSURE(contains(msg, "flipped.stl") && contains(msg, "inconsistent orientation") && contains(msg, "facet 5"));
    ENSURE(tl_mesh_load(&mem, &m, DIR "/flipped.stl", &open, msg, sizeof msg) == TL_ERROR_ARGUMENT);

    /* every facet flipped: inward normals */
    for (int i = 0; i < 12; i++) {
        bad[3 * i] = tri[3 * i];
        bad[3 * i + 1] = tri[3 * i + 2];
        bad[3 * i + 2] = tri[3 * i + 1];
    }
    ENSURE(tl_mesh_from_arrays(&mem, &m, xyz, 8, bad, 12, NULL, "inverted", msg, sizeof msg) == TL_ERROR_ARGUMENT);
    fprintf(stderr, "inverted cube: %s\n", msg);
    ENSURE(contains(msg, "inverted") && contains(msg, "clockwise"));

    /* a degenerate facet (two vertices the same) */
    memcpy(bad, tri, sizeof bad);
    bad[3 * 7 + 2] = bad[3 * 7 + 1];
    ENSURE(tl_mesh_from_arrays(&mem, &m, xyz, 8, bad, 12, NULL, "degenerate", msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "facet 7 is degenerate"));
    /* a facet of zero area with three distinct vertices on a line */
    double line_xyz[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0};
    uint32_t line_tri[3] = {0, 1, 2};
    ENSURE(tl_mesh_from_arrays(&mem, &m, line_xyz, 4, line_tri, 1, &open, "line", msg, sizeof msg) ==
           TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "facet 0 is degenerate"));

    /* a duplicated facet */
    uint32_t dup[39];
    memcpy(dup, tri, sizeof tri);
    memcpy(&dup[36], &tri[3 * 4], 3 * sizeof *tri);
    ENSURE(tl_mesh_from_arrays(&mem, &m, xyz, 8, dup, 13, NULL, "dup", msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "facet 12 repeats facet 4"));

    /* an index out of range, a coordinate that is not finite */
    memcpy(bad, tri, sizeof bad);
    bad[10] = 8;
    ENSURE(tl_mesh_from_arrays(&mem, &m, xyz, 8, bad, 12, NULL, "range", msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "facet 3") && contains(msg, "out of range"));
    double nan_xyz[24];
    memcpy(nan_xyz, xyz, sizeof nan_xyz);
    nan_xyz[4] = NAN;
    ENSURE(tl_mesh_from_arrays(&mem, &m, nan_xyz, 8, tri, 12, NULL, "nan", msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "vertex 1"));

    /* an edge of three facets (a fin on the cube) */
    double fin_xyz[27];
    memcpy(fin_xyz, xyz, sizeof xyz);
    fin_xyz[24] = 0.5;
    fin_xyz[25] = -1.0;
    fin_xyz[26] = 0.0;
    uint32_t fin[39];
    memcpy(fin, tri, sizeof tri);
    fin[36] = 0;
    fin[37] = 1;
    fin[38] = 8;
    ENSURE(tl_mesh_from_arrays(&mem, &m, fin_xyz, 9, fin, 13, NULL, "fin", msg, sizeof msg) == TL_ERROR_ARGUMENT);
    ENSURE(contains(msg, "not a manifold"));

    tl_mesh_free(&ico);
    free(ixyz);
    free(itri);
    ENSURE(mem.bytes == 0);

    /* every allocation failing in turn: a memory error, nothing leaked */
    int failures = 0;
    for (int64_t n = 1; n < 200; n++) {
        tl_mem_init(&mem, NULL);
        mem.fail_in = n;
        tl_status st = tl_mesh_load(&mem, &m, DIR "/cube.obj", NULL, msg, sizeof msg);
        if (st == TL_OK) {
            tl_mesh_free(&m);
            ENSURE(mem.bytes == 0);
            break;
        }
        failures++;
        ENSURE(st == TL_ERROR_MEMORY);
        ENSURE(mem.bytes == 0);
    }
    ENSURE(failures > 10);
    for (int64_t n = 1; n < 200; n++) {
        tl_mem_init(&mem, NULL);
        mem.fail_in = n;
        tl_status st = tl_mesh_icosphere(&mem, &m, 1.0, 2, msg, sizeof msg);
        if (st == TL_OK) {
            tl_mesh_free(&m);
            break;
        }
        ENSURE(st == TL_ERROR_MEMORY);
        ENSURE(mem.bytes == 0);
    }
}

/* ---- mass properties ---- */

static void test_eigen(void) {
    trng r = {7};
    for (int t = 0; t < 200; t++) {
        double A[3][3], w[3], V[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++) A[i][j] = A[j][i] = 2.0 * trng_uniform(&r) - 1.0;
        if (t % 3 == 0) A[0][1] = A[1][0] = 0.0; /* some zeros */
        tl_sym3_eigen((const double(*)[3])A, w, V);
        ENSURE(w[0] <= w[1] && w[1] <= w[2]);
        double worst = 0.0;
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 3; i++) {
                double av = A[i][0] * V[0][c] + A[i][1] * V[1][c] + A[i][2] * V[2][c];
                worst = dmax(worst, fabs(av - w[c] * V[i][c]));
            }
        ENSURE(worst < 1e-14);
        double e0[3] = {V[0][0], V[1][0], V[2][0]}, e1[3] = {V[0][1], V[1][1], V[2][1]},
               e2[3] = {V[0][2], V[1][2], V[2][2]}, x[3];
        v3_cross(x, e0, e1);
        ENSURE_NEAR(v3_dot(x, e2), 1.0, 1e-14);
        ENSURE_NEAR(v3_dot(e0, e1), 0.0, 1e-14);
    }
    /* diagonal and isotropic tensors keep the coordinate axes */
    double D[3][3] = {{3, 0, 0}, {0, 1, 0}, {0, 0, 2}}, w[3], V[3][3];
    tl_sym3_eigen((const double(*)[3])D, w, V);
    ENSURE(w[0] == 1.0 && w[1] == 2.0 && w[2] == 3.0);
    ENSURE(V[1][0] == 1.0 && V[2][1] == 1.0 && V[0][2] == 1.0);
}

static void test_mass(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    tl_mesh m;
    tl_mass_props mp;
    /* the unit cube */
    double xyz[24];
    uint32_t tri[36];
    cube_arrays(xyz, tri);
    ENSURE_OK(tl_mesh_from_arrays(&mem, &m, xyz, 8, tri, 12, NULL, "cube", msg, sizeof msg));
    tl_mesh_mass(&m, &mp);
    ENSURE_NEAR(mp.volume, 1.0, 1e-15);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(mp.centroid[k], 0.5, 1e-15);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) ENSURE_NEAR(mp.inertia[i][j], i == j ? 1.0 / 6.0 : 0.0, 1e-15);
    tl_mesh_free(&m);

    /* the tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1): V = 1/6, centroid 1/4,
     * I_xx = 1/80, I_xy = +1/480 about the centroid (int x^2 = 1/60, int xy = 1/120) */
    double txyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint32_t ttri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    ENSURE_OK(tl_mesh_from_arrays(&mem, &m, txyz, 4, ttri, 4, NULL, "tetrahedron", msg, sizeof msg));
    tl_mesh_mass(&m, &mp);
    ENSURE_NEAR(mp.volume, 1.0 / 6.0, 1e-16);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(mp.centroid[k], 0.25, 1e-16);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) ENSURE_NEAR(mp.inertia[i][j], i == j ? 1.0 / 80.0 : 1.0 / 480.0, 1e-16);
    /* and moved far away: the same tensor (the integrals are taken about the box centre) */
    for (int i = 0; i < 4; i++) txyz[3 * i] += 1e4;
    tl_mesh_free(&m);
    ENSURE_OK(tl_mesh_from_arrays(&mem, &m, txyz, 4, ttri, 4, NULL, "tetrahedron", msg, sizeof msg));
    tl_mesh_mass(&m, &mp);
    ENSURE_NEAR(mp.inertia[0][1], 1.0 / 480.0, 1e-13);
    ENSURE_NEAR(mp.inertia[1][1], 1.0 / 80.0, 1e-13);
    ENSURE_NEAR(mp.centroid[0], 1e4 + 0.25, 1e-11);
    tl_mesh_free(&m);

    /* icospheres: I / (m R^2) -> 2/5 */
    fprintf(stderr, "icosphere mass properties (R = 1):\n  k  vertices  volume error  I/(m R^2) - 2/5\n");
    double prev = INFINITY;
    for (int k = 0; k <= 6; k++) {
        ENSURE_OK(tl_mesh_icosphere(&mem, &m, 1.0, k, msg, sizeof msg));
        tl_mesh_mass(&m, &mp);
        double vol_err = mp.volume / (4.0 / 3.0 * TL_PI) - 1.0;
        double ratio = mp.inertia[0][0] / mp.volume;
        double err = ratio - 0.4;
        fprintf(stderr, "  %d  %8zu  %12.3e  %12.3e\n", k, m.nv, vol_err, err);
        /* isotropic, centred */
        ENSURE_NEAR(mp.inertia[1][1] / mp.volume, ratio, 1e-14);
        ENSURE_NEAR(mp.inertia[0][1] / mp.volume, 0.0, 1e-14);
        ENSURE_NEAR(v3_norm(mp.centroid), 0.0, 1e-14);
        ENSURE(err < 0.0 && fabs(err) < 0.35 * fabs(prev) + 1e-15); /* about 4x per level */
        ENSURE_NEAR(m.volume, mp.volume, 1e-13);
        prev = err;
        tl_mesh_free(&m);
    }
    ENSURE(fabs(prev) < 1e-4);

    /* triangulated ellipsoid (3, 2, 1) -> (b^2 + c^2)/5, ... */
    fprintf(stderr, "ellipsoid (3, 2, 1) mass properties:\n  vertices  volume error  moment errors (x, y, z)\n");
    double prev_err = INFINITY;
    const size_t counts[] = {100, 400, 1600, 6400, 25600};
    for (size_t i = 0; i < 5; i++) {
        ENSURE_OK(tl_mesh_ellipsoid(&mem, &m, 3.0, 2.0, 1.0, counts[i], msg, sizeof msg));
        tl_body_frame bf;
        ENSURE_OK(tl_mesh_to_body_frame(&m, &bf));
        double I[3];
        tl_ellipsoid_moments(3.0, 2.0, 1.0, 1.0, I);
        double e[3], worst = 0.0;
        for (int k = 0; k < 3; k++) {
            e[k] = bf.moments[k] / I[k] - 1.0;
            worst = dmax(worst, fabs(e[k]));
        }
        fprintf(stderr, "  %8zu  %12.3e  %10.3e %10.3e %10.3e\n", counts[i], bf.volume / (8.0 * TL_PI) - 1.0, e[0],
                e[1], e[2]);
        ENSURE(worst < 0.3 * prev_err);
        prev_err = worst;
        /* the axes stay x, y, z (largest semi-axis first: the smallest moment) */
        ENSURE_NEAR(fabs(bf.R[0][0]), 1.0, 1e-5);
        ENSURE_NEAR(fabs(bf.R[1][1]), 1.0, 1e-5);
        tl_mesh_free(&m);
    }
    ENSURE(prev_err < 2e-3);
    ENSURE(mem.bytes == 0);
}

static void test_body_frame(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    /* a 3 x 2 x 1 box, rotated and moved: its body frame gives back the rotation
     * (a cube's tensor is isotropic and has no principal axes to find) */
    trng r = {42};
    for (int t = 0; t < 20; t++) {
        tl_mesh m;
        double lo[3] = {-0.5, -1.0, -1.5}, hi[3] = {0.5, 1.0, 1.5};
        ENSURE_OK(box_mesh(&mem, &m, lo, hi, 2));
        double Q[3][3], shift[3] = {10.0 * trng_uniform(&r), -5.0, 3.0}, zero[3] = {0, 0, 0}, Qt[3][3];
        trng_rotation(&r, Q);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Qt[i][j] = Q[j][i];
        /* x -> Q x + shift, written as R (x - t) with R = Q, t = -Q^T shift */
        double back[3];
        mat_vec((const double(*)[3])Qt, shift, back);
        v3_scale(back, back, -1.0);
        ENSURE_OK(tl_mesh_transform(&m, (const double(*)[3])Q, back));
        (void)zero;
        tl_body_frame bf;
        ENSURE_OK(tl_mesh_to_body_frame(&m, &bf));
        /* volume 6; moments per unit mass: z side 3 -> smallest (4 + 1)/12 about the 3-long axis */
        ENSURE_NEAR(bf.volume, 6.0, 1e-12);
        ENSURE_NEAR(bf.moments[0], (4.0 + 1.0) / 12.0, 1e-12);
        ENSURE_NEAR(bf.moments[1], (9.0 + 1.0) / 12.0, 1e-12);
        ENSURE_NEAR(bf.moments[2], (9.0 + 4.0) / 12.0, 1e-12);
        for (int k = 0; k < 3; k++) ENSURE_NEAR(bf.origin[k], shift[k], 1e-12);
        /* the body x axis is the box's z axis (Q's third column), y its y, z its x, up to sign */
        for (int k = 0; k < 3; k++) {
            ENSURE_NEAR(fabs(bf.R[k][0]), fabs(Q[k][2]), 1e-10);
            ENSURE_NEAR(fabs(bf.R[k][1]), fabs(Q[k][1]), 1e-10);
            ENSURE_NEAR(fabs(bf.R[k][2]), fabs(Q[k][0]), 1e-10);
        }
        /* the moved mesh: centred, axis-aligned, right-handed (volume still positive) */
        ENSURE_NEAR(m.lo[0], -1.5, 1e-12);
        ENSURE_NEAR(m.hi[1], 1.0, 1e-12);
        ENSURE_NEAR(m.hi[2], 0.5, 1e-12);
        tl_mass_props mp;
        tl_mesh_mass(&m, &mp);
        ENSURE_NEAR(mp.volume, 6.0, 1e-12);
        ENSURE_NEAR(mp.inertia[0][1], 0.0, 1e-12);
        ENSURE_NEAR(mp.inertia[0][2], 0.0, 1e-12);
        tl_mesh_free(&m);
    }

    /* the Kharaz sphere (seed 000, 3.1): 5 mm diameter, 2562 vertices, mass 2.29e-4 kg
     * (docs/readings.md#li-kharaz-density: that mass needs a density of about 3500, not the printed 4000).
     * With its vertices on the 5 mm sphere, the icosphere is 0.22 % smaller in
     * volume and its I / m 0.14 % smaller than the sphere's 2/5 R^2; scaled to the
     * sphere's volume, it has the sphere's I / m to 2e-6 and gives the paper's
     * 5.73e-10 kg m^2. */
    tl_mesh m;
    double R = 2.5e-3, mass = 2.29e-4, V_sphere = 4.0 / 3.0 * TL_PI * R * R * R;
    ENSURE_OK(tl_mesh_icosphere(&mem, &m, R, 4, msg, sizeof msg));
    tl_body_frame bf;
    ENSURE_OK(tl_mesh_to_body_frame(&m, &bf));
    ENSURE(bf.R[0][0] == 1.0 && bf.R[1][1] == 1.0 && bf.R[2][2] == 1.0); /* isotropic: the frame is kept */
    double I_inscribed = mass * bf.moments[0], rho_inscribed = mass / bf.volume;
    double s = cbrt(V_sphere / bf.volume);
    tl_mesh_free(&m);
    ENSURE_OK(tl_mesh_icosphere(&mem, &m, s * R, 4, msg, sizeof msg));
    ENSURE_OK(tl_mesh_to_body_frame(&m, &bf));
    double rho = mass / bf.volume, I = mass * bf.moments[0];
    fprintf(stderr,
            "Kharaz sphere, 2562 vertices: on the 5 mm sphere: density %.1f kg/m3, I = %.4e kg m2; scaled to its "
            "volume (radius x %.6f): density %.1f, I = %.4e (analytic sphere %.4e; paper 5.73e-10)\n",
            rho_inscribed, I_inscribed, s, rho, I, tl_sphere_moment(R, mass));
    ENSURE_REL(bf.volume, V_sphere, 1e-13);
    ENSURE(fabs(rho - 3500.0) < 2.0);
    ENSURE_NEAR(I, 5.73e-10, 0.005e-10);
    ENSURE_REL(I, tl_sphere_moment(R, mass), 1e-5);
    ENSURE_REL(I_inscribed, tl_sphere_moment(R, mass) * (1.0 - 1.44e-3), 1e-4);
    tl_mesh_free(&m);
    ENSURE(mem.bytes == 0);
}

/* ---- BVH ---- */

static void test_watertight(void) {
    /* two triangles sharing an edge, and a fan of six around a vertex: a ray
     * exactly through the edge or the vertex is counted by one of them */
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, d[3] = {1, 1, 0}, t;
    double o[3] = {0.5, 0.5, 1.0}, dir[3] = {0, 0, -1};
    int hits = tl_tri_ray(o, dir, a, b, d, 0.0, 10.0, &t) + tl_tri_ray(o, dir, a, d, c, 0.0, 10.0, &t);
    ENSURE(hits == 1);
    double dir2[3] = {0.3, -0.2, -1.0};
    double o2[3] = {0.5 - 0.3, 0.5 + 0.2, 1.0};
    hits = tl_tri_ray(o2, dir2, a, b, d, 0.0, 10.0, &t) + tl_tri_ray(o2, dir2, a, d, c, 0.0, 10.0, &t);
    ENSURE(hits == 1);
    double ring[6][3], centre[3] = {0, 0, 0};
    for (int k = 0; k < 6; k++) v3_set(ring[k], cos(TL_PI * k / 3.0), sin(TL_PI * k / 3.0), 0.0);
    const double dirs[3][3] = {{0, 0, -1}, {0.1, 0.2, -1}, {-0.3, 0.05, -1}};
    for (int r = 0; r < 3; r++) {
        double orig[3] = {-dirs[r][0], -dirs[r][1], 1.0};
        hits = 0;
        for (int k = 0; k < 6; k++) hits += tl_tri_ray(orig, dirs[r], centre, ring[k], ring[(k + 1) % 6], 0.0, 10.0, &t);
        ENSURE(hits == 1);
    }
}

static void test_bvh(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    tl_mesh m;
    ENSURE_OK(tl_mesh_ellipsoid(&mem, &m, 1.0, 0.7, 0.5, 700, msg, sizeof msg));
    ENSURE(m.bvh.depth <= 12);
    trng r = {3};
    int box_bad = 0, closest_bad = 0, ray_bad = 0, inside_bad = 0;
    uint32_t *out = malloc(m.nt * sizeof *out);
    for (int t = 0; t < 300; t++) {
        /* boxes */
        double c[3], h[3], lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            c[k] = 2.4 * trng_uniform(&r) - 1.2;
            h[k] = 0.3 * trng_uniform(&r);
            lo[k] = c[k] - h[k];
            hi[k] = c[k] + h[k];
        }
        size_t n = tl_bvh_box(TL_MESH_TRIS(&m), lo, hi, out, m.nt);
        size_t brute = 0;
        for (size_t f = 0; f < m.nt; f++) {
            bool meet = true;
            for (int k = 0; k < 3; k++) {
                double flo = dmin(m.v[m.tri[f][0]][k], dmin(m.v[m.tri[f][1]][k], m.v[m.tri[f][2]][k]));
                double fhi = dmax(m.v[m.tri[f][0]][k], dmax(m.v[m.tri[f][1]][k], m.v[m.tri[f][2]][k]));
                if (flo > hi[k] || fhi < lo[k]) meet = false;
            }
            brute += meet;
        }
        box_bad += n != brute;
        /* closest point */
        tl_mesh_point mp;
        if (!tl_bvh_closest(TL_MESH_TRIS(&m), c, INFINITY, &mp)) closest_bad++;
        double best = INFINITY;
        for (size_t f = 0; f < m.nt; f++) {
            double q[3], dd[3];
            tl_feature fe;
            int idx;
            tl_tri_closest(c, m.v[m.tri[f][0]], m.v[m.tri[f][1]], m.v[m.tri[f][2]], q, &fe, &idx, NULL);
            v3_sub(dd, c, q);
            best = dmin(best, v3_norm(dd));
        }
        closest_bad += fabs(mp.dist - best) > 1e-15;
        /* the limit: nothing found beyond it */
        closest_bad += tl_bvh_closest(TL_MESH_TRIS(&m), c, 0.999 * best, &mp);
        /* rays */
        double d[3];
        trng_dir(&r, d);
        tl_ray_hit hit;
        bool got = tl_bvh_ray(TL_MESH_TRIS(&m), c, d, 0.0, 10.0, &hit);
        double tbest = INFINITY;
        for (size_t f = 0; f < m.nt; f++) {
            double tt;
            if (tl_tri_ray(c, d, m.v[m.tri[f][0]], m.v[m.tri[f][1]], m.v[m.tri[f][2]], 0.0, 10.0, &tt))
                tbest = dmin(tbest, tt);
        }
        ray_bad += got != (tbest < INFINITY) || (got && hit.t != tbest);
        /* inside: against the brute-force parity along d */
        int par = 0;
        for (size_t f = 0; f < m.nt; f++) {
            double tt;
            par ^= tl_tri_ray(c, d, m.v[m.tri[f][0]], m.v[m.tri[f][1]], m.v[m.tri[f][2]], 0.0, INFINITY, &tt);
        }
        inside_bad += tl_bvh_inside(TL_MESH_TRIS(&m), c) != (bool)par;
    }
    ENSURE(box_bad == 0);
    ENSURE(closest_bad == 0);
    ENSURE(ray_bad == 0);
    ENSURE(inside_bad == 0);
    free(out);

    /* closest features */
    tl_mesh_point mp;
    double p[3];
    v3_scale(p, m.c[5], 1.2);
    ENSURE(tl_bvh_closest(TL_MESH_TRIS(&m), p, INFINITY, &mp));
    /* a point off a vertex along its pseudo-normal (inside its normal cone: a convex mesh) */
    v3_copy(p, m.v[m.tri[9][0]]);
    v3_axpy(p, 0.3, m.vn[m.tri[9][0]]);
    ENSURE(tl_bvh_closest(TL_MESH_TRIS(&m), p, INFINITY, &mp) && mp.feature == TL_FEATURE_VERTEX &&
           m.tri[mp.facet][mp.index] == m.tri[9][0]);
    tl_mesh_free(&m);

    /* inside, right next to edges and vertices of a cube (the rays' directions
     * avoid the axes, but points on the diagonals send them close to edges) */
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    ENSURE_OK(box_mesh(&mem, &m, lo, hi, 3));
    int bad = 0;
    const double eps[] = {1e-9, 1e-6, 1e-3};
    for (int e = 0; e < 3; e++)
        for (int corner = 0; corner < 8; corner++) {
            double v[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1}, in[3], outp[3];
            for (int k = 0; k < 3; k++) {
                in[k] = v[k] + (v[k] > 0.5 ? -eps[e] : eps[e]);
                outp[k] = v[k] + (v[k] > 0.5 ? eps[e] : -eps[e]);
            }
            bad += !tl_bvh_inside(TL_MESH_TRIS(&m), in);
            bad += tl_bvh_inside(TL_MESH_TRIS(&m), outp);
            /* along an edge and at a third, inside */
            double q[3] = {1.0 / 3.0, eps[e], eps[e]};
            bad += !tl_bvh_inside(TL_MESH_TRIS(&m), q);
            double s[3] = {2.0 / 3.0, 1.0 / 3.0, 1.0 + eps[e]};
            bad += tl_bvh_inside(TL_MESH_TRIS(&m), s);
        }
    /* points whose rays pass exactly through vertices of the grid */
    double cen[3] = {0.5, 0.5, 0.5};
    bad += !tl_bvh_inside(TL_MESH_TRIS(&m), cen);
    double exact[3] = {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0};
    bad += !tl_bvh_inside(TL_MESH_TRIS(&m), exact);
    ENSURE(bad == 0);
    tl_mesh_free(&m);
    ENSURE(mem.bytes == 0);
}

/* tl_mesh_support, the walk over a convex mesh's edges: the highest vertex's value along
 * random directions, and along the axes and the directions between (where vertices tie on a
 * cube's faces), equals the largest over all vertices exactly */
static void test_support(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    tl_mesh m[4];
    ENSURE_OK(tl_mesh_ellipsoid(&mem, &m[0], 0.006, 0.005, 0.005, 810, msg, sizeof msg));
    ENSURE_OK(tl_mesh_ellipsoid(&mem, &m[1], 0.012, 0.009, 0.009, 2864, msg, sizeof msg));
    ENSURE_OK(tl_mesh_icosphere(&mem, &m[2], 1.0, 3, msg, sizeof msg));
    double xyz[24];
    uint32_t tri[36];
    cube_arrays(xyz, tri);
    ENSURE_OK(tl_mesh_from_arrays(&mem, &m[3], xyz, 8, tri, 12, NULL, "cube", msg, sizeof msg));
    trng r = {11};
    int bad = 0, asked = 0;
    for (int k = 0; k < 4; k++) {
        ENSURE(m[k].convex && m[k].vv_start != NULL);
        /* a closed mesh: each edge joins two vertices both ways */
        ENSURE(m[k].vv_start[m[k].nv] == 3 * m[k].nt);
        for (int t = 0; t < 2000 + 27; t++) {
            double u[3];
            if (t < 27) {
                u[0] = t % 3 - 1.0;
                u[1] = (t / 3) % 3 - 1.0;
                u[2] = t / 9 - 1.0;
            } else {
                trng_dir(&r, u);
            }
            double h, best = -INFINITY;
            uint32_t v = tl_mesh_support(&m[k], u, &h);
            for (size_t i = 0; i < m[k].nv; i++) best = dmax(best, v3_dot(u, m[k].v[i]));
            bad += h != best || v3_dot(u, m[k].v[v]) != h;
            asked++;
        }
    }
    fprintf(stderr, "support walk: %d directions on 4 convex meshes, %d not the highest vertex\n", asked, bad);
    ENSURE(bad == 0);
    for (int k = 0; k < 4; k++) tl_mesh_free(&m[k]);
    ENSURE(mem.bytes == 0);
}

int main(void) {
    test_support();
    test_icosphere();
    test_ellipsoid_mesh();
    test_files();
    test_eigen();
    test_mass();
    test_body_frame();
    test_watertight();
    test_bvh();
    return tl_test_report("test_mesh");
}
