/* Helpers shared by the mesh tests: a small random generator, rotations,
 * poses, and meshes built from boxes and extruded polygons. */
#ifndef TL_TEST_MESH_UTIL_H
#define TL_TEST_MESH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "mesh.h"
#include "narrow.h"
#include "vec.h"

typedef struct trng {
    uint64_t s;
} trng;

static inline double trng_uniform(trng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static inline void trng_dir(trng *r, double d[3]) {
    for (;;) {
        for (int k = 0; k < 3; k++) d[k] = 2.0 * trng_uniform(r) - 1.0;
        double l = v3_norm(d);
        if (l > 0.1 && l <= 1.0) {
            v3_scale(d, d, 1.0 / l);
            return;
        }
    }
}

/* the rotation matrix of a unit quaternion (w, x, y, z) */
static inline void quat_matrix(const double q[4], double R[3][3]) {
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0][0] = 1 - 2 * (y * y + z * z);
    R[0][1] = 2 * (x * y - w * z);
    R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z);
    R[1][1] = 1 - 2 * (x * x + z * z);
    R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y);
    R[2][1] = 2 * (y * z + w * x);
    R[2][2] = 1 - 2 * (x * x + y * y);
}

static inline void trng_rotation(trng *r, double R[3][3]) {
    double q[4], l = 0.0;
    while (l < 0.1) {
        for (int k = 0; k < 4; k++) q[k] = 2.0 * trng_uniform(r) - 1.0;
        l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (l > 1.0) l = 0.0;
    }
    for (int k = 0; k < 4; k++) q[k] /= l;
    quat_matrix(q, R);
}

static inline void pose_set(tl_pose *p, const double x[3], const double R[3][3]) {
    v3_copy(p->x, x);
    memcpy(p->R, R, sizeof p->R);
}

static inline void pose_identity(tl_pose *p, const double x[3]) {
    static const double I[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    pose_set(p, x, I);
}

static inline void mat_vec(const double R[3][3], const double v[3], double o[3]) {
    for (int i = 0; i < 3; i++) o[i] = R[i][0] * v[0] + R[i][1] * v[1] + R[i][2] * v[2];
}

/* A box [lo, hi], split into n x n squares (2 triangles each) per face. */
static inline tl_status box_mesh(tl_mem *mem, tl_mesh *m, const double lo[3], const double hi[3], int n) {
    int per = (n + 1) * (n + 1);
    size_t nv = (size_t)(6 * per), nt = (size_t)(12 * n * n);
    double *xyz = malloc(3 * nv * sizeof *xyz);
    uint32_t *tri = malloc(3 * nt * sizeof *tri);
    size_t t = 0;
    for (int face = 0; face < 6; face++) {
        int axis = face / 2, side = face % 2; /* side 1: the hi face */
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int i = 0; i <= n; i++)
            for (int j = 0; j <= n; j++) {
                double *p = &xyz[3 * (size_t)(face * per + i * (n + 1) + j)];
                p[axis] = side ? hi[axis] : lo[axis];
                p[u] = lo[u] + (hi[u] - lo[u]) * i / n;
                p[v] = lo[v] + (hi[v] - lo[v]) * j / n;
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                uint32_t a = (uint32_t)(face * per + i * (n + 1) + j), b = a + (uint32_t)(n + 1), c = b + 1,
                         d = a + 1;
                /* (u, v, axis) is right-handed: a-b-c is counter-clockwise seen from +axis */
                uint32_t q[2][3] = {{a, b, c}, {a, c, d}};
                for (int k = 0; k < 2; k++) {
                    if (side) memcpy(&tri[3 * t], q[k], sizeof q[k]);
                    else {
                        tri[3 * t] = q[k][0];
                        tri[3 * t + 1] = q[k][2];
                        tri[3 * t + 2] = q[k][1];
                    }
                    t++;
                }
            }
    }
    /* the faces' shared edge vertices are welded by position */
    uint32_t *map = malloc(nv * sizeof *map);
    for (size_t i = 0; i < nv; i++) {
        map[i] = (uint32_t)i;
        for (size_t j = 0; j < i; j++)
            if (xyz[3 * j] == xyz[3 * i] && xyz[3 * j + 1] == xyz[3 * i + 1] && xyz[3 * j + 2] == xyz[3 * i + 2]) {
                map[i] = map[j];
                break;
            }
    }
    for (size_t k = 0; k < 3 * nt; k++) tri[k] = map[tri[k]];
    char msg[256];
    tl_status st = tl_mesh_from_arrays(mem, m, xyz, nv, tri, nt, NULL, "box", msg, sizeof msg);
    if (st != TL_OK) fprintf(stderr, "box_mesh: %s\n", msg);
    free(map);
    free(xyz);
    free(tri);
    return st;
}

#endif
