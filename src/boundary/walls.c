#include "walls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mesh.h"
#include "vec.h"

void tl_walls_init(tl_walls *w) { memset(w, 0, sizeof *w); }

static void face_mesh_free(tl_mem *mem, tl_walls *w, tl_face *f) {
    if (!f->mesh) return;
    w->nmesh--;
    tl_mesh_free(f->mesh);
    tl_mem_free(mem, f->mesh, sizeof *f->mesh);
    f->mesh = NULL;
}

void tl_walls_free(tl_mem *mem, tl_walls *w) {
    for (size_t f = 0; f < w->nfaces; f++) face_mesh_free(mem, w, &w->f[f]);
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
    case TL_WALL_MESH: {
        tl_mesh *m = tl_mem_alloc(mem, sizeof *m);
        if (!m) return TL_ERROR_MEMORY;
        tl_mesh_init(m);
        if (!(def->mesh_scale >= 0.0) || !isfinite(def->mesh_scale) || !finite3(def->mesh_origin)) {
            tl_mem_free(mem, m, sizeof *m);
            snprintf(msg, msg_size, "a mesh wall needs a finite origin and a scale > 0 (m per file unit)");
            return TL_ERROR_ARGUMENT;
        }
        tl_mesh_opts opts = {true, def->mesh_scale > 0.0 ? def->mesh_scale : 1.0};
        tl_status st;
        if (def->mesh_file) st = tl_mesh_load(mem, m, def->mesh_file, &opts, msg, msg_size);
        else if (def->mesh_xyz && def->mesh_triangles)
            st = tl_mesh_from_arrays(mem, m, def->mesh_xyz, def->mesh_vertex_count, def->mesh_triangles,
                                     def->mesh_triangle_count, &opts, def->name ? def->name : "mesh wall", msg,
                                     msg_size);
        else {
            snprintf(msg, msg_size, "a mesh wall needs a mesh file or vertex and triangle arrays");
            st = TL_ERROR_ARGUMENT;
        }
        /* placed: world = origin + R(q) x, i.e. R (x - t) with t = -R^T origin */
        double q[4] = {def->mesh_orientation.w, def->mesh_orientation.x, def->mesh_orientation.y,
                       def->mesh_orientation.z};
        double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (st == TL_OK && !(qn > 0.0)) q[0] = qn = 1.0;
        if (st == TL_OK && !isfinite(qn)) {
            snprintf(msg, msg_size, "mesh wall orientation must be a finite quaternion");
            st = TL_ERROR_ARGUMENT;
        }
        if (st == TL_OK) {
            for (int k = 0; k < 4; k++) q[k] /= qn;
            double w0 = q[0], x = q[1], y = q[2], z = q[3];
            double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w0 * z), 2 * (x * z + w0 * y)},
                              {2 * (x * y + w0 * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w0 * x)},
                              {2 * (x * z - w0 * y), 2 * (y * z + w0 * x), 1 - 2 * (x * x + y * y)}};
            double o[3] = {def->mesh_origin.x, def->mesh_origin.y, def->mesh_origin.z}, t[3];
            for (int c = 0; c < 3; c++) t[c] = -(R[0][c] * o[0] + R[1][c] * o[1] + R[2][c] * o[2]);
            st = tl_mesh_transform(m, (const double(*)[3])R, t);
            if (st != TL_OK) snprintf(msg, msg_size, "out of memory (mesh wall)");
        }
        if (st != TL_OK) {
            tl_mesh_free(m);
            tl_mem_free(mem, m, sizeof *m);
            return st;
        }
        tl_face f;
        memset(&f, 0, sizeof f);
        f.wall = index;
        f.kind = TL_FACE_MESH;
        f.mesh = m;
        for (int k = 0; k < 3; k++) f.R[k][k] = 1.0;
        if (push_face(mem, w, &f) != 0) {
            tl_mesh_free(m);
            tl_mem_free(mem, m, sizeof *m);
            return TL_ERROR_MEMORY;
        }
        w->nmesh++;
        break;
    }
    default:
        snprintf(msg, msg_size, "unknown wall kind %d", (int)def->kind);
        return TL_ERROR_ARGUMENT;
    }
    if (tl_mem_reserve(mem, (void **)&w->w, &w->cap, w->count + 1, sizeof *w->w) != 0) {
        for (size_t f = faces_before; f < w->nfaces; f++) face_mesh_free(mem, w, &w->f[f]);
        w->nfaces = faces_before;
        return TL_ERROR_MEMORY;
    }
    tl_wall *wall = &w->w[w->count];
    memset(wall, 0, sizeof *wall);
    char defname[32];
    snprintf(defname, sizeof defname, "wall%d", index);
    wall->name = tl_mem_strdup(mem, def->name ? def->name : defname);
    if (!wall->name) {
        for (size_t f = faces_before; f < w->nfaces; f++) face_mesh_free(mem, w, &w->f[f]);
        w->nfaces = faces_before;
        return TL_ERROR_MEMORY;
    }
    wall->kind = def->kind;
    wall->material = def->material;
    v3_set(wall->vel, def->velocity.x, def->velocity.y, def->velocity.z);
    wall->first_face = (int)faces_before;
    wall->face_count = (int)(w->nfaces - faces_before);
    w->count++; /* set_motion needs the wall in place */
    double vel[3] = {def->velocity.x, def->velocity.y, def->velocity.z};
    tl_status st = tl_walls_set_motion(w, w->count - 1, vel, &def->motion, 0.0, msg, msg_size);
    if (st != TL_OK) {
        tl_mem_strfree(mem, wall->name);
        w->count--;
        for (size_t f = faces_before; f < w->nfaces; f++) face_mesh_free(mem, w, &w->f[f]);
        w->nfaces = faces_before;
        return st;
    }
    w->count--;
    wall->area = def->kind == TL_WALL_PLANE       ? INFINITY
                 : def->kind == TL_WALL_RECTANGLE ? 4.0 * def->half_length * def->half_width
                 : def->kind == TL_WALL_MESH      ? w->f[faces_before].mesh->total_area
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

