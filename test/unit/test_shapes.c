/* The world's shapes through the public API (world_shapes.c): every source of
 * a mesh (arrays, icosphere, triangulated ellipsoid, STL and OBJ files), the
 * mass properties and body frame a particle gets from them, the display
 * tessellation of an ellipsoid, and bad meshes refused with the facet named. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shape_kind.h"
#include "talus/scene.h"
#include "talus/talus.h"
#include "test.h"

#define PI 3.14159265358979323846

static tl_world *world(int *m) {
    tl_world_def wd = tl_world_default();
    wd.dt = 1e-4;
    tl_world *w;
    tl_world_create(&wd, &w);
    tl_material_def md = tl_material_default();
    md.name = "rock";
    md.density = 2000;
    md.youngs_modulus = 1e7;
    tl_world_add_material(w, &md, m);
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.5);
    tl_world_set_law(w, *m, *m, &law);
    return w;
}

/* a box [0, a] x [0, b] x [0, c] shifted by (1, 2, 3) and turned 30 degrees about z */
static void box_arrays(double a, double b, double c, double xyz[24], uint32_t tri[36]) {
    double ca = cos(PI / 6), sa = sin(PI / 6);
    for (int k = 0; k < 8; k++) {
        double p[3] = {(k & 1) ? a : 0.0, (k & 2) ? b : 0.0, (k & 4) ? c : 0.0};
        xyz[3 * k] = 1.0 + ca * p[0] - sa * p[1];
        xyz[3 * k + 1] = 2.0 + sa * p[0] + ca * p[1];
        xyz[3 * k + 2] = 3.0 + p[2];
    }
    static const uint32_t t[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                   2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    memcpy(tri, t, sizeof t);
}

static void test_arrays(void) {
    int m;
    tl_world *w = world(&m);
    double xyz[24];
    uint32_t tri[36];
    box_arrays(0.03, 0.02, 0.01, xyz, tri);
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_MESH;
    sd.source = TL_MESH_ARRAYS;
    sd.name = "brick";
    sd.vertex_xyz = xyz;
    sd.vertex_count = 8;
    sd.triangles = tri;
    sd.triangle_count = 12;
    int s;
    ENSURE(tl_world_add_shape(w, &sd, &s) == TL_OK);
    tl_shape_info si;
    ENSURE(tl_world_get_shape(w, s, &si) == TL_OK);
    ENSURE(si.kind == TL_SHAPE_MESH && si.vertices == 8 && si.facets == 12);
    ENSURE_REL(si.volume, 0.03 * 0.02 * 0.01, 1e-12);
    /* per unit mass, ascending: (b^2 + c^2)/12 ... about the long axis first */
    ENSURE_REL(si.inertia.x, (0.02 * 0.02 + 0.01 * 0.01) / 12.0, 1e-10);
    ENSURE_REL(si.inertia.y, (0.03 * 0.03 + 0.01 * 0.01) / 12.0, 1e-10);
    ENSURE_REL(si.inertia.z, (0.03 * 0.03 + 0.02 * 0.02) / 12.0, 1e-10);
    ENSURE_REL(si.radius, 0.5 * sqrt(0.03 * 0.03 + 0.02 * 0.02 + 0.01 * 0.01), 1e-12);
    /* the body frame: the centre of the box, and its long axis along +-(cos 30, sin 30, 0) */
    double ca = cos(PI / 6), sa = sin(PI / 6);
    ENSURE_NEAR(si.origin.x, 1.0 + ca * 0.015 - sa * 0.01, 1e-12);
    ENSURE_NEAR(si.origin.y, 2.0 + sa * 0.015 + ca * 0.01, 1e-12);
    ENSURE_NEAR(si.origin.z, 3.005, 1e-12);
    tl_quat q = si.frame;
    double ex = 1 - 2 * (q.y * q.y + q.z * q.z), ey = 2 * (q.x * q.y + q.w * q.z);
    ENSURE_NEAR(fabs(ex * ca + ey * sa), 1.0, 1e-12);
    /* a particle of it: mass from the density, principal moments */
    tl_particle_def pd = tl_particle_default();
    pd.material = m;
    pd.shape = s;
    uint32_t id;
    ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
    tl_particle_state ps;
    tl_world_get_particle(w, id, &ps);
    ENSURE_REL(ps.mass, 2000 * 6e-6, 1e-12);
    ENSURE_REL(ps.principal_inertia.z, ps.mass * (0.03 * 0.03 + 0.02 * 0.02) / 12.0, 1e-10);
    ENSURE(ps.shape == s);
    /* its surface, in the body frame */
    const double *v;
    const uint32_t *t;
    size_t nv, nt;
    ENSURE(tl_world_shape_mesh(w, s, &v, &nv, &t, &nt) == TL_OK);
    double cx = 0;
    for (size_t k = 0; k < nv; k++) cx += v[3 * k];
    ENSURE(nv == 8 && nt == 12);
    ENSURE_NEAR(cx / 8.0, 0.0, 1e-15);
    /* a facet turned inside out is refused with its index */
    uint32_t bad[36];
    memcpy(bad, tri, sizeof bad);
    uint32_t tmp = bad[3 * 5 + 1];
    bad[3 * 5 + 1] = bad[3 * 5 + 2];
    bad[3 * 5 + 2] = tmp;
    sd.triangles = bad;
    sd.name = "flipped";
    ENSURE(tl_world_add_shape(w, &sd, &s) != TL_OK);
    fprintf(stderr, "flipped facet: %s\n", tl_world_error(w));
    ENSURE(strstr(tl_world_error(w), "flipped") != NULL && strstr(tl_world_error(w), "facet") != NULL);
    tl_world_destroy(w);
}

static void test_generated(void) {
    int m;
    tl_world *w = world(&m);
    /* icospheres converge to the sphere's volume and 2/5 R^2 */
    double prev = INFINITY;
    for (int k = 1; k <= 5; k++) {
        tl_shape_def sd = tl_shape_default();
        sd.kind = TL_SHAPE_MESH;
        sd.source = TL_MESH_ICOSPHERE;
        sd.radius = 0.0025;
        sd.subdivisions = k;
        int s;
        ENSURE(tl_world_add_shape(w, &sd, &s) == TL_OK);
        tl_shape_info si;
        tl_world_get_shape(w, s, &si);
        double err = fabs(si.inertia.x / (0.4 * 0.0025 * 0.0025) - 1.0);
        fprintf(stderr, "icosphere k = %d: %zu vertices, %zu facets, I/(2/5 m R^2) - 1 = %.3g\n", k, si.vertices,
                si.facets, si.inertia.x / (0.4 * 0.0025 * 0.0025) - 1.0);
        ENSURE(si.vertices == (size_t)(10 * (1 << (2 * k)) + 2));
        ENSURE(err < prev / 3.0);
        prev = err;
    }
    /* the paper's bodies: 810 / 1616 and 2864 / 5724 */
    const double axes[2][3] = {{0.006, 0.005, 0.005}, {0.012, 0.009, 0.009}};
    const int verts[2] = {810, 2864};
    for (int k = 0; k < 2; k++) {
        tl_shape_def sd = tl_shape_default();
        sd.kind = TL_SHAPE_MESH;
        sd.source = TL_MESH_ELLIPSOID;
        sd.semi_axes = (tl_vec3){axes[k][0], axes[k][1], axes[k][2]};
        sd.vertices = verts[k];
        int s;
        ENSURE(tl_world_add_shape(w, &sd, &s) == TL_OK);
        tl_shape_info si;
        tl_world_get_shape(w, s, &si);
        double v = 4.0 / 3.0 * PI * axes[k][0] * axes[k][1] * axes[k][2];
        fprintf(stderr, "triangulated ellipsoid %d vertices: %zu facets, volume %.5g of the ellipsoid's\n", verts[k],
                si.facets, si.volume / v);
        ENSURE(si.vertices == (size_t)verts[k] && si.facets == (size_t)(2 * verts[k] - 4));
        ENSURE(si.volume < v && si.volume > 0.99 * v);
    }
    /* an ellipsoid has a display tessellation for the outputs */
    tl_shape_def sd = tl_shape_default();
    sd.semi_axes = (tl_vec3){0.003, 0.002, 0.001};
    int s;
    ENSURE(tl_world_add_shape(w, &sd, &s) == TL_OK);
    const double *v;
    size_t nv;
    ENSURE(tl_world_shape_mesh(w, s, &v, &nv, NULL, NULL) == TL_OK);
    double xmax = 0;
    for (size_t k = 0; k < nv; k++) xmax = fmax(xmax, v[3 * k]);
    ENSURE(nv > 100 && xmax <= 0.003 * (1 + 1e-12) && xmax > 0.0029);
    tl_world_destroy(w);
}

static void test_files(void) {
    char dir[] = "/tmp/talus-test-shapes-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char stl[256], obj[256];
    snprintf(stl, sizeof stl, "%s/tet.stl", dir);
    snprintf(obj, sizeof obj, "%s/tet.obj", dir);
    /* a tetrahedron in mm: (0,0,0), (10,0,0), (0,10,0), (0,0,10) */
    FILE *f = fopen(stl, "w");
    fprintf(f, "solid tet\n");
    const double P[4][3] = {{0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {0, 0, 10}};
    const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    for (int t = 0; t < 4; t++) {
        fprintf(f, " facet normal 0 0 0\n  outer loop\n");
        for (int k = 0; k < 3; k++) fprintf(f, "   vertex %g %g %g\n", P[F[t][k]][0], P[F[t][k]][1], P[F[t][k]][2]);
        fprintf(f, "  endloop\n endfacet\n");
    }
    fprintf(f, "endsolid tet\n");
    fclose(f);
    f = fopen(obj, "w");
    for (int k = 0; k < 4; k++) fprintf(f, "v %g %g %g\n", P[k][0], P[k][1], P[k][2]);
    for (int t = 0; t < 4; t++) fprintf(f, "f %d %d %d\n", F[t][0] + 1, F[t][1] + 1, F[t][2] + 1);
    fclose(f);
    int m;
    tl_world *w = world(&m);
    const char *paths[2] = {stl, obj};
    for (int k = 0; k < 2; k++) {
        tl_shape_def sd = tl_shape_default();
        sd.kind = TL_SHAPE_MESH;
        sd.source = TL_MESH_FILE;
        sd.file = paths[k];
        sd.scale = 1e-3;
        int s;
        ENSURE(tl_world_add_shape(w, &sd, &s) == TL_OK);
        tl_shape_info si;
        tl_world_get_shape(w, s, &si);
        ENSURE_REL(si.volume, 1e-6 / 6.0, 1e-6); /* single-precision coordinates in the file reader */
        ENSURE_NEAR(si.origin.x, 0.0025, 1e-9);
    }
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_MESH;
    sd.source = TL_MESH_FILE;
    sd.file = "/nonexistent/rock.stl";
    int s;
    ENSURE(tl_world_add_shape(w, &sd, &s) != TL_OK);
    ENSURE(strstr(tl_world_error(w), "rock.stl") != NULL);
    tl_world_destroy(w);
    unlink(stl);
    unlink(obj);
    rmdir(dir);
}

/* the rotation matrix (body -> world) of a unit quaternion */
static void quat_matrix(tl_quat q, double R[3][3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

/* The orientation of a mesh body turns the mesh as given (issue 39, item 5): a
 * box of 2 x 2 x 6 cm standing in its vertex data (long axis along z), placed
 * with the identity, stands: its surface in the world (the body-frame mesh at
 * body_orientation, as the VTK surfaces draw it) spans 6 cm along z, not 2 cm as
 * when the identity turned the principal frame (long axis first: along x). At
 * a turn q, every given vertex v lies at x + R(q) (v - c), and q reads back. */
static void test_given_frame(void) {
    int m;
    tl_world *w = world(&m);
    double xyz[24];
    uint32_t tri[36];
    static const uint32_t t[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                   2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    memcpy(tri, t, sizeof t);
    for (int k = 0; k < 8; k++) { /* [0.1, 0.12] x [0.2, 0.22] x [0.3, 0.36] */
        xyz[3 * k] = (k & 1) ? 0.12 : 0.1;
        xyz[3 * k + 1] = (k & 2) ? 0.22 : 0.2;
        xyz[3 * k + 2] = (k & 4) ? 0.36 : 0.3;
    }
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_MESH;
    sd.source = TL_MESH_ARRAYS;
    sd.name = "post";
    sd.vertex_xyz = xyz;
    sd.vertex_count = 8;
    sd.triangles = tri;
    sd.triangle_count = 12;
    int s;
    ENSURE(tl_world_add_shape(w, &sd, &s) == TL_OK);
    tl_shape_info si;
    ENSURE(tl_world_get_shape(w, s, &si) == TL_OK);
    /* the principal frame: the long axis (the smallest moment) first, so not the identity */
    double E[3][3];
    quat_matrix(si.frame, E);
    ENSURE_NEAR(fabs(E[2][0]), 1.0, 1e-12);
    ENSURE_NEAR(si.origin.z, 0.33, 1e-12);
    const double *v;
    const uint32_t *tt;
    size_t nv, nt;
    ENSURE(tl_world_shape_mesh(w, s, &v, &nv, &tt, &nt) == TL_OK && nv == 8);
    const double c[3] = {si.origin.x, si.origin.y, si.origin.z};
    const tl_quat turns[2] = {{1, 0, 0, 0}, {0.7, -0.1, 0.5, 0.5}}; /* the second normalised below */
    for (int k = 0; k < 2; k++) {
        tl_quat q = turns[k];
        double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
        q = (tl_quat){q.w / n, q.x / n, q.y / n, q.z / n};
        tl_particle_def pd = tl_particle_default();
        pd.material = m;
        pd.shape = s;
        pd.position = (tl_vec3){0.5, -0.25, 0.03 + k};
        pd.orientation = turns[k];
        uint32_t id;
        ENSURE(tl_world_add_particle(w, &pd, &id) == TL_OK);
        tl_particle_state ps;
        ENSURE(tl_world_get_particle(w, id, &ps) == TL_OK);
        ENSURE_NEAR(ps.orientation.w, q.w, 1e-12);
        ENSURE_NEAR(ps.orientation.x, q.x, 1e-12);
        ENSURE_NEAR(ps.orientation.y, q.y, 1e-12);
        ENSURE_NEAR(ps.orientation.z, q.z, 1e-12);
        /* the body-frame mesh placed by the body's attitude (the engine's and the VTK surfaces') */
        double B[3][3], Q[3][3], lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        quat_matrix(ps.body_orientation, B);
        quat_matrix(q, Q);
        const double x[3] = {ps.position.x, ps.position.y, ps.position.z};
        double world_v[8][3];
        for (size_t j = 0; j < 8; j++)
            for (int a = 0; a < 3; a++) {
                world_v[j][a] = x[a] + B[a][0] * v[3 * j] + B[a][1] * v[3 * j + 1] + B[a][2] * v[3 * j + 2];
                lo[a] = fmin(lo[a], world_v[j][a]);
                hi[a] = fmax(hi[a], world_v[j][a]);
            }
        if (k == 0) { /* standing, where it was put */
            ENSURE_NEAR(hi[2] - lo[2], 0.06, 1e-12);
            ENSURE_NEAR(hi[0] - lo[0], 0.02, 1e-12);
            ENSURE_NEAR(hi[1] - lo[1], 0.02, 1e-12);
            ENSURE_NEAR(lo[2], 0.0, 1e-12);
        }
        /* every given vertex at x + R(q) (v - c), to 1e-12 m */
        double worst = 0.0;
        for (int g = 0; g < 8; g++) {
            double d[3] = {xyz[3 * g] - c[0], xyz[3 * g + 1] - c[1], xyz[3 * g + 2] - c[2]}, p[3], best = INFINITY;
            for (int a = 0; a < 3; a++) p[a] = x[a] + Q[a][0] * d[0] + Q[a][1] * d[1] + Q[a][2] * d[2];
            for (int j = 0; j < 8; j++)
                best = fmin(best, sqrt((p[0] - world_v[j][0]) * (p[0] - world_v[j][0]) +
                                       (p[1] - world_v[j][1]) * (p[1] - world_v[j][1]) +
                                       (p[2] - world_v[j][2]) * (p[2] - world_v[j][2])));
            worst = fmax(worst, best);
        }
        fprintf(stderr, "standing post, turn %d: given vertices off their place by %.2g m\n", k, worst);
        ENSURE(worst <= 1e-12);
    }
    tl_world_destroy(w);
}

/* The table of shape kinds (geometry/shape_kind.h): every kind has its name where scenes and
 * Python read it, its walls, and a geometry function for its pair with every kind before it
 * (the dispatcher finds each pair in the later kind's row); every kind but the sphere is built
 * and bounds the step. A new kind that misses one fails here. */
static void test_kind_table(void) {
    const size_t n = tl_shape_kind_count();
    const char *const *names = NULL;
    ENSURE(n == 3 && n <= TL_SHAPE_KIND_MAX);
    ENSURE(tl_scene_names("shape.kind", &names) == n && names);
    for (size_t k = 0; k < n; k++) {
        const tl_shape_kind_def *d = tl_shape_kind_def_of((tl_shape_kind)k);
        ENSURE(d && d == tl_shape_kinds[k]);
        if (!d) continue;
        ENSURE(names && strcmp(names[k], tl_shape_kind_name((tl_shape_kind)k)) == 0);
        ENSURE(d->face && d->mesh_wall);
        if (k != TL_SHAPE_SPHERE) ENSURE(d->build && d->contact_radius && d->spin_reach);
        for (size_t j = 0; j <= k; j++) ENSURE(d->pair[j].fn != NULL);
    }
    ENSURE(strcmp(tl_shape_kind_name(TL_SHAPE_SPHERE), "sphere") == 0);
    ENSURE(strcmp(tl_shape_kind_name(TL_SHAPE_ELLIPSOID), "ellipsoid") == 0);
    ENSURE(strcmp(tl_shape_kind_name(TL_SHAPE_MESH), "mesh") == 0);
    ENSURE(tl_shape_kind_def_of((tl_shape_kind)n) == NULL);
    /* the kinds a shape may be, named from the table */
    tl_world_def wd = tl_world_default();
    tl_world *w = NULL;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_shape_def sd = tl_shape_default();
    sd.name = "ball";
    sd.kind = TL_SHAPE_SPHERE;
    ENSURE(tl_world_add_shape(w, &sd, NULL) == TL_ERROR_ARGUMENT);
    ENSURE(strcmp(tl_world_error(w), "shape 'ball': kind must be ellipsoid or mesh (spheres need no shape)") == 0);
    tl_world_destroy(w);
}

int main(void) {
    test_kind_table();
    test_arrays();
    test_generated();
    test_files();
    test_given_frame();
    return tl_test_report("test_shapes");
}
