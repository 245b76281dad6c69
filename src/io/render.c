/*
 * Pictures of the world: the rasteriser (render.h) and tl_world_render.
 *
 * One pass over the particles draws each into the colour and depth buffers: a sphere over the
 * square of pixels its disc covers (depth and normal from the pixel's offset from the centre),
 * an ellipsoid over its bounding square (the ray through each pixel against the ellipsoid in its
 * body frame, scaled to a unit sphere), a mesh body as its front-facing triangles (edge
 * functions, depth interpolated). Mesh walls are blended in afterwards where they lie in front of
 * what is drawn; cairo strokes the flat walls' outlines and draws the colour bar.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io_file.h"
#include "mesh.h"
#include "render.h"
#include "world.h"

/* ---- fields and colours ---- */

static const char *const field_names[TL_RF_COUNT] = {
    "material", "id", "shape", "radius", "speed", "angular_speed", "force", "torque", "kinetic_energy",
    "x", "y", "z", "none"};
static const char *const field_units[TL_RF_COUNT] = {"", "", "", "m", "m/s", "rad/s", "N", "N m", "J",
                                                     "m", "m", "m", ""};

const char *tl_render_field_name(tl_render_field f) {
    return (unsigned)f < TL_RF_COUNT ? field_names[f] : "?";
}
const char *tl_render_field_unit(tl_render_field f) {
    return (unsigned)f < TL_RF_COUNT ? field_units[f] : "";
}

int tl_render_field_find(const char *name) {
    if (!name) return TL_RF_MATERIAL;
    for (int k = 0; k < TL_RF_COUNT; k++)
        if (strcmp(name, field_names[k]) == 0) return k;
    return -1;
}

static bool categorical(tl_render_field f) { return f == TL_RF_MATERIAL || f == TL_RF_SHAPE; }

/* viridis (matplotlib's, by Smith and van der Walt), sampled at nine points */
void tl_render_colormap(double t, double rgb[3]) {
    static const double c[9][3] = {{0.267, 0.005, 0.329}, {0.278, 0.175, 0.483}, {0.230, 0.322, 0.546},
                                   {0.173, 0.449, 0.558}, {0.128, 0.567, 0.551}, {0.153, 0.680, 0.504},
                                   {0.362, 0.786, 0.388}, {0.678, 0.864, 0.190}, {0.993, 0.906, 0.144}};
    if (!(t > 0.0)) t = 0.0; /* NAN too */
    if (t > 1.0) t = 1.0;
    double s = t * 8.0;
    int k = (int)s;
    if (k > 7) k = 7;
    double f = s - k;
    for (int a = 0; a < 3; a++) rgb[a] = c[k][a] + f * (c[k + 1][a] - c[k][a]);
}

