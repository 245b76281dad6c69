/*
 * The plot output's options (output_plot.c): the CSV output it draws. Its row in the table of
 * kinds (output_kinds.c) gives their size and its resolve step, which sets them once every
 * output of the scene was read.
 */
#ifndef TL_OUTPUT_PLOT_H
#define TL_OUTPUT_PLOT_H

#include <stddef.h>

#include "output_kind.h"

typedef struct tl_plot_options {
    int of; /* index of the CSV output it draws (-1 = the first energy output) */
} tl_plot_options;

int tl_resolve_plot_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *outs, size_t n, size_t i);

#endif
