/*
 * The outputs of a run: one tl_output per tl_output_spec of the scene, each
 * driven by run.c through the table of operations of its kind.
 *
 *   open    create what the output needs (every file as a .part)
 *   record  write one snapshot of the world now (time-series kinds)
 *   sync    after every chunk of steps (collisions: write the log)
 *   commit  make the files final (rename), at the end of a successful run
 *   abort   leave nothing under a final name and no .part (also after a
 *           commit, when a later output fails), and free
 *   release free, keeping the files (after every output committed)
 *   save    for a checkpoint: what it must find again to continue (CSV: its
 *           file flushed to disk, the length and checksum of its bytes)
 *   resume_check  before a resumed run changes anything: can it continue
 *           (are the files the checkpoint counts on there, with those bytes)
 *
 * A resumed run sets o->resume before open: the output continues from the
 * saved state instead of starting afresh (CSV: the bytes written by the
 * checkpoint, then appending; vtk: the frames written by then).
 *
 * Kinds: energy, particles, contacts, collisions (output_csv.c), vtk
 * (output_vtk.c), plot (output_plot.c), image (output_image.c); the table of kinds is output_kinds.c,
 * the CSV columns csv_columns.c. See docs/outputs.md for the files.
 */
#ifndef TL_OUTPUTS_H
#define TL_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "energy_table.h"
#include "io_file.h"
#include "output_spec.h"
#include "talus/talus.h"

typedef struct tl_output tl_output;

/* What every output of a run shares. */
typedef struct tl_output_context {
    tl_world *world;
    const char *dir;         /* the output directory */
    const char *title;       /* the scene's title (plot titles) */
    tl_output *outputs;      /* every output of the run */
    size_t noutputs;
    tl_energy energy0;       /* at the start of the run */
    double energy_scale;     /* see tl_energy_scale_update */
    char *err;               /* where a failure is described */
    size_t errsize;
} tl_output_context;

/* What a checkpoint keeps of an output (run_checkpoint.c stores it). */
typedef struct tl_output_saved {
    int64_t records;
    uint64_t length;        /* CSV: bytes of its file at the checkpoint */
    uint64_t hash;          /* CSV: FNV-1a 64 of those bytes */
    bool log_was_enabled;   /* collisions: the world's log state before the run */
    size_t nframes;         /* vtk: frames written */
    const double *times;    /* vtk: their times (nframes) */
} tl_output_saved;

typedef struct tl_output_ops {
    const char *name;        /* "energy", "particles", ... */
    bool time_series;        /* recorded at its intervals (and at t = 0 and the end) */
    bool after_commit;       /* committed after every other output (plot) */
    bool distributed;        /* on several ranks: opened, recorded and aborted on every rank, each
                              * writing its own part (vtk: pieces); the others on rank 0 alone */
    tl_status (*open)(tl_output *o);
    tl_status (*record)(tl_output *o);   /* NULL: none */
    tl_status (*sync)(tl_output *o);     /* NULL: none */
    tl_status (*commit)(tl_output *o);
    void (*abort)(tl_output *o);         /* also frees; safe after a failed open */
    void (*release)(tl_output *o);       /* frees, keeping the files */
    tl_status (*save)(tl_output *o, tl_output_saved *out); /* NULL: the record count only */
    tl_status (*resume_check)(tl_output *o, const tl_output_saved *in); /* NULL: none */
} tl_output_ops;

struct tl_output {
    const tl_output_spec *spec;
    const tl_output_ops *ops;
    tl_output_context *ctx;
    int index;               /* in the scene's list */
    char *path;              /* full path of the file (vtk: of the .pvd; plot: of the .png) */
    tl_file file;            /* the CSV being written */
    int64_t records;         /* records (CSV: rows) written */
    int files_written;       /* final files it made (after commit) */
    bool log_was_enabled;    /* collisions: the world's log state before the run */
    struct tl_vtk_state *vtk; /* vtk: frames written so far */
    struct tl_image_state *image; /* image: frames written so far, the camera */
    /* checkpoints */
    const tl_output_saved *resume; /* set while a resumed run opens it */
    bool resume_part;        /* CSV: continue its own .part (else copy the final file) */
    uint64_t hashed, hash;   /* CSV: bytes of the file checksummed so far, their FNV-1a 64 */
};

/* The operations of an output kind (NULL for an unknown kind). Each output
 * file provides its own; the table of kinds (output_kinds.c) names them. */
const tl_output_ops *tl_csv_ops(tl_output_kind kind); /* energy, particles, contacts, collisions, walls, repose */
const tl_output_ops *tl_vtk_ops(tl_output_kind kind);
const tl_output_ops *tl_plot_ops(tl_output_kind kind);
const tl_output_ops *tl_image_ops(tl_output_kind kind);

const tl_output_ops *tl_output_ops_of(tl_output_kind kind); /* output_kinds.c */

/* The scale the energy balance error is measured against: the largest
 * magnitude any term of the balance has reached (the running maximum over the
 * records, starting from the initial state e0), every term measured so that
 * it does not depend on where the scene sits: the potential energy as its
 * change since the start, never its value from the coordinate origin (which
 * would grow with the distance of the scene from the origin and shrink the
 * reported error with it). */
static inline double tl_energy_scale_update(double scale, const tl_energy *e, const tl_energy *e0) {
    /* the kinetic, elastic and dissipated terms each summed (laws/energy_table.h), the potential as
     * its change, each booked work and residual alone */
    const double sums[3] = {tl_energy_kind_sum(e, TL_ENERGY_KIND_KINETIC), tl_energy_kind_sum(e, TL_ENERGY_KIND_ELASTIC),
                            tl_energy_kind_sum(e, TL_ENERGY_KIND_DISSIPATED)};
    if (!(scale > 1e-300)) scale = 1e-300;
    for (int k = 0; k < 3 + TL_ENERGY_TERM_COUNT; k++) {
        double t;
        if (k < 3) t = sums[k];
        else {
            const tl_energy_kind kind = tl_energy_term_get(k - 3)->kind;
            if (kind == TL_ENERGY_KIND_KINETIC || kind == TL_ENERGY_KIND_ELASTIC || kind == TL_ENERGY_KIND_DISSIPATED)
                continue;
            t = kind == TL_ENERGY_KIND_POTENTIAL ? e->term[k - 3] - e0->term[k - 3] : e->term[k - 3];
        }
        double a = t < 0.0 ? -t : t;
        if (a > scale) scale = a;
    }
    return scale;
}

#endif