/* Tableau's ten categorical colours */
void tl_render_category(int k, double rgb[3]) {
    static const double c[10][3] = {{0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173},
                                    {0.839, 0.153, 0.157}, {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294},
                                    {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498}, {0.737, 0.741, 0.133},
                                    {0.090, 0.745, 0.812}};
    if (k < 0) k = -k;
    for (int a = 0; a < 3; a++) rgb[a] = c[k % 10][a];
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }
static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double a[3], const double b[3], double o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static bool finite_vec(tl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static double field_value(tl_render_field f, const tl_particle_state *p) {
    switch (f) {
    case TL_RF_MATERIAL: return p->material;
    case TL_RF_ID: return p->id;
    case TL_RF_SHAPE: return p->shape;
    case TL_RF_RADIUS: return p->radius;
    case TL_RF_SPEED: return sqrt(p->velocity.x * p->velocity.x + p->velocity.y * p->velocity.y +
                                  p->velocity.z * p->velocity.z);
    case TL_RF_ANGULAR_SPEED:
        return sqrt(p->angular_velocity.x * p->angular_velocity.x + p->angular_velocity.y * p->angular_velocity.y +
                    p->angular_velocity.z * p->angular_velocity.z);
    case TL_RF_FORCE: return sqrt(p->force.x * p->force.x + p->force.y * p->force.y + p->force.z * p->force.z);
    case TL_RF_TORQUE:
        return sqrt(p->torque.x * p->torque.x + p->torque.y * p->torque.y + p->torque.z * p->torque.z);
    case TL_RF_KINETIC_ENERGY: {
        if (p->flags & TL_PARTICLE_FIXED) return 0.0;
        double v2 = p->velocity.x * p->velocity.x + p->velocity.y * p->velocity.y + p->velocity.z * p->velocity.z;
        return 0.5 * p->mass * v2 + tl_particle_rotational_energy(p);
    }
    case TL_RF_X: return p->position.x;
    case TL_RF_Y: return p->position.y;
    case TL_RF_Z: return p->position.z;
    default: return 0.0;
    }
}

/* ---- options ---- */

tl_render_options tl_render_default(void) {
    tl_render_options o;
    memset(&o, 0, sizeof o);
    o.width = 1024;
    o.height = 768;
    o.view = (tl_vec3){0.0, 1.0, 0.0};
    o.up = (tl_vec3){0.0, 0.0, 1.0};
    o.fit = true;
    o.zoom = 1.0;
    o.color_by = "material";
    o.color_min = o.color_max = NAN;
    o.color_bar = true;
    o.walls = true;
    o.cut_normal = (tl_vec3){0.0, 1.0, 0.0};
    o.antialias = 1;
    return o;
}

static tl_status bad(char *err, size_t errsize, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static tl_status bad(char *err, size_t errsize, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
    return TL_ERROR_ARGUMENT;
}

tl_status tl_render_check(const tl_render_options *o, char *err, size_t errsize) {
    if (!o) return bad(err, errsize, "render: no options given");
    if (o->width < 1 || o->width > TL_RENDER_MAX_SIDE)
        return bad(err, errsize, "render: %s must be 1 .. 16384 pixels, got %.0f", "width", (double)o->width);
    if (o->height < 1 || o->height > TL_RENDER_MAX_SIDE)
        return bad(err, errsize, "render: %s must be 1 .. 16384 pixels, got %.0f", "height", (double)o->height);
    if (o->antialias < 1 || o->antialias > 4)
        return bad(err, errsize, "render: %s must be 1 .. 4 (samples across a pixel), got %d", "antialias",
                   o->antialias);
    const double aa = (double)o->antialias * o->antialias;
    if ((double)o->width * (double)o->height * aa > (double)TL_RENDER_MAX_PIXELS)
        return bad(err, errsize, "render: %s must be at most 67108864 pixels (8192 x 8192), got %.0f",
                   o->antialias > 1 ? "width x height x antialias^2" : "width x height",
                   (double)o->width * (double)o->height * aa);
    double v[3] = {o->view.x, o->view.y, o->view.z}, u[3] = {o->up.x, o->up.y, o->up.z}, c[3];
    if (!finite_vec(o->view) || !(norm3(v) > 0.0))
        return bad(err, errsize, "render: the camera's %s must be a finite direction, not zero", "view");
    cross3(v, u, c);
    if (!finite_vec(o->up) || !(norm3(c) > 1e-9 * norm3(v) * norm3(u)))
        return bad(err, errsize, "render: the camera's %s must be a finite direction, not zero and not along "
                                 "view",
                   "up");
    if (!(o->zoom > 0.0) || !isfinite(o->zoom))
        return bad(err, errsize, "render: the camera's %s must be > 0, got %g", "zoom", o->zoom);
    if (!o->fit) {
        if (!finite_vec(o->center))
            return bad(err, errsize, "render: the camera's %s must be a finite point (m)", "center");
        if (!(o->extent > 0.0) || !isfinite(o->extent))
            return bad(err, errsize, "render: the camera's %s must be > 0 (m, the width shown), got %g",
                       "extent", o->extent);
    }
    if (tl_render_field_find(o->color_by) < 0) {
        const char *sug = tl_suggest_name(o->color_by, field_names, TL_RF_COUNT);
        char list[256] = "";
        for (int k = 0; k < TL_RF_COUNT; k++) {
            size_t at = strlen(list);
            snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", field_names[k]);
        }
        snprintf(err, errsize, "render: color_by '%s' is not a particle quantity%s%s%s; expected one of: %s",
                 o->color_by, sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "", list);
        return TL_ERROR_ARGUMENT;
    }
    if (isinf(o->color_min) || isinf(o->color_max) ||
        (isfinite(o->color_min) && isfinite(o->color_max) && !(o->color_max > o->color_min)))
        return bad(err, errsize, "render: the colour %s must be finite with max > min (or NAN: from the "
                                 "particles)",
                   "range");
    if (o->cut) {
        double n[3] = {o->cut_normal.x, o->cut_normal.y, o->cut_normal.z};
        if (!finite_vec(o->cut_normal) || !(norm3(n) > 0.0))
            return bad(err, errsize, "render: the cut's %s must be a finite direction, not zero", "normal");
        if (!finite_vec(o->cut_point))
            return bad(err, errsize, "render: the cut's %s must be a finite point (m)", "point");
        if (!(o->cut_thickness > 0.0) || !isfinite(o->cut_thickness))
            return bad(err, errsize, "render: the cut's %s must be > 0 (m), got %g", "thickness", o->cut_thickness);
    }
    return TL_OK;
}

/* ---- the camera ---- */

static void axes(const tl_render_options *o, double right[3], double up[3], double fwd[3]) {
    double v[3] = {o->view.x, o->view.y, o->view.z}, u[3] = {o->up.x, o->up.y, o->up.z};
    double n = norm3(v);
    for (int a = 0; a < 3; a++) fwd[a] = v[a] / n;
    cross3(fwd, u, right);
    n = norm3(right);
    for (int a = 0; a < 3; a++) right[a] /= n;
    cross3(right, fwd, up);
}

/* the box of what is there: the particles (their bounding spheres) and the finite walls; false
 * when there is nothing */
static bool scene_box(const tl_world *w, double lo[3], double hi[3]) {
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    size_t n = tl_world_particle_count(w);
    tl_particle_state p;
    for (size_t i = 0; i < n; i++) {
        if (tl_world_particle_at(w, i, &p) != TL_OK) continue;
        double c[3] = {p.position.x, p.position.y, p.position.z};
        for (int a = 0; a < 3; a++) {
            if (c[a] - p.radius < lo[a]) lo[a] = c[a] - p.radius;
            if (c[a] + p.radius > hi[a]) hi[a] = c[a] + p.radius;
        }
    }
    const tl_walls *wl = &w->walls;
    for (size_t k = 0; k < wl->nfaces; k++) {
        const tl_face *f = &wl->f[k];
        if (f->kind == TL_FACE_RECT) {
            for (int s = 0; s < 4; s++) {
                double su = (s & 1) ? 1.0 : -1.0, sv = (s & 2) ? 1.0 : -1.0;
                for (int a = 0; a < 3; a++) {
                    double x = f->p[a] + su * f->hu * f->u[a] + sv * f->hv * f->v[a];
                    if (x < lo[a]) lo[a] = x;
                    if (x > hi[a]) hi[a] = x;
                }
            }
        } else if (f->kind == TL_FACE_MESH && f->mesh) {
            for (size_t j = 0; j < f->mesh->nv; j++) {
                const double *x = f->mesh->v[j];
                for (int a = 0; a < 3; a++) {
                    double y = f->R[a][0] * x[0] + f->R[a][1] * x[1] + f->R[a][2] * x[2] + f->T[a];
                    if (y < lo[a]) lo[a] = y;
                    if (y > hi[a]) hi[a] = y;
                }
            }
        }
    }
    return lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2];
}

/* the drawing's width: the image less the colour bar's strip */
static int area_width(const tl_render_options *o) {
    if (!o->color_bar || o->width < 240) return o->width;
    int bar = o->width / 6;
    if (bar < 130) bar = 130;
    if (bar > 260) bar = 260;
    return o->width - bar;
}

void tl_render_fit(const tl_world *w, const tl_render_options *o, tl_vec3 *center, double *extent) {
    double lo[3], hi[3], right[3], up[3], fwd[3];
    if (!scene_box(w, lo, hi)) {
        *center = (tl_vec3){0.0, 0.0, 0.0};
        *extent = 1.0;
        return;
    }
    axes(o, right, up, fwd);
    double rl = INFINITY, rh = -INFINITY, ul = INFINITY, uh = -INFINITY;
    for (int s = 0; s < 8; s++) {
        double c[3] = {(s & 1) ? hi[0] : lo[0], (s & 2) ? hi[1] : lo[1], (s & 4) ? hi[2] : lo[2]};
        double r = dot3(c, right), u = dot3(c, up);
        rl = fmin(rl, r);
        rh = fmax(rh, r);
        ul = fmin(ul, u);
        uh = fmax(uh, u);
    }
    /* the box's centre, moved within the view plane to the middle of its outline */
    double m[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
    double dr = 0.5 * (rl + rh) - dot3(m, right), du = 0.5 * (ul + uh) - dot3(m, up);
    for (int a = 0; a < 3; a++) m[a] += dr * right[a] + du * up[a];
    *center = (tl_vec3){m[0], m[1], m[2]};
    double aw = area_width(o), h = o->height;
    double e = fmax(rh - rl, (uh - ul) * aw / h) * 1.08;
    *extent = e > 0.0 ? e : 1.0;
}

void tl_render_view_of(const tl_world *w, const tl_render_options *o, tl_render_view *v) {
    memset(v, 0, sizeof *v);
    v->width = o->width;
    v->height = o->height;
    v->area_width = area_width(o);
    axes(o, v->right, v->up, v->fwd);
    tl_vec3 c = o->center;
    double extent = o->extent;
    if (o->fit) tl_render_fit(w, o, &c, &extent);
    double cc[3] = {c.x, c.y, c.z};
    v->cr = dot3(cc, v->right);
    v->cu = dot3(cc, v->up);
    v->depth0 = dot3(cc, v->fwd);
    v->scale = v->area_width / extent * o->zoom;
}

void tl_render_project(const tl_render_view *v, const double p[3], double *px, double *py, double *depth) {
    *px = 0.5 * v->area_width + (dot3(p, v->right) - v->cr) * v->scale;
    *py = 0.5 * v->height - (dot3(p, v->up) - v->cu) * v->scale;
    if (depth) *depth = dot3(p, v->fwd) - v->depth0;
}

/* ---- the buffers ---- */

typedef struct image {
    uint32_t *px;   /* xRGB, row stride `stride` pixels */
    int stride;
    float *z;       /* depth, width x height */
    int w, h;       /* the drawing area (its width: area_width) */
    int zw;         /* the depth buffer's row length */
    double L[3];    /* the light in camera coordinates (right, up, towards the camera), unit */
} image;

static uint32_t shade(const double rgb[3], double f) {
    uint32_t out = 0;
    for (int a = 0; a < 3; a++) {
        double c = rgb[a] * f * 255.0 + 0.5;
        if (c > 255.0) c = 255.0;
        if (!(c >= 0.0)) c = 0.0; /* NAN too */
        out = (out << 8) | (uint32_t)c;
    }
    return out;
}

static double lambert(const image *im, double nr, double nu, double nt) {
    double d = nr * im->L[0] + nu * im->L[1] + nt * im->L[2];
    return TL_RENDER_AMBIENT + TL_RENDER_DIFFUSE * (d > 0.0 ? d : 0.0);
}

static void clamp_box(const image *im, double x0, double x1, double y0, double y1, int *ix0, int *ix1, int *iy0,
                      int *iy1) {
    /* within the image before any conversion to int (a far point, NAN: fmax and fmin take the
     * number) */
    x0 = fmin(fmax(x0, 0.0), (double)im->w);
    y0 = fmin(fmax(y0, 0.0), (double)im->h);
    x1 = fmax(fmin(x1, im->w - 1.0), -1.0);
    y1 = fmax(fmin(y1, im->h - 1.0), -1.0);
    *ix0 = (int)x0;
    *iy0 = (int)y0;
    *ix1 = x1 >= x0 ? (int)x1 : -1;
    *iy1 = y1 >= y0 ? (int)y1 : -1;
}

/* a sphere: centre at pixel (sx, sy), depth dc, radius r m (pr pixels) */
static void draw_sphere(image *im, double sx, double sy, double dc, double r, double pr, const double rgb[3]) {
    if (!(pr > 0.0) || sx + pr < 0.0 || sy + pr < 0.0 || sx - pr > im->w || sy - pr > im->h) return;
    int x0, x1, y0, y1;
    clamp_box(im, floor(sx - pr), ceil(sx + pr), floor(sy - pr), ceil(sy + pr), &x0, &x1, &y0, &y1);
    const double inv = 1.0 / pr;
    for (int y = y0; y <= y1; y++) {
        const double dy = (y + 0.5 - sy) * inv;
        uint32_t *row = im->px + (size_t)y * (size_t)im->stride;
        float *zrow = im->z + (size_t)y * (size_t)im->zw;
        for (int x = x0; x <= x1; x++) {
            const double dx = (x + 0.5 - sx) * inv, h2 = dx * dx + dy * dy;
            if (!(h2 < 1.0)) continue;
            const double nt = sqrt(1.0 - h2);
            const float z = (float)(dc - r * nt);
            if (!(z < zrow[x])) continue;
            zrow[x] = z;
            row[x] = shade(rgb, lambert(im, dx, -dy, nt));
        }
    }
}

static void rotation(const tl_quat q, double R[3][3]) {
    double w = q.w, x = q.x, y = q.y, z = q.z, n = w * w + x * x + y * y + z * z;
    if (!(n > 0.0)) {
        w = 1.0;
        x = y = z = 0.0;
        n = 1.0;
    }
    double s = 2.0 / n;
    R[0][0] = 1.0 - s * (y * y + z * z);
    R[0][1] = s * (x * y - w * z);
    R[0][2] = s * (x * z + w * y);
    R[1][0] = s * (x * y + w * z);
    R[1][1] = 1.0 - s * (x * x + z * z);
    R[1][2] = s * (y * z - w * x);
    R[2][0] = s * (x * z - w * y);
    R[2][1] = s * (y * z + w * x);
    R[2][2] = 1.0 - s * (x * x + y * y);
}

/* Rᵀ a */
static void to_body(const double R[3][3], const double a[3], double o[3]) {
    for (int k = 0; k < 3; k++) o[k] = R[0][k] * a[0] + R[1][k] * a[1] + R[2][k] * a[2];
}

/* an ellipsoid of semi-axes ax, attitude R, centre at pixel (sx, sy), depth dc, bounding radius
 * br; ray-cast exactly at every pixel of its bounding square */
static void draw_ellipsoid(image *im, const tl_render_view *v, double sx, double sy, double dc, const double ax[3],
                           const double R[3][3], double br, const double rgb[3]) {
    const double pr = br * v->scale;
    if (!(pr > 0.0) || sx + pr < 0.0 || sy + pr < 0.0 || sx - pr > im->w || sy - pr > im->h) return;
    double Rr[3], Ru[3], Rf[3];
    to_body(R, v->right, Rr);
    to_body(R, v->up, Ru);
    to_body(R, v->fwd, Rf);
    double Or[3], Ou[3], D[3]; /* scaled to the unit sphere: O = x Or + y Ou, the ray O + t D */
    for (int k = 0; k < 3; k++) {
        Or[k] = Rr[k] / ax[k];
        Ou[k] = Ru[k] / ax[k];
        D[k] = Rf[k] / ax[k];
    }
    const double A = dot3(D, D);
    int x0, x1, y0, y1;
    clamp_box(im, floor(sx - pr), ceil(sx + pr), floor(sy - pr), ceil(sy + pr), &x0, &x1, &y0, &y1);
    const double inv = 1.0 / v->scale;
    for (int y = y0; y <= y1; y++) {
        const double yu = -(y + 0.5 - sy) * inv; /* m along up from the centre */
        uint32_t *row = im->px + (size_t)y * (size_t)im->stride;
        float *zrow = im->z + (size_t)y * (size_t)im->zw;
        for (int x = x0; x <= x1; x++) {
            const double xr = (x + 0.5 - sx) * inv;
            double O[3];
            for (int k = 0; k < 3; k++) O[k] = xr * Or[k] + yu * Ou[k];
            const double B = dot3(O, D), C = dot3(O, O) - 1.0, disc = B * B - A * C;
            if (!(disc >= 0.0)) continue;
            const double t = (-B - sqrt(disc)) / A; /* the nearer root: towards the camera */
            const float z = (float)(dc + t);
            if (!(z < zrow[x])) continue;
            /* the normal: the gradient x / a^2 in the body frame, back to the world, to the camera's */
            double hb[3], nb[3], nw[3];
            for (int k = 0; k < 3; k++) {
                hb[k] = xr * Rr[k] + yu * Ru[k] + t * Rf[k];
                nb[k] = hb[k] / (ax[k] * ax[k]);
            }
            for (int k = 0; k < 3; k++) nw[k] = R[k][0] * nb[0] + R[k][1] * nb[1] + R[k][2] * nb[2];
            const double nn = norm3(nw);
            if (!(nn > 0.0)) continue;
            zrow[x] = z;
            row[x] = shade(rgb, lambert(im, dot3(nw, v->right) / nn, dot3(nw, v->up) / nn, -dot3(nw, v->fwd) / nn));
        }
    }
}

/* a triangle of screen points (x, y, depth); opaque (depth written) or blended by alpha where in
 * front of what is drawn */
static void draw_triangle(image *im, const double a[3], const double b[3], const double c[3], uint32_t colour,
                          double alpha) {
    const double area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if (!(fabs(area) > 1e-12)) return;
    int x0, x1, y0, y1;
    clamp_box(im, floor(fmin(a[0], fmin(b[0], c[0]))), ceil(fmax(a[0], fmax(b[0], c[0]))),
              floor(fmin(a[1], fmin(b[1], c[1]))), ceil(fmax(a[1], fmax(b[1], c[1]))), &x0, &x1, &y0, &y1);
    const double inv = 1.0 / area;
    const uint32_t cr = (colour >> 16) & 255u, cg = (colour >> 8) & 255u, cb = colour & 255u;
    for (int y = y0; y <= y1; y++) {
        const double py = y + 0.5;
        uint32_t *row = im->px + (size_t)y * (size_t)im->stride;
        float *zrow = im->z + (size_t)y * (size_t)im->zw;
        for (int x = x0; x <= x1; x++) {
            const double px = x + 0.5;
            const double w0 = ((c[0] - b[0]) * (py - b[1]) - (c[1] - b[1]) * (px - b[0])) * inv;
            const double w1 = ((a[0] - c[0]) * (py - c[1]) - (a[1] - c[1]) * (px - c[0])) * inv;
            const double w2 = 1.0 - w0 - w1;
            if (!(w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0)) continue;
            const float z = (float)(w0 * a[2] + w1 * b[2] + w2 * c[2]);
            if (!(z < zrow[x])) continue;
            if (alpha >= 1.0) {
                zrow[x] = z;
                row[x] = colour;
            } else {
                const uint32_t p = row[x];
                uint32_t out = 0;
                const uint32_t src[3] = {cr, cg, cb};
                for (int k = 0; k < 3; k++) {
                    const double d = (double)((p >> (16 - 8 * k)) & 255u);
                    out = (out << 8) | (uint32_t)(d + alpha * ((double)src[k] - d) + 0.5);
                }
                row[x] = out;
            }
        }
    }
}

/* the facets of a mesh: vertex j at T + R x_j; one-sided (closed bodies: back faces culled) or
 * two-sided translucent (walls) */
static void draw_mesh(image *im, const tl_render_view *v, const double (*xyz)[3], size_t nv, const uint32_t (*tri)[3],
                      size_t nt, const double R[3][3], const double T[3], const double rgb[3], double alpha,
                      double *scratch) {
    for (size_t j = 0; j < nv; j++) {
        double p[3];
        for (int a = 0; a < 3; a++) p[a] = R[a][0] * xyz[j][0] + R[a][1] * xyz[j][1] + R[a][2] * xyz[j][2] + T[a];
        tl_render_project(v, p, &scratch[3 * j], &scratch[3 * j + 1], &scratch[3 * j + 2]);
    }
    for (size_t t = 0; t < nt; t++) {
        const double *a = &scratch[3 * tri[t][0]], *b = &scratch[3 * tri[t][1]], *c = &scratch[3 * tri[t][2]];
        /* the facet's normal in camera coordinates (right, up, towards) from the screen points: x
         * right, y down, depth away */
        double e1[3] = {(b[0] - a[0]) / v->scale, -(b[1] - a[1]) / v->scale, -(b[2] - a[2])};
        double e2[3] = {(c[0] - a[0]) / v->scale, -(c[1] - a[1]) / v->scale, -(c[2] - a[2])};
        double n[3];
        cross3(e1, e2, n);
        double nn = norm3(n);
        if (!(nn > 0.0)) continue;
        for (int k = 0; k < 3; k++) n[k] /= nn;
        if (alpha >= 1.0) {
            if (n[2] <= 0.0) continue; /* faces away */
            draw_triangle(im, a, b, c, shade(rgb, lambert(im, n[0], n[1], n[2])), 1.0);
        } else {
            double d = fabs(n[0] * im->L[0] + n[1] * im->L[1] + n[2] * im->L[2]);
            draw_triangle(im, a, b, c, shade(rgb, TL_RENDER_AMBIENT + TL_RENDER_DIFFUSE * d), alpha);
        }
    }
}

/* ---- the walls' outlines (cairo) ---- */

static void stroke_polygon(cairo_t *cr, const tl_render_view *v, const double (*p)[3], int n) {
    for (int k = 0; k < n; k++) {
        double x, y;
        tl_render_project(v, p[k], &x, &y, NULL);
        if (k == 0) cairo_move_to(cr, x, y);
        else cairo_line_to(cr, x, y);
    }
    cairo_close_path(cr);
    cairo_stroke(cr);
}

/* the polygon where a plane crosses the box lo..hi (up to six corners, in order around it) */
static int plane_in_box(const double p[3], const double n[3], const double lo[3], const double hi[3],
                        double out[12][3]) {
    int m = 0;
    for (int a = 0; a < 3; a++) { /* the box's edges along axis a */
        int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int s = 0; s < 4; s++) {
            double q[3];
            q[b] = (s & 1) ? hi[b] : lo[b];
            q[c] = (s & 2) ? hi[c] : lo[c];
            if (fabs(n[a]) < 1e-12) continue;
            q[a] = p[a] + (n[b] * (p[b] - q[b]) + n[c] * (p[c] - q[c])) / n[a];
            if (q[a] < lo[a] || q[a] > hi[a] || m >= 12) continue;
            memcpy(out[m++], q, sizeof q);
        }
    }
    if (m < 3) return 0;
    double c[3] = {0, 0, 0}, u[3], w[3];
    for (int k = 0; k < m; k++)
        for (int a = 0; a < 3; a++) c[a] += out[k][a] / m;
    for (int a = 0; a < 3; a++) u[a] = out[0][a] - c[a];
    cross3(n, u, w);
    double ang[12];
    for (int k = 0; k < m; k++) {
        double d[3] = {out[k][0] - c[0], out[k][1] - c[1], out[k][2] - c[2]};
        ang[k] = atan2(dot3(d, w), dot3(d, u));
    }
    for (int i = 1; i < m; i++) /* insertion sort by angle */
        for (int j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
            double t = ang[j], q[3];
            ang[j] = ang[j - 1];
            ang[j - 1] = t;
            memcpy(q, out[j], sizeof q);
            memcpy(out[j], out[j - 1], sizeof q);
            memcpy(out[j - 1], q, sizeof q);
        }
    return m;
}

static void draw_wall_outlines(cairo_t *cr, const tl_world *w, const tl_render_view *v) {
    const tl_walls *wl = &w->walls;
    double lw = v->width / 700.0;
    cairo_set_line_width(cr, lw < 1.0 ? 1.0 : lw);
    cairo_set_source_rgba(cr, 0.25, 0.25, 0.3, 0.8);
    cairo_rectangle(cr, 0, 0, v->area_width, v->height);
    cairo_clip(cr);
    double lo[3], hi[3];
    bool box = scene_box(w, lo, hi);
    if (box) /* a little beyond what is there, so that a floor under the bed shows */
        for (int a = 0; a < 3; a++) {
            double m = 0.05 * (hi[a] - lo[a]) + 1e-9;
            lo[a] -= m;
            hi[a] += m;
        }
    for (size_t k = 0; k < wl->nfaces; k++) {
        const tl_face *f = &wl->f[k];
        if (f->kind == TL_FACE_RECT) {
            double c[4][3];
            for (int s = 0; s < 4; s++) {
                double su = (s == 1 || s == 2) ? 1.0 : -1.0, sv = s >= 2 ? 1.0 : -1.0;
                for (int a = 0; a < 3; a++) c[s][a] = f->p[a] + su * f->hu * f->u[a] + sv * f->hv * f->v[a];
            }
            stroke_polygon(cr, v, (const double(*)[3])c, 4);
        } else if (f->kind == TL_FACE_MESH && f->mesh && f->mesh->adj) {
            /* a mesh wall's rims (edges of one facet) and folds (facets turning by more than 40
             * degrees), which show it even edge-on (a drum seen along its axis) */
            const tl_mesh *mh = f->mesh;
            for (size_t t = 0; t < mh->nt; t++)
                for (int e = 0; e < 3; e++) {
                    uint32_t a = mh->adj[t][e];
                    if (a != TL_MESH_NONE && (a < t || dot3(mh->n[t], mh->n[a]) > 0.766)) continue;
                    double q[2][3];
                    for (int j = 0; j < 2; j++) {
                        const double *x = mh->v[mh->tri[t][(e + j) % 3]];
                        for (int c = 0; c < 3; c++)
                            q[j][c] = f->R[c][0] * x[0] + f->R[c][1] * x[1] + f->R[c][2] * x[2] + f->T[c];
                    }
                    double x0, y0, x1, y1;
                    tl_render_project(v, q[0], &x0, &y0, NULL);
                    tl_render_project(v, q[1], &x1, &y1, NULL);
                    cairo_move_to(cr, x0, y0);
                    cairo_line_to(cr, x1, y1);
                }
            cairo_stroke(cr);
        } else if (f->kind == TL_FACE_PLANE && box && fabs(dot3(f->n, v->fwd)) < 0.95) {
            /* (a plane seen face-on would only frame the picture: a drum's end caps) */
            double poly[12][3];
            int m = plane_in_box(f->p, f->n, lo, hi, poly);
            if (m >= 3) stroke_polygon(cr, v, (const double(*)[3])poly, m);
        }
    }
    cairo_reset_clip(cr);
}

/* ---- the colour bar ---- */

static void label(cairo_t *cr, double x, double y, const char *text) {
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, text);
}