/* R = the rotation by th about the unit axis a (Rodrigues) */
static void axis_rotation(const double a[3], double th, double R[3][3]) {
    double c = cos(th), s = sin(th), t = 1.0 - c;
    R[0][0] = c + a[0] * a[0] * t;
    R[0][1] = a[0] * a[1] * t - a[2] * s;
    R[0][2] = a[0] * a[2] * t + a[1] * s;
    R[1][0] = a[1] * a[0] * t + a[2] * s;
    R[1][1] = c + a[1] * a[1] * t;
    R[1][2] = a[1] * a[2] * t - a[0] * s;
    R[2][0] = a[2] * a[0] * t - a[1] * s;
    R[2][1] = a[2] * a[1] * t + a[0] * s;
    R[2][2] = c + a[2] * a[2] * t;
}

static void turn(double out[3], double R[3][3], const double v[3]) {
    for (int r = 0; r < 3; r++) out[r] = R[r][0] * v[0] + R[r][1] * v[1] + R[r][2] * v[2];
}

/* the motion's rotation angle and offset along its axis at time tau after its start,
 * and their rates */
static void motion_at(const tl_motion_def *m, double tau, double *angle, double *offset, double *rate) {
    *angle = *offset = *rate = 0.0;
    switch (m->kind) {
    case TL_MOTION_ROTATE:
        *angle = m->angular_speed * tau;
        *rate = m->angular_speed;
        break;
    case TL_MOTION_OSCILLATE:
    case TL_MOTION_ROCK: {
        double w = 2.0 * TL_PI / m->period;
        double a = m->amplitude * (sin(w * tau + m->phase) - sin(m->phase));
        *rate = m->amplitude * w * cos(w * tau + m->phase);
        if (m->kind == TL_MOTION_ROCK) *angle = a;
        else *offset = a;
        break;
    }
    default: break;
    }
}

static bool finite_d3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

tl_status tl_walls_set_motion(tl_walls *w, size_t k, const double vel[3], const tl_motion_def *m, double t,
                              char *msg, size_t msg_size) {
    tl_wall *wl = &w->w[k];
    tl_motion_def mm = *m;
    if (!finite_d3(vel)) {
        snprintf(msg, msg_size, "wall velocity must be finite");
        return TL_ERROR_ARGUMENT;
    }
    if (mm.kind != TL_MOTION_TRANSLATE) {
        double a[3] = {mm.axis.x, mm.axis.y, mm.axis.z}, an = v3_norm(a);
        if (!finite3(mm.axis) || !(an > 0.0)) {
            snprintf(msg, msg_size, "motion: axis must be a finite, non-zero vector");
            return TL_ERROR_ARGUMENT;
        }
        mm.axis = (tl_vec3){a[0] / an, a[1] / an, a[2] / an};
        if (!finite3(mm.pivot)) {
            snprintf(msg, msg_size, "motion: pivot must be finite (m)");
            return TL_ERROR_ARGUMENT;
        }
    }
    switch (mm.kind) {
    case TL_MOTION_TRANSLATE: break;
    case TL_MOTION_ROTATE:
        if (!isfinite(mm.angular_speed)) {
            snprintf(msg, msg_size, "motion: angular_speed must be finite (rad/s)");
            return TL_ERROR_ARGUMENT;
        }
        break;
    case TL_MOTION_OSCILLATE:
    case TL_MOTION_ROCK:
        if (!(mm.period > 0.0) || !isfinite(mm.period) || !isfinite(mm.amplitude) || !isfinite(mm.phase)) {
            snprintf(msg, msg_size, "motion: period must be > 0 s, amplitude and phase finite");
            return TL_ERROR_ARGUMENT;
        }
        break;
    default:
        snprintf(msg, msg_size, "motion: unknown kind %d", (int)mm.kind);
        return TL_ERROR_ARGUMENT;
    }
    if (mm.kind != TL_MOTION_TRANSLATE && wl->servo.enabled) {
        snprintf(msg, msg_size, "motion: a force-controlled wall can only translate (its servo drives it)");
        return TL_ERROR_ARGUMENT;
    }
    wl->motion = mm;
    wl->turns = mm.kind == TL_MOTION_ROTATE || mm.kind == TL_MOTION_ROCK;
    wl->t0 = t;
    v3_copy(wl->vel, vel);
    v3_copy(wl->vel_base, vel);
    v3_set(wl->pivot0, mm.pivot.x, mm.pivot.y, mm.pivot.z);
    v3_copy(wl->pivot, wl->pivot0);
    v3_copy(wl->pivot_mid, wl->pivot0);
    v3_copy(wl->disp0, wl->disp);
    wl->angle = 0.0;
    double angle, offset, rate;
    motion_at(&mm, 0.0, &angle, &offset, &rate);
    double ax[3] = {mm.axis.x, mm.axis.y, mm.axis.z};
    v3_zero(wl->omega);
    if (wl->turns) v3_scale(wl->omega, ax, rate);
    else if (mm.kind == TL_MOTION_OSCILLATE) v3_axpy(wl->vel, rate, ax);
    v3_copy(wl->vel_mid, wl->vel);
    v3_copy(wl->omega_mid, wl->omega);
    for (int j = 0; j < wl->face_count; j++) {
        tl_face *f = &w->f[wl->first_face + j];
        v3_copy(f->p0, f->p);
        v3_copy(f->n0, f->n);
        v3_copy(f->u0, f->u);
        v3_copy(f->v0, f->v);
        memcpy(f->R0, f->R, sizeof f->R);
        v3_copy(f->T0, f->T);
    }
    return TL_OK;
}

