/*
 * Pictures of the world (render.h, tl_world_render, the image output): known scenes drawn and
 * their pixels checked against the projection, the colour map and the shading law worked out
 * here; the depth order (the nearer body covers the farther, also where two spheres overlap in
 * space, which a painter's order by centres gets wrong); a cube's faces shaded in the order of
 * their angle to the light; the cut's slab; the PNG written through a temporary name; the
 * options' and the scene keys' errors; the image output's frames and its movie with and
 * without ffmpeg on PATH.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.h"
#include "talus/talus.h"
#include "test.h"

typedef struct rgb8 {
    int r, g, b;
} rgb8;

static rgb8 pixel(cairo_surface_t *s, int x, int y) {
    const unsigned char *d = cairo_image_surface_get_data(s);
    const int stride = cairo_image_surface_get_stride(s);
    uint32_t p;
    memcpy(&p, d + (size_t)y * (size_t)stride + 4 * (size_t)x, 4);
    return (rgb8){(int)((p >> 16) & 255u), (int)((p >> 8) & 255u), (int)(p & 255u)};
}

static bool white(rgb8 c) { return c.r == 255 && c.g == 255 && c.b == 255; }

static tl_world *new_world(int *mat0, int *mat1) {
    tl_world_def wd = tl_world_default();
    tl_world *w = NULL;
    ENSURE_OK(tl_world_create(&wd, &w));
    tl_material_def md = tl_material_default();
    md.name = "a";
    md.density = 1000;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.3;
    ENSURE_OK(tl_world_add_material(w, &md, mat0));
    md.name = "b";
    ENSURE_OK(tl_world_add_material(w, &md, mat1));
    return w;
}

static void add_sphere(tl_world *w, int material, double r, double x, double y, double z) {
    tl_particle_def p = tl_particle_default();
    p.material = material;
    p.radius = r;
    p.position = (tl_vec3){x, y, z};
    uint32_t id;
    ENSURE_OK(tl_world_add_particle(w, &p, &id));
}

/* a fixed camera: the drawing 2 m wide about the origin, 400 x 300, no bar, no walls */
static tl_render_options fixed(void) {
    tl_render_options o = tl_render_default();
    o.width = 400;
    o.height = 300;
    o.fit = false;
    o.center = (tl_vec3){0, 0, 0};
    o.extent = 2.0;
    o.color_bar = false;
    o.walls = false;
    return o;
}

static cairo_surface_t *draw(const tl_world *w, const tl_render_options *o, tl_render_view *v) {
    char err[512];
    cairo_surface_t *s = NULL;
    tl_status st = tl_render_surface(w, o, &s, v, NULL, err, sizeof err);
    if (st != TL_OK) fprintf(stderr, "render: %s\n", err);
    ENSURE(st == TL_OK && s);
    return s;
}

static double light_towards(void) {
    const double l[3] = {TL_RENDER_LIGHT_RIGHT, TL_RENDER_LIGHT_UP, TL_RENDER_LIGHT_TOWARDS};
    return l[2] / sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
}

