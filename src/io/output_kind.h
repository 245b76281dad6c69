/*
 * What an output kind is (the row of the table of kinds, output_kinds.c) and what its reader
 * may ask of the scene. A kind's file (its operations and the reader of its own keys) includes
 * this header; the table includes the kinds' files' declarations, so the files never call the
 * table that names them.
 */
#ifndef TL_OUTPUT_KIND_H
#define TL_OUTPUT_KIND_H

#include <stdbool.h>
#include <stddef.h>

#include "output_spec.h"
#include "outputs.h"
#include "yaml_doc.h"

/* What a kind's reader may ask of the scene being read (scene/scene.c provides it). */
typedef struct tl_output_reader {
    const tl_ydoc *doc;     /* the scene file, for the messages */
    tl_world *world;        /* the world as far as the scene built it (particles, walls, shapes) */
    tl_vec3 gravity;        /* the scene's gravity */
    void *scene;            /* the loader, for the calls below */
    /* a material or a wall named by v (-1 after a message that names the key) */
    int (*material)(void *scene, const tl_yval *v, int *index);
    int (*wall)(void *scene, const tl_yval *v, int *index);
    int (*out_of_memory)(void *scene);
    /* the row of a kind (the table, output_kinds.c; passed down so that a kind's file need not
     * call the table that names it) */
    const struct tl_output_kind_def *(*kind_of)(tl_output_kind kind);
} tl_output_reader;

typedef struct tl_output_kind_def {
    const char *name;          /* the scene's `type:` */
    const char *default_file;  /* relative to the output directory; vtk: a base name */
    bool series;               /* recorded at intervals: takes every / every_steps */
    bool csv;                  /* writes one CSV file (a plot can draw it) */
    const char *also_claims;   /* a second name it writes, its file plus this suffix, or NULL */
    const char *const *keys;   /* its own keys besides type, file, every, every_steps (NULL-ended) */
    /* its options (its struct, in its file's header): the bytes the scene loader allocates,
     * zeroed, as spec->opts before its reader and resolve step (0: none, opts NULL) */
    size_t opts_size;
    /* frees what its options own (NULL: nothing beyond the struct itself) */
    void (*drop)(void *opts);
    /* reads its own keys into o (NULL: none); -1 after a message */
    int (*read)(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o);
    /* after every output of the scene was read: ties o (outs[i]) to the others (NULL: none) */
    int (*resolve)(const tl_output_reader *r, const tl_yval *e, tl_output_spec *outs, size_t n, size_t i);
    const tl_output_ops *(*ops)(tl_output_kind kind);
} tl_output_kind_def;

#endif