/* the pivot's position at time tau after the motion started (the oscillation's offset included) */
static void pivot_at(const tl_wall *wl, double tau, double offset, double out[3]) {
    const double ax[3] = {wl->motion.axis.x, wl->motion.axis.y, wl->motion.axis.z};
    v3_copy(out, wl->pivot0);
    v3_axpy(out, tau, wl->vel_base);
    v3_axpy(out, offset, ax);
}

void tl_walls_advance(tl_walls *w, double t, double dt) {
    for (size_t i = 0; i < w->count; i++) {
        tl_wall *wall = &w->w[i];
        if (wall->motion.kind == TL_MOTION_TRANSLATE) {
            v3_copy(wall->vel_mid, wall->vel); /* a servo may have changed it */
            if (wall->vel[0] == 0.0 && wall->vel[1] == 0.0 && wall->vel[2] == 0.0) continue;
            double d[3];
            v3_scale(d, wall->vel, dt);
            v3_add(wall->disp, wall->disp, d);
            v3_add(wall->pivot, wall->pivot, d);
            for (int k = 0; k < wall->face_count; k++) {
                tl_face *f = &w->f[wall->first_face + k];
                v3_add(f->p, f->p, d);
                v3_add(f->T, f->T, d);
            }
            continue;
        }
        /* closed form from where the motion started */
        const tl_motion_def *m = &wall->motion;
        const double ax[3] = {m->axis.x, m->axis.y, m->axis.z};
        double tau = t - wall->t0, angle, offset, rate, a0, o0, r0, am, om, rm;
        motion_at(m, tau, &angle, &offset, &rate);
        motion_at(m, tau - dt, &a0, &o0, &r0);
        motion_at(m, tau - 0.5 * dt, &am, &om, &rm);
        double piv[3], piv0[3];
        pivot_at(wall, tau, offset, piv);
        pivot_at(wall, tau - dt, o0, piv0);
        pivot_at(wall, tau - 0.5 * dt, om, wall->pivot_mid);
        for (int q = 0; q < 3; q++) wall->vel_mid[q] = (piv[q] - piv0[q]) / dt;
        v3_scale(wall->omega_mid, ax, wall->turns ? (angle - a0) / dt : 0.0);
        v3_copy(wall->vel, wall->vel_base);
        if (m->kind == TL_MOTION_OSCILLATE) v3_axpy(wall->vel, rate, ax);
        v3_scale(wall->omega, ax, wall->turns ? rate : 0.0);
        v3_copy(wall->pivot, piv);
        for (int q = 0; q < 3; q++) wall->disp[q] = wall->disp0[q] + (piv[q] - wall->pivot0[q]);
        wall->angle = angle;
        double R[3][3];
        axis_rotation(ax, angle, R);
        for (int k = 0; k < wall->face_count; k++) {
            tl_face *f = &w->f[wall->first_face + k];
            double r[3], rr[3];
            v3_sub(r, f->p0, wall->pivot0);
            turn(rr, R, r);
            v3_add(f->p, piv, rr);
            turn(f->n, R, f->n0);
            turn(f->u, R, f->u0);
            turn(f->v, R, f->v0);
            if (f->kind == TL_FACE_MESH) {
                /* world = R (R0 x + T0 - pivot0) + pivot */
                for (int a = 0; a < 3; a++)
                    for (int c = 0; c < 3; c++)
                        f->R[a][c] = R[a][0] * f->R0[0][c] + R[a][1] * f->R0[1][c] + R[a][2] * f->R0[2][c];
                v3_sub(r, f->T0, wall->pivot0);
                turn(rr, R, r);
                v3_add(f->T, piv, rr);
            }
        }
    }
}