static void draw_bar(cairo_t *cr, const tl_world *w, const tl_render_view *v, tl_render_field f, const double range[2],
                     double t) {
    const double x0 = v->area_width, bw = v->width - v->area_width, h = v->height;
    double fs = fmin(h, 1.2 * v->width) / 40.0;
    if (fs < 9.0) fs = 9.0;
    if (fs > 28.0) fs = 28.0;
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, fs);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    char text[160];
    snprintf(text, sizeof text, "t = %.4g s", t);
    label(cr, 0.5 * fs, 1.4 * fs, text);
    if (v->area_width == v->width) return;
    const char *unit = tl_render_field_unit(f);
    snprintf(text, sizeof text, "%s%s%s%s", tl_render_field_name(f), unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
    label(cr, x0 + 0.08 * bw, 1.4 * fs, text);
    if (f == TL_RF_NONE) return;
    if (categorical(f)) {
        int n = f == TL_RF_MATERIAL ? tl_world_material_count(w) : tl_world_shape_count(w) + 1;
        int fit = (int)((h - 3.0 * fs) / (1.6 * fs));
        for (int k = 0; k < n && k < fit; k++) {
            double rgb[3], y = 2.6 * fs + 1.6 * fs * k;
            tl_render_category(k, rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, x0 + 0.08 * bw, y, fs, fs);
            cairo_fill(cr);
            const char *name = "sphere";
            tl_shape_info si;
            if (f == TL_RF_MATERIAL) name = tl_world_material_name(w, k);
            else if (k > 0) name = tl_world_get_shape(w, k, &si) == TL_OK && si.name ? si.name : "?";
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            label(cr, x0 + 0.08 * bw + 1.5 * fs, y + 0.85 * fs, name ? name : "?");
        }
        return;
    }
    const double top = 2.6 * fs, bottom = h - 1.5 * fs, bx = x0 + 0.06 * bw, bwid = 0.14 * bw;
    if (!(bottom - top > 10.0)) return;
    cairo_pattern_t *pat = cairo_pattern_create_linear(0, bottom, 0, top);
    for (int k = 0; k <= 16; k++) {
        double rgb[3];
        tl_render_colormap(k / 16.0, rgb);
        cairo_pattern_add_color_stop_rgb(pat, k / 16.0, rgb[0], rgb[1], rgb[2]);
    }
    cairo_rectangle(cr, bx, top, bwid, bottom - top);
    cairo_set_source(cr, pat);
    cairo_fill(cr);
    cairo_pattern_destroy(pat);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_line_width(cr, 1.0);
    for (int k = 0; k <= 4; k++) {
        double y = bottom - (bottom - top) * k / 4.0;
        cairo_move_to(cr, bx + bwid, y);
        cairo_line_to(cr, bx + bwid + 0.3 * fs, y);
        cairo_stroke(cr);
        snprintf(text, sizeof text, "%.3g", range[0] + (range[1] - range[0]) * k / 4.0);
        label(cr, bx + bwid + 0.5 * fs, y + 0.35 * fs, text);
    }
}