/* A sphere where the projection puts it, coloured by z through the map at its value. */
static void test_sphere_place_and_colour(void) {
    int a, b;
    tl_world *w = new_world(&a, &b);
    add_sphere(w, a, 0.1, 0.3, 0.0, -0.2);
    tl_render_options o = fixed();
    o.color_by = "z";
    o.color_min = -1.0;
    o.color_max = 1.0;
    tl_render_view v;
    cairo_surface_t *s = draw(w, &o, &v);
    if (!s) return;
    /* 200 px per m; x to the right, z up: the centre at (200 + 60, 150 + 40) = pixel (260, 190) */
    ENSURE_NEAR(v.scale, 200.0, 1e-12);
    double px, py, depth;
    const double c[3] = {0.3, 0.0, -0.2};
    tl_render_project(&v, c, &px, &py, &depth);
    ENSURE_NEAR(px, 260.0, 1e-9);
    ENSURE_NEAR(py, 190.0, 1e-9);
    /* the centre pixel: the normal faces the camera, the light's share is its component towards it */
    double map[3];
    tl_render_colormap((-0.2 + 1.0) / 2.0, map);
    const double f = TL_RENDER_AMBIENT + TL_RENDER_DIFFUSE * light_towards();
    rgb8 p = pixel(s, 260, 190);
    ENSURE_NEAR(p.r, map[0] * f * 255.0, 4.0);
    ENSURE_NEAR(p.g, map[1] * f * 255.0, 4.0);
    ENSURE_NEAR(p.b, map[2] * f * 255.0, 4.0);
    /* its disc: 20 px of radius */
    ENSURE(!white(pixel(s, 260 + 17, 190)));
    ENSURE(!white(pixel(s, 260 - 18, 190)));
    ENSURE(!white(pixel(s, 260, 190 - 18)));
    ENSURE(white(pixel(s, 260 + 21, 190)));
    ENSURE(white(pixel(s, 260, 190 + 21)));
    ENSURE(white(pixel(s, 200, 150)));
    /* the lit side (upper left) brighter than the shadowed (lower right) */
    rgb8 ul = pixel(s, 260 - 8, 190 - 10), lr = pixel(s, 260 + 8, 190 + 10);
    ENSURE(ul.g > lr.g + 20);
    cairo_surface_destroy(s);
    /* seen along +x (up z): right is -y, so a sphere at y = 0.3 is drawn left of the centre */
    add_sphere(w, a, 0.1, 0.0, 0.3, 0.0);
    o.view = (tl_vec3){1, 0, 0};
    s = draw(w, &o, &v);
    if (s) {
        ENSURE(!white(pixel(s, 140, 150)));
        ENSURE(white(pixel(s, 260, 150)));
        cairo_surface_destroy(s);
    }
    tl_world_destroy(w);
}

/* category 0 is blue, 1 orange: which one covers a pixel */
static bool blue(rgb8 c) { return c.b > c.r + 30; }
static bool orange(rgb8 c) { return c.r > c.b + 60; }

static void test_depth_order(void) {
    int a, b;
    /* B behind A (the view looks along +y): where they overlap on screen, A shows */
    tl_world *w = new_world(&a, &b);
    add_sphere(w, b, 0.2, 0.15, 0.5, 0.0);
    add_sphere(w, a, 0.2, 0.0, 0.0, 0.0);
    tl_render_options o = fixed();
    cairo_surface_t *s = draw(w, &o, NULL);
    if (s) {
        ENSURE(blue(pixel(s, 200 + 20, 150)));  /* x = 0.1: both discs, A nearer */
        ENSURE(orange(pixel(s, 200 + 62, 150))); /* x = 0.31: B's alone */
        cairo_surface_destroy(s);
    }
    tl_world_destroy(w);
    /* the same with B in front, added first or last: B shows */
    for (int order = 0; order < 2; order++) {
        w = new_world(&a, &b);
        if (order) add_sphere(w, a, 0.2, 0.0, 0.0, 0.0);
        add_sphere(w, b, 0.2, 0.15, -0.5, 0.0);
        if (!order) add_sphere(w, a, 0.2, 0.0, 0.0, 0.0);
        s = draw(w, &o, NULL);
        if (s) {
            ENSURE(orange(pixel(s, 200 + 20, 150)));
            ENSURE(blue(pixel(s, 200 - 30, 150)));
            cairo_surface_destroy(s);
        }
        tl_world_destroy(w);
    }
    /* two spheres that overlap in space (a contact): A's centre nearer, yet at x = 0.15 B's
     * surface is nearer (depth -0.1436 against A's -0.1323), at x = 0.05 A's (-0.1936 against
     * B's -0.1436): a painter's order by centres would show A at both */
    w = new_world(&a, &b);
    add_sphere(w, a, 0.2, 0.0, 0.0, 0.0);
    add_sphere(w, b, 0.2, 0.1, 0.05, 0.0);
    s = draw(w, &o, NULL);
    if (s) {
        ENSURE(orange(pixel(s, 200 + 30, 150)));
        ENSURE(blue(pixel(s, 200 + 10, 150)));
        cairo_surface_destroy(s);
    }
    tl_world_destroy(w);
}

/* A cube (a mesh body) seen from above a corner: its three visible faces shaded in the order of
 * their normals' angle to the light, each as the law gives. */
