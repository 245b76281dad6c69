/*
 * Pictures of the world (tl_world_render, the scene's image output: docs/outputs.md, "image").
 *
 * An orthographic software rasteriser with a depth buffer, drawing into a cairo image surface:
 * a sphere's depth and normal are computed exactly at every pixel it covers, an ellipsoid is
 * ray-cast exactly per pixel from its pose and semi-axes, a mesh body is drawn as its triangles
 * (flat-shaded facets); the nearest surface wins at every pixel, so bodies that overlap (a DEM
 * contact's few microns) or interpenetrate are drawn right, which a painter's order of discs is
 * not. Shading is Lambert plus ambient: colour x (TL_RENDER_AMBIENT + TL_RENDER_DIFFUSE max(0,
 * n . L)), L the light direction below. Cairo then strokes the walls' outlines, draws the colour
 * bar and its labels and encodes the PNG.
 *
 * Camera coordinates: right, up (the image's x to the right and y upwards) and the viewing
 * direction fwd (into the picture); a point p is drawn at pixel
 *   px = area_width / 2 + (p . right - cr) scale,  py = height / 2 - (p . up - cu) scale
 * (pixel centres at integer + 0.5), its depth p . fwd - depth0 (smaller is nearer).
 */
#ifndef TL_RENDER_H
#define TL_RENDER_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "talus/talus.h"

#define TL_RENDER_AMBIENT 0.3
#define TL_RENDER_DIFFUSE 0.7
/* the light's direction in camera coordinates (right, up, towards the camera), before
 * normalisation: from the upper left, in front */
#define TL_RENDER_LIGHT_RIGHT (-0.35)
#define TL_RENDER_LIGHT_UP 0.5
#define TL_RENDER_LIGHT_TOWARDS 1.0

/* The quantities a particle can be coloured by (tl_render_options.color_by). */
typedef enum tl_render_field {
    TL_RF_MATERIAL = 0, TL_RF_ID, TL_RF_SHAPE, TL_RF_RADIUS, TL_RF_SPEED, TL_RF_ANGULAR_SPEED,
    TL_RF_FORCE, TL_RF_TORQUE, TL_RF_KINETIC_ENERGY, TL_RF_X, TL_RF_Y, TL_RF_Z, TL_RF_NONE, TL_RF_COUNT
} tl_render_field;

/* The field's name (as color_by spells it) and its unit ("" when none). */
const char *tl_render_field_name(tl_render_field f);
const char *tl_render_field_unit(tl_render_field f);
/* The field named `name` (NULL: material); -1 when unknown. */
int tl_render_field_find(const char *name);

/* Where the camera is: what tl_render_surface drew with. */
typedef struct tl_render_view {
    int width, height;       /* the image, pixels */
    int area_width;          /* the drawing's width (the rest, at the right, holds the colour bar) */
    double right[3], up[3], fwd[3];
    double cr, cu;           /* the centre's coordinates along right and up, m */
    double depth0;           /* the centre's along fwd, m */
    double scale;            /* pixels per m */
} tl_render_view;

/* Checks the options: TL_ERROR_ARGUMENT with a message naming the option and what it takes. */
tl_status tl_render_check(const tl_render_options *o, char *err, size_t errsize);

/* The fitted view: the centre of the particles' and the finite walls' box and the width of the
 * drawing that shows all of it seen along o->view (before o->zoom), as tl_render_surface fits. */
void tl_render_fit(const tl_world *w, const tl_render_options *o, tl_vec3 *center, double *extent);

/* The camera of a drawing with these options (fit: fitted to the world now). */
void tl_render_view_of(const tl_world *w, const tl_render_options *o, tl_render_view *view);

/* The pixel (fractional, pixel centres at + 0.5) where p is drawn, and its depth. */
void tl_render_project(const tl_render_view *v, const double p[3], double *px, double *py, double *depth);

/* The colour map of the continuous fields at t in [0, 1] (clamped): rgb in [0, 1]. */
void tl_render_colormap(double t, double rgb[3]);
/* The colour of category k (material, shape): rgb in [0, 1]. */
void tl_render_category(int k, double rgb[3]);

/* Draws the world into a new cairo RGB24 image surface (*out; cairo_surface_destroy it) with the
 * options (checked first); *view (may be NULL) is the camera it used, *range (may be NULL) the
 * colour map's range. On failure *out is NULL and err says why. */
tl_status tl_render_surface(const tl_world *w, const tl_render_options *o, cairo_surface_t **out,
                            tl_render_view *view, double range[2], char *err, size_t errsize);

/* Encodes the surface as a PNG written to path through path.part (renamed when whole). */
tl_status tl_render_write_png(cairo_surface_t *s, const char *path, char *err, size_t errsize);

#endif
