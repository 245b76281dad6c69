#include "walls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vec.h"

void tl_walls_init(tl_walls *w) { memset(w, 0, sizeof *w); }

void tl_walls_free(tl_mem *mem, tl_walls *w) {
    for (size_t i = 0; i < w->count; i++) tl_mem_strfree(mem, w->w[i].name);
    tl_mem_free(mem, w->w, w->cap * sizeof *w->w);
    tl_mem_free(mem, w->f, w->capf * sizeof *w->f);
    tl_walls_init(w);
}

static bool finite3(tl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static int push_face(tl_mem *mem, tl_walls *w, const tl_face *f) {
    if (tl_mem_reserve(mem, (void **)&w->f, &w->capf, w->nfaces + 1, sizeof *w->f) != 0) return -1;
    w->f[w->nfaces++] = *f;
    return 0;
}

/* a rectangle face from a centre, normal and the first axis */
static tl_face rect_face(int wall, tl_face_kind kind, const double c[3], const double n[3],
                         const double u[3], double hu, double hv) {
    tl_face f;
    memset(&f, 0, sizeof f);
    f.wall = wall;
    f.kind = kind;
    v3_copy(f.p, c);
    v3_copy(f.n, n);
    v3_copy(f.u, u);
    v3_cross(f.v, n, u);
    f.hu = hu;
    f.hv = hv;
    return f;
}

tl_status tl_walls_add(tl_mem *mem, tl_walls *w, const tl_wall_def *def, char *msg, size_t msg_size,
                       int *out_index) {
    if (!finite3(def->velocity)) {
        snprintf(msg, msg_size, "wall velocity must be finite");
        return TL_ERROR_ARGUMENT;
    }
    int index = (int)w->count;
    size_t faces_before = w->nfaces;
    double n[3] = {def->normal.x, def->normal.y, def->normal.z};
    double p[3] = {def->point.x, def->point.y, def->point.z};
    switch (def->kind) {
    case TL_WALL_PLANE:
    case TL_WALL_RECTANGLE: {
        double nn = v3_norm(n);
        if (!finite3(def->point) || !finite3(def->normal) || !(nn > 0.0)) {
            snprintf(msg, msg_size, "a %s needs a finite point and a non-zero normal",
                     def->kind == TL_WALL_PLANE ? "plane" : "rectangle");
            return TL_ERROR_ARGUMENT;
        }
        v3_scale(n, n, 1.0 / nn);
        if (def->kind == TL_WALL_PLANE) {
            tl_face f;
            memset(&f, 0, sizeof f);
            f.wall = index;
            f.kind = TL_FACE_PLANE;
            v3_copy(f.p, p);
            v3_copy(f.n, n);
            if (push_face(mem, w, &f) != 0) return TL_ERROR_MEMORY;
        } else {
            double u[3] = {def->axis.x, def->axis.y, def->axis.z};
            v3_reject(u, u, n);
            double un = v3_norm(u);
            if (!(un > 1e-12)) {
                snprintf(msg, msg_size, "a rectangle needs an axis not parallel to its normal");
                return TL_ERROR_ARGUMENT;
            }
            v3_scale(u, u, 1.0 / un);
            if (!(def->half_length > 0.0) || !(def->half_width > 0.0) ||
                !isfinite(def->half_length) || !isfinite(def->half_width)) {
                snprintf(msg, msg_size, "a rectangle needs half_length > 0 and half_width > 0 (m)");
                return TL_ERROR_ARGUMENT;
            }
            tl_face f = rect_face(index, TL_FACE_RECT, p, n, u, def->half_length, def->half_width);
            if (push_face(mem, w, &f) != 0) return TL_ERROR_MEMORY;
        }
        break;
    }
    case TL_WALL_BOX: {
        double lo[3] = {def->box_min.x, def->box_min.y, def->box_min.z};
        double hi[3] = {def->box_max.x, def->box_max.y, def->box_max.z};
        if (!finite3(def->box_min) || !finite3(def->box_max) || !(hi[0] > lo[0]) ||
            !(hi[1] > lo[1]) || !(hi[2] > lo[2])) {
            snprintf(msg, msg_size, "a box needs min < max in every axis (m)");
            return TL_ERROR_ARGUMENT;
        }
        double c[3], h[3];
        for (int k = 0; k < 3; k++) {
            c[k] = 0.5 * (lo[k] + hi[k]);
            h[k] = 0.5 * (hi[k] - lo[k]);
        }
        for (int axis = 0; axis < 3; axis++) {
            for (int side = 0; side < 2; side++) {
                unsigned bit = 1u << (2 * axis + side);
                if (def->open_faces & bit) continue;
                double fc[3], fn[3] = {0, 0, 0}, fu[3] = {0, 0, 0};
                v3_copy(fc, c);
                fc[axis] = side ? hi[axis] : lo[axis];
                fn[axis] = side ? -1.0 : 1.0; /* inwards */
                int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
                fu[a1] = 1.0;
                /* a thin two-sided plate whose normal faces inwards: a sphere pushed behind it
                 * (an overlap larger than its radius) is pushed out, not flung back in */
                tl_face f = rect_face(index, TL_FACE_RECT, fc, fn, fu, h[a1], h[a2]);
                /* v = n x u must span a2 with half extent h[a2] whatever its sign */
                if (push_face(mem, w, &f) != 0) {
                    w->nfaces = faces_before;
                    return TL_ERROR_MEMORY;
                }
            }
        }
        if (w->nfaces == faces_before) {
            snprintf(msg, msg_size, "a box with all six faces open has no face");
            return TL_ERROR_ARGUMENT;
        }
        break;
    }
    default:
        snprintf(msg, msg_size, "unknown wall kind %d", (int)def->kind);
        return TL_ERROR_ARGUMENT;
    }
    if (tl_mem_reserve(mem, (void **)&w->w, &w->cap, w->count + 1, sizeof *w->w) != 0) {
        w->nfaces = faces_before;
        return TL_ERROR_MEMORY;
    }
    tl_wall *wall = &w->w[w->count];
    memset(wall, 0, sizeof *wall);
    char defname[32];
    snprintf(defname, sizeof defname, "wall%d", index);
    wall->name = tl_mem_strdup(mem, def->name ? def->name : defname);
    if (!wall->name) {
        w->nfaces = faces_before;
        return TL_ERROR_MEMORY;
    }
    wall->kind = def->kind;
    wall->material = def->material;
    v3_set(wall->vel, def->velocity.x, def->velocity.y, def->velocity.z);
    wall->first_face = (int)faces_before;
    wall->face_count = (int)(w->nfaces - faces_before);
    wall->area = def->kind == TL_WALL_PLANE       ? INFINITY
                 : def->kind == TL_WALL_RECTANGLE ? 4.0 * def->half_length * def->half_width
                                                  : 0.0;
    w->count++;
    if (out_index) *out_index = index;
    return TL_OK;
}

void tl_walls_servo(tl_walls *w) {
    for (size_t i = 0; i < w->count; i++) {
        tl_wall *wall = &w->w[i];
        const tl_servo_def *sv = &wall->servo;
        if (!sv->enabled) continue;
        double d[3] = {sv->direction.x, sv->direction.y, sv->direction.z};
        double push = -v3_dot(wall->force, d); /* the particles resist the wall's advance */
        double v = sv->gain * (sv->target_force - push);
        if (v > sv->max_speed) v = sv->max_speed;
        if (v < -sv->max_speed) v = -sv->max_speed;
        /* from one clamp to the other in one step: the gain is too high for the
         * contacts' damping (docs/scene.md, "Choosing the gain") */
        if (fabs(v) == sv->max_speed && v == -wall->servo_last) wall->servo_chatter++;
        wall->servo_last = v;
        /* replace the component along d, keep the rest as prescribed */
        double along = v3_dot(wall->vel, d);
        v3_axpy(wall->vel, v - along, d);
    }
}

void tl_walls_advance(tl_walls *w, double dt) {
    for (size_t i = 0; i < w->count; i++) {
        tl_wall *wall = &w->w[i];
        if (wall->vel[0] == 0.0 && wall->vel[1] == 0.0 && wall->vel[2] == 0.0) continue;
        double d[3];
        v3_scale(d, wall->vel, dt);
        v3_add(wall->disp, wall->disp, d);
        for (int k = 0; k < wall->face_count; k++) {
            tl_face *f = &w->f[wall->first_face + k];
            v3_add(f->p, f->p, d);
        }
    }
}

void tl_face_geometry(const tl_face *f, const double x[3], double R, tl_geometry *g) {
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