static void test_cube(void) {
    int a, b;
    tl_world *w = new_world(&a, &b);
    const double h = 0.25;
    double xyz[8][3];
    for (int k = 0; k < 8; k++) {
        xyz[k][0] = (k & 1) ? h : -h;
        xyz[k][1] = (k & 2) ? h : -h;
        xyz[k][2] = (k & 4) ? h : -h;
    }
    /* counter-clockwise seen from outside */
    const uint32_t tri[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
    tl_shape_def sd = tl_shape_default();
    sd.kind = TL_SHAPE_MESH;
    sd.name = "cube";
    sd.source = TL_MESH_ARRAYS;
    sd.vertex_xyz = &xyz[0][0];
    sd.vertex_count = 8;
    sd.triangles = &tri[0][0];
    sd.triangle_count = 12;
    int shape = 0;
    ENSURE_OK(tl_world_add_shape(w, &sd, &shape));
    tl_particle_def p = tl_particle_default();
    p.material = a;
    p.shape = shape;
    uint32_t id;
    ENSURE_OK(tl_world_add_particle(w, &p, &id));
    tl_render_options o = fixed();
    o.color_by = "none";
    o.view = (tl_vec3){1.0, 1.6, -1.3}; /* from -x, -y, above: faces -x, -y, +z visible */
    tl_render_view v;
    cairo_surface_t *s = draw(w, &o, &v);
    if (!s) {
        tl_world_destroy(w);
        return;
    }
    const double n[3][3] = {{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}};
    double L[3] = {TL_RENDER_LIGHT_RIGHT, TL_RENDER_LIGHT_UP, TL_RENDER_LIGHT_TOWARDS};
    double ll = sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]);
    double expect[3];
    int got[3];
    for (int k = 0; k < 3; k++) {
        /* the normal in camera coordinates (right, up, towards), the factor of the law */
        double nr = 0, nu = 0, nf = 0;
        for (int c = 0; c < 3; c++) {
            nr += n[k][c] * v.right[c];
            nu += n[k][c] * v.up[c];
            nf += n[k][c] * v.fwd[c];
        }
        ENSURE(nf < 0.0); /* faces the camera */
        double d = (nr * L[0] + nu * L[1] - nf * L[2]) / ll;
        expect[k] = 255.0 * 0.62 * (TL_RENDER_AMBIENT + TL_RENDER_DIFFUSE * (d > 0 ? d : 0));
        double c3[3] = {n[k][0] * h, n[k][1] * h, n[k][2] * h}, px, py;
        tl_render_project(&v, c3, &px, &py, NULL);
        got[k] = pixel(s, (int)px, (int)py).g;
        ENSURE_NEAR(got[k], expect[k], 2.0);
    }
    /* the order of the faces' brightness is the order of their normals' angle to the light */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (expect[i] > expect[j] + 5.0) ENSURE(got[i] > got[j]);
    ENSURE(fabs(expect[0] - expect[1]) > 5.0 && fabs(expect[1] - expect[2]) > 5.0 &&
           fabs(expect[0] - expect[2]) > 5.0);
    /* nothing beyond the cube's outline: its projection lies within sqrt(3) h of the centre */
    ENSURE(white(pixel(s, 200 + (int)(1.8 * h * v.scale), 150)));
    cairo_surface_destroy(s);
    tl_world_destroy(w);
}

/* The cut's slab draws only the particles whose centre lies in it. */
static void test_cut(void) {
    int a, b;
    tl_world *w = new_world(&a, &b);
    add_sphere(w, a, 0.1, -0.3, 0.0, 0.0);
    add_sphere(w, a, 0.1, 0.3, 0.0, 0.0);
    add_sphere(w, a, 0.1, 0.0, 0.0, 0.0); /* its centre just outside the slab, its surface inside */
    tl_render_options o = fixed();
    cairo_surface_t *s = draw(w, &o, NULL);
    if (s) {
        ENSURE(!white(pixel(s, 140, 150)) && !white(pixel(s, 260, 150)) && !white(pixel(s, 200, 150)));
        cairo_surface_destroy(s);
    }
    o.cut = true;
    o.cut_point = (tl_vec3){0.3, 5.0, 0.0}; /* the slab across x: y of the point does not matter */
    o.cut_normal = (tl_vec3){2.0, 0.0, 0.0};
    o.cut_thickness = 0.5;                  /* x in [0.05, 0.55] */
    s = draw(w, &o, NULL);
    if (s) {
        ENSURE(white(pixel(s, 140, 150)));
        ENSURE(!white(pixel(s, 260, 150)));
        ENSURE(white(pixel(s, 200, 150)));
        cairo_surface_destroy(s);
    }
    tl_world_destroy(w);
}

