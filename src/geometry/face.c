#include "face.h"

#include <math.h>
#include <stdbool.h>

#include "mesh.h"
#include "vec.h"

/* A sphere against a mesh's bounding box (the broad phase's test; the shape
 * stage measures the surface itself): the overlap with the box, along the
 * direction to it. */
static void mesh_box_geometry(const tl_face *f, const double x[3], double R, tl_geometry *g) {
    const tl_mesh *m = f->mesh;
    double d[3], xl[3];
    v3_sub(d, x, f->T);
    for (int c = 0; c < 3; c++) xl[c] = f->R[0][c] * d[0] + f->R[1][c] * d[1] + f->R[2][c] * d[2];
    double gap2 = 0.0, dl[3];
    for (int c = 0; c < 3; c++) {
        double q = dclamp(xl[c], m->lo[c], m->hi[c]);
        dl[c] = q - xl[c];
        gap2 += dl[c] * dl[c];
    }
    double gap = sqrt(gap2);
    g->delta = R - gap;
    g->r_eff = R;
    if (gap > 0.0) {
        for (int r = 0; r < 3; r++) g->n[r] = (f->R[r][0] * dl[0] + f->R[r][1] * dl[1] + f->R[r][2] * dl[2]) / gap;
    } else {
        v3_set(g->n, 0.0, 0.0, -1.0);
    }
    v3_scale(g->ra, g->n, R - 0.5 * g->delta);
    v3_zero(g->rb);
}

void tl_face_geometry(const tl_face *f, const double x[3], double R, tl_geometry *g) {
    if (f->kind == TL_FACE_MESH) {
        mesh_box_geometry(f, x, R, g);
        return;
    }
    double rel[3];
    v3_sub(rel, x, f->p);
    double s = v3_dot(rel, f->n); /* signed distance to the plane */
    g->r_eff = R;
    if (f->kind == TL_FACE_PLANE) {
        g->delta = R - s;
        v3_scale(g->n, f->n, -1.0);
    } else {
        double a = v3_dot(rel, f->u), b = v3_dot(rel, f->v);
        double ca = dclamp(a, -f->hu, f->hu), cb = dclamp(b, -f->hv, f->hv);
        bool inside = (ca == a && cb == b);
        if (inside) {
            if (s >= 0.0) {
                g->delta = R - s;
                v3_scale(g->n, f->n, -1.0);
            } else {
                g->delta = R + s;
                v3_copy(g->n, f->n);
            }
        } else {
            /* nearest point on the rectangle's rim */
            double q[3];
            v3_copy(q, f->p);
            v3_axpy(q, ca, f->u);
            v3_axpy(q, cb, f->v);
            double d[3];
            v3_sub(d, q, x); /* from the sphere towards the face */
            double dist = v3_norm(d);
            g->delta = R - dist;
            if (dist > 0.0) v3_scale(g->n, d, 1.0 / dist);
            else v3_scale(g->n, f->n, -1.0);
        }
    }
    v3_scale(g->ra, g->n, R - 0.5 * g->delta);
    v3_zero(g->rb);
}
