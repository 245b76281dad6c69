/*
 * The table of output kinds (output_kinds.h): a row per kind, in the order of tl_output_kind.
 * The output files do not call one another; the scene loader and run.c reach them through it.
 */
#include "output_kinds.h"

#include <stdlib.h>

#include "csv_options.h"
#include "output_image.h"
#include "output_plot.h"

static const char *const particle_keys[] = {"ids", "fields", NULL};
static const char *const plot_keys[] = {"of", NULL};
static const char *const wall_keys[] = {"walls", "torque_about", NULL};
static const char *const repose_keys[] = {"axis", "point", "material", "bin_width", "trim", NULL};
static const char *const image_keys[] = {"width", "height", "antialias", "camera", "color_by", "range",
                                         "color_bar", "walls", "cut", "movie", "fps", NULL};

static const tl_output_kind_def kinds[] = {
    [TL_OUTPUT_ENERGY] = {.name = "energy", .default_file = "energy.csv", .series = true, .csv = true,
                          .ops = tl_csv_ops},
    [TL_OUTPUT_PARTICLES] = {.name = "particles", .default_file = "particles.csv", .series = true, .csv = true,
                             .keys = particle_keys, .opts_size = sizeof(tl_particles_options),
                             .drop = tl_drop_particles_options, .read = tl_read_particles_output,
                             .ops = tl_csv_ops},
    [TL_OUTPUT_CONTACTS] = {.name = "contacts", .default_file = "contacts.csv", .series = true, .csv = true,
                            .ops = tl_csv_ops},
    [TL_OUTPUT_VTK] = {.name = "vtk", .default_file = "frames", .series = true, .also_claims = ".pvd",
                       .ops = tl_vtk_ops},
    [TL_OUTPUT_COLLISIONS] = {.name = "collisions", .default_file = "collisions.csv", .csv = true,
                              .ops = tl_csv_ops},
    [TL_OUTPUT_PLOT] = {.name = "plot", .default_file = "energy.png", .also_claims = ".gp", .keys = plot_keys,
                        .opts_size = sizeof(tl_plot_options), .resolve = tl_resolve_plot_output,
                        .ops = tl_plot_ops},
    [TL_OUTPUT_WALLS] = {.name = "walls", .default_file = "walls.csv", .series = true, .csv = true,
                         .keys = wall_keys, .opts_size = sizeof(tl_walls_options), .drop = tl_drop_walls_options,
                         .read = tl_read_walls_output, .ops = tl_csv_ops},
    [TL_OUTPUT_REPOSE] = {.name = "repose", .default_file = "repose.csv", .series = true, .csv = true,
                          .keys = repose_keys, .opts_size = sizeof(tl_repose_def), .read = tl_read_repose_output,
                          .ops = tl_csv_ops},
    [TL_OUTPUT_IMAGE] = {.name = "image", .default_file = "images", .series = true, .also_claims = ".mp4",
                         .keys = image_keys, .opts_size = sizeof(tl_image_options), .drop = tl_drop_image_options,
                         .read = tl_read_image_output, .ops = tl_image_ops},
};

size_t tl_output_kind_count(void) { return sizeof kinds / sizeof kinds[0]; }

const tl_output_kind_def *tl_output_kind_def_of(tl_output_kind kind) {
    return (size_t)kind < tl_output_kind_count() && kinds[kind].name ? &kinds[kind] : NULL;
}

const tl_output_ops *tl_output_ops_of(tl_output_kind kind) {
    const tl_output_kind_def *d = tl_output_kind_def_of(kind);
    return d ? d->ops(kind) : NULL;
}

void tl_output_options_free(tl_output_spec *o) {
    if (!o->opts) return;
    const tl_output_kind_def *d = tl_output_kind_def_of(o->kind);
    if (d && d->drop) d->drop(o->opts);
    free(o->opts);
    o->opts = NULL;
}