/* antialias k: each pixel the mean of k x k samples; a pixel the sphere's edge halves is a blend
 * of the sphere and the background, where one sample per pixel gives one or the other */
static void test_antialias(void) {
    int a, b;
    tl_world *w = new_world(&a, &b);
    add_sphere(w, a, 0.1025, 0.3, 0.0, -0.2); /* 20.5 px about (260, 190): its edge at x = 239.5 */
    tl_render_options o = fixed();
    o.color_by = "none";
    cairo_surface_t *s1 = draw(w, &o, NULL);
    o.antialias = 2;
    cairo_surface_t *s2 = draw(w, &o, NULL);
    o.antialias = 4;
    cairo_surface_t *s4 = draw(w, &o, NULL);
    if (s1 && s2 && s4) {
        ENSURE(white(pixel(s1, 239, 190)));
        rgb8 in = pixel(s1, 241, 190), e2 = pixel(s2, 239, 190), e4 = pixel(s4, 239, 190);
        ENSURE(!white(e2) && e2.g > in.g + 40 && e2.b > in.b + 20);
        ENSURE(!white(e4) && e4.g > in.g + 40);
        /* inside, the samples about a pixel's centre average to about its colour */
        rgb8 c1 = pixel(s1, 260, 190), c2 = pixel(s2, 260, 190), c4 = pixel(s4, 260, 190);
        ENSURE(abs(c1.g - c2.g) <= 2 && abs(c1.g - c4.g) <= 2 && abs(c1.r - c4.r) <= 2);
        ENSURE(white(pixel(s2, 260 + 22, 190)) && white(pixel(s4, 200, 150)));
    }
    if (s1) cairo_surface_destroy(s1);
    if (s2) cairo_surface_destroy(s2);
    if (s4) cairo_surface_destroy(s4);
    char err[256];
    o.antialias = 5;
    ENSURE(tl_render_check(&o, err, sizeof err) == TL_ERROR_ARGUMENT && strstr(err, "antialias"));
    o.antialias = 2;
    o.width = o.height = 8192;
    ENSURE(tl_render_check(&o, err, sizeof err) == TL_ERROR_ARGUMENT && strstr(err, "antialias"));
    tl_world_destroy(w);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The PNG through a temporary name; a place that cannot hold it: a clear error, no file. */
static void test_files(const char *dir) {
    int a, b;
    tl_world *w = new_world(&a, &b);
    add_sphere(w, a, 0.1, 0.0, 0.0, 0.0);
    tl_render_options o = tl_render_default();
    o.width = 320;
    o.height = 200;
    char path[512], part[520];
    snprintf(path, sizeof path, "%s/one.png", dir);
    snprintf(part, sizeof part, "%s.part", path);
    ENSURE_OK(tl_world_render(w, path, &o));
    ENSURE(exists(path) && !exists(part));
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    ENSURE(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS);
    ENSURE(cairo_image_surface_get_width(s) == 320 && cairo_image_surface_get_height(s) == 200);
    cairo_surface_destroy(s);
    /* a folder that is a file: refused, nothing written */
    char bad[600], badpart[610];
    snprintf(bad, sizeof bad, "%s/one.png/two.png", dir);
    snprintf(badpart, sizeof badpart, "%s.part", bad);
    ENSURE(tl_world_render(w, bad, &o) == TL_ERROR_IO);
    ENSURE(strstr(tl_world_error(w), "two.png") != NULL);
    ENSURE(!exists(bad) && !exists(badpart));
    ENSURE(tl_world_render(w, "/nonexistent-talus-dir/x.png", &o) == TL_ERROR_IO);
    ENSURE(strstr(tl_world_error(w), "/nonexistent-talus-dir/x.png") != NULL);
    ENSURE(!exists("/nonexistent-talus-dir/x.png.part"));
    /* bad options: argument errors naming the option, no file */
    char p2[512];
    snprintf(p2, sizeof p2, "%s/bad.png", dir);
    tl_render_options e = o;
    e.width = 0;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "width"));
    e = o;
    e.height = 16385;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "height"));
    e = o;
    e.width = 16384;
    e.height = 16384;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "width x height"));
    e = o;
    e.color_by = "sped";
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "speed"));
    e = o;
    e.up = (tl_vec3){0, 2, 0};
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "up"));
    e = o;
    e.zoom = 0;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "zoom"));
    e = o;
    e.cut = true;
    e.cut_thickness = 0;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "thickness"));
    e = o;
    e.fit = false;
    e.extent = -1;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "extent"));
    e = o;
    e.color_min = 2;
    e.color_max = 1;
    ENSURE(tl_world_render(w, p2, &e) == TL_ERROR_ARGUMENT && strstr(tl_world_error(w), "range"));
    ENSURE(!exists(p2));
    tl_world_destroy(w);
}