/* ---- drawing ---- */

typedef struct shape_cache {
    bool known;
    tl_shape_info info;
    const double *xyz;
    const uint32_t *tri;
    size_t nv, nt;
} shape_cache;

tl_status tl_render_surface(const tl_world *w, const tl_render_options *o, cairo_surface_t **out,
                            tl_render_view *view_out, double range_out[2], char *err, size_t errsize) {
    *out = NULL;
    tl_status st = tl_render_check(o, err, errsize);
    if (st != TL_OK) return st;
    const tl_render_field field = (tl_render_field)tl_render_field_find(o->color_by);
    tl_render_view v;
    tl_render_view_of(w, o, &v);
    const size_t n = tl_world_particle_count(w);
    const int nshapes = tl_world_shape_count(w);
    tl_particle_state *ps = malloc((n ? n : 1) * sizeof *ps);
    double *val = malloc((n ? n : 1) * sizeof *val);
    shape_cache *shapes = calloc((size_t)nshapes + 1, sizeof *shapes);
    /* the drawing's samples: k x k per pixel (antialias), averaged into the picture at the end */
    const int ss = o->antialias > 1 ? o->antialias : 1;
    tl_render_view vs = v;
    vs.area_width = vs.width = v.area_width * ss;
    vs.height = v.height * ss;
    vs.scale = v.scale * ss;
    const size_t nsamples = (size_t)vs.area_width * (size_t)vs.height;
    float *zb = malloc(nsamples * sizeof *zb);
    uint32_t *sbuf = ss > 1 ? malloc(nsamples * sizeof *sbuf) : NULL;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, v.width, v.height);
    double *scratch = NULL;
    if (!ps || !val || !shapes || !zb || (ss > 1 && !sbuf) || cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        st = TL_ERROR_MEMORY;
        snprintf(err, errsize, "render: out of memory (%d x %d pixels, %zu particles)", v.width, v.height, n);
        goto done;
    }
    /* the particles drawn (the cut's slab) and their values */
    size_t m = 0, maxv = 0;
    double cn[3] = {o->cut_normal.x, o->cut_normal.y, o->cut_normal.z}, cnl = norm3(cn);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        tl_particle_state *p = &ps[m];
        if (tl_world_particle_at(w, i, p) != TL_OK) continue;
        if (o->cut) {
            double d = ((p->position.x - o->cut_point.x) * cn[0] + (p->position.y - o->cut_point.y) * cn[1] +
                        (p->position.z - o->cut_point.z) * cn[2]) /
                       cnl;
            if (!(fabs(d) <= 0.5 * o->cut_thickness)) continue;
        }
        val[m] = field_value(field, p);
        if (isfinite(val[m])) {
            lo = fmin(lo, val[m]);
            hi = fmax(hi, val[m]);
        }
        if (p->shape > 0 && p->shape <= nshapes) {
            shape_cache *sc = &shapes[p->shape];
            if (!sc->known) {
                sc->known = true;
                if (tl_world_get_shape(w, p->shape, &sc->info) != TL_OK) sc->info.kind = TL_SHAPE_SPHERE;
                if (sc->info.kind == TL_SHAPE_MESH &&
                    tl_world_shape_mesh(w, p->shape, &sc->xyz, &sc->nv, &sc->tri, &sc->nt) != TL_OK)
                    sc->info.kind = TL_SHAPE_SPHERE;
                if (sc->info.kind == TL_SHAPE_MESH && sc->nv > maxv) maxv = sc->nv;
            }
        }
        m++;
    }
    const tl_walls *wl = &w->walls;
    if (o->walls)
        for (size_t k = 0; k < wl->nfaces; k++)
            if (wl->f[k].kind == TL_FACE_MESH && wl->f[k].mesh && wl->f[k].mesh->nv > maxv) maxv = wl->f[k].mesh->nv;
    if (maxv && !(scratch = malloc(3 * maxv * sizeof *scratch))) {
        st = TL_ERROR_MEMORY;
        snprintf(err, errsize, "render: out of memory");
        goto done;
    }
    double range[2] = {isnan(o->color_min) ? lo : o->color_min, isnan(o->color_max) ? hi : o->color_max};
    if (!(range[0] <= range[1])) range[0] = range[1] = 0.0; /* nothing finite */
    if (range_out) {
        range_out[0] = range[0];
        range_out[1] = range[1];
    }
    /* the buffers: white, everything far */
    cairo_surface_flush(s);
    uint32_t *const out_px = (uint32_t *)(void *)cairo_image_surface_get_data(s);
    const int out_stride = cairo_image_surface_get_stride(s) / 4;
    image im = {.px = ss > 1 ? sbuf : out_px,
                .stride = ss > 1 ? vs.area_width : out_stride,
                .z = zb,
                .w = vs.area_width,
                .h = vs.height,
                .zw = vs.area_width};
    double L[3] = {TL_RENDER_LIGHT_RIGHT, TL_RENDER_LIGHT_UP, TL_RENDER_LIGHT_TOWARDS}, ll = norm3(L);
    for (int a = 0; a < 3; a++) im.L[a] = L[a] / ll;
    for (int y = 0; y < v.height; y++)
        for (int x = 0; x < v.width; x++) out_px[(size_t)y * (size_t)out_stride + (size_t)x] = 0xFFFFFFu;
    if (ss > 1)
        for (size_t k = 0; k < nsamples; k++) sbuf[k] = 0xFFFFFFu;
    for (size_t k = 0; k < nsamples; k++) zb[k] = INFINITY;
    for (size_t i = 0; i < m; i++) {
        const tl_particle_state *p = &ps[i];
        double rgb[3];
        if (field == TL_RF_NONE) {
            rgb[0] = 0.55;
            rgb[1] = 0.62;
            rgb[2] = 0.78;
        } else if (!isfinite(val[i])) {
            rgb[0] = rgb[1] = rgb[2] = 0.5;
        } else if (categorical(field)) {
            tl_render_category((int)val[i], rgb);
        } else {
            tl_render_colormap(range[1] > range[0] ? (val[i] - range[0]) / (range[1] - range[0]) : 0.5, rgb);
        }
        const double c[3] = {p->position.x, p->position.y, p->position.z};
        double sx, sy, dc;
        tl_render_project(&vs, c, &sx, &sy, &dc);
        const shape_cache *sc = p->shape > 0 && p->shape <= nshapes ? &shapes[p->shape] : NULL;
        if (!sc || sc->info.kind == TL_SHAPE_SPHERE) {
            draw_sphere(&im, sx, sy, dc, p->radius, p->radius * vs.scale, rgb);
        } else if (sc->info.kind == TL_SHAPE_ELLIPSOID) {
            double R[3][3], ax[3] = {sc->info.semi_axes.x, sc->info.semi_axes.y, sc->info.semi_axes.z};
            rotation(p->body_orientation, R);
            draw_ellipsoid(&im, &vs, sx, sy, dc, ax, (const double(*)[3])R, p->radius, rgb);
        } else {
            double R[3][3];
            rotation(p->body_orientation, R);
            draw_mesh(&im, &vs, (const double(*)[3])sc->xyz, sc->nv, (const uint32_t(*)[3])sc->tri, sc->nt,
                      (const double(*)[3])R, c, rgb, 1.0, scratch);
        }
    }
    if (o->walls) {
        const double grey[3] = {0.55, 0.57, 0.62};
        for (size_t k = 0; k < wl->nfaces; k++) {
            const tl_face *f = &wl->f[k];
            if (f->kind != TL_FACE_MESH || !f->mesh) continue;
            draw_mesh(&im, &vs, (const double(*)[3])f->mesh->v, f->mesh->nv, (const uint32_t(*)[3])f->mesh->tri,
                      f->mesh->nt, (const double(*)[3])f->R, f->T, grey, 0.18, scratch);
        }
    }
    if (ss > 1) /* each pixel the mean of its k x k samples */
        for (int y = 0; y < v.height; y++)
            for (int x = 0; x < v.area_width; x++) {
                uint32_t sum[3] = {0, 0, 0};
                for (int j = 0; j < ss; j++) {
                    const uint32_t *row = sbuf + (size_t)(y * ss + j) * (size_t)vs.area_width + (size_t)(x * ss);
                    for (int i = 0; i < ss; i++)
                        for (int c = 0; c < 3; c++) sum[c] += (row[i] >> (16 - 8 * c)) & 255u;
                }
                const uint32_t n2 = (uint32_t)(ss * ss);
                out_px[(size_t)y * (size_t)out_stride + (size_t)x] =
                    ((sum[0] + n2 / 2) / n2) << 16 | ((sum[1] + n2 / 2) / n2) << 8 | ((sum[2] + n2 / 2) / n2);
            }
    cairo_surface_mark_dirty(s);
    cairo_t *cr = cairo_create(s);
    if (o->walls) draw_wall_outlines(cr, w, &v);
    if (o->color_bar) draw_bar(cr, w, &v, field, range, tl_world_time(w));
    cairo_status_t cs = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    if (cs != CAIRO_STATUS_SUCCESS) {
        st = TL_ERROR_MEMORY;
        snprintf(err, errsize, "render: cairo: %s", cairo_status_to_string(cs));
        goto done;
    }
    if (view_out) *view_out = v;
    *out = s;
    s = NULL;
