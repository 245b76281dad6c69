/* The cases of `talus validate`, one function per source paper. Each writes
 * its section of the report and returns 0, -1 when it could not run, or 1 when
 * it stopped at --stop-after with its runs saved to go on later. */
#ifndef TALUS_APP_VALIDATE_H
#define TALUS_APP_VALIDATE_H

#include <stdbool.h>

#include "report.h"
#include "talus/scene.h"
#include "talus/talus.h"

typedef struct validate_opts {
    bool quick; /* a short subset (what `make test` runs) */
    bool long_runs; /* --long: also the cases that take hours (004 section 4, glass beads) */
    int threads;    /* --threads N: threads of the many-particle runs (direct shear); 1 by default */
    double stop_at; /* --stop-after S: the monotonic clock's time at which runs that can go on
                     * later save where they are and stop (0: none); such a section returns 1 */
    int mesh_seeds; /* --mesh-seeds N: the meshed Brazil nut's seeds per law (1 to 3; default 3) */
} validate_opts;

int validate_ray_table1(report *r, const validate_opts *o);
int validate_ray_lambda(report *r, const validate_opts *o);
int validate_wang_spheres(report *r, const validate_opts *o);
int validate_li_kharaz(report *r, const validate_opts *o);
int validate_li_facets(report *r, const validate_opts *o); /* 000 3.1 on faceted spheres (validate_facets.c) */

/* The Kharaz impact of 000 section 3.1 for the lab: model 0..3 = M1..M4, the impact
 * angle in degrees, the moduli times soften, the step (validate_li.c). */
tl_collide_def validate_kharaz_def(int model, double theta_deg, double soften, double dt);
int validate_shear(report *r, const validate_opts *o);    /* 004: direct shear (validate_shear.c) */
int validate_shear_glass(report *r, const validate_opts *o); /* 004 section 4: glass beads (--long) */
int validate_sediment(report *r, const validate_opts *o); /* 003 6.2: sedimentation (validate_sediment.c) */
int validate_chains(report *r, const validate_opts *o);   /* 002 3.6, 4: granular chains (validate_chain.c) */
int validate_bounce(report *r, const validate_opts *o);   /* 002 3.6: bouncing ball (validate_bounce.c) */
int validate_drum(report *r, const validate_opts *o);     /* a rotating drum, --long (validate_drum.c) */
int validate_brazil(report *r, const validate_opts *o);   /* 000 3.2: the Brazil nut, --long (validate_brazil.c) */
int validate_brazil_meshes(report *r, const validate_opts *o); /* the same with meshed bodies, --long */
int validate_brazil_shaken(report *r, const validate_opts *o); /* the box shaken vertically, --long */
int validate_cycle(report *r, const validate_opts *o); /* issue 44: a contact's load cycle (validate_cycle.c) */
int validate_held(report *r, const validate_opts *o); /* issue 44: a held bed's energy, --long (validate_held.c) */
int validate_agglomerate(report *r, const validate_opts *o); /* issue 46: an agglomerate's break-up (validate_agglomerate.c) */

/* A scene from YAML text (path: its name, and the folder its files are found in); a
 * refusal is written into the report under `label`, and NULL returned. */
tl_scene *validate_scene(report *r, const char *text, const char *path, const char *label);

/* The largest magnitude among the ledger's terms: the scale a balance is measured against. */
double validate_largest_term(const tl_energy *e);

/* A picture of a world as it is now (tl_world_render, docs/outputs.md), written next to the
 * report as `png` (through a temporary name) and embedded later by report_picture_embed. Nothing
 * for a report on a stream or without figures; the renderer's error is said on stderr. Touches no
 * field of r: callable from a parallel run. */
void report_picture(const report *r, tl_world *w, const char *png, const tl_render_options *ro);

/* A steel-like material definition for the lab. */
tl_material_def validate_material(const char *name, double density, double E, double nu,
                                  double yield);

#endif