/* ---- the image output in scenes ---- */

static const char *scene_head =
    "talus: 1\n"
    "name: picture\n"
    "gravity: [0, 0, -9.81]\n"
    "materials:\n"
    "  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}\n"
    "laws:\n"
    "  - {between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}\n"
    "walls:\n"
    "  - {type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}\n"
    "particles:\n"
    "  - {material: glass, radius: 0.01, position: [0, 0, 0.05]}\n"
    "  - {material: glass, radius: 0.01, position: [0.03, 0, 0.05]}\n"
    "stages:\n"
    "  - {name: fall, duration: 0.01}\n"
    "outputs:\n";

/* loads the scene with this output; the error's text when refused ("" when loaded) */
static tl_status load(const char *output, tl_scene **sc, char *msg, size_t size) {
    char text[4096];
    snprintf(text, sizeof text, "%s%s", scene_head, output);
    tl_scene_error err;
    memset(&err, 0, sizeof err);
    *sc = NULL;
    tl_status st = tl_scene_load_string(text, "pic.yaml", sc, &err);
    msg[0] = '\0';
    if (st != TL_OK) tl_scene_error_format(&err, msg, size);
    return st;
}

static void expect_refused(const char *output, const char *key, const char *word) {
    tl_scene *sc;
    char msg[2048];
    tl_status st = load(output, &sc, msg, sizeof msg);
    ENSURE(st == TL_ERROR_SCENE);
    if (sc) tl_scene_destroy(sc);
    bool ok = strstr(msg, "pic.yaml:16:") && strstr(msg, key) && strstr(msg, word);
    if (!ok) fprintf(stderr, "for %s: %s\n", output, msg);
    ENSURE(ok);
}

static void test_scene_keys(void) {
    expect_refused("  - {type: image, every: 0.005, width: 0}\n", "width", "1");
    expect_refused("  - {type: image, every: 0.005, width: 20000}\n", "width", "16384");
    expect_refused("  - {type: image, every: 0.005, width: 16384, height: 8192}\n", "height", "8192 x 8192");
    expect_refused("  - {type: image, every: 0.005, color_by: sped}\n", "color_by", "speed");
    expect_refused("  - {type: image, every: 0.005, camera: {view: [0, 0, 0]}}\n", "camera.view", "not zero");
    expect_refused("  - {type: image, every: 0.005, camera: {view: [0, 0, 1]}}\n", "camera", "up");
    expect_refused("  - {type: image, every: 0.005, camera: {center: [0, 0, 0]}}\n", "camera.center", "extent");
    expect_refused("  - {type: image, every: 0.005, camera: {zom: 2}}\n", "camera", "zoom");
    expect_refused("  - {type: image, every: 0.005, camera: fitted}\n", "camera", "auto");
    expect_refused("  - {type: image, every: 0.005, range: [1, 0]}\n", "range", "max > min");
    expect_refused("  - {type: image, every: 0.005, cut: {point: [0, 0, 0], normal: [0, 0, 0], thickness: 1}}\n",
                   "cut.normal", "not zero");
    expect_refused("  - {type: image, every: 0.005, cut: {point: [0, 0, 0], normal: [0, 0, 1]}}\n", "cut", "thickness");
    expect_refused("  - {type: image, every: 0.005, fps: 0}\n", "fps", "> 0");
    expect_refused("  - {type: image, every: 0.005, antialias: 5}\n", "antialias", "4");
    expect_refused("  - {type: image, every: 0.005, width: 8192, height: 8192, antialias: 2}\n", "antialias",
                   "antialias^2");
    expect_refused("  - {type: image, every: 0.005, movie: maybe}\n", "movie", "true");
    expect_refused("  - {type: image, file: end.png, every: 0.005}\n", "every", "one picture");
    expect_refused("  - {type: image, file: end.png, movie: true}\n", "movie", "folder");
}

