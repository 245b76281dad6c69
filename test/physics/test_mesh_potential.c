/* The potential reading of mesh contacts (contact_depth: potential; docs/geometry.md, "A
 * conservative reading") for every pair with a mesh: against a plane, a mesh wall and another
 * mesh body, the rigid-body limits a user relies on:
 *   - undamped, frictionless bounces of a 2 cm cube on a face, an edge and a corner keep their
 *     energy to the integrator's order: the largest departure over the run falls about fourfold
 *     when the step halves (the paper's PCM reading, printed beside, gains or loses percents
 *     whatever the step);
 *   - the gradient of the mesh pair's overlap is exact: finite differences of delta over the
 *     bodies' poses against the patch's force and couple (n fn_scale at p, couple), on random
 *     pairs of cubes;
 *   - a body below its friction angle stops after its landing transient: a cube and an irregular
 *     meshed stone, on a plane, on a meshed slab (a fixed mesh body) and on a mesh wall;
 *   - a tall box on a slowly tilted table tips at atan(w/h), within what its compliance explains;
 *   - a meshed sphere (icospheres of 162, 642 and 2562 vertices, of the sphere's volume) meets a
 *     meshed slab with the analytic sphere's restitution and contact time, at overlaps of 1 % and
 *     8 % of the radius, the difference falling with the facets' size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "pcm.h"
#include "talus/talus.h"
#include "test.h"
#include "vec.h"

#define PI 3.14159265358979323846

static const uint32_t BOX_TRI[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};

static int material(tl_world *w, double E, double e, double mu) {
    tl_material_def md = tl_material_default();
    md.name = "m";
    md.density = 2000;
    md.youngs_modulus = E;
    md.poisson_ratio = 0.3;
    int m;
    tl_world_add_material(w, &md, &m);
    tl_law_def law = tl_law_default();
    if (e >= 1.0) law.damping = "none";
    else tl_law_set(&law, "e", e);
    if (mu <= 0.0) {
        law.tangential = "none";
        law.history = "none";
    } else {
        tl_law_set(&law, "mu", mu);
    }
    if (tl_world_set_law(w, m, m, &law) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    return m;
}

static int mesh_shape(tl_world *w, const double *xyz, size_t nv, const uint32_t *tri, size_t nt, tl_mesh_depth depth) {
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_MESH;
    sd.source = TL_MESH_ARRAYS;
    sd.vertex_xyz = xyz;
    sd.vertex_count = nv;
    sd.triangles = tri;
    sd.triangle_count = nt;
    sd.mesh_depth = depth;
    int s = -1;
    if (tl_world_add_shape(w, &sd, &s) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    return s;
}

static int box_shape(tl_world *w, double a, double b, double c, tl_mesh_depth depth) {
    double xyz[24];
    for (int k = 0; k < 8; k++) {
        xyz[3 * k] = (k & 1) ? a : -a;
        xyz[3 * k + 1] = (k & 2) ? b : -b;
        xyz[3 * k + 2] = (k & 4) ? c : -c;
    }
    return mesh_shape(w, xyz, 8, BOX_TRI, 12, depth);
}

/* an irregular stone: an icosahedron subdivided once (42 vertices, 80 facets), each vertex pushed
 * out or in by up to 20 % (fixed seed), about 1 cm across and half as high: a flat pebble */
