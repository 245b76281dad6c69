/*
 * The table of output kinds (output_kinds.c): one row per kind, the scene's name for it, its
 * default file, its own keys and how they are read, and its operations (outputs.h). The scene
 * loader reads an output's `type:` through this table and hands the kind's own keys to the
 * kind's reader, so that an output kind lives in its file (ops and reader) plus its row here
 * (docs/contributing.md).
 */
#ifndef TL_OUTPUT_KINDS_H
#define TL_OUTPUT_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "output_kind.h"

/* The row of a kind (NULL: none), the number of kinds (rows 0 .. count-1 are the kinds in the
 * order of tl_output_kind). */
const tl_output_kind_def *tl_output_kind_def_of(tl_output_kind kind);
size_t tl_output_kind_count(void);
/* Frees an output's options (spec->opts) and what they own, by its kind's row. */
void tl_output_options_free(tl_output_spec *o);

#endif