/* a file ending in .png: one picture, of the end of the run */
static void test_single_picture(const char *dir) { /* dir: a short path */
    tl_scene *sc;
    char msg[2048];
    ENSURE_OK(load("  - {type: image, file: sub/end.png, width: 300, height: 200, color_by: z}\n", &sc, msg,
                   sizeof msg));
    if (!sc) {
        fprintf(stderr, "%s\n", msg);
        return;
    }
    tl_run_options ro = tl_run_options_default();
    ro.output_dir = dir;
    tl_run_summary sum;
    ENSURE_OK(tl_scene_run(sc, &ro, &sum));
    char p[700];
    snprintf(p, sizeof p, "%.600s/sub/end.png", dir);
    cairo_surface_t *s = cairo_image_surface_create_from_png(p);
    ENSURE(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS && cairo_image_surface_get_width(s) == 300);
    cairo_surface_destroy(s);
    snprintf(p, sizeof p, "%.600s/sub/end.png.part", dir);
    ENSURE(!exists(p));
    ENSURE(sum.files_written == 1);
    tl_scene_destroy(sc);
}

static int count_frames(const char *dir) {
    int n = 0;
    for (;; n++) {
        char p[600];
        snprintf(p, sizeof p, "%s/pics/pics_%06d.png", dir, n);
        if (!exists(p)) return n;
    }
}

static void run_scene(const char *dir, const char *path_env, bool want_movie) {
    tl_scene *sc;
    char msg[2048];
    ENSURE_OK(load("  - {type: image, file: pics, every: 0.0025, width: 200, height: 150, color_by: speed, "
                   "camera: {view: [0, 1, 0], zoom: 1.5}, movie: true, fps: 5}\n",
                   &sc, msg, sizeof msg));
    if (!sc) {
        fprintf(stderr, "%s\n", msg);
        return;
    }
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", path_env, 1);
    tl_run_options ro = tl_run_options_default();
    ro.output_dir = dir;
    tl_run_summary sum;
    ENSURE_OK(tl_scene_run(sc, &ro, &sum));
    if (old) setenv("PATH", old, 1);
    free(old);
    ENSURE(count_frames(dir) == 5); /* t = 0, 0.0025, ..., 0.01 */
    char p[600];
    snprintf(p, sizeof p, "%s/pics/pics_000004.png.part", dir);
    ENSURE(!exists(p));
    snprintf(p, sizeof p, "%s/pics.mp4", dir);
    ENSURE(exists(p) == want_movie);
    snprintf(p, sizeof p, "%s/pics.mp4.part", dir);
    ENSURE(!exists(p));
    snprintf(p, sizeof p, "%s/pics/pics_000004.png", dir);
    cairo_surface_t *s = cairo_image_surface_create_from_png(p);
    ENSURE(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS && cairo_image_surface_get_width(s) == 200);
    cairo_surface_destroy(s);
    tl_scene_destroy(sc);
}

static char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = NULL;
    *size = 0;
    size_t cap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (*size + n > cap) {
            cap = 2 * (*size + n);
            char *nb = realloc(b, cap);
            if (!nb) break;
            b = nb;
        }
        memcpy(b + *size, chunk, n);
        *size += n;
    }
    fclose(f);
    return b;
}