done:
    if (s) cairo_surface_destroy(s);
    free(ps);
    free(val);
    free(shapes);
    free(zb);
    free(sbuf);
    free(scratch);
    return st;
}

/* ---- the PNG ---- */

typedef struct png_buf {
    unsigned char *data;
    size_t size, cap;
} png_buf;

static cairo_status_t png_append(void *closure, const unsigned char *data, unsigned int length) {
    png_buf *b = closure;
    if (b->size + length > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->size + length) cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) return CAIRO_STATUS_NO_MEMORY;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->size, data, length);
    b->size += length;
    return CAIRO_STATUS_SUCCESS;
}

tl_status tl_render_write_png(cairo_surface_t *s, const char *path, char *err, size_t errsize) {
    png_buf b = {NULL, 0, 0};
    cairo_status_t cs = cairo_surface_write_to_png_stream(s, png_append, &b);
    if (cs != CAIRO_STATUS_SUCCESS) {
        free(b.data);
        snprintf(err, errsize, "cannot encode '%s' as PNG: %s", path, cairo_status_to_string(cs));
        return cs == CAIRO_STATUS_NO_MEMORY ? TL_ERROR_MEMORY : TL_ERROR_IO;
    }
    tl_status st = tl_file_write_atomic(path, b.data, b.size, err, errsize);
    free(b.data);
    return st;
}

tl_status tl_world_render(tl_world *w, const char *path, const tl_render_options *o) {
    if (!w) return TL_ERROR_ARGUMENT;
    if (!path || !path[0]) return tl_world_fail(w, TL_ERROR_ARGUMENT, "render: no file name given");
    char err[1024];
    cairo_surface_t *s;
    tl_status st = tl_render_surface(w, o, &s, NULL, NULL, err, sizeof err);
    if (st == TL_OK) {
        st = tl_render_write_png(s, path, err, sizeof err);
        cairo_surface_destroy(s);
    }
    return st == TL_OK ? TL_OK : tl_world_fail(w, st, "%s", err);
}

#if defined(__SANITIZE_ADDRESS__)
/* A sanitizer build (TALUS_SANITIZE): fontconfig, which cairo's text goes through, keeps its
 * caches until FcFini, which a library cannot call for its host; LeakSanitizer is told so, as
 * the MPI tests tell it OpenMPI's (test/parallel/lsan_mpi.supp). Talus's own allocations stay
 * checked. */
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void) {
    return "leak:libfontconfig.so\n";
}
#endif