static int stone_shape(tl_world *w, tl_mesh_depth depth) {
    static const double t = 1.6180339887498949;
    double v[42 * 3];
    uint32_t f[80 * 3];
    static const double ico[12][3] = {{-1, t, 0}, {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                                      {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    static const uint32_t it[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                       {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                       {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                       {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    size_t nv = 12, nf = 0;
    for (size_t k = 0; k < 12; k++)
        for (size_t d = 0; d < 3; d++) v[3 * k + d] = ico[k][d];
    /* one subdivision: a midpoint per edge, found by a small table */
    uint32_t ea[30], eb[30], em[30];
    size_t ne = 0;
    for (int k = 0; k < 20; k++) {
        uint32_t m[3];
        for (size_t j = 0; j < 3; j++) {
            uint32_t p = it[k][j], q = it[k][(j + 1) % 3], lo = p < q ? p : q, hi = p < q ? q : p;
            size_t e = 0;
            while (e < ne && !(ea[e] == lo && eb[e] == hi)) e++;
            if (e == ne) {
                ea[ne] = lo;
                eb[ne] = hi;
                em[ne] = (uint32_t)nv;
                for (size_t d = 0; d < 3; d++) v[3 * nv + d] = 0.5 * (v[3 * lo + d] + v[3 * hi + d]);
                nv++;
                ne++;
            }
            m[j] = em[e];
        }
        const uint32_t q[4][3] = {{it[k][0], m[0], m[2]}, {it[k][1], m[1], m[0]}, {it[k][2], m[2], m[1]}, {m[0], m[1], m[2]}};
        for (size_t j = 0; j < 4; j++)
            for (size_t d = 0; d < 3; d++) f[3 * nf + j * 3 + d] = q[j][d];
        nf += 4;
    }
    uint64_t seed = 12345;
    for (size_t k = 0; k < nv; k++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(seed >> 11) * 0x1.0p-53, l = sqrt(v[3 * k] * v[3 * k] + v[3 * k + 1] * v[3 * k + 1] + v[3 * k + 2] * v[3 * k + 2]);
        double r = 0.005 * (0.8 + 0.4 * u) * (k % 3 == 0 ? 1.0 : 1.1);
        for (size_t d = 0; d < 3; d++) v[3 * k + d] *= r / l * (d == 2 ? 0.5 : 1.0); /* a flat pebble */
    }
    return mesh_shape(w, v, nv, f, nf, depth);
}

/* a mesh wall: an open square of 20 cm, two triangles, at z = 0 (its own frame) */
static void square_mesh(tl_wall_def *wl) {
    static const double xyz[12] = {-0.1, -0.1, 0, 0.1, -0.1, 0, 0.1, 0.1, 0, -0.1, 0.1, 0};
    static const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
    wl->kind = TL_WALL_MESH;
    wl->mesh_xyz = xyz;
    wl->mesh_vertex_count = 4;
    wl->mesh_triangles = tri;
    wl->mesh_triangle_count = 2;
}

/* the floor: a plane (kind 0), a meshed slab (1: a fixed box body 20 x 20 x 2 cm, its top at
 * z = 0) or a mesh wall (2: an open square of two triangles at z = 0) */
static void floor_of(tl_world *w, int kind, int m, tl_mesh_depth depth) {
    tl_wall_def wl = tl_wall_default();
    wl.material = m;
    if (kind == 0) {
        tl_world_add_wall(w, &wl, NULL);
    } else if (kind == 2) {
        square_mesh(&wl);
        if (tl_world_add_wall(w, &wl, NULL) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    } else {
        int s = box_shape(w, 0.1, 0.1, 0.01, depth);
        tl_particle_def pd = tl_particle_default();
        pd.material = m;
        pd.shape = s;
        pd.position = (tl_vec3){0, 0, -0.01};
        pd.flags = TL_PARTICLE_FIXED;
        if (tl_world_add_particle(w, &pd, NULL) != TL_OK) fprintf(stderr, "%s\n", tl_world_error(w));
    }
}

static const char *FLOOR[3] = {"plane", "meshed slab", "mesh wall"};

/* ---- bounces ---- */

/* Adds particle pd, then steps the world for 0.15 s: the largest departure of kinetic + potential +
 * elastic energy from its start, and the energy of a 1 cm drop of the particle (drop). The world is
 * destroyed. */
static double largest_departure(tl_world *w, const tl_particle_def *pd, double *drop) {
    uint32_t id;
    ENSURE_OK(tl_world_add_particle(w, pd, &id));
    ENSURE_OK(tl_world_prepare(w));
    tl_energy e0, e;
    tl_world_energy(w, &e0);
    const double t0 = e0.kinetic_translational + e0.kinetic_rotational + e0.potential + e0.elastic_normal;
    tl_particle_state p;
    tl_world_get_particle(w, id, &p);
    *drop = p.mass * 9.81 * 0.01;
    double worst = 0.0;
    const int64_t steps = (int64_t)(0.15 / tl_world_dt(w));
    for (int64_t k = 0; k < steps; k++) {
        if (tl_world_step(w, 1) != TL_OK) {
            fprintf(stderr, "%s\n", tl_world_error(w));
            worst = INFINITY;
            break;
        }
        tl_world_energy(w, &e);
        worst = fmax(worst, fabs(e.kinetic_translational + e.kinetic_rotational + e.potential + e.elastic_normal - t0));
    }
    tl_world_destroy(w);
    return worst;
}

/* a 2 cm cube dropped 1 cm (its lowest point 1 cm above the floor) in one of three attitudes: on
 * a face, an edge (turned 45 deg about x), a corner (its diagonal vertical, turned a little more so
 * that one corner leads); undamped, frictionless. The largest departure of kinetic + potential +
 * elastic energy over 0.15 s (the first bounce and its flight), and the drop energy. */
static double bounce(int attitude, int floor, tl_mesh_depth depth, double spc, double *drop) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.impact_speed = 0.5;
    wd.steps_per_contact = spc;
    wd.blowup_energy = 0.0; /* the PCM reading's bounces gain energy: it is what is measured */
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e7, 1.0, 0.0);
    floor_of(w, floor, m, depth);
    int s = box_shape(w, 0.01, 0.01, 0.01, depth);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    double low = 0.01;
    if (attitude == 1) {
        pd.orientation = (tl_quat){cos(PI / 8), sin(PI / 8), 0, 0};
        low = 0.01 * sqrt(2.0);
    } else if (attitude == 2) {
        /* (1,1,1) onto z: about (1,-1,0)/sqrt 2 by acos(1/sqrt 3), then 0.05 rad about x */
        double th = acos(1.0 / sqrt(3.0)), c = cos(0.5 * th), sn = sin(0.5 * th) / sqrt(2.0);
        double q1[4] = {c, sn, -sn, 0}, q2[4] = {cos(0.025), sin(0.025), 0, 0};
        pd.orientation = (tl_quat){q2[0] * q1[0] - q2[1] * q1[1], q2[0] * q1[1] + q2[1] * q1[0],
                                   q2[0] * q1[2] - q2[1] * q1[3], q2[0] * q1[3] + q2[1] * q1[2]};
        low = 0.0175; /* about sqrt(3) cm: set 1 cm above below */
    }
    pd.position = (tl_vec3){0.001, -0.002, low + 0.01};
    return largest_departure(w, &pd, drop);
}

static void bounces_keep_energy(void) {
    static const char *ATT[3] = {"face", "edge", "corner"};
    for (int floor = 0; floor < 3; floor++)
        for (int att = 0; att < 3; att++) {
            double drop, d[3];
            for (int r = 0; r < 3; r++) d[r] = bounce(att, floor, TL_MESH_DEPTH_POTENTIAL, 20.0 * (1 << r), &drop);
            double pcm = floor == 0 ? bounce(att, floor, TL_MESH_DEPTH_VOLUME, 40.0, &drop) : NAN;
            fprintf(stderr,
                    "cube dropped 1 cm on a %s onto a %s, undamped: largest energy departure %.3g, %.3g, %.3g of "
                    "%.3g J at 20, 40, 80 steps per contact (ratios %.2f, %.2f)%s",
                    ATT[att], FLOOR[floor], d[0], d[1], d[2], drop, d[0] / d[1], d[1] / d[2],
                    floor == 0 ? "" : "\n");
            if (floor == 0) fprintf(stderr, "; the PCM reading at 40: %.3g J (%.1f %%)\n", pcm, 100.0 * pcm / drop);
            ENSURE(d[2] < 2e-3 * drop);
            ENSURE(d[0] / d[1] > 2.5 && d[1] / d[2] > 2.5);
        }
}


/* a sphere (radius 1 cm, kind 0) or an ellipsoid (12 x 9 x 7 mm, kind 1: it meets a mesh through its
 * tessellation, under the potential reading since the mesh asks for it) dropped 1 cm with spin onto
 * the floor, undamped and frictionless: the largest departure of its energy over 0.15 s */
static double other_bounce(int kind, int floor, double spc, double *drop) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.impact_speed = 0.5;
    wd.steps_per_contact = spc;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e7, 1.0, 0.0);
    floor_of(w, floor, m, TL_MESH_DEPTH_POTENTIAL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    double low = 0.01;
    if (kind == 1) {
        tl_shape_def sd = tl_shape_default();
        sd.semi_axes = (tl_vec3){0.012, 0.009, 0.007};
        int s;
        ENSURE_OK(tl_world_add_shape(w, &sd, &s));
        pd.shape = s;
        pd.orientation = (tl_quat){0.8, 0.36, 0.48, 0.0};
        low = 0.012;
    } else {
        pd.radius = 0.01;
    }
    pd.position = (tl_vec3){0.001, -0.002, low + 0.01};
    pd.angular_velocity = (tl_vec3){3, -7, 11};
    return largest_departure(w, &pd, drop);
}

static void others_keep_energy(void) {
    static const char *KIND[2] = {"sphere", "ellipsoid"};
    for (int kind = 0; kind < 2; kind++)
        for (int floor = 1; floor < 3; floor++) {
            double drop, d[3];
            for (int r = 0; r < 3; r++) d[r] = other_bounce(kind, floor, 20.0 * (1 << r), &drop);
            fprintf(stderr,
                    "%s dropped 1 cm spinning onto a %s, undamped: largest energy departure %.3g, %.3g, %.3g of %.3g J "
                    "at 20, 40, 80 steps per contact (ratios %.2f, %.2f)\n",
                    KIND[kind], FLOOR[floor], d[0], d[1], d[2], drop, d[0] / d[1], d[1] / d[2]);
            ENSURE(d[2] < 2e-3 * drop);
            ENSURE(d[0] / d[1] > 2.5 && d[1] / d[2] > 2.5);
        }
}

/* ---- the gradient ---- */

static void quat_matrix(const double q0[4], double R[3][3]) {
    double n = sqrt(q0[0] * q0[0] + q0[1] * q0[1] + q0[2] * q0[2] + q0[3] * q0[3]);
    double w = q0[0] / n, x = q0[1] / n, y = q0[2] / n, z = q0[3] / n;
    double M[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(R, M, sizeof M);
}

/* R <- rotation by angle about the unit axis, times R */
static void turn(double R[3][3], int axis, double angle) {
    double c = cos(angle), s = sin(angle), Q[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, T[3][3];
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    Q[i][i] = c;
    Q[i][j] = -s;
    Q[j][i] = s;
    Q[j][j] = c;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) T[r][k] = Q[r][0] * R[0][k] + Q[r][1] * R[1][k] + Q[r][2] * R[2][k];
    memcpy(R, T, sizeof T);
}

static double pair_delta(const tl_mesh *A, const tl_pose *pa, const tl_mesh *B, const tl_pose *pb, tl_patch *P,
                         tl_pcm_scratch *S) {
    tl_pcm_opts o;
    memset(&o, 0, sizeof o);
    o.depth = TL_PCM_DEPTH_POTENTIAL;
    return tl_pcm_mesh_mesh(A, pa, B, pb, &o, P, 1, S) > 0 ? P->delta : 0.0;
}

/* Two cubes in random attitudes, b lowered onto a until delta is 3e-4 m: delta's derivatives over
 * b's position, b's attitude and a's attitude (central differences) against the patch's
 * generalised force: -fn_scale n, -((p - x_b) x G + couple), (p - x_a) x G + couple. */
static void pair_gradient_is_exact(void) {
    tl_mem mem;
    tl_mem_init(&mem, NULL);
    double xyz[24];
    for (int k = 0; k < 8; k++) {
        xyz[3 * k] = (k & 1) ? 0.01 : -0.01;
        xyz[3 * k + 1] = (k & 2) ? 0.01 : -0.01;
        xyz[3 * k + 2] = (k & 4) ? 0.01 : -0.01;
    }
    char msg[256];
    tl_mesh A, B;
    tl_mesh_init(&A);
    tl_mesh_init(&B);
    ENSURE_OK(tl_mesh_from_arrays(&mem, &A, xyz, 8, BOX_TRI, 12, NULL, "a", msg, sizeof msg));
    ENSURE_OK(tl_mesh_from_arrays(&mem, &B, xyz, 8, BOX_TRI, 12, NULL, "b", msg, sizeof msg));
    tl_pcm_scratch S;
    tl_pcm_scratch_init(&S, &mem);
    uint64_t seed = 7;
    double worst = 0.0;
    int pairs = 0, couples = 0;
    for (int trial = 0; trial < 40; trial++) {
        tl_pose pa, pb;
        memset(&pa, 0, sizeof pa);
        memset(&pb, 0, sizeof pb);
        double q[2][4];
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 4; k++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                q[b][k] = (double)(seed >> 11) * 0x1.0p-53 - 0.5;
            }
        quat_matrix(q[0], pa.R);
        quat_matrix(q[1], pb.R);
        v3_set(pb.x, 0.002, -0.001, 0.04);
        tl_patch P, Q;
        for (int it = 0; it < 5000 && pair_delta(&A, &pa, &B, &pb, &P, &S) < 3e-4; it++) pb.x[2] -= 1e-5;
        if (!(pair_delta(&A, &pa, &B, &pb, &P, &S) >= 3e-4)) continue;
        pairs++;
        if (v3_norm(P.couple) > 1e-9) couples++;
        double G[3], m_a[3], m_b[3], r[3];
        v3_scale(G, P.n, P.fn_scale);
        v3_sub(r, P.p, pa.x);
        v3_cross(m_a, r, G);
        v3_add(m_a, m_a, P.couple);
        v3_sub(r, P.p, pb.x);
        v3_cross(m_b, r, G);
        v3_add(m_b, m_b, P.couple);
        for (int k = 0; k < 3; k++) {
            const double h = 1e-8, t = 1e-7;
            tl_pose p1 = pb, p2 = pb;
            p1.x[k] += h;
            p2.x[k] -= h;
            double g = (pair_delta(&A, &pa, &B, &p1, &Q, &S) - pair_delta(&A, &pa, &B, &p2, &Q, &S)) / (2 * h);
            worst = fmax(worst, fabs(g + G[k]) / P.fn_scale);
            p1 = pb;
            p2 = pb;
            turn(p1.R, k, t);
            turn(p2.R, k, -t);
            g = (pair_delta(&A, &pa, &B, &p1, &Q, &S) - pair_delta(&A, &pa, &B, &p2, &Q, &S)) / (2 * t);
            worst = fmax(worst, fabs(g + m_b[k]) / (0.01 * P.fn_scale));
            tl_pose a1 = pa, a2 = pa;
            turn(a1.R, k, t);
            turn(a2.R, k, -t);
            g = (pair_delta(&A, &a1, &B, &pb, &Q, &S) - pair_delta(&A, &a2, &B, &pb, &Q, &S)) / (2 * t);
            worst = fmax(worst, fabs(g - m_a[k]) / (0.01 * P.fn_scale));
        }
    }
    fprintf(stderr,
            "two cubes in %d random attitudes at delta 3e-4 m (%d with a couple): the patch's force and couple "
            "against central differences of delta over the poses, largest difference %.2g of fn_scale\n",
            pairs, couples, worst);
    ENSURE(pairs >= 30 && couples >= 2);
    ENSURE(worst < 1e-5);
    tl_pcm_scratch_free(&S);
    tl_mesh_free(&A);
    tl_mesh_free(&B);
}

/* ---- friction ---- */

/* a body released just above the floor in a gravity turned by theta (the slope), friction mu 0.5,
 * damping e 0.5: its speed at T and the distance its centroid moved over the last half second */
static void on_slope(int body, int floor, double theta, double T, double *speed, double *creep) {
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){9.81 * sin(theta), 0, -9.81 * cos(theta)};
    wd.impact_speed = 0.1;
    wd.steps_per_contact = 20;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e7, 0.5, 0.5);
    /* twisting resistance (Marshall's, from the tangential spring and the contact's size): a body on
     * one corner of its own (the stone) would otherwise pivot about the normal through it as a
     * pendulum under gravity's torque along the slope, for ever (a point contact has no twisting
     * friction; a real contact area has) */
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    law.twisting = "marshall";
    ENSURE_OK(tl_world_set_law(w, m, m, &law));
    floor_of(w, floor, m, TL_MESH_DEPTH_POTENTIAL);
    int s = body == 0 ? box_shape(w, 0.01, 0.01, 0.01, TL_MESH_DEPTH_POTENTIAL) : stone_shape(w, TL_MESH_DEPTH_POTENTIAL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    pd.position = (tl_vec3){0, 0, body == 0 ? 0.0101 : 0.004};
    uint32_t id;
    ENSURE_OK(tl_world_add_particle(w, &pd, &id));
    ENSURE_OK(tl_world_prepare(w));
    tl_particle_state p;
    ENSURE_OK(tl_world_step(w, (int64_t)llround((T - 0.5) / tl_world_dt(w))));
    tl_world_get_particle(w, id, &p);
    tl_vec3 x0 = p.position;
    ENSURE_OK(tl_world_step(w, (int64_t)llround(0.5 / tl_world_dt(w))));
    tl_world_get_particle(w, id, &p);
    *speed = sqrt(p.velocity.x * p.velocity.x + p.velocity.y * p.velocity.y + p.velocity.z * p.velocity.z);
    *creep = sqrt((p.position.x - x0.x) * (p.position.x - x0.x) + (p.position.y - x0.y) * (p.position.y - x0.y));
    tl_world_destroy(w);
}

static void stops_below_friction_angle(void) {
    static const char *BODY[2] = {"2 cm cube", "meshed stone"};
    for (int body = 0; body < 2; body++)
        for (int floor = 0; floor < 3; floor++)
            for (int a = 0; a < 2; a++) {
                double theta = (a == 0 ? 22.0 : 26.0) * PI / 180.0, v, creep;
                on_slope(body, floor, theta, 3.0, &v, &creep);
                fprintf(stderr,
                        "%s on a %s at %.0f deg (mu 0.5: 26.6 deg): after 3 s speed %.2g m/s, moved %.2g m in the last "
                        "0.5 s\n",
                        BODY[body], FLOOR[floor], theta * 180.0 / PI, v, creep);
                /* at rest: its centroid moves less than 10 um over the last half second (what remains
                 * of the stone's speed is a torsional oscillation on its twisting spring about its
                 * resting corner, 0.2 mm/s at most) */
                ENSURE(v < 5e-4);
                ENSURE(creep < 1e-5);
            }
}

/* ---- tipping ---- */

/* A 2 x 2 x 6 cm box standing on a table that turns slowly about y (3 deg/s) from 15 deg, mu 0.8
 * (no sliding below 38.7 deg), damping e 0.3: the table's angle when the box has turned 0.05 rad
 * from it. The table: a plane wall (0), a meshed slab (1: a prescribed body turning about its own
 * centre) or a mesh wall (2), each turning with the motion of walls or prescribed bodies. */
static double tips_at(int floor, double *lean) {
    const double th0 = 15.0 * PI / 180.0, rate = 3.0 * PI / 180.0;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.impact_speed = 0.1;
    wd.steps_per_contact = 20;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e7, 0.3, 0.8);
    const tl_quat tilt = {cos(0.5 * th0), 0, sin(0.5 * th0), 0};
    const double n0[3] = {sin(th0), 0, cos(th0)};
    double base = 0.0; /* the table's top along n0 from the origin */
    if (floor == 1) {
        int sl = box_shape(w, 0.1, 0.1, 0.01, TL_MESH_DEPTH_POTENTIAL);
        tl_particle_def sd = tl_particle_default();
        sd.material = m;
        sd.shape = sl;
        sd.orientation = tilt;
        sd.flags = TL_PARTICLE_PRESCRIBED;
        sd.angular_velocity = (tl_vec3){0, rate, 0};
        ENSURE_OK(tl_world_add_particle(w, &sd, NULL));
        base = 0.01;
    } else {
        tl_wall_def wl = tl_wall_default();
        wl.material = m;
        wl.motion.kind = TL_MOTION_ROTATE;
        wl.motion.axis = (tl_vec3){0, 1, 0};
        wl.motion.angular_speed = rate;
        if (floor == 0) {
            wl.normal = (tl_vec3){n0[0], n0[1], n0[2]};
        } else {
            square_mesh(&wl);
            wl.mesh_orientation = tilt;
        }
        ENSURE_OK(tl_world_add_wall(w, &wl, NULL));
    }
    int s = box_shape(w, 0.01, 0.01, 0.03, TL_MESH_DEPTH_POTENTIAL);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    pd.orientation = tilt;
    pd.position = (tl_vec3){(base + 0.03) * n0[0], 0, (base + 0.03) * n0[2]};
    /* turning with the table from the start */
    pd.angular_velocity = (tl_vec3){0, rate, 0};
    pd.velocity = (tl_vec3){rate * pd.position.z, 0, -rate * pd.position.x};
    uint32_t id;
    ENSURE_OK(tl_world_add_particle(w, &pd, &id));
    ENSURE_OK(tl_world_prepare(w));
    const double dt = tl_world_dt(w);
    double at = NAN;
    for (int64_t k = 1; (double)k * dt * rate < 10.0 * PI / 180.0; k++) {
        ENSURE_OK(tl_world_step(w, 1));
        tl_particle_state p;
        tl_world_get_particle(w, id, &p);
        tl_quat q = p.orientation;
        /* the box's axis against the table's normal now */
        double th = th0 + rate * (double)k * dt, ax[3] = {2 * (q.x * q.z + q.w * q.y), 2 * (q.y * q.z - q.w * q.x),
                                                         1 - 2 * (q.x * q.x + q.y * q.y)};
        double c = ax[0] * sin(th) + ax[2] * cos(th);
        /* how far it leans on its compliant contact as the table passes the rigid block's angle */
        if (th >= atan(1.0 / 3.0) && !(*lean >= 0.0)) *lean = acos(fmin(1.0, c));
        if (acos(fmin(1.0, c)) > 0.05) {
            at = th;
            break;
        }
    }
    tl_world_destroy(w);
    return at;
}

/* The rigid block under the same protocol: once the table passes atan(w/h) it turns about its
 * downhill edge, (4/3) m r^2 psi'' = m g r sin(Omega t + psi) (r the edge's distance from the
 * centroid, t from the critical moment); the table's angle when psi reaches 0.05 rad (RK4, 1e-5 s):
 * what the detector alone adds to atan(w/h). */
static double rigid_detect(double w, double h, double rate) {
    const double g = 9.81, r = sqrt(w * w + h * h), c = 3.0 * g / (4.0 * r), dt = 1e-5;
    double t = 0.0, y0 = 0.0, y1 = 0.0;
    while (y0 < 0.05) {
        double k1a = y1, k1b = c * sin(rate * t + y0);
        double k2a = y1 + 0.5 * dt * k1b, k2b = c * sin(rate * (t + 0.5 * dt) + y0 + 0.5 * dt * k1a);
        double k3a = y1 + 0.5 * dt * k2b, k3b = c * sin(rate * (t + 0.5 * dt) + y0 + 0.5 * dt * k2a);
        double k4a = y1 + dt * k3b, k4b = c * sin(rate * (t + dt) + y0 + dt * k3a);
        y0 += dt / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a);
        y1 += dt / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b);
        t += dt;
    }
    return atan(w / h) + rate * t;
}

/* The box tips where the rigid block does, a little earlier by its compliance: on its contact it leans
 * towards the downhill edge before the edge carries it (measured as the table passes atan(1/3)), so
 * its centroid passes over the edge at most that lean earlier. Held between the rigid block's angle
 * less that lean and the rigid block's. (The paper's PCM reading tipped it at 16.2 deg.) */
static void tips_at_its_angle(void) {
    const double rigid = atan(1.0 / 3.0), detect = rigid_detect(0.01, 0.03, 3.0 * PI / 180.0);
    for (int floor = 0; floor < 3; floor++) {
        double lean = NAN, at = tips_at(floor, &lean);
        fprintf(stderr,
                "2 x 2 x 6 cm box on a %s turning at 3 deg/s from 15 deg: turned 0.05 rad from it at %.3f deg; the "
                "rigid block tips at %.3f deg and has turned 0.05 rad at %.3f deg, less the box's lean on its "
                "contact at that angle, %.3f deg: %.3f deg\n",
                FLOOR[floor], at * 180.0 / PI, rigid * 180.0 / PI, detect * 180.0 / PI, lean * 180.0 / PI,
                (detect - lean) * 180.0 / PI);
        ENSURE(lean > 0.0 && lean < 0.01);
        ENSURE(at > detect - lean && at < detect);
    }
}

/* ---- a meshed sphere against the sphere ---- */

typedef struct collision_out {
    double e, tc; /* restitution, contact time */
} collision_out;

/* a body of radius 5 mm (k < 0: the analytic sphere; else an icosphere of k subdivisions scaled to
 * the sphere's volume) meets a fixed twin head-on at v, Hertz with damping e = 0.5, no friction:
 * the restitution and contact time of the collision log */
static collision_out twins(int k, double v) {
    const double R = 0.005;
    tl_world_def wd = tl_world_default();
    wd.impact_speed = v;
    wd.steps_per_contact = 100;
    tl_world *w;
    tl_world_create(&wd, &w);
    int m = material(w, 1e7, 0.5, 0.0);
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    if (k >= 0) {
        /* an icosphere's volume for vertices on radius r: (4/3) pi r^3 (1 - eps_k), eps from
         * test_mesh's table: the radius that gives the sphere's volume */
        tl_shape_def sd = tl_shape_default();
        sd.kind = TL_SHAPE_MESH;
        sd.source = TL_MESH_ICOSPHERE;
        sd.subdivisions = k;
        sd.radius = R;
        sd.mesh_depth = TL_MESH_DEPTH_POTENTIAL;
        int s0;
        ENSURE_OK(tl_world_add_shape(w, &sd, &s0));
        tl_shape_info si;
        ENSURE_OK(tl_world_get_shape(w, s0, &si));
        sd.radius = R * cbrt(4.0 / 3.0 * PI * R * R * R / si.volume);
        sd.name = "scaled";
        int s;
        ENSURE_OK(tl_world_add_shape(w, &sd, &s));
        pd.shape = s;
    } else {
        pd.radius = R;
    }
    pd.flags = TL_PARTICLE_FIXED;
    ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    pd.flags = 0;
    pd.orientation = (tl_quat){0.8, 0.36, 0.48, 0.0}; /* not the fixed twin's facets mirrored */
    pd.position = (tl_vec3){0, 0, 2.0 * R + 0.1 * v * 0.01};
    pd.velocity = (tl_vec3){0, 0, -v};
    ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    tl_world_log_collisions(w, true);
    ENSURE_OK(tl_world_prepare(w));
    for (int it = 0; it < 100 && tl_world_collision_count(w) == 0; it++)
        ENSURE_OK(tl_world_step(w, (int64_t)llround(0.002 / tl_world_dt(w))));
    collision_out o = {NAN, NAN};
    if (tl_world_collision_count(w) > 0) {
        const tl_collision *c = tl_world_collisions(w);
        o.e = c->restitution;
        o.tc = c->t_end - c->t_begin;
    }
    tl_world_destroy(w);
    return o;
}

/* At overlaps of 1 % and 8 % of the radius (the impact speed of an undamped Hertz contact that
 * reaches them), icospheres of 162, 642 and 2562 vertices against the analytic spheres: the
 * differences in restitution and contact time fall with the facets' size (about fourfold per
 * subdivision: the facets' sagitta), whatever the overlap (the depth 3 Phi / V of two paraboloids
 * is their approach exactly, docs/geometry.md). */
static void meshed_sphere_converges(void) {
    const double R = 0.005, Rs = 0.5 * R, E = 1e7 / (2.0 * (1.0 - 0.09)), m = 2000.0 * 4.0 / 3.0 * PI * R * R * R;
    for (int f = 0; f < 2; f++) {
        const double frac = f == 0 ? 0.01 : 0.08, d = frac * R;
        /* undamped Hertz: (1/2) m* v^2 = (8/15) E* sqrt(R*) d^(5/2), m* = m (a fixed twin) */
        const double v = sqrt(2.0 * 8.0 / 15.0 * E * sqrt(Rs) * pow(d, 2.5) / m);
        collision_out ref = twins(-1, v), o[5];
        double de[5], dt[5];
        for (int k = 2; k <= 6; k++) {
            o[k - 2] = twins(k, v);
            de[k - 2] = fabs(o[k - 2].e - ref.e);
            dt[k - 2] = fabs(o[k - 2].tc / ref.tc - 1.0);
        }
        fprintf(stderr,
                "meshed spheres meeting at %.3g m/s (overlap %.0f %% of R): e %.6f, contact time %.5g s for the spheres; "
                "icospheres of 162 / 642 / 2562 / 10242 / 40962 vertices: e off by %.2g / %.2g / %.2g / %.2g / %.2g, "
                "contact time by %.2g / %.2g / %.2g / %.2g / %.2g\n",
                v, 100 * frac, ref.e, ref.tc, de[0], de[1], de[2], de[3], de[4], dt[0], dt[1], dt[2], dt[3], dt[4]);
        /* the finest meshes within 1 % (contact time) and 0.5 % (restitution) at 8 %, 2 % and 1 % at 1 %;
         * from 642 vertices on each level closer (at 1 % the coarser meshes' facets are wider than
         * the contact, a = sqrt(R* delta) = 0.35 mm) */
        ENSURE(dt[4] < (f == 0 ? 0.02 : 0.01) && de[4] < (f == 0 ? 0.01 : 0.005));
        for (int k = 2; k < 5; k++) ENSURE(dt[k] < dt[k - 1] && de[k] < de[k - 1] + 1e-3);
        /* what the depth measure itself gives two exact spheres: 3 Phi / V over their caps (each
         * point's distance to the other surface, both sides) against their approach */
        double V = 0.0, Phi = 0.0, D = 2.0 * R - d, tmax = acos(D / (2.0 * R));
        for (int i = 0; i < 20000; i++) {
            double t = (i + 0.5) / 20000.0 * tmax, dep = R - sqrt(R * R + D * D - 2.0 * R * D * cos(t));
            V += dep * sin(t);
            Phi += 0.5 * dep * dep * sin(t);
        }
        fprintf(stderr, "  two exact spheres at this overlap: 3 Phi / V = %.5f of their approach (the measure's bias)\n",
                3.0 * Phi / V / d);
    }
}

int main(void) {
    bounces_keep_energy();
    others_keep_energy();
    pair_gradient_is_exact();
    stops_below_friction_angle();
    tips_at_its_angle();
    meshed_sphere_converges();
    return tl_test_report("test_mesh_potential");
}