/* A run resumed from a checkpoint written between frames rewrites the frames after it as the
 * run never stopped wrote them, byte for byte: the fitted camera (fitted at frame 0, when the
 * spheres were higher) is taken back, not fitted again. */
static void test_resume(const char *dir) {
    char out[512], first[600], ck[700];
    snprintf(first, sizeof first, "%.500s/first", dir);
    snprintf(ck, sizeof ck, "%.500s/checkpoint", dir);
    const char *frames = "  - {type: image, file: pics, every: 0.002, width: 160, height: 120, color_by: z}\n";
    tl_scene *sc;
    char msg[2048];
    tl_run_options ro = tl_run_options_default();
    tl_run_summary sum;
    ENSURE_OK(load(frames, &sc, msg, sizeof msg)); /* how many steps the run has */
    if (!sc) return;
    ro.output_dir = first;
    ENSURE_OK(tl_scene_run(sc, &ro, &sum));
    tl_scene_destroy(sc);
    snprintf(out, sizeof out, "%scheckpoint: {every_steps: %lld}\n", frames, (long long)(sum.steps / 2 + 1));
    ENSURE_OK(load(out, &sc, msg, sizeof msg));
    if (!sc) return;
    ro.output_dir = dir;
    ENSURE_OK(tl_scene_run(sc, &ro, &sum));
    tl_scene_destroy(sc);
    char *bytes[16] = {NULL};
    size_t sizes[16] = {0};
    int n = 0;
    for (; n < 16; n++) {
        char p[800];
        snprintf(p, sizeof p, "%s/pics/pics_%06d.png", dir, n);
        if (!(bytes[n] = slurp(p, &sizes[n]))) break;
    }
    ENSURE(n == 6);
    ENSURE_OK(load(out, &sc, msg, sizeof msg));
    if (!sc) return;
    ro.resume = ck;
    tl_status st = tl_scene_run(sc, &ro, &sum);
    if (st != TL_OK) fprintf(stderr, "resume: %s\n", tl_scene_run_error(sc));
    ENSURE(st == TL_OK);
    tl_scene_destroy(sc);
    for (int k = 0; k < n; k++) {
        char p[800];
        size_t size;
        snprintf(p, sizeof p, "%s/pics/pics_%06d.png", dir, k);
        char *b = slurp(p, &size);
        bool same = b && size == sizes[k] && memcmp(b, bytes[k], size) == 0;
        if (!same) fprintf(stderr, "test_resume: frame %d differs after the resume\n", k);
        ENSURE(same);
        free(b);
        free(bytes[k]);
    }
    /* without the camera the frames were drawn with, the resume is refused before it starts */
    char cam[800];
    snprintf(cam, sizeof cam, "%s/pics/pics.camera", dir);
    ENSURE(exists(cam) && unlink(cam) == 0);
    ENSURE_OK(load(out, &sc, msg, sizeof msg));
    if (!sc) return;
    ENSURE(tl_scene_run(sc, &ro, &sum) != TL_OK);
    ENSURE(strstr(tl_scene_run_error(sc), "pics.camera") != NULL);
    tl_scene_destroy(sc);
}

static bool ffmpeg_here(void) { return access("/usr/bin/ffmpeg", X_OK) == 0; }

int main(void) {
    test_sphere_place_and_colour();
    test_depth_order();
    test_cube();
    test_cut();
    test_antialias();
    char dir[] = "/tmp/talus-render-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_files(dir);
    test_scene_keys();
    char out[600];
    snprintf(out, sizeof out, "%s/single", dir);
    test_single_picture(out);
    snprintf(out, sizeof out, "%s/resume", dir);
    test_resume(out);
    snprintf(out, sizeof out, "%s/no-ffmpeg", dir);
    run_scene(out, "/nonexistent-talus-bin", false); /* the run succeeds, the frames stay, no movie */
    if (ffmpeg_here()) {
        snprintf(out, sizeof out, "%s/ffmpeg", dir);
        run_scene(out, "/usr/bin:/bin", true);
    } else {
        fprintf(stderr, "test_render: /usr/bin/ffmpeg is not installed: the movie's own path not checked\n");
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tl_test_report("test_render");
}
